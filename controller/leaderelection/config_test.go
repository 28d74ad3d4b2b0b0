package leaderelection_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/lease"
)

func TestNew_rejects_configs_that_cannot_work(t *testing.T) {
	client := newLeaseServer(t).Client(t, nil)
	tests := []struct {
		name string
		cfg  leaderelection.Config
		want string
	}{
		{"no client", leaderelection.Config{Name: "x"}, "Client is required"},
		{"no lease name", leaderelection.Config{Member: lease.Member{Client: client}}, "Name (the Lease's name) is required"},
		{"a lease shorter than a second", leaderelection.Config{
			Member: lease.Member{Client: client, LeaseDuration: 500 * time.Millisecond, RenewDeadline: 300 * time.Millisecond, RetryPeriod: 100 * time.Millisecond},
			Name:   "x",
		},
			"under the 1 s"},
		{"a renew deadline as long as the lease", leaderelection.Config{
			Member: lease.Member{Client: client, LeaseDuration: 10 * time.Second, RenewDeadline: 10 * time.Second},
			Name:   "x",
		}, "must be longer than RenewDeadline"},
		{"a deadline that leaves one try", leaderelection.Config{
			Member: lease.Member{Client: client, RenewDeadline: 10 * time.Second, RetryPeriod: 9 * time.Second},
			Name:   "x",
		}, "must be longer than RetryPeriod 9s × 1.2"},
		{"a negative retry period", leaderelection.Config{Member: lease.Member{Client: client, RetryPeriod: -time.Second}, Name: "x"},
			"must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := leaderelection.New(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New = %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

func TestNew_fills_in_an_identity_unique_per_elector(t *testing.T) {
	client := newLeaseServer(t).Client(t, nil)
	a, err := leaderelection.New(leaderelection.Config{Member: lease.Member{Client: client}, Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := leaderelection.New(leaderelection.Config{Member: lease.Member{Client: client}, Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(a.Identity(), "_") || a.Identity() == b.Identity() {
		t.Fatalf("identities %q and %q, want host_random, different", a.Identity(), b.Identity())
	}
	if got, want := a.Status().Identity, a.Identity(); got != want {
		t.Fatalf("Status().Identity %q, want %q", got, want)
	}
}
