package finalizer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
)

// maxTries bounds how often Add and Remove re-read and retry after another writer
// changed the finalizers first.
const maxTries = 5

// Add puts name in the finalizers of the object meta describes, through rc (its
// resource; the namespace is meta's), unless it is there. meta is updated from
// the server's answer.
func Add(ctx context.Context, rc apiclient.ResourceClient, meta *apiclient.ObjectMeta, name string) error {
	return change(ctx, rc, meta, name, func(f []string) []string {
		if slices.Contains(f, name) {
			return nil
		}
		return append(slices.Clone(f), name)
	})
}

// Remove takes name out of the finalizers of the object meta describes, unless
// it is not there. meta is updated from the server's answer; if that was the
// last finalizer of an object being deleted, the object is gone, and a NotFound
// on a retry is success.
func Remove(ctx context.Context, rc apiclient.ResourceClient, meta *apiclient.ObjectMeta, name string) error {
	return change(ctx, rc, meta, name, func(f []string) []string {
		if !slices.Contains(f, name) {
			return nil
		}
		return slices.DeleteFunc(slices.Clone(f), func(s string) bool { return s == name })
	})
}

// Reconcile is a Reconcile step for an object with a finalizer: while the object
// lives, it makes sure the finalizer is there, then calls apply; once the object
// is being deleted (deletionTimestamp set) and the finalizer is still there, it
// calls cleanup and, when cleanup succeeded, removes the finalizer. A deleted
// object without the finalizer needs nothing.
func Reconcile(ctx context.Context, rc apiclient.ResourceClient, meta *apiclient.ObjectMeta, name string,
	apply func(context.Context) (controller.Result, error), cleanup func(context.Context) error) (controller.Result, error) {
	if meta.DeletionTimestamp == nil {
		if err := Add(ctx, rc, meta, name); err != nil {
			return controller.Result{}, err
		}
		return apply(ctx)
	}
	if !slices.Contains(meta.Finalizers, name) {
		return controller.Result{}, nil
	}
	if err := cleanup(ctx); err != nil {
		return controller.Result{}, fmt.Errorf("cleanup for finalizer %s: %w", name, err)
	}
	return controller.Result{}, Remove(ctx, rc, meta, name)
}

// change patches the finalizers to edit(current), testing that they are still
// current, and on a failed test reads the object again and retries. edit returns
// nil when there is nothing to do.
func change(ctx context.Context, rc apiclient.ResourceClient, meta *apiclient.ObjectMeta, name string, edit func([]string) []string) error {
	rc = rc.Namespace(meta.Namespace)
	for try := 1; ; try++ {
		next := edit(meta.Finalizers)
		if next == nil {
			return nil
		}
		patch, err := json.Marshal([]map[string]any{
			{"op": "test", "path": "/metadata/finalizers", "value": orEmpty(meta.Finalizers)},
			{"op": "replace", "path": "/metadata/finalizers", "value": next},
		})
		if err != nil {
			return err
		}
		if meta.Finalizers == nil {
			// No list to test: a "test" of a missing member fails. Test that the
			// object is the version read instead, and add the list.
			patch, _ = json.Marshal([]map[string]any{
				{"op": "test", "path": "/metadata/resourceVersion", "value": meta.ResourceVersion},
				{"op": "add", "path": "/metadata/finalizers", "value": next},
			})
		}
		o, err := rc.Patch(ctx, meta.Name, apiclient.JSONPatch, patch, apiclient.WriteOptions{})
		if err == nil {
			*meta = o.Metadata
			return nil
		}
		if !raced(err) || try == maxTries {
			return fmt.Errorf("finalizer %s on %s: %w", name, meta.Name, err)
		}
		fresh, err := rc.Get(ctx, meta.Name)
		if apiclient.IsNotFound(err) {
			return nil // gone: nothing left to finalize
		}
		if err != nil {
			return fmt.Errorf("finalizer %s on %s: %w", name, meta.Name, err)
		}
		*meta = fresh.Metadata
	}
}

// raced: the test op failed (422, the server's answer to a failed test) or the
// write conflicted: someone changed the object between our read and our write.
func raced(err error) bool {
	return apiclient.IsConflict(err) || apiclient.CodeOf(err) == http.StatusUnprocessableEntity
}

func orEmpty(f []string) []string {
	if f == nil {
		return []string{}
	}
	return f
}
