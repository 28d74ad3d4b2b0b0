package clock_test

import (
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
)

func TestBucket_spends_the_burst_then_reserves_one_token_per_interval(t *testing.T) {
	t0 := clock.NewFake().Now()
	b := clock.NewBucket(10, 2, t0) // a token every 100 ms
	for i, want := range []time.Duration{0, 0, 100 * ms, 200 * ms, 300 * ms} {
		got, ok := b.Reserve(t0, -1)
		if got != want || !ok {
			t.Fatalf("reservation %d: %v %v, want %v true", i+1, got, ok, want)
		}
	}
	// 300 ms later the three promised tokens have come; the next is 100 ms away.
	if got, _ := b.Reserve(t0.Add(300*ms), -1); got != 100*ms {
		t.Fatalf("after the debt is repaid: %v, want 100ms", got)
	}
}

func TestBucket_Reserve_takes_nothing_beyond_the_horizon(t *testing.T) {
	t0 := clock.NewFake().Now()
	b := clock.NewBucket(10, 1, t0)
	b.Reserve(t0, -1)
	if got, ok := b.Reserve(t0, 50*ms); got != 50*ms || ok {
		t.Fatalf("beyond the horizon: %v %v, want 50ms false", got, ok)
	}
	if got, ok := b.Reserve(t0, time.Second); got != 100*ms || !ok {
		t.Fatalf("the refused reservation took nothing, so the next token is 100ms away; got %v %v", got, ok)
	}
}

func TestBucket_Take_never_goes_into_debt(t *testing.T) {
	t0 := clock.NewFake().Now()
	b := clock.NewBucketEvery(time.Minute, 2, t0)
	if !b.Take(t0) || !b.Take(t0) {
		t.Fatal("a full bucket of 2 refused one of its 2 tokens")
	}
	if b.Take(t0.Add(59 * time.Second)) {
		t.Fatal("took a token 59 s into a one-a-minute refill")
	}
	if !b.Take(t0.Add(time.Minute)) {
		t.Fatal("no token after a minute")
	}
}

func TestBucket_a_clock_set_back_refills_nothing_and_takes_nothing(t *testing.T) {
	t0 := clock.NewFake().Now()
	b := clock.NewBucketEvery(time.Second, 3, t0)
	b.Take(t0)
	b.Take(t0) // one token left
	if !b.Take(t0.Add(-time.Hour)) {
		t.Fatal("a clock set back took the last token away")
	}
	if b.Take(t0) {
		t.Fatal("coming back to t0 from an hour back refilled an hour's tokens")
	}
	if !b.Take(t0.Add(time.Second)) {
		t.Fatal("no token a second after t0")
	}
}

func TestBucket_Full(t *testing.T) {
	t0 := clock.NewFake().Now()
	b := clock.NewBucketEvery(time.Second, 2, t0)
	if !b.Full(t0) {
		t.Fatal("a new bucket is not full")
	}
	b.Take(t0)
	if b.Full(t0.Add(999 * ms)) {
		t.Fatal("full again 999 ms after spending one token of one a second")
	}
	if !b.Full(t0.Add(time.Second)) {
		t.Fatal("not full a second after spending one token of one a second")
	}
}
