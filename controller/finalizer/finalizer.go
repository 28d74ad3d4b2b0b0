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

// Reconcile is a Reconcile step for an object with a finalizer: while obj lives,
// it makes sure the finalizer is there, then calls apply; once obj is being
// deleted (deletionTimestamp set) and the finalizer is still there, it calls
// cleanup and, when cleanup succeeded, removes the finalizer. A deleted object
// without the finalizer needs nothing. obj is read, never changed: pass what the
// cache gave.
//
// If the object is gone by the time the finalizer is removed (its other
// finalizers went first, or someone removed ours by hand), the removal has
// nothing left to do and Reconcile succeeds: cleanup ran, and there is no object
// to retry for.
func Reconcile(ctx context.Context, c *apiclient.Client, obj apiclient.TypedObject, name string,
	apply func(context.Context) (controller.Result, error), cleanup func(context.Context) error) (controller.Result, error) {
	meta := obj.GetObjectMeta()
	if meta.DeletionTimestamp == nil {
		if err := Add(ctx, c, obj, name); err != nil {
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
	return controller.Result{}, Remove(ctx, c, obj, name)
}

// Add puts name in obj's finalizers on the server, unless obj has it already.
// obj is not changed: the finalizer shows in the next version the cache gets.
func Add(ctx context.Context, c *apiclient.Client, obj apiclient.TypedObject, name string) error {
	return change(ctx, c, obj, name, false, func(f []string) []string {
		if slices.Contains(f, name) {
			return nil
		}
		return append(slices.Clone(f), name)
	})
}

// Remove takes name out of obj's finalizers on the server, unless it is not
// there. If that was the last finalizer of an object being deleted, the object
// is gone; a NotFound, then or on a retry, is success: nothing is left to
// finalize. obj is not changed.
func Remove(ctx context.Context, c *apiclient.Client, obj apiclient.TypedObject, name string) error {
	return change(ctx, c, obj, name, true, func(f []string) []string {
		if !slices.Contains(f, name) {
			return nil
		}
		return slices.DeleteFunc(slices.Clone(f), func(s string) bool { return s == name })
	})
}

// change patches the finalizers to edit(current), testing that they are still
// current, and on a failed test reads the object again and retries. edit returns
// nil when there is nothing to do. It works on a copy of obj's metadata. An
// object found gone is success when goneIsDone (a removal), else the NotFound
// is returned (an object to add a finalizer to is not there).
func change(ctx context.Context, c *apiclient.Client, obj apiclient.TypedObject, name string, goneIsDone bool, edit func([]string) []string) error {
	meta := obj.GetObjectMeta().DeepCopy()
	rc := c.Resource(obj.Resource()).Namespace(meta.Namespace)
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
		_, err = rc.Patch(ctx, meta.Name, apiclient.JSONPatch, patch, apiclient.WriteOptions{})
		switch {
		case err == nil:
			return nil
		case apiclient.IsNotFound(err) && goneIsDone:
			return nil // gone: nothing left to finalize
		case !raced(err) || try == maxTries:
			return fmt.Errorf("finalizer %s on %s: %w", name, meta.Name, err)
		}
		fresh, err := rc.Get(ctx, meta.Name)
		if apiclient.IsNotFound(err) && goneIsDone {
			return nil
		}
		if err != nil {
			return fmt.Errorf("finalizer %s on %s: %w", name, meta.Name, err)
		}
		meta = fresh.Metadata
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
