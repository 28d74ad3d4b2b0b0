package apiclient

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

var record = flag.Bool("record", false, "record discovery documents from the server in KUBEWIRE_TEST_KUBECONFIG into testdata/discovery")

// TestRecordDiscovery rewrites testdata/discovery from a real API server:
//
//	KUBEWIRE_TEST_KUBECONFIG=/tmp/kw-cluster/kubeconfig go test ./apiclient -run TestRecordDiscovery -record
//
// aggregated/ holds the two aggregated documents (/api, /apis); legacy/ holds /api,
// /apis and one document per group-version, each verbatim as the server sent it.
// File names are the path with "/" as "_".
func TestRecordDiscovery(t *testing.T) {
	path := os.Getenv("KUBEWIRE_TEST_KUBECONFIG")
	if !*record || path == "" {
		t.Skip("recording only with -record and KUBEWIRE_TEST_KUBECONFIG")
	}
	cfg, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(cfg, Options{QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	save := func(dir, urlPath string, body []byte) {
		if !json.Valid(body) {
			t.Fatalf("%s: not JSON", urlPath)
		}
		name := filepath.Join("testdata", "discovery", dir, strings.ReplaceAll(strings.TrimPrefix(urlPath, "/"), "/", "_")+".json")
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, root := range []string{"/api", "/apis"} {
		body, _, err := c.getRaw(ctx, root, aggregatedAccept)
		if err != nil {
			t.Fatal(err)
		}
		save("aggregated", root, body)
		body, _, err = c.getRaw(ctx, root, "application/json")
		if err != nil {
			t.Fatal(err)
		}
		save("legacy", root, body)
		var doc struct {
			Versions []string `json:"versions"`
			Groups   []struct {
				Versions []struct{ GroupVersion string } `json:"versions"`
			} `json:"groups"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, v := range doc.Versions {
			paths = append(paths, "/api/"+v)
		}
		for _, g := range doc.Groups {
			for _, v := range g.Versions {
				paths = append(paths, "/apis/"+v.GroupVersion)
			}
		}
		for _, p := range paths {
			body, _, err := c.getRaw(ctx, p, "application/json")
			if err != nil {
				t.Fatal(err)
			}
			save("legacy", p, body)
		}
	}
}
