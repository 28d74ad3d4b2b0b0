package difftest

import (
	"context"
	"encoding/json"
	"fmt"
)

// Clean empties namespace ns of resources on t, so that the next run can use
// it: each object loses its finalizers and is deleted. A real server shared by
// many runs keeps a namespace per worker rather than one per run (a namespace
// can never be deleted there: no controller finishes it).
func Clean(ctx context.Context, t *Target, ns string, resources []string) error {
	if t.fake != nil {
		return nil // the server goes with the run
	}
	for _, res := range resources {
		if res == "namespaces" {
			if err := cleanNamespace(ctx, t, ns+"-x"); err != nil {
				return err
			}
			continue
		}
		k := kinds[res]
		code, out, err := t.do(ctx, "GET", k.res.Path(ns, "", ""), "", nil)
		if err != nil || code != 200 {
			return fmt.Errorf("clean %s: list: %d %v", res, code, err)
		}
		var l struct {
			Items []struct {
				Metadata struct {
					Name       string
					Finalizers []string
				}
			}
		}
		if err := json.Unmarshal(out, &l); err != nil {
			return fmt.Errorf("clean %s: %w", res, err)
		}
		for _, it := range l.Items {
			path := k.res.Path(ns, it.Metadata.Name, "")
			if len(it.Metadata.Finalizers) > 0 {
				if code, out, err := t.do(ctx, "PATCH", path, "application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`)); err != nil || code != 200 {
					return fmt.Errorf("clean %s: %d %v %.200s", path, code, err, out)
				}
			}
			if code, out, err := t.do(ctx, "DELETE", path, "", nil); err != nil || (code != 200 && code != 404) {
				return fmt.Errorf("clean %s: %d %v %.200s", path, code, err, out)
			}
		}
	}
	return nil
}

// cleanNamespace removes the namespace x the namespaces class made, and its
// ConfigMaps: deleted, then finalized as the namespace controller would (a
// bare kube-apiserver has none, and the namespace would stay Terminating).
func cleanNamespace(ctx context.Context, t *Target, x string) error {
	if err := Clean(ctx, t, x, []string{"configmaps"}); err != nil {
		return err
	}
	path := "/api/v1/namespaces/" + x
	if code, out, err := t.do(ctx, "DELETE", path, "", nil); err != nil || (code != 200 && code != 404) {
		return fmt.Errorf("clean %s: %d %v %.200s", path, code, err, out)
	}
	body := `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + x + `"},"spec":{"finalizers":[]}}`
	if code, out, err := t.do(ctx, "PUT", path+"/finalize", "application/json", []byte(body)); err != nil || (code != 200 && code != 404) {
		return fmt.Errorf("clean %s: finalize: %d %v %.200s", path, code, err, out)
	}
	return nil
}
