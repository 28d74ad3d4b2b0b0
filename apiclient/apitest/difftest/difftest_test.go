package difftest_test

import (
	"context"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient/apitest/difftest"
	"github.com/kubewire/kubewire/apiclient/realtest"
)

// TestDifferential runs generated sequences on apitest and on the real server
// of KUBEWIRE_TEST_KUBECONFIG, and fails on the first divergences, each shrunk
// and printed as a replayable test. Without a server it skips.
//
//	KUBEWIRE_DIFFTEST_COUNT    sequences to run (default 200)
//	KUBEWIRE_DIFFTEST_SEED     the first seed (default 1); seeds run in order
//	KUBEWIRE_DIFFTEST_WORKERS  sequences at once, each in a namespace of its own (default 4)
//	KUBEWIRE_DIFFTEST_MAX      divergences to report before stopping (default 3)
func TestDifferential(t *testing.T) {
	cfg, _ := realtest.Config(t)
	count := envInt(t, "KUBEWIRE_DIFFTEST_COUNT", 200)
	first := envInt(t, "KUBEWIRE_DIFFTEST_SEED", 1)
	workers := envInt(t, "KUBEWIRE_DIFFTEST_WORKERS", 4)
	maxFound := envInt(t, "KUBEWIRE_DIFFTEST_MAX", 3)
	ctx := context.Background()

	seeds := make(chan uint64)
	var found, ran atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		real, ns := difftest.RealTarget(t, cfg)
		wg.Go(func() {
			for seed := range seeds {
				seq := difftest.Generate(seed)
				d, err := difftest.Check(ctx, real, ns, seq)
				if err != nil {
					t.Errorf("seed %d: %v", seed, err)
					found.Add(1)
					continue
				}
				ran.Add(1)
				if d == nil {
					continue
				}
				if found.Add(1) > int64(maxFound) {
					continue
				}
				if s, err := difftest.Shrink(ctx, real, ns, d); err == nil {
					d = s
				} else {
					t.Logf("seed %d: shrinking failed: %v", seed, err)
				}
				t.Errorf("%s", d)
			}
		})
	}
	for i := range count {
		if found.Load() >= int64(maxFound) {
			break
		}
		seeds <- uint64(first + i)
	}
	close(seeds)
	wg.Wait()
	t.Logf("%d sequences (seeds from %d) in %v: %d divergences or failures", ran.Load(), first, time.Since(start).Round(time.Second), found.Load())
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a whole number", name, v)
	}
	return n
}
