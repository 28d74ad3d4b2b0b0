package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The pipeline runs left to right, and so do the imports:
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller ─▶ main
//
// fifo, store and queue are leaves that import nothing of the module, so each can
// be read (and reused) alone; controller is where the stages meet
// (controller/informer the cache half, controller the reconcile half). A package
// may always import its own sub-packages (apiclient → apiclient/kubeconfig), test
// files included.
//
// controller/cli is the composition root: it wires every package into the
// kubewire command, so it imports from all of them. It sits under controller in
// this table only because a directory's top name is what the table checks; it is
// no pipeline stage, and main only calls it.
var mayImport = map[string][]string{
	"apiclient":  nil,
	"listwatch":  {"apiclient"},
	"fifo":       nil,
	"store":      nil,
	"queue":      nil,
	"controller": {"apiclient", "listwatch", "fifo", "store", "queue"},
	".":          {"controller"},
}

// Test files may also import these: fifo's tests and Examples pair a FIFO with the
// store behind it, as the informer does; queue's tests step apiclient/apitest's
// Clock, the one fake clock of the module (queue/doc.go says why not synctest).
var testsMayImport = map[string][]string{
	"fifo":  {"store"},
	"queue": {"apiclient"},
}

// Only test files may import these: they import package testing, and a non-test
// file that imported them would link it into the kubewire binary. Stages that may
// import the package's top directory may import these from their tests
// (apiclient/realtest: from apiclient on).
var testsOnly = []string{"apiclient/realtest", "apiclient/apitest/golden", "apiclient/apitest/difftest", "controller/informer/informertest"}

const module = "github.com/kubewire/kubewire"

func TestImports_flow_along_the_pipeline(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			// Directories the go tool ignores, and bench/, a module of its own.
			if path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || path == "bench") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		top := strings.Split(filepath.ToSlash(path), "/")[0]
		if top == name {
			top = "." // main.go and this file
		}
		allowed, known := mayImport[top]
		if !known {
			t.Errorf("%s: top-level directory %q is not a pipeline stage; README.md's layout section lists them", path, top)
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p != module && !strings.HasPrefix(p, module+"/") {
				continue
			}
			rel := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
			if contains(testsOnly, rel) && !strings.HasSuffix(name, "_test.go") {
				t.Errorf("%s imports %s: only test files may (it imports testing)", path, p)
			}
			target := strings.Split(rel, "/")[0]
			if target == "" {
				target = "."
			}
			if target == top || contains(allowed, target) {
				continue
			}
			if strings.HasSuffix(name, "_test.go") && contains(testsMayImport[top], target) {
				continue
			}
			t.Errorf("%s imports %s: %s may import %s", path, p, stage(top), describe(allowed))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func stage(top string) string {
	if top == "." {
		return "main"
	}
	return top
}

func describe(allowed []string) string {
	if len(allowed) == 0 {
		return "nothing of the module (it is a leaf of the pipeline)"
	}
	return "only " + strings.Join(allowed, ", ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
