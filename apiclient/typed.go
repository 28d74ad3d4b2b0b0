package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
)

// TypedObject is a Go type of your own that stands for one resource: it says
// which (Resource) and carries the object's metadata (GetObjectMeta). It is the
// one place a type is linked to its group, version, kind and plural; everything
// that takes a TypedObject — Typed, the controller's builder and listers, owner
// references, events, finalizers, status — reads them from it, so no caller
// types apiVersion and kind by hand:
//
//	type Foo struct {
//		apiclient.TypeMeta
//		apiclient.ObjectMeta `json:"metadata"` // embedded: foo.Name, foo.Generation, GetObjectMeta
//		Spec FooSpec `json:"spec"`
//	}
//
//	var Foos = apiclient.Resource{Group: "samplecontroller.k8s.io", Version: "v1alpha1",
//		Name: "foos", Kind: "Foo", Namespaced: true}
//
//	func (*Foo) Resource() apiclient.Resource { return Foos }
//
// Embedding ObjectMeta under the tag "metadata" gives the GetObjectMeta method
// and reads and writes the JSON member "metadata", as encoding/json treats an
// embedded struct with a name in its tag as a named field. This is
// controller-runtime's client.Object, where the link from Go type to kind is
// kept in a Scheme: here the type says it itself, and there is nothing to
// register.
type TypedObject interface {
	Resource() Resource
	GetObjectMeta() *ObjectMeta
}

// GetObjectMeta returns m: embedding ObjectMeta makes a type half a TypedObject.
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

// GetObjectMeta returns o's metadata.
func (o *Object) GetObjectMeta() *ObjectMeta { return &o.Metadata }

// Typed is the typed-client experience for any resource, generated code not
// required: declare a Go struct with the fields you care about (a TypedObject),
// and Typed[T] gets, lists, creates, updates, applies and patches values of it.
//
//	deployments := apiclient.NewTyped[Deployment](client).Namespace("default")
//	d, err := deployments.Get(ctx, "web")
//
// Writes fill in apiVersion and kind from T's Resource, and take the namespace
// from the client (Namespace), else from the object. None of them changes the
// value it is given: each returns what the server stored as a new T.
//
// Decoding goes through Unmarshal, as Object.Decode does: integers stay exact, and
// keys match field names exactly, so every field needs a json tag spelled as the
// API spells the key — an untagged field Replicas stays zero, because the key is
// "replicas" (see Object.Decode). Writing sends json.Marshal(*T): fields T does
// not declare are not sent, so an Update of a partial struct would clear them —
// declare the whole object, or use Apply or Patch.
//
// A Typed is a small value; the zero value is not usable. Safe for concurrent use.
type Typed[T any] struct {
	rc ResourceClient
}

// NewTyped is the typed client for T on c, in every namespace until Namespace
// narrows it. T must be a TypedObject (a pointer to it must have Resource and
// GetObjectMeta): anything else is a programmer error, and NewTyped panics.
func NewTyped[T any](c *Client) Typed[T] {
	return Typed[T]{rc: c.Resource(ResourceOf[T]())}
}

// ResourceOf is the Resource that T stands for: what (*T).Resource returns. It
// panics when *T is not a TypedObject.
func ResourceOf[T any]() Resource {
	obj, ok := any(new(T)).(TypedObject)
	if !ok {
		panic(fmt.Sprintf("apiclient: *%s is not a TypedObject: give it a Resource method and embed apiclient.ObjectMeta `json:\"metadata\"`", reflect.TypeFor[T]()))
	}
	return obj.Resource()
}

// Namespace returns the same client narrowed to namespace ns.
func (t Typed[T]) Namespace(ns string) Typed[T] {
	t.rc = t.rc.Namespace(ns)
	return t
}

// Get reads one object into a T.
func (t Typed[T]) Get(ctx context.Context, name string, subresource ...string) (*T, error) {
	return as[T](t.rc.Get(ctx, name, subresource...))
}

// List reads one LIST response into Ts, as ResourceClient.List does: everything
// when opts.Limit is 0, else one page, whose ListMeta.Continue asks for the next.
// (Every page, with the fall back when a token expires, is ResourceClient.Pages;
// listwatch.Pager reads them object by object.)
func (t Typed[T]) List(ctx context.Context, opts ListOptions) ([]*T, ListMeta, error) {
	list, err := t.rc.List(ctx, opts)
	if err != nil {
		return nil, ListMeta{}, err
	}
	out := make([]*T, 0, len(list.Items))
	for _, o := range list.Items {
		v, err := as[T](o, nil)
		if err != nil {
			return nil, ListMeta{}, err
		}
		out = append(out, v)
	}
	return out, list.ListMeta, nil
}

// Create sends obj and returns what the server stored.
func (t Typed[T]) Create(ctx context.Context, obj *T, opts WriteOptions) (*T, error) {
	body, err := t.body(obj)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", t.rc.res, err)
	}
	return as[T](t.rc.Create(ctx, body, opts))
}

// Update replaces the object (Conflict if its resourceVersion is stale).
func (t Typed[T]) Update(ctx context.Context, obj *T, opts WriteOptions, subresource ...string) (*T, error) {
	body, err := t.body(obj)
	if err != nil {
		return nil, fmt.Errorf("update %s: %w", t.rc.res, err)
	}
	return as[T](t.rc.Update(ctx, body, opts, subresource...))
}

// Patch changes part of an object and returns the result; patch is JSON
// bytes or a value sent as JSON (ResourceClient.Patch).
func (t Typed[T]) Patch(ctx context.Context, name string, pt PatchType, patch any, opts WriteOptions, subresource ...string) (*T, error) {
	return as[T](t.rc.Patch(ctx, name, pt, patch, opts, subresource...))
}

// Apply is server-side apply of obj (ResourceClient.Apply): declare in T only
// the fields this manager decides, and obj is the manager's whole intent. It
// suits a partial struct as Update does not.
func (t Typed[T]) Apply(ctx context.Context, obj *T, opts WriteOptions, subresource ...string) (*T, error) {
	body, err := t.body(obj)
	if err != nil {
		return nil, fmt.Errorf("apply %s: %w", t.rc.res, err)
	}
	return as[T](t.rc.Apply(ctx, body, opts, subresource...))
}

// Delete deletes one object.
func (t Typed[T]) Delete(ctx context.Context, name string, opts DeleteOptions) error {
	return t.rc.Delete(ctx, name, opts)
}

// body is obj's JSON with apiVersion and kind set from the client's resource,
// whatever obj's TypeMeta says; obj itself is not changed.
func (t Typed[T]) body(obj *T) ([]byte, error) {
	return withTypeMeta(obj, t.rc.res)
}

// withTypeMeta encodes obj with apiVersion and kind set to res's.
func withTypeMeta(obj any, res Resource) ([]byte, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return nil, fmt.Errorf("%T does not encode to a JSON object: %w", obj, err)
	}
	members["apiVersion"], _ = json.Marshal(res.GroupVersion())
	members["kind"], _ = json.Marshal(res.Kind)
	return json.Marshal(members)
}

func as[T any](o *Object, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	v := new(T)
	if err := o.Decode(v); err != nil {
		return nil, err
	}
	return v, nil
}
