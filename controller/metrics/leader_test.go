package metrics_test

import (
	"strings"
	"testing"

	"github.com/kubewire/kubewire/controller/metrics"
)

func TestLeaderElection_follows_isLeader_at_scrape_time(t *testing.T) {
	reg := new(metrics.Registry)
	leading := false
	metrics.LeaderElection(reg, "kubewire", func() bool { return leading })
	const line = `leader_election_master_status{name="kubewire"} `
	if page := render(t, reg); !strings.Contains(page, line+"0\n") {
		t.Fatalf("standby page:\n%s\nwant %s0", page, line)
	}
	leading = true
	if page := render(t, reg); !strings.Contains(page, line+"1\n") {
		t.Fatalf("leader page:\n%s\nwant %s1", page, line)
	}
}
