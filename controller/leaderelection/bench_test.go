package leaderelection_test

import (
	"context"
	"testing"

	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/lease"
)

// One whole election against the in-memory server over TLS loopback: read the
// Lease, take it, release it (three requests; the first iteration creates it).
// A leader's steady cost is one of these writes every RetryPeriod, which is why the
// figure matters little; it is here to catch a regression in allocations.
func BenchmarkElector_take_and_release(b *testing.B) {
	srv := newLeaseServer(b)
	e, err := leaderelection.New(leaderelection.Config{
		Member:          lease.Member{Client: srv.Client(b, nil), Namespace: "default", Identity: "a"},
		Name:            "bench",
		ReleaseOnCancel: true,
	})
	if err != nil {
		b.Fatal(err)
	}
	work := func(context.Context) {} // returns at once: take, then release
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := e.Run(ctx, work, nil); err != nil {
			b.Fatal(err)
		}
	}
}
