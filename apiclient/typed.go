package apiclient

import (
	"context"
)

// Typed is the typed-client experience for any resource, generated code not
// required: declare a Go struct with the fields you care about, and Typed[T] gets,
// lists, creates, updates and patches values of it.
//
//	type Deployment struct {
//		apiclient.TypeMeta
//		Metadata apiclient.ObjectMeta `json:"metadata"`
//		Spec     struct {
//			Replicas *int32 `json:"replicas,omitempty"`
//		} `json:"spec"`
//	}
//	deployments := apiclient.NewTyped[Deployment](client.Resource(apiclient.Deployments).Namespace("default"))
//	d, err := deployments.Get(ctx, "web")
//
// Decoding goes through Unmarshal, as Object.Decode does: integers stay exact, and
// keys match field names exactly, so every field needs a json tag spelled as the
// API spells the key — an untagged field Replicas stays zero, because the key is
// "replicas" (see Object.Decode). Writing sends json.Marshal(*T): fields T does
// not declare are not sent, so an Update of a partial struct would clear them —
// declare the whole object, or use Patch.
type Typed[T any] struct {
	rc ResourceClient
}

// NewTyped wraps a ResourceClient so that it speaks in T.
func NewTyped[T any](rc ResourceClient) Typed[T] { return Typed[T]{rc: rc} }

// Get reads one object into a T.
func (t Typed[T]) Get(ctx context.Context, name string, subresource ...string) (*T, error) {
	return as[T](t.rc.Get(ctx, name, subresource...))
}

// List reads one LIST response into Ts, as ResourceClient.List does: everything
// when opts.Limit is 0, else one page, whose ListMeta.Continue asks for the next.
// (The paging loop, with its fall back when a token expires, is listwatch.Pager,
// which apiclient cannot import.)
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
	return as[T](t.rc.Create(ctx, obj, opts))
}

// Update replaces the object (Conflict if its resourceVersion is stale).
func (t Typed[T]) Update(ctx context.Context, obj *T, opts WriteOptions, subresource ...string) (*T, error) {
	return as[T](t.rc.Update(ctx, obj, opts, subresource...))
}

// Patch changes part of an object and returns the result.
func (t Typed[T]) Patch(ctx context.Context, name string, pt PatchType, patch []byte, opts WriteOptions, subresource ...string) (*T, error) {
	return as[T](t.rc.Patch(ctx, name, pt, patch, opts, subresource...))
}

// Apply is server-side apply of obj (ResourceClient.Apply): declare in T only
// the fields this manager decides, fill in apiVersion and kind, and obj is the
// manager's whole intent. It suits a partial struct as Update does not.
func (t Typed[T]) Apply(ctx context.Context, obj *T, opts WriteOptions, subresource ...string) (*T, error) {
	return as[T](t.rc.Apply(ctx, obj, opts, subresource...))
}

// Delete deletes one object.
func (t Typed[T]) Delete(ctx context.Context, name string, opts DeleteOptions) error {
	return t.rc.Delete(ctx, name, opts)
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
