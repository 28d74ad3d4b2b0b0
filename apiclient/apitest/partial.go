package apitest

import (
	"net/http"
	"strings"
)

// A client that asks for PartialObjectMetadata (apiclient.ResourceClient.MetadataOnly,
// client-go's metadata client) gets what kube-apiserver sends it: every object cut
// down to kind PartialObjectMetadata, apiVersion meta.k8s.io/v1 and its metadata,
// in a PartialObjectMetadataList for a LIST (whose items, unlike a plain LIST's,
// carry kind and apiVersion) and in watch events. Writes are answered in full.

// wantsMetadataOnly reports whether r's Accept header asks for PartialObjectMetadata
// or PartialObjectMetadataList.
func wantsMetadataOnly(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadata")
}

// partial is o as a PartialObjectMetadata.
func partial(o object) object {
	return object{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": o["metadata"]}
}

// partialJSON is partial for an object in JSON; data that is not an object is
// returned as it is.
func partialJSON(data []byte) []byte {
	var o object
	if err := decodeJSON(data, &o); err != nil {
		return data
	}
	return marshal(partial(o))
}
