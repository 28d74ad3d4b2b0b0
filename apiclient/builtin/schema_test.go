package builtin_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The check of TestIntegration_schema, on the schemas recorded from the real
// servers (testdata/README.md), so that it runs without one: a field whose
// name or type the server does not have fails, naming the Go path and the
// schema path.
func TestSchema_recorded(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "openapi", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recorded schemas in testdata/openapi")
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			body, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			var doc openAPI
			if err := json.Unmarshal(body, &doc); err != nil {
				t.Fatal(err)
			}
			for _, p := range checkAll(&doc).problems {
				t.Error(p)
			}
		})
	}
}
