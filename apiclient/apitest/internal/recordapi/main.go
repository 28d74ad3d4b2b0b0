// Command recordapi records what a kube-apiserver publishes about the
// resources it serves — discovery (/api, /apis and each group-version's
// resource list) and the OpenAPI v3 schemas of their kinds — trimmed to what
// apitest reads, as one gzip-compressed JSON document. apitest embeds the
// record (apiclient/apitest/testdata/api.json.gz) and serves the built-in
// resources from it (catalog.go). Run it against any server:
//
//	go run ./apiclient/apitest/internal/recordapi -kubeconfig /tmp/c137/kubeconfig \
//	    -o apiclient/apitest/testdata/api.json.gz
//
// Custom resources are left out (every CustomResourceDefinition's group and
// plural): apitest serves them from the CRDs a test creates. What is trimmed
// is prose and what apitest never reads: descriptions, examples, the OpenAPI
// paths (discovery says which resources exist), storage version hashes.
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// Record is the document written; apitest's catalog.go reads the same shape.
type Record struct {
	Server   string `json:"server"`   // gitVersion, or v<major>.<minor> for a build from source
	Recorded string `json:"recorded"` // the date, YYYY-MM-DD
	// Core is /api's versions; Groups is /apis, as served.
	Core   json.RawMessage `json:"core"`
	Groups json.RawMessage `json:"groups"`
	// Resources is each group-version's resource list ("v1", "apps/v1"),
	// as served.
	Resources map[string]json.RawMessage `json:"resources"`
	// Schemas are the OpenAPI v3 component schemas of every group-version,
	// by name, trimmed.
	Schemas map[string]any `json:"schemas"`
}

func main() {
	path := flag.String("kubeconfig", "", "the server's kubeconfig")
	out := flag.String("o", "api.json.gz", "where to write the record")
	flag.Parse()
	if err := run(context.Background(), *path, *out); err != nil {
		fmt.Fprintln(os.Stderr, "recordapi:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, path, out string) error {
	cfg, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	if err != nil {
		return err
	}
	rt, err := cfg.Transport()
	if err != nil {
		return err
	}
	c := &client{base: cfg.Server, http: &http.Client{Transport: rt, Timeout: time.Minute}}
	rec := Record{Recorded: time.Now().UTC().Format(time.DateOnly), Resources: map[string]json.RawMessage{}, Schemas: map[string]any{}}
	var v struct{ GitVersion, Major, Minor string }
	if err := c.get(ctx, "/version", &v); err != nil {
		return err
	}
	rec.Server = v.GitVersion
	if strings.HasPrefix(v.GitVersion, "v0.0.0") {
		rec.Server = "v" + v.Major + "." + strings.TrimRight(v.Minor, "+")
	}
	custom, err := c.customGroups(ctx)
	if err != nil {
		return err
	}
	if err := c.discovery(ctx, &rec, custom); err != nil {
		return err
	}
	if err := c.schemas(ctx, &rec, custom); err != nil {
		return err
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	w.Write(b)
	if err := w.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(out, z.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "recordapi: %s: %d resource lists, %d schemas, %d bytes (%d uncompressed)\n", rec.Server, len(rec.Resources), len(rec.Schemas), z.Len(), len(b))
	return nil
}

type client struct {
	base string
	http *http.Client
}

// get reads path's JSON into v.
func (c *client) get(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET %s: %d %.200s", path, resp.StatusCode, b)
	}
	return json.Unmarshal(b, v)
}

// customGroups returns the groups CRDs define: they are not built in.
func (c *client) customGroups(ctx context.Context) (map[string]bool, error) {
	var l struct {
		Items []struct {
			Spec struct{ Group string } `json:"spec"`
		} `json:"items"`
	}
	if err := c.get(ctx, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", &l); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, it := range l.Items {
		out[it.Spec.Group] = true
	}
	return out, nil
}

// discovery records /api, /apis without the custom groups, and each
// group-version's resources.
func (c *client) discovery(ctx context.Context, rec *Record, custom map[string]bool) error {
	var core map[string]any
	if err := c.get(ctx, "/api", &core); err != nil {
		return err
	}
	delete(core, "serverAddressByClientCIDRs")
	rec.Core, _ = json.Marshal(core)
	var groups struct {
		Kind       string           `json:"kind"`
		APIVersion string           `json:"apiVersion"`
		Groups     []map[string]any `json:"groups"`
	}
	if err := c.get(ctx, "/apis", &groups); err != nil {
		return err
	}
	var kept []map[string]any
	gvs := []string{"v1"}
	for _, g := range groups.Groups {
		if custom[fmt.Sprint(g["name"])] {
			continue
		}
		delete(g, "serverAddressByClientCIDRs")
		kept = append(kept, g)
		vs, _ := g["versions"].([]any)
		for _, v := range vs {
			vm, _ := v.(map[string]any)
			gvs = append(gvs, fmt.Sprint(vm["groupVersion"]))
		}
	}
	groups.Groups = kept
	rec.Groups, _ = json.Marshal(groups)
	for _, gv := range gvs {
		path := "/apis/" + gv
		if gv == "v1" {
			path = "/api/v1"
		}
		var l map[string]any
		if err := c.get(ctx, path, &l); err != nil {
			return err
		}
		rs, _ := l["resources"].([]any)
		for _, r := range rs {
			delete(r.(map[string]any), "storageVersionHash")
		}
		rec.Resources[gv], _ = json.Marshal(l)
	}
	return nil
}

// schemas records the component schemas of every built-in group-version's
// OpenAPI v3 document, trimmed.
func (c *client) schemas(ctx context.Context, rec *Record, custom map[string]bool) error {
	var index struct {
		Paths map[string]struct {
			URL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := c.get(ctx, "/openapi/v3", &index); err != nil {
		return err
	}
	names := make([]string, 0, len(index.Paths))
	for p := range index.Paths {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		parts := strings.Split(p, "/")
		switch {
		case p == "api/v1":
		case len(parts) == 3 && parts[0] == "apis" && !custom[parts[1]]:
		default:
			continue // the index documents, /version, /.well-known, custom groups
		}
		var doc struct {
			Components struct {
				Schemas map[string]any `json:"schemas"`
			} `json:"components"`
		}
		if err := c.get(ctx, index.Paths[p].URL, &doc); err != nil {
			return err
		}
		for name, s := range doc.Components.Schemas {
			rec.Schemas[name] = trim(s)
		}
	}
	return nil
}

// trim keeps of a schema what apitest reads: types, formats, structure,
// references, defaults, and the x-kubernetes extensions (not enums: apitest
// does not validate values against them).
func trim(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			switch {
			case k == "properties":
				props := map[string]any{}
				for name, p := range x.(map[string]any) {
					props[name] = trim(p)
				}
				out[k] = props
			case k == "items", k == "additionalProperties", k == "allOf", k == "oneOf", k == "anyOf":
				out[k] = trim(x)
			case k == "type", k == "format", k == "$ref", k == "default", k == "required", k == "nullable",
				strings.HasPrefix(k, "x-kubernetes-"):
				out[k] = x // values, kept whole
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = trim(x)
		}
		return out
	}
	return v
}
