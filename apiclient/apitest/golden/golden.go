// Package golden compares what a test saw with a file kept in testdata, and
// rewrites the file instead when the test binary runs with -update. Replay tests
// use it for their one-line-per-step logs, so a test reads like the tutorial it
// checks and a deliberate change is one `go test ./PKG -update` and a diff to read.
//
// It imports package testing, so only test files may import it (main_test.go
// enforces that).
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files from what the tests see")

// Check fails t unless got equals the contents of the file at path; with -update it
// writes got there instead (creating the directory), and passes.
func Check(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("%s differs (go test -update rewrites it):\n--- got\n%s--- want\n%s", path, got, want)
	}
}
