package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/kubewire/kubewire/apiclient"
)

// objectLabel marks the benchmark's ConfigMaps; the replicas' informers select
// on it, so anything else in the namespace is left out of the count.
const objectLabel = "kubewire.io/shardbench"

// creators is how many goroutines create ConfigMaps at once.
const creators = 16

// objectName is the i-th ConfigMap's name: cm-00000, cm-00001, …
func objectName(i int) string { return fmt.Sprintf("cm-%05d", i) }

// ensureObjects makes the namespace hold exactly cfg.objects of the
// benchmark's ConfigMaps, cm-00000 up to cm-<objects-1>: it creates the
// namespace if need be, creates the ConfigMaps that are missing, and deletes
// the ones past the count (left by a bigger run). Run twice, the second run
// changes nothing.
func ensureObjects(ctx context.Context, c *apiclient.Client, cfg config) error {
	ns := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": cfg.namespace}}
	if _, err := c.Resource(apiclient.Namespaces).Create(ctx, ns, apiclient.WriteOptions{}); err != nil && !apiclient.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", cfg.namespace, err)
	}

	cms := c.Resource(apiclient.ConfigMaps).Namespace(cfg.namespace)
	list, err := cms.List(ctx, apiclient.ListOptions{LabelSelector: objectLabel})
	if err != nil {
		return fmt.Errorf("list ConfigMaps: %w", err)
	}
	want := map[string]bool{}
	for i := range cfg.objects {
		want[objectName(i)] = true
	}
	var missing, extra []string
	for _, obj := range list.Items {
		if want[obj.Metadata.Name] {
			delete(want, obj.Metadata.Name)
		} else {
			extra = append(extra, obj.Metadata.Name)
		}
	}
	for i := range cfg.objects {
		if want[objectName(i)] {
			missing = append(missing, objectName(i))
		}
	}
	if len(missing)+len(extra) > 0 {
		fmt.Fprintf(os.Stderr, "shards: %s: creating %d ConfigMaps, deleting %d\n", cfg.namespace, len(missing), len(extra))
	}

	// Every ConfigMap carries -payload bytes of data, so that the cache's
	// size is the objects' rather than the bookkeeping's.
	data := strings.Repeat("x", cfg.payload)
	return parallel(ctx, missing, extra, func(ctx context.Context, name string, create bool) error {
		if !create {
			if err := cms.Delete(ctx, name, apiclient.DeleteOptions{}); err != nil && !apiclient.IsNotFound(err) {
				return fmt.Errorf("delete ConfigMap %s: %w", name, err)
			}
			return nil
		}
		cm := map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name, "labels": map[string]string{objectLabel: "object"}},
			"data":     map[string]string{"payload": data},
		}
		if _, err := cms.Create(ctx, cm, apiclient.WriteOptions{}); err != nil && !apiclient.IsAlreadyExists(err) {
			return fmt.Errorf("create ConfigMap %s: %w", name, err)
		}
		return nil
	})
}

// parallel calls do for every name of create (create true) and of del (false)
// on a few goroutines, and returns the first error; after one, the rest are
// skipped.
func parallel(ctx context.Context, create, del []string, do func(ctx context.Context, name string, create bool) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	type job struct {
		name   string
		create bool
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range creators {
		wg.Go(func() {
			for j := range jobs {
				if ctx.Err() != nil {
					continue // drain: an earlier job failed
				}
				if err := do(ctx, j.name, j.create); err != nil {
					cancel(err)
				}
			}
		})
	}
	for _, name := range create {
		jobs <- job{name, true}
	}
	for _, name := range del {
		jobs <- job{name, false}
	}
	close(jobs)
	wg.Wait()
	return context.Cause(ctx)
}
