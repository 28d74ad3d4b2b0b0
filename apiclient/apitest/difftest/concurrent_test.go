package difftest_test

import (
	"context"
	"os"
	"testing"

	"github.com/kubewire/kubewire/apiclient/apitest/difftest"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// Eight writers, forty writes each, on two objects at once: every write the
// server acknowledged is in the final object, every one it refused (409) is
// not, and the watch saw each acknowledged write once, in order. On apitest
// always; on KUBEWIRE_TEST_KUBECONFIG's server too, when it is set, to show
// the same guarantee holds there.
func TestConcurrent_writers(t *testing.T) {
	ctx := context.Background()
	fake, err := difftest.NewApitest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	fake.Namespace(ctx, "demo")
	counts, err := difftest.Concurrent(ctx, fake, "demo", 8, 40, 2)
	if err != nil {
		t.Fatalf("apitest: %v", err)
	}
	t.Logf("apitest: answers %v", counts)

	path := os.Getenv("KUBEWIRE_TEST_KUBECONFIG")
	if path == "" {
		return
	}
	cfg, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	real, ns := difftest.RealTarget(t, cfg)
	counts, err = difftest.Concurrent(ctx, real, ns, 8, 40, 2)
	if err != nil {
		t.Fatalf("%s: %v", real.Name, err)
	}
	t.Logf("%s: answers %v", real.Name, counts)
}
