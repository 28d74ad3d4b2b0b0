package webhook

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/crd"
)

// Conversion goes through a hub, as controller-runtime's Hub and Convertible
// do: one version (the Hub type, often the storage version) is the one every
// other converts to and from, so n versions need 2(n-1) functions rather than
// n(n-1). A Spoke is one version that is not the hub, with its two functions.
//
//	webhook.Convert(s, siteCRD, webhook.Spoke(siteV1ToV2, siteV2ToV1))
//
// What a conversion may change is the server's rule: everything but
// metadata, and of metadata only labels and annotations (where a version
// keeps what another cannot say, so that a round trip loses nothing). The
// rest of metadata is carried over from the object sent, byte for byte, and
// members the Go types do not declare are lost, as everywhere a Go type reads
// an object.

// Spoked is one version that converts through the hub Hub; Spoke makes it.
type Spoked[Hub any] struct {
	version string
	toHub   func(raw []byte) (*Hub, error)
	fromHub func(*Hub) (any, error)
}

// Spoke is version V (its Resource's) converting to the hub by up and back
// by down. Each fills its second argument, a zero value, from its first.
func Spoke[V any, PV interface {
	*V
	apiclient.TypedObject
}, Hub any](up func(from *V, to *Hub) error, down func(from *Hub, to *V) error) Spoked[Hub] {
	return Spoked[Hub]{
		version: PV(new(V)).Resource().Version,
		toHub: func(raw []byte) (*Hub, error) {
			v, hub := new(V), new(Hub)
			if err := apiclient.Unmarshal(raw, v); err != nil {
				return nil, err
			}
			return hub, up(v, hub)
		},
		fromHub: func(hub *Hub) (any, error) {
			v := new(V)
			return v, down(hub, v)
		},
	}
}

// conversion is one CRD's conversion webhook, with the types erased.
type conversion struct {
	crd  *crd.CustomResourceDefinition
	path string
	// convert turns one object (its JSON) into version ("v2").
	convert func(raw []byte, from, to string) (any, error)
}

// Convert registers the conversion webhook of c, a CRD of several versions
// (crd.New's): Hub's version is the hub, each spoke one other version. The
// Server serves it at /convert/NAME and sets c's spec.conversion on the
// server when it starts (strategy Webhook, its caBundle,
// conversionReviewVersions v1). Every version of c must be the hub or a
// spoke; Convert panics otherwise, a programmer's error found at start.
func Convert[Hub any, PH interface {
	*Hub
	apiclient.TypedObject
}](s *Server, c *crd.CustomResourceDefinition, spokes ...Spoked[Hub]) {
	hubVersion := PH(new(Hub)).Resource().Version
	byVersion := map[string]Spoked[Hub]{}
	for _, sp := range spokes {
		byVersion[sp.version] = sp
	}
	for _, v := range c.Spec.Versions {
		if _, ok := byVersion[v.Name]; !ok && v.Name != hubVersion {
			panic(fmt.Sprintf("webhook: Convert %s: version %s is neither the hub (%s) nor a spoke", c.Name, v.Name, hubVersion))
		}
	}
	convert := func(raw []byte, from, to string) (any, error) {
		var hub *Hub
		if from == hubVersion {
			hub = new(Hub)
			if err := apiclient.Unmarshal(raw, hub); err != nil {
				return nil, err
			}
		} else {
			sp, ok := byVersion[from]
			if !ok {
				return nil, fmt.Errorf("version %q is not served by this webhook", from)
			}
			var err error
			if hub, err = sp.toHub(raw); err != nil {
				return nil, fmt.Errorf("%s to %s: %w", from, hubVersion, err)
			}
		}
		if to == hubVersion {
			return hub, nil
		}
		sp, ok := byVersion[to]
		if !ok {
			return nil, fmt.Errorf("version %q is not served by this webhook", to)
		}
		out, err := sp.fromHub(hub)
		if err != nil {
			return nil, fmt.Errorf("%s to %s: %w", hubVersion, to, err)
		}
		return out, nil
	}
	s.addConversion(conversion{crd: c, path: "/convert/" + c.Name, convert: convert})
}

// review answers a ConversionReview's request: every object converted, or a
// Failure that says which one failed and why.
func (c conversion) review(req *ConversionRequest) *ConversionResponse {
	resp := &ConversionResponse{UID: req.UID, ConvertedObjects: make([]json.RawMessage, 0, len(req.Objects))}
	group, to, ok := strings.Cut(req.DesiredAPIVersion, "/")
	if !ok || group != c.crd.Spec.Group {
		resp.ConvertedObjects, resp.Result = nil, apiclient.Status{Status: "Failure", Message: fmt.Sprintf("desiredAPIVersion %q is not a version of %s", req.DesiredAPIVersion, c.crd.Name)}
		return resp
	}
	for i, raw := range req.Objects {
		out, err := c.one(raw, req.DesiredAPIVersion, to)
		if err != nil {
			resp.ConvertedObjects, resp.Result = nil, apiclient.Status{Status: "Failure", Message: fmt.Sprintf("object %d: %v", i, err)}
			return resp
		}
		resp.ConvertedObjects = append(resp.ConvertedObjects, out)
	}
	resp.Result = apiclient.Status{Status: "Success"}
	return resp
}

// one converts one object to apiVersion (of version to): the converted
// value's members, the kind and metadata sent, the labels and annotations
// the conversion left.
func (c conversion) one(raw json.RawMessage, apiVersion, to string) (json.RawMessage, error) {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil || in == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	var tm apiclient.TypeMeta
	json.Unmarshal(raw, &tm) // a member that is not a string leaves it "": refused below
	group, from, ok := strings.Cut(tm.APIVersion, "/")
	if !ok || group != c.crd.Spec.Group {
		return nil, fmt.Errorf("apiVersion %q is not a version of %s", tm.APIVersion, c.crd.Name)
	}
	if tm.APIVersion == apiVersion {
		return raw, nil
	}
	value, err := c.convert(raw, from, to)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("the converted value is not a JSON object")
	}
	meta, err := keptMetadata(in["metadata"], out["metadata"])
	if err != nil {
		return nil, err
	}
	out["apiVersion"], out["kind"] = mustJSON(apiVersion), in["kind"]
	if meta != nil {
		out["metadata"] = meta
	} else {
		delete(out, "metadata")
	}
	return json.Marshal(out)
}

// keptMetadata is the metadata sent with the labels and annotations of the
// converted metadata in place of its own.
func keptMetadata(sent, converted json.RawMessage) (json.RawMessage, error) {
	if len(sent) == 0 {
		return nil, nil
	}
	var m, conv map[string]json.RawMessage
	if err := json.Unmarshal(sent, &m); err != nil {
		return nil, fmt.Errorf("metadata is not a JSON object")
	}
	if m == nil {
		return sent, nil
	}
	if len(converted) > 0 {
		if err := json.Unmarshal(converted, &conv); err != nil {
			return nil, fmt.Errorf("the converted metadata is not a JSON object")
		}
	}
	for _, k := range []string{"labels", "annotations"} {
		if v, ok := conv[k]; ok && string(v) != "null" && string(v) != "{}" {
			m[k] = v
		} else {
			delete(m, k)
		}
	}
	return json.Marshal(m)
}
