package metrics

// LeaderElection registers client-go's leader_election_master_status{name="<name>"}:
// 1 while isLeader reports true, else 0, read at scrape time. Pass the elector's
// IsLeader and the Lease's name. Summed over replicas it should be exactly 1; a
// dashboard that sees 0 or 2 for long has found a problem.
func LeaderElection(reg *Registry, name string, isLeader func() bool) {
	reg.GaugeFunc("leader_election_master_status",
		"1 while this replica holds the leader election Lease, else 0.", Labels{"name": name},
		func() float64 {
			if isLeader() {
				return 1
			}
			return 0
		})
}
