package clock_test

import (
	"slices"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
)

var t0 = clock.NewFake().Now()

func TestFake_Step_moves_time_and_fires_due_timers_in_order(t *testing.T) {
	c := clock.NewFake()
	var fired []string
	at := func(name string) func() {
		return func() { fired = append(fired, name+"@"+c.Since(t0).String()) }
	}
	c.AfterFunc(30*time.Millisecond, at("c"))
	c.AfterFunc(10*time.Millisecond, at("a"))
	c.AfterFunc(20*time.Millisecond, at("b"))
	c.AfterFunc(time.Second, at("late"))

	c.Step(25 * time.Millisecond)
	if want := []string{"a@10ms", "b@20ms"}; !slices.Equal(fired, want) {
		t.Fatalf("fired %q, want %q (each seeing Now at its due time)", fired, want)
	}
	if got, want := c.Now(), t0.Add(25*time.Millisecond); !got.Equal(want) {
		t.Fatalf("Now = %v, want %v", got, want)
	}
	if got, want := c.Timers(), 2; got != want {
		t.Fatalf("Timers = %d, want %d", got, want)
	}
}

func TestFake_a_timer_armed_by_a_timer_fires_in_the_same_Step_if_due(t *testing.T) {
	c := clock.NewFake()
	var fired []time.Duration
	var tick func()
	tick = func() {
		fired = append(fired, c.Since(t0))
		if len(fired) < 5 {
			c.AfterFunc(10*time.Millisecond, tick)
		}
	}
	c.AfterFunc(10*time.Millisecond, tick)
	c.Step(35 * time.Millisecond)
	if want := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond}; !slices.Equal(fired, want) {
		t.Fatalf("fired at %v, want %v", fired, want)
	}
}

func TestFake_Stop_and_Reset(t *testing.T) {
	c := clock.NewFake()
	n := 0
	timer := c.AfterFunc(time.Second, func() { n++ })
	if !timer.Stop() {
		t.Fatalf("Stop of a pending timer = false, want true")
	}
	if timer.Stop() {
		t.Fatalf("second Stop = true, want false")
	}
	c.Step(time.Hour)
	if n != 0 {
		t.Fatalf("a stopped timer fired")
	}
	if timer.Reset(time.Second) {
		t.Fatalf("Reset of a stopped timer = true, want false")
	}
	if !timer.Reset(2 * time.Second) {
		t.Fatalf("Reset of a pending timer = false, want true")
	}
	c.Step(time.Second)
	if n != 0 {
		t.Fatalf("fired at the time before Reset moved it")
	}
	c.Step(time.Second)
	if n != 1 {
		t.Fatalf("fired %d times after Reset, want 1", n)
	}
}

func TestFake_AfterFunc_never_calls_f_itself(t *testing.T) {
	c := clock.NewFake()
	fired := false
	c.AfterFunc(0, func() { fired = true })
	if fired {
		t.Fatalf("AfterFunc(0) called f before returning")
	}
	c.Step(0)
	if !fired {
		t.Fatalf("a timer due now did not fire at Step(0)")
	}
}

func TestFake_zero_value_is_usable(t *testing.T) {
	var c clock.Fake
	fired := false
	c.AfterFunc(time.Second, func() { fired = true })
	c.Step(time.Second)
	if !fired || c.Since(time.Time{}) != time.Second {
		t.Fatalf("zero Fake: fired %v, Since(zero) %v; want true, 1s", fired, c.Since(time.Time{}))
	}
}
