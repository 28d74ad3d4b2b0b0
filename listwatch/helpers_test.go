package listwatch_test

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest/golden"
	"github.com/kubewire/kubewire/apiclient/recording"
)

// discard is a logger for tests: the steps say everything.
var discard = slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError + 1}))

// modelSink is a Sink that keeps what it was told, as the store would after the
// FIFO drained, and writes a golden line for what only it can see: which objects a
// Replace removed.
type modelSink struct {
	mu       sync.Mutex
	objects  map[string]*apiclient.Object
	lines    *[]string
	replaces int
	fail     map[string]error // method → error to return
	once     map[string]bool  // methods whose failure happens once
}

// failOnce makes method fail the next time only.
func (s *modelSink) failOnce(method string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail[method] = err
	s.once[method] = true
}

func (s *modelSink) replaceCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.replaces
}

// failing returns the error method should fail with, if any; called with mu held.
func (s *modelSink) failing(method string) error {
	err := s.fail[method]
	if s.once[method] {
		delete(s.fail, method)
		delete(s.once, method)
	}
	return err
}

func newModelSink(lines *[]string) *modelSink {
	return &modelSink{objects: map[string]*apiclient.Object{}, lines: lines, fail: map[string]error{}, once: map[string]bool{}}
}

func (s *modelSink) Add(o *apiclient.Object) error    { return s.put("Add", o) }
func (s *modelSink) Update(o *apiclient.Object) error { return s.put("Update", o) }

func (s *modelSink) put(method string, o *apiclient.Object) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.failing(method); err != nil {
		return err
	}
	s.objects[o.Key()] = o
	return nil
}

func (s *modelSink) Delete(o *apiclient.Object) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.failing("Delete"); err != nil {
		return err
	}
	delete(s.objects, o.Key())
	return nil
}

func (s *modelSink) Replace(list []*apiclient.Object, rv string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.failing("Replace"); err != nil {
		return err
	}
	s.replaces++
	listed := map[string]*apiclient.Object{}
	for _, o := range list {
		listed[o.Key()] = o
	}
	for _, k := range sortedKeys(s.objects) {
		if _, ok := listed[k]; !ok && s.lines != nil {
			*s.lines = append(*s.lines, fmt.Sprintf("DELETE %s rv=%s (missing from relist)", k, s.objects[k].Metadata.ResourceVersion))
		}
	}
	s.objects = listed
	return nil
}

// state is the sink's content as sorted "key rv" lines.
func (s *modelSink) state() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, k := range sortedKeys(s.objects) {
		out = append(out, k+" rv="+s.objects[k].Metadata.ResourceVersion)
	}
	return out
}

func sortedKeys(m map[string]*apiclient.Object) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// namespaceOf reads the namespace of the recording's first request.
func namespaceOf(rec *recording.Recording) string {
	for _, ex := range rec.Exchanges {
		if ex.Target == "/version" { // asked before the list (Record, where the server answers it)
			continue
		}
		_, rest, ok := strings.Cut(ex.Target, "/namespaces/")
		if !ok {
			return ""
		}
		ns, _, _ := strings.Cut(rest, "/")
		return ns
	}
	return ""
}

// asksVersion reports whether rec holds the GET /version a default informer
// asks before it lists (Record writes it where the server answers it).
func asksVersion(rec *recording.Recording) bool {
	for _, ex := range rec.Exchanges {
		if ex.Target == "/version" {
			return true
		}
	}
	return false
}

// goldenLines compares lines with testdata/golden/NAME.golden, or rewrites it with -update.
func goldenLines(t *testing.T, name string, lines []string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "golden", name+".golden"), strings.Join(lines, "\n")+"\n")
}

// script parses an inline recording.
func script(t *testing.T, lines ...string) *recording.Recording {
	t.Helper()
	rec, err := recording.Parse(strings.NewReader(recording.Magic + "\n" + strings.Join(lines, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}
