package controller

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Ready is what /readyz answers: ready when every informer has synced, every
// check AddReadyCheck was given passes and, with
// leader election, the Lease could be read or written at the latest tries, or,
// with sharding, the replica serves its ranges; the string says the replica's
// role: "leader" or "standby" with leader election, the ranges served and by
// whom they are filtered with sharding (shardReady), "" alone. A sharded
// replica that waits (for its own Lease, for another member to release a
// range) says for what and on whom, ahead of its informers' sync.
//
// A ready replica also names the writes of its own that a cache has not shown
// for a second or more (a healthy watch shows one in milliseconds), which
// guarded turns and read-your-own-writes reads wait for until StaleWaitLimit
// after their answer (awaited.go): the oldest readyAwaitedMax, after the role.
func (m *Manager) Ready() (string, error) {
	role, err := m.ready()
	if err != nil {
		return "", err
	}
	return withAwaited(role, m.writes.awaitedFor(time.Second), m.opts.Clock.Now()), nil
}

// readyAwaitedMax is how many awaited writes /readyz names; it counts the rest.
const readyAwaitedMax = 3

// withAwaited is detail followed by what each of ws, awaited at now, is:
//
//	leader; awaiting this process's write of pods "demo/web-1" at rv "999" for 30s
//
// Every value from the server is quoted (Go's %q), so that no character of
// it reaches the terminal of whoever reads the probe.
func withAwaited(detail string, ws []*write, now time.Time) string {
	parts := make([]string, 0, readyAwaitedMax+2)
	if detail != "" {
		parts = append(parts, detail)
	}
	for i, w := range ws {
		if i == readyAwaitedMax {
			parts = append(parts, fmt.Sprintf("and %d more writes awaited", len(ws)-i))
			break
		}
		what := fmt.Sprintf("write of %s %q at rv %q", w.resource, w.namespace+"/"+w.name, w.shows.ResourceVersion)
		if w.shows.ResourceVersion == "" {
			what = fmt.Sprintf("delete of %s %q", w.resource, w.namespace+"/"+w.name)
		}
		parts = append(parts, fmt.Sprintf("awaiting this process's %s for %s", what, now.Sub(w.at).Round(time.Second)))
	}
	return strings.Join(parts, "; ")
}

// ready is Ready without the writes awaited.
func (m *Manager) ready() (string, error) {
	if m.sharder != nil {
		// A replica waiting to serve its share says for what and on whom;
		// its sharded informers are not synced meanwhile, which is not why.
		if st := m.sharder.Status(); st.Waiting != "" {
			return "", fmt.Errorf("shard %s: waiting %s", st.Identity, st.Waiting)
		}
	}
	m.mu.Lock()
	informers, checks := slices.Clone(m.order), slices.Clone(m.readyChecks)
	m.mu.Unlock()
	for _, inf := range informers {
		if !inf.HasSynced() {
			return "", fmt.Errorf("informer %s has not synced", inf.Name())
		}
	}
	for _, c := range checks {
		if err := c.check(); err != nil {
			return "", fmt.Errorf("%s: %w", c.name, err)
		}
	}
	if m.sharder != nil {
		return m.shardReady()
	}
	if m.elector == nil {
		return "", nil
	}
	switch st := m.elector.Status(); {
	case st.Failures >= leaseFailuresNotReady:
		return "", fmt.Errorf("leader election: %d tries in a row failed: %s", st.Failures, st.LastError)
	case st.IsLeader:
		return "leader", nil
	}
	return "standby", nil
}

// leaseFailuresNotReady is how many failed tries in a row to read or write the
// Lease make a replica not ready: one is a blip, two (2 to 4.4 s apart with the
// defaults) is a Lease it cannot reach — a missing namespace, a missing RBAC
// rule — and a replica that would otherwise say "ok (standby)" forever.
const leaseFailuresNotReady = 2
