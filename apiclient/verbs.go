package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
)

// ResourceClient makes the REST calls for one resource, in one namespace or in all
// (or for a cluster-scoped resource). It is a small value built by Client.Resource
// and is safe for concurrent use.
//
// Its methods are the API's verbs; each builds a request and hands it to do:
//
//	Get     GET    …/pods/NAME
//	List    GET    …/pods?limit=&continue=
//	Watch   GET    …/pods?watch=true
//	Create  POST   …/pods
//	Update  PUT    …/pods/NAME
//	Patch   PATCH  …/pods/NAME
//	Delete  DELETE …/pods/NAME
type ResourceClient struct {
	c   *Client
	res Resource
	ns  string
	// metadataOnly asks Get, List and Watch for PartialObjectMetadata (see
	// MetadataOnly).
	metadataOnly bool
}

// Resource returns a client for res across all namespaces (or for a
// cluster-scoped resource); narrow it with Namespace.
func (c *Client) Resource(res Resource) ResourceClient {
	return ResourceClient{c: c, res: res}
}

// Namespace returns the same client narrowed to namespace ns.
func (r ResourceClient) Namespace(ns string) ResourceClient {
	r.ns = ns
	return r
}

// AllNamespaces reports whether r reads a namespaced resource in every
// namespace at once: a list that could be read one namespace at a time, as
// listwatch splits a large one.
func (r ResourceClient) AllNamespaces() bool { return r.ns == "" && r.res.Namespaced }

// Client is the Client r sends its requests through.
func (r ResourceClient) Client() *Client { return r.c }

// MetadataOnly returns the same client, but Get, List and Watch ask the server for
// each object's metadata alone: kind PartialObjectMetadata, apiVersion
// meta.k8s.io/v1, and the object's metadata — no spec, no status. The server does
// the cutting (it is asked with the Accept header below), so what crosses the wire
// and what a cache keeps is a few hundred bytes an object instead of kilobytes. It
// works for every resource, custom ones included. Writes are unchanged.
//
// This is client-go's metadata client (k8s.io/client-go/metadata) and
// controller-runtime's OnlyMetadata; kube-rs calls it metadata_watcher.
func (r ResourceClient) MetadataOnly() ResourceClient {
	r.metadataOnly = true
	return r
}

// The Accept headers of a metadata-only client. The server answers with
// PartialObjectMetadataList to a LIST and PartialObjectMetadata objects to a GET and
// in watch events; there is no fallback to whole objects, so a server that cannot
// (none since Kubernetes 1.15) answers 406 Not Acceptable, which is an error here.
const (
	metadataAccept     = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
	metadataListAccept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
)

// accept is the Accept header for a read of one object (list false) or of a list.
func (r ResourceClient) accept(list bool) string {
	switch {
	case !r.metadataOnly:
		return ""
	case list:
		return metadataListAccept
	default:
		return metadataAccept
	}
}

// Get reads one object, or with a subresource ("status", "scale") that view of it.
func (r ResourceClient) Get(ctx context.Context, name string, subresource ...string) (*Object, error) {
	return r.call(ctx, r.request("GET", name, subresource, request{accept: r.accept(false)}))
}

// Create sends obj — an *Object, a struct of your own, a map, or JSON bytes — and
// returns what the server stored. The namespace is the client's, else obj's.
func (r ResourceClient) Create(ctx context.Context, obj any, opts WriteOptions) (*Object, error) {
	body, meta, err := encode(obj)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", r.res, err)
	}
	rc := r.inNamespace(meta.Namespace)
	return rc.write(ctx, rc.request("POST", "", nil, request{query: opts.values(), body: body}), meta.Name, nil)
}

// Update replaces the object named by obj's metadata. The server rejects it with
// Conflict if obj's resourceVersion is not the current one: read, change, update,
// and retry on conflict (RetryOnConflict).
func (r ResourceClient) Update(ctx context.Context, obj any, opts WriteOptions, subresource ...string) (*Object, error) {
	body, meta, err := encode(obj)
	if err != nil {
		return nil, fmt.Errorf("update %s: %w", r.res, err)
	}
	if meta.Name == "" {
		return nil, fmt.Errorf("update %s: the object has no metadata.name", r.res)
	}
	rc := r.inNamespace(meta.Namespace)
	return rc.write(ctx, rc.request("PUT", meta.Name, subresource, request{query: opts.values(), body: body}), meta.Name, subresource)
}

// Patch changes part of an object; pt says how patch is to be read. patch is
// JSON bytes, or a value of your own — a struct holding only the part to
// change, a map, a slice of JSON Patch operations — which is sent as JSON, as
// Create and Apply send theirs.
func (r ResourceClient) Patch(ctx context.Context, name string, pt PatchType, patch any, opts WriteOptions, subresource ...string) (*Object, error) {
	if pt == ApplyPatch && opts.FieldManager == "" {
		return nil, fmt.Errorf("apply %s %q: server-side apply needs a FieldManager", r.res, name)
	}
	var body []byte // nil: no body, as a nil []byte sent none before Patch took values
	if patch != nil {
		var err error
		if body, err = JSONOf(patch); err != nil {
			return nil, fmt.Errorf("patch %s %q: %w", r.res, name, err)
		}
	}
	return r.write(ctx, r.request("PATCH", name, subresource, request{query: opts.values(), body: body, contentType: string(pt)}), name, subresource)
}

