package lease_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/lease"
)

// spec is a Lease named n with the given spec, as read.
func spec(n string, s lease.Spec) *lease.Lease {
	return &lease.Lease{Metadata: apiclient.ObjectMeta{Name: n, Namespace: ns}, Spec: s}
}

// The observer's clock decides, never the renewTime written: a holder whose
// clock runs an hour ahead is held for the lease duration after its record
// was last seen to change, and a label added by hand is no sign of life.
func TestObserver_counts_expiry_on_its_own_clock_from_the_last_change(t *testing.T) {
	e := newEnv(t)
	o := lease.NewObserver(15*time.Second, nil)
	ahead := lease.NewMicroTime(e.clock.Now().Add(time.Hour))
	l := spec(name, lease.Spec{HolderIdentity: "a", LeaseDurationSeconds: 15, RenewTime: ahead})
	start := e.clock.Now()
	o.See(l, start)

	e.clock.Step(10 * time.Second)
	labelled := spec(name, l.Spec)
	labelled.Metadata.Labels = map[string]string{"team": "platform"}
	s := o.See(labelled, e.clock.Now())
	if !s.Since.Equal(start) || !s.Held(start.Add(14*time.Second)) || s.Held(start.Add(15*time.Second)) {
		t.Fatalf("since +%s, expiry +%s; want the countdown from +0s, held until +15s", s.Since.Sub(start), s.Expiry().Sub(start))
	}

	renewed := spec(name, l.Spec)
	renewed.Spec.RenewTime = lease.NewMicroTime(ahead.Add(10 * time.Second))
	if s := o.See(renewed, e.clock.Now()); !s.Since.Equal(start.Add(10*time.Second)) || !s.Held(start.Add(24*time.Second)) {
		t.Fatalf("renewed at +10s: since +%s; want the countdown restarted at +10s", s.Since.Sub(start))
	}
}

// The duration honoured is what the Lease says, capped at twice the reader's
// own; the reader's own when it says none. A released Lease (no holder) is
// not held, whatever its duration.
func TestObserver_honours_a_duration_up_to_twice_its_own(t *testing.T) {
	o := lease.NewObserver(15*time.Second, nil)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		seconds int32
		want    time.Duration
	}{
		{5, 5 * time.Second},
		{15, 15 * time.Second},
		{30, 30 * time.Second},
		{3600, 30 * time.Second},
		{1<<31 - 1, 30 * time.Second},
		{0, 15 * time.Second},
		{-1, 15 * time.Second},
	} {
		if got := o.See(spec(name, lease.Spec{HolderIdentity: "a", LeaseDurationSeconds: tt.seconds}), now).Honoured; got != tt.want {
			t.Errorf("leaseDurationSeconds %d: honoured %s, want %s", tt.seconds, got, tt.want)
		}
	}
	if o.See(spec(name, lease.Spec{LeaseDurationSeconds: 1}), now).Held(now) {
		t.Error("a released Lease is held")
	}
	if (lease.Sighting{}).Held(now) {
		t.Error("the zero Sighting (nothing seen) is held")
	}
}

// A Lease that cannot be decoded is no error: it is logged once per
// resourceVersion, held by an unknown holder for the reader's own
// LeaseDuration after its resourceVersion last changed. (kube-apiserver
// refuses a renewTime that is no micro-time, but keeps one an hour west of
// Greenwich at the end of 9999 as year 10000, which this package cannot read.)
func TestObserver_judges_an_undecodable_Lease_by_its_resourceVersion(t *testing.T) {
	e := newEnv(t)
	var logged bytes.Buffer
	o := lease.NewObserver(15*time.Second, slog.New(slog.NewTextHandler(&logged, nil)))
	bad := e.add(name, `"holderIdentity":"x","leaseDurationSeconds":3600,"renewTime":"9999-12-31T23:30:00.000000-01:00"`)
	start := e.clock.Now()
	s := o.SeeObject(bad, start)
	e.clock.Step(10 * time.Second)
	s = o.SeeObject(bad, e.clock.Now())
	if s.Err == nil || !strings.Contains(s.Err.Error(), "lease ops/lock") || s.Lease.Metadata.ResourceVersion == "" {
		t.Fatalf("sighting: err %v, metadata %+v; want an error naming the Lease, and its metadata", s.Err, s.Lease.Metadata)
	}
	if !s.Since.Equal(start) || !s.Held(start.Add(14*time.Second)) || s.Held(start.Add(15*time.Second)) {
		t.Fatalf("since +%s, expiry +%s; want held from +0s to +15s (the reader's own duration)", s.Since.Sub(start), s.Expiry().Sub(start))
	}
	if n := strings.Count(logged.String(), "level=WARN"); n != 1 {
		t.Fatalf("logged %d times, want once per resourceVersion:\n%s", n, logged.String())
	}

	if err := e.leases.Delete(context.Background(), name, apiclient.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	bad = e.add(name, `"renewTime":"9999-12-31T23:45:00.000000-01:00"`) // a new resourceVersion
	if s := o.SeeObject(bad, e.clock.Now()); !s.Since.Equal(e.clock.Now()) || strings.Count(logged.String(), "level=WARN") != 2 {
		t.Fatalf("a new version: since +%s, logged:\n%s\nwant the countdown restarted and logged again", s.Since.Sub(start), logged.String())
	}
}

// SeeList forgets the Leases a list no longer holds: one deleted and
// created again is a new record.
func TestObserver_SeeList_forgets_what_is_gone(t *testing.T) {
	e := newEnv(t)
	o := lease.NewObserver(15*time.Second, nil)
	x := e.add("x", `"holderIdentity":"x","leaseDurationSeconds":15`)
	y := e.add("y", `"holderIdentity":"y","leaseDurationSeconds":15`)
	start := e.clock.Now()
	o.SeeList([]*apiclient.Object{x, y}, start)
	e.clock.Step(time.Second)
	o.SeeList([]*apiclient.Object{y}, e.clock.Now())
	e.clock.Step(time.Second)
	seen := o.SeeList([]*apiclient.Object{x, y}, e.clock.Now())
	if len(seen) != 2 || !seen[0].Since.Equal(start.Add(2*time.Second)) || !seen[1].Since.Equal(start) {
		t.Fatalf("sightings %+v; want x seen anew at +2s, y since +0s", seen)
	}
}
