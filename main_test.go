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
// fifo, store and queue are leaves that import nothing of the module but its
// floor (below), so each can be read (and reused) alone; controller is where the
// stages meet
// (controller/informer the cache half, controller the reconcile half). A package
// may always import its own sub-packages (apiclient → apiclient/kubeconfig), test
// files included.
//
// controller/cli is the composition root: it wires every package into the
// kubewire command, so it imports from all of them. It sits under controller in
// this table only because a directory's top name is what the table checks; it is
// no pipeline stage, and main only calls it.
//
// The floor is apiclient/clock: the one Clock interface and its fake, the one
// Backoff, token bucket, histogram core and namespace/name key. It imports only
// the standard library, so every package may import it — queue does, as its one
// import of the module (its delays, rate limiters and duration histograms), store
// for the key it files objects under, and queue's tests step its fake rather
// than an API server's.
var mayImport = map[string][]string{
	"apiclient":  nil,
	"listwatch":  {"apiclient"},
	"fifo":       nil,
	"store":      nil,
	"queue":      nil,
	"controller": {"apiclient", "listwatch", "fifo", "store", "queue"},
	".":          {"controller"},
}

// floor is the one package every stage may import; it imports nothing of the
// module itself (TestFloor_imports_only_the_standard_library).
const floor = "apiclient/clock"

// Test files may also import these: fifo's tests and Examples pair a FIFO with the
// store behind it, as the informer does. (queue's tests step the floor's fake
// clock, queue/doc.go says why not synctest.)
var testsMayImport = map[string][]string{
	"fifo": {"store"},
}

// Only test files may import these: they import package testing, and a non-test
// file that imported them would link it into the kubewire binary. Stages that may
// import the package's top directory may import these from their tests
// (apiclient/realtest: from apiclient on).
var testsOnly = []string{"apiclient/realtest", "apiclient/apitest/golden", "apiclient/apitest/difftest", "controller/informer/informertest", "controller/perturb"}

// Inside controller/ (47% of the module's non-test lines), the packages form layers of their
// own, and a non-test file of one may import, of the others under controller/,
// only these. Values first (trace, pipeline, metrics, rbac, which writes its
// YAML with internal/yamlout, a leaf cli uses too), then the machinery
// beneath a controller (informer; lease, and on it leaderelection and
// sharding), the reconcile loop and the Manager (controller: the loop asks one
// hook before a Reconcile, admit.go, and the Manager knows sharding's Sharder
// by an interface of its own, manager_sharding.go's shardRing; it imports
// sharding for its Config and to build one), the toolkit a
// Reconciler uses (events, status, finalizer) and an operator installs with
// (crd) or serves beside its controllers (webhook), the live page, the example
// controllers, the explorer their tests run (perturb, test-only), and the
// command (cli), which wires them all. A package missing from this table is an
// error: a new package takes its place in the layers on purpose.
var controllerMayImport = map[string][]string{
	"controller/trace":                 nil,
	"controller/pipeline":              nil,
	"controller/metrics":               nil,
	"controller/events":                nil,
	"controller/internal/yamlout":      nil,
	"controller/rbac":                  {"controller/internal/yamlout"},
	"controller/manifests":             {"controller/rbac"},
	"controller/status":                nil,
	"controller/crd":                   nil,
	"controller/lease":                 nil,
	"controller/leaderelection":        {"controller/lease"},
	"controller/informer":              {"controller/trace", "controller/metrics"},
	"controller/informer/informertest": {"controller/informer"},
	"controller/sharding":              {"controller/informer", "controller/lease", "controller/metrics"},
	"controller":                       {"controller/trace", "controller/pipeline", "controller/metrics", "controller/events", "controller/rbac", "controller/informer", "controller/leaderelection", "controller/sharding"},
	"controller/finalizer":             {"controller"},
	"controller/webhook":               {"controller", "controller/crd", "controller/metrics"},
	"controller/live":                  {"controller/trace", "controller/pipeline", "controller/metrics"},
	"controller/live/livetest":         nil,
	"controller/foo":                   {"controller", "controller/informer", "controller/events", "controller/status", "controller/finalizer", "controller/crd"},
	"controller/podrestart":            {"controller", "controller/informer"},
	"controller/chaos":                 nil,
	"controller/perturb":               {"controller", "controller/informer", "controller/trace"},
	"controller/cli":                   {"*"},
}

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
			if strings.HasPrefix(rel, "controller") && top == "controller" && !strings.HasSuffix(name, "_test.go") {
				checkController(t, path, rel)
			}
			if target == top || contains(allowed, target) || rel == floor {
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

func TestFloor_imports_only_the_standard_library(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(filepath.FromSlash(floor), "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("the floor %s has no Go files", floor)
	}
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if first := strings.Split(p, "/")[0]; strings.Contains(first, ".") && !strings.HasSuffix(path, "_test.go") {
				t.Errorf("%s imports %s: the floor imports only the standard library", path, p)
			}
			if strings.HasPrefix(p, module+"/") && p != module+"/"+floor {
				t.Errorf("%s imports %s: the floor imports nothing of the module, its tests included", path, p)
			}
		}
	}
}

// checkController checks one import of a non-test file under controller/
// against controllerMayImport.
func checkController(t *testing.T, path, imported string) {
	t.Helper()
	pkg := filepath.ToSlash(filepath.Dir(path))
	if imported == pkg {
		return
	}
	allowed, known := controllerMayImport[pkg]
	switch {
	case !known:
		t.Errorf("%s: package %s is not in main_test.go's controllerMayImport: give it its place among the layers", path, pkg)
	case contains(allowed, "*") || contains(allowed, imported):
	default:
		t.Errorf("%s imports %s: %s may import, under controller/, %s", path, imported, pkg, describe(allowed))
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
