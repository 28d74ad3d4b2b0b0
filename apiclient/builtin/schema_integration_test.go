package builtin_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/realtest"
)

var record = flag.Bool("record", false, "with KUBEWIRE_TEST_KUBECONFIG: write what TestIntegration_schema read of the server's OpenAPI to testdata/openapi")

// Every field of every kind is in the schema the real server publishes, with a
// type that agrees. With -record it also writes the part of the schema the
// check read to testdata/openapi/v<major>.<minor>.json, for TestSchema_recorded
// (by minor release: a server built from source may say no more of itself):
//
//	KUBEWIRE_TEST_KUBECONFIG=/tmp/c137/kubeconfig go test ./apiclient/builtin -run TestIntegration_schema -record
func TestIntegration_schema(t *testing.T) {
	cfg, _ := realtest.Config(t)
	c, err := apiclient.New(cfg, apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	version, err := c.ServerVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cfg.Transport()
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string, into any) {
		t.Helper()
		resp, err := (&http.Client{Transport: rt}).Get(strings.TrimSuffix(cfg.Server, "/") + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s: %.200s", path, resp.Status, body)
		}
		if err := json.Unmarshal(body, into); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}

	// /openapi/v3 lists a document per group-version; read those of the kinds.
	var index struct {
		Paths map[string]struct {
			URL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	get("/openapi/v3", &index)
	doc := &openAPI{Paths: map[string]json.RawMessage{}}
	doc.Components.Schemas = map[string]*schema{}
	read := map[string]bool{}
	for _, k := range kinds {
		gv := "apis/" + k.Resource().GroupVersion()
		if k.Resource().Group == "" {
			gv = "api/" + k.Resource().Version
		}
		if read[gv] {
			continue
		}
		read[gv] = true
		entry, ok := index.Paths[gv]
		if !ok {
			t.Fatalf("/openapi/v3 lists no %s", gv)
		}
		var part openAPI
		get(entry.URL, &part)
		for p, v := range part.Paths {
			doc.Paths[p] = v
		}
		for name, s := range part.Components.Schemas {
			doc.Components.Schemas[name] = s
		}
	}

	check := checkAll(doc)
	for _, p := range check.problems {
		t.Error(p)
	}
	release := "v" + version.Major + "." + strings.TrimSuffix(version.Minor, "+")
	t.Logf("%s (%s): %d kinds, %d schemas read", release, version.GitVersion, len(kinds), len(check.used))
	if *record {
		body, err := json.MarshalIndent(check.pruned(release), "", " ")
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join("testdata", "openapi", release+".json")
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, append(body, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(os.Stderr, "wrote %s (%d bytes)\n", name, len(body)+1)
	}
}
