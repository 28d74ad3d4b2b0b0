package controller_test

import (
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller/sharding"
)

// Issue 29: a replica waiting on a member that claims its ranges (here a
// Lease that says 3600 s and never renews) answered /readyz with "informer …
// has not synced", which is not why. It says what it waits for, and on whom.
func TestManager_readyz_says_on_whom_a_sharded_replica_waits(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("ops")
	defer srv.Close()
	stale := `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"cms-shard-z","namespace":"ops",
		"labels":{"` + sharding.GroupLabel + `":"cms"},"annotations":{"` + sharding.RangesAnnotation + `":"` + sharding.Set{sharding.Full}.String() + `"}},
		"spec":{"holderIdentity":"z","leaseDurationSeconds":3600}}`
	if _, err := srv.Add(apiclient.Leases, stale); err != nil {
		t.Fatal(err)
	}
	w := make(wake, 1)
	a := startShardReplica(t, srv, "a", w, func(string, string) {}, srv.Transport())
	defer func() { a.stop(); <-a.done }()
	var why string
	w.until(t, "a's /readyz to name what it waits for", func() bool {
		_, err := a.m.Ready()
		if err != nil {
			why = err.Error()
		}
		return strings.Contains(why, `waiting for member "z" (Lease cms-shard-z) to release`)
	})
}

// Issue 39: a member Lease's holder identity reached /readyz as the Lease
// said it, escape sequences and newlines included (the logs escaped it). It
// is quoted now, Go style, as the logs write it.
func TestManager_readyz_quotes_a_member_identity(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("ops")
	defer srv.Close()
	stale := `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"cms-shard-z","namespace":"ops",
		"labels":{"` + sharding.GroupLabel + `":"cms"},"annotations":{"` + sharding.RangesAnnotation + `":"` + sharding.Set{sharding.Full}.String() + `"}},
		"spec":{"holderIdentity":"z\u001b[31m\n","leaseDurationSeconds":3600}}`
	if _, err := srv.Add(apiclient.Leases, stale); err != nil {
		t.Fatal(err)
	}
	w := make(wake, 1)
	a := startShardReplica(t, srv, "a", w, func(string, string) {}, srv.Transport())
	defer func() { a.stop(); <-a.done }()
	var why string
	w.until(t, "a's /readyz to name what it waits for", func() bool {
		_, err := a.m.Ready()
		if err != nil {
			why = err.Error()
		}
		return strings.Contains(why, `waiting for member`)
	})
	if want := `waiting for member "z\x1b[31m\n" (Lease cms-shard-z) to release`; !strings.Contains(why, want) {
		t.Fatalf("/readyz says %q, want it to say %q", why, want)
	}
}
