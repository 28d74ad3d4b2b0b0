package controller

import (
	"fmt"
	"slices"
)

// Ready is what /readyz answers: ready when every informer has synced and, with
// leader election, the Lease could be read or written at the latest tries, or,
// with sharding, the replica serves its ranges; the string says the replica's
// role: "leader" or "standby" with leader election, the ranges served and by
// whom they are filtered with sharding (shardReady), "" alone. A sharded
// replica that waits (for its own Lease, for another member to release a
// range) says for what and on whom, ahead of its informers' sync.
func (m *Manager) Ready() (string, error) {
	if m.sharder != nil {
		// A replica waiting to serve its share says for what and on whom;
		// its sharded informers are not synced meanwhile, which is not why.
		if st := m.sharder.Status(); st.Waiting != "" {
			return "", fmt.Errorf("shard %s: waiting %s", st.Identity, st.Waiting)
		}
	}
	m.mu.Lock()
	informers := slices.Clone(m.order)
	m.mu.Unlock()
	for _, inf := range informers {
		if !inf.HasSynced() {
			return "", fmt.Errorf("informer %s has not synced", inf.Name())
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
