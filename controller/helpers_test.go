package controller_test

import (
	"testing"
	"time"

	"github.com/kubewire/kubewire/controller/informer/informertest"
)

// The tests feed informers through informertest: a Script stands where the
// Reflector would, and Pod makes the objects.
var (
	newInformer = informertest.New
	pod         = informertest.Pod
	newRecorder = informertest.NewRecorder
)

func mustDuration(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		panic(err)
	}
	return d
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
