package lease_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/kubewire/kubewire/controller/lease"
)

func TestSeconds_rounds_up(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want int32
	}{
		{15 * time.Second, 15},
		{2900 * time.Millisecond, 3},
		{2*time.Second + time.Nanosecond, 3},
		{time.Second, 1},
		{1<<63 - 1, 1<<31 - 1},
	} {
		if got := lease.Seconds(tt.d); got != tt.want {
			t.Errorf("Seconds(%s) = %d, want %d", tt.d, got, tt.want)
		}
	}
}

// A LeaseDuration of 2.9 s is written as 3 s: truncated to 2 s, an observer
// would count the Lease expired before the holder's renew deadline (1.93 s
// here, 2.5 s in leaderelection's test of the same) had passed.
func TestHolder_writes_its_duration_rounded_up(t *testing.T) {
	e := newEnv(t)
	h := e.holder("a", 2900*time.Millisecond)
	if _, err := h.Renew(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := e.stored().Spec.LeaseDurationSeconds, int32(3); got != want {
		t.Fatalf("leaseDurationSeconds %d, want %d", got, want)
	}
}

// Taking a Lease keeps everything the holder does not write: labels and
// annotations others set, strategy; it counts a transition and sets
// acquireTime. A renewal after someone only labelled the Lease reads it
// (Conflict), sees it still its own, and writes again, keeping the label and
// acquireTime.
func TestHolder_keeps_what_others_wrote(t *testing.T) {
	e := newEnv(t)
	e.add(name, `"holderIdentity":"old","leaseDurationSeconds":15,"leaseTransitions":4,"strategy":"OldestEmulationVersion"`)
	l := e.stored()
	l.Metadata.Labels = map[string]string{"team": "platform"}
	l.Metadata.Annotations = map[string]string{"note": "hand-made"}
	e.put(l)

	h := e.holder("a", 15*time.Second)
	e.clock.Step(time.Second)
	if _, err := h.Take(context.Background(), e.stored()); err != nil {
		t.Fatal(err)
	}
	got := e.stored()
	if got.Spec.HolderIdentity != "a" || got.Spec.LeaseTransitions != 5 || at(got.Spec.AcquireTime) != time.Second ||
		at(got.Spec.RenewTime) != time.Second || got.Spec.Strategy != "OldestEmulationVersion" {
		t.Fatalf("taken: spec %+v; want holder a, 5 transitions, acquired and renewed at +1s, strategy kept", got.Spec)
	}
	if got.Metadata.Labels["team"] != "platform" || got.Metadata.Annotations["note"] != "hand-made" || lease.InstanceOf(got) == "" {
		t.Fatalf("taken: labels %v, annotations %v; want others' kept and the instance written", got.Metadata.Labels, got.Metadata.Annotations)
	}

	got.Metadata.Labels["env"] = "prod"
	e.put(got)
	e.clock.Step(2 * time.Second)
	if _, err := h.Renew(context.Background()); err != nil {
		t.Fatalf("Renew after a label was added: %v", err)
	}
	got = e.stored()
	if got.Metadata.Labels["env"] != "prod" || at(got.Spec.AcquireTime) != time.Second || at(got.Spec.RenewTime) != 3*time.Second || got.Spec.LeaseTransitions != 5 {
		t.Fatalf("renewed: labels %v, spec %+v; want the label kept, acquired at +1s, renewed at +3s, 5 transitions", got.Metadata.Labels, got.Spec)
	}
}

// Two processes given one identity: the second finds the Lease written by
// another instance and holds nothing; of two that take one Lease at once,
// one wins.
func TestHolder_tells_two_processes_of_one_identity_apart(t *testing.T) {
	e := newEnv(t)
	first, second := e.holder("a", 15*time.Second), e.holder("a", 15*time.Second)
	ctx := context.Background()
	if _, err := first.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := second.Renew(ctx)
	var held *lease.HeldError
	if !errors.As(err, &held) || held.Lease.Spec.HolderIdentity != "a" || second.Holds(e.clock.Now()) {
		t.Fatalf("the second's Renew = %v, holds %v; want a *HeldError and nothing held", err, second.Holds(e.clock.Now()))
	}
	if _, err := first.Renew(ctx); err != nil || !first.Holds(e.clock.Now()) {
		t.Fatalf("the first's Renew = %v, holds %v; want it to go on", err, first.Holds(e.clock.Now()))
	}

	// A renewal a second later writes a new renewTime, so the Lease gets a new
	// resourceVersion (one at the same instant would change nothing, and keep it).
	seen := e.stored()
	e.clock.Step(time.Second)
	if _, err := first.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := second.Take(ctx, seen); !errors.Is(err, lease.ErrRace) {
		t.Fatalf("Take of a Lease renewed since it was read = %v, want ErrRace", err)
	}
}

// The renew deadline counts from when the last successful write was SENT:
// a renewal answered 3 s late moves it to RenewDeadline after the send, not
// after the answer.
func TestHolder_renew_deadline_counts_from_the_send(t *testing.T) {
	e := newEnv(t)
	h := e.holder("a", 15*time.Second) // RenewDeadline 10 s
	start := e.clock.Now()
	e.during = func(*http.Request) { e.clock.Step(3 * time.Second) } // a slow server
	if _, err := h.Renew(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := h.Deadline().Sub(start), 10*time.Second; got != want {
		t.Fatalf("deadline at +%s, want +%s: the write was sent at +0s", got, want)
	}
	if !h.Holds(start.Add(9*time.Second)) || h.Holds(start.Add(10*time.Second)) {
		t.Fatal("Holds: want true until +10s, false from then")
	}
}

// The one renew policy, for leader election and sharding alike: a renewal
// may take what is left until the deadline, and a RetryPeriod once there is
// none left (RenewTimeout); the next one comes a RetryPeriod later, or at the
// deadline when that is sooner (RetryWait). Before the first write, and past
// the deadline, both are a RetryPeriod.
func TestHolder_the_renew_policy_is_bounded_by_the_deadline(t *testing.T) {
	e := newEnv(t)
	h := e.holder("a", 15*time.Second) // RenewDeadline 10 s
	retry := 3 * time.Second
	start := e.clock.Now()
	if timeout, wait := h.RenewTimeout(start, retry), h.RetryWait(start, retry); timeout != retry || wait != retry {
		t.Fatalf("before the first write: a timeout of %s and a wait of %s, want the retry %s for both", timeout, wait, retry)
	}
	if _, err := h.Renew(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ at, timeout, wait time.Duration }{
		{0, 10 * time.Second, retry},
		{7 * time.Second, 3 * time.Second, retry},
		{8 * time.Second, 2 * time.Second, 2 * time.Second},
		{9*time.Second + 500*time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond},
		{10 * time.Second, retry, retry},
		{time.Minute, retry, retry},
	} {
		if got := h.RenewTimeout(start.Add(tt.at), retry); got != tt.timeout {
			t.Errorf("at +%s: a timeout of %s, want %s", tt.at, got, tt.timeout)
		}
		if got := h.RetryWait(start.Add(tt.at), retry); got != tt.wait {
			t.Errorf("at +%s: a wait of %s, want %s", tt.at, got, tt.wait)
		}
	}
}

// Release and Delete touch only a Lease the holder still holds.
func TestHolder_release_and_delete_touch_only_their_own(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a, b := e.holder("a", 15*time.Second), e.holder("b", 15*time.Second)
	if _, err := a.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Take(ctx, e.stored()); err != nil { // say a's Lease expired for b
		t.Fatal(err)
	}
	if l, err := a.Release(ctx); err != nil || l != nil {
		t.Fatalf("a's Release of b's Lease = %v, %v; want nothing written", l, err)
	}
	if err := a.Delete(ctx); err != nil || e.stored().Spec.HolderIdentity != "b" {
		t.Fatalf("a's Delete = %v; holder now %q, want b's Lease left alone", err, e.stored().Spec.HolderIdentity)
	}

	released, err := b.Release(ctx)
	if err != nil || released.Spec.HolderIdentity != "" || released.Spec.LeaseDurationSeconds != 1 || released.Spec.LeaseTransitions != 1 {
		t.Fatalf("b's Release = %+v, %v; want no holder, 1 s, the transition count kept", released, err)
	}
	if b.Holds(e.clock.Now()) || b.Written() != nil {
		t.Fatal("b still holds the Lease it released")
	}
}
