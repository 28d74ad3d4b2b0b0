package perturb

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
)

// A controller that deadlocks on a mutex keeps its execution's bubble from
// ever being idle: the watchdog ends the test binary with the reason, well
// before the test timeout. The test runs itself in a child process, where
// the stall happens, with a bound of a second; a deadline ends the child if
// the watchdog does not.
func TestStall_ends_the_test_with_its_reason(t *testing.T) {
	if os.Getenv("KUBEWIRE_PERTURB_STALL_CHILD") == "1" {
		stallBound = time.Second
		Explore(t, Spec{
			Setup: func(m *controller.Manager) error {
				_, err := controller.New(m, "stuck", controller.Options{}).For(apiclient.ConfigMaps).Complete(deadlock{})
				return err
			},
			Manager:  controller.ManagerOptions{Namespace: "demo"},
			Workload: []Step{Create(apiclient.ConfigMaps, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"demo"}}`)},
		})
		t.Fatal("Explore returned")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestStall_ends_the_test_with_its_reason$", "-test.count=1")
	cmd.Env = append(os.Environ(), "KUBEWIRE_PERTURB_STALL_CHILD=1")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the child was still running after 2m: the watchdog did not end it:\n%s", out)
	}
	if err == nil {
		t.Fatalf("the child passed:\n%s", out)
	}
	for _, want := range []string{"perturb: execution none stalled", "sync.Mutex.Lock", "deadlock.Reconcile"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("the child's output does not say %q:\n%s", want, out)
		}
	}
}

// deadlock's Reconcile waits for a mutex nobody will unlock.
type deadlock struct{}

func (deadlock) Reconcile(context.Context, controller.Request) (controller.Result, error) {
	var mu sync.Mutex
	mu.Lock()
	mu.Lock()
	return controller.Result{}, nil
}