// Apply is server-side apply of obj — an *Object, a struct of your own, a map, or
// JSON bytes — to the object its metadata names, or, with a subresource
// ("status"), to that part of it: a PATCH with Content-Type
// application/apply-patch+yaml (JSON is YAML) and ?fieldManager=.
//
// obj is the whole intent of one manager (opts.FieldManager, required): the
// fields it sets are now owned by that manager (metadata.managedFields records
// it); fields it owned before and no longer sets are removed; fields owned by
// others are left alone. Setting a field another manager owns to a different
// value is a conflict — 409 (IsConflict) with a cause per field naming the owner
// — unless opts.Force takes it over, which is what a controller does for the
// fields it alone decides. An object that does not exist is created. obj must
// carry apiVersion and kind, as the server needs them to read it.
func (r ResourceClient) Apply(ctx context.Context, obj any, opts WriteOptions, subresource ...string) (*Object, error) {
	body, meta, err := encode(obj)
	if err != nil {
		return nil, fmt.Errorf("apply %s: %w", r.res, err)
	}
	var tm TypeMeta
	if err := Unmarshal(body, &tm); err != nil || tm.APIVersion == "" || tm.Kind == "" {
		return nil, fmt.Errorf("apply %s %q: the object needs apiVersion and kind", r.res, meta.Name)
	}
	if meta.Name == "" {
		return nil, fmt.Errorf("apply %s: the object has no metadata.name", r.res)
	}
	return r.inNamespace(meta.Namespace).Patch(ctx, meta.Name, ApplyPatch, body, opts, subresource...)
}

// Delete deletes one object. With Foreground propagation the object stays until its
// dependents are gone; Delete returns as soon as the server has accepted the delete.
func (r ResourceClient) Delete(ctx context.Context, name string, opts DeleteOptions) error {
	done := r.beginWrite(ctx, "DELETE", name, "")
	answer, err := r.deleteRequest(ctx, name, opts, nil, r.c.set.Load().observer.Write != nil)
	done(answer, err)
	return err
}

// DeleteCollection deletes every object that sel selects in the namespace. It
// is not one object's write: the Observer's Write is not told of it.
func (r ResourceClient) DeleteCollection(ctx context.Context, opts DeleteOptions, sel ListOptions) error {
	_, err := r.deleteRequest(ctx, "", opts, sel.values(), false)
	return err
}

// deleteRequest sends a DELETE of the object name, or of the collection when
// name is ""; with read, it returns the answer (deleteAnswer), else it drains
// it.
func (r ResourceClient) deleteRequest(ctx context.Context, name string, opts DeleteOptions, q url.Values, read bool) (*Object, error) {
	body, err := json.Marshal(struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
		DeleteOptions
		DryRun []string `json:"dryRun,omitempty"`
	}{"DeleteOptions", "v1", opts, dryRun(opts.DryRun)})
	if err != nil {
		return nil, err
	}
	resp, err := r.c.do(ctx, r.request("DELETE", name, nil, request{query: q, body: body}))
	if err != nil {
		return nil, err
	}
	if !read {
		drain(resp.Body)
		return nil, nil
	}
	defer drain(resp.Body)
	return deleteAnswer(resp.Body), nil
}

// call sends a request whose answer is one object.
func (r ResourceClient) call(ctx context.Context, req request) (*Object, error) {
	resp, err := r.c.do(ctx, req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(limitBody(resp.Body, maxEvent))
	if err != nil {
		return nil, fmt.Errorf("%s %s: read response: %w", req.verb, req.path, gaveUp(ctx, err))
	}
	obj, err := DecodeOptions{KeepManagedFields: true}.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", req.verb, req.path, err)
	}
	return obj, nil
}

// request is req (its query, body and headers) made a verb on this client's
// resource and namespace, of the object name (or the collection, for ""), or
// of its subresource: the URL path, and what RequestInfo tells of it.
func (r ResourceClient) request(verb, name string, subresource []string, req request) request {
	sub := ""
	if len(subresource) > 0 && name != "" {
		sub = subresource[0]
	}
	ns := r.ns
	if !r.res.Namespaced {
		ns = ""
	}
	req.verb, req.path = verb, r.res.Path(ns, name, sub)
	req.on = target{res: r.res, namespace: ns, name: name, subresource: sub}
	return req
}

// inNamespace fills in the namespace from an object when the client has none.
func (r ResourceClient) inNamespace(ns string) ResourceClient {
	if r.ns == "" && r.res.Namespaced {
		r.ns = ns
	}
	return r
}

// encode turns what a caller wants written into JSON, and reads back its metadata.
func encode(obj any) ([]byte, ObjectMeta, error) {
	body, err := JSONOf(obj)
	if err != nil {
		return nil, ObjectMeta{}, err
	}
	if o, ok := obj.(*Object); ok {
		return body, o.Metadata, nil
	}
	decoded, err := DecodeObject(bytes.TrimSpace(body))
	if err != nil {
		return nil, ObjectMeta{}, err
	}
	return body, decoded.Metadata, nil
}

func dryRun(on bool) []string {
	if on {
		return []string{"All"}
	}
	return nil
}
