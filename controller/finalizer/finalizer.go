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
// current, and when another writer changed them first (the test fails) reads
// the object again and retries: apiclient.Retry with client-go's DefaultRetry,
// five tries. edit returns nil when there is nothing to do. It works on a copy
// of obj's metadata. An object found gone is success when goneIsDone (a
// removal), else the NotFound is returned (an object to add a finalizer to is
// not there).
func change(ctx context.Context, c *apiclient.Client, obj apiclient.TypedObject, name string, goneIsDone bool, edit func([]string) []string) error {
	meta := obj.GetObjectMeta().DeepCopy()
	rc := c.Resource(obj.Resource()).Namespace(meta.Namespace)
	err := apiclient.Retry(ctx, apiclient.DefaultRetry, apiclient.RealClock{}, raced, func() error {
		next := edit(meta.Finalizers)
		if next == nil {
			return nil
		}
		_, err := rc.Patch(ctx, meta.Name, apiclient.JSONPatch, finalizersPatch(meta, next), apiclient.WriteOptions{})
		if !raced(err) {
			return err
		}
		fresh, gerr := rc.Get(ctx, meta.Name)
		if gerr != nil {
			return gerr // not raced: ends the retries
		}
		meta = fresh.Metadata
		return err // raced: try again with what the server has now
	})
	if err == nil || apiclient.IsNotFound(err) && goneIsDone { // gone: nothing left to finalize
		return nil
	}
	return fmt.Errorf("finalizer %s on %s: %w", name, meta.Name, err)
}

// finalizersPatch is a JSON patch that sets the finalizers to next if they are
// still meta's. With no list to test (a "test" of a missing member fails), it
// tests that the object is the version read instead, and adds the list.
func finalizersPatch(meta apiclient.ObjectMeta, next []string) []byte {
	ops := []map[string]any{
		{"op": "test", "path": "/metadata/finalizers", "value": orEmpty(meta.Finalizers)},
		{"op": "replace", "path": "/metadata/finalizers", "value": next},
	}
	if meta.Finalizers == nil {
		ops = []map[string]any{
			{"op": "test", "path": "/metadata/resourceVersion", "value": meta.ResourceVersion},
			{"op": "add", "path": "/metadata/finalizers", "value": next},
		}
	}
	patch, _ := json.Marshal(ops) // maps of strings and string slices always encode
	return patch
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
