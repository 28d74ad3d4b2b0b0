package informer_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/kubewire/kubewire/controller/informer/informertest"
)

// The tests feed the informer through informertest: a Script stands where the
// Reflector would, Pod makes the objects, and a Recorder is the handler.
var (
	newInformer = informertest.New
	pod         = informertest.Pod
	newRecorder = informertest.NewRecorder
)

// quietLog keeps the Reflector's logs out of the benchmark's output.
var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
