package leaderelection_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/kubewire/kubewire/controller/lease"
)

func TestElector_leader_keeps_the_lease_when_someone_else_only_touched_it(t *testing.T) {
	c := newCluster(t)
	a := c.start("a")
	touched := c.lease()
	touched.Metadata.Labels = map[string]string{"team": "platform"}
	c.srv.Put(touched) // a new resourceVersion, the same holder

	c.step()
	reqs := c.srv.Requests()
	if got, want := reqs[len(reqs)-3:], []string{"PUT default/kubewire 409", "GET default/kubewire 200", "PUT default/kubewire 200"}; !slices.Equal(got, want) {
		t.Fatalf("last requests %q, want %q", got, want)
	}
	if !a.e.IsLeader() {
		t.Fatal("a stopped leading")
	}
	if got := c.lease().Metadata.Labels["team"]; got != "platform" {
		t.Fatalf("label team=%q after the renewal, want it kept", got)
	}
}

func TestElector_leader_recreates_a_lease_deleted_under_it(t *testing.T) {
	c := newCluster(t)
	a := c.start("a")
	c.srv.Delete(ns, name)
	c.step()
	reqs := c.srv.Requests()
	// A PUT of a Lease that does not exist creates it, on kube-apiserver as
	// on apitest: the renewal itself recreates the lease.
	if got, want := reqs[len(reqs)-1:], []string{"PUT default/kubewire 201"}; !slices.Equal(got, want) {
		t.Fatalf("last requests %q, want %q", got, want)
	}
	if !a.e.IsLeader() || c.lease().Spec.HolderIdentity != "a" {
		t.Fatalf("after recreating: leading %v, holder %q", a.e.IsLeader(), c.lease().Spec.HolderIdentity)
	}
}

func TestElector_candidate_that_loses_a_race_stays_standby(t *testing.T) {
	tests := []struct {
		name string
		// setup prepares the server before the candidate starts; race is the verb
		// whose first request another writer beats.
		setup func(c *cluster)
		race  string
		want  []string
	}{{
		name:  "two candidates create the lease at once",
		setup: func(*cluster) {},
		race:  http.MethodPost,
		want:  []string{"GET default/kubewire 404", "POST default/kubewire 409"},
	}, {
		name: "two candidates take a released lease at once",
		setup: func(c *cluster) {
			c.srv.Put(lease.Lease{Metadata: apiclientMeta(), Spec: lease.Spec{LeaseDurationSeconds: 1}})
		},
		race: http.MethodPut,
		want: []string{"GET default/kubewire 200", "PUT default/kubewire 409"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCluster(t)
			tt.setup(c)
			raced := false
			c.srv.Intercept(func(r *http.Request) {
				if r.Method == tt.race && !raced {
					raced = true // the other candidate's write lands first
					c.srv.Put(lease.Lease{Metadata: apiclientMeta(), Spec: lease.Spec{
						HolderIdentity: "x", LeaseDurationSeconds: 15, RenewTime: lease.NewMicroTime(time.Now())}})
				}
			})
			a := c.start("a")
			if got := c.srv.Requests(); !slices.Equal(got, tt.want) {
				t.Fatalf("requests %q, want %q", got, tt.want)
			}
			if a.e.IsLeader() {
				t.Fatal("a leads after losing the race")
			}
			c.step() // a reads again, and sees x
			if got, want := a.e.Leader(), "x"; got != want {
				t.Fatalf("leader %q, want %q", got, want)
			}
			if a.e.IsLeader() {
				t.Fatal("a took a lease that x holds")
			}
		})
	}
}
