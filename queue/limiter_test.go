package queue_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/queue"
)

func TestExponential_doubles_from_base_up_to_max(t *testing.T) {
	l := queue.NewExponential[string](queue.DefaultBaseDelay, queue.DefaultMaxDelay)
	ms := time.Millisecond
	want := []time.Duration{5 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms, 160 * ms, 320 * ms, 640 * ms,
		1280 * ms, 2560 * ms, 5120 * ms, 10240 * ms, 20480 * ms, 40960 * ms, 81920 * ms, 163840 * ms,
		327680 * ms, 655360 * ms, 1000 * time.Second, 1000 * time.Second}
	for i, w := range want {
		if got := l.When("a"); got != w {
			t.Fatalf("failure %d: When = %v, want %v", i+1, got, w)
		}
	}
	if got, want := l.NumRequeues("a"), len(want); got != want {
		t.Fatalf("NumRequeues = %d, want %d", got, want)
	}
}

func TestExponential_never_overflows(t *testing.T) {
	l := queue.NewExponential[string](time.Nanosecond, time.Duration(1<<63-1))
	var last time.Duration
	for i := range 200 {
		got := l.When("a")
		if got < last {
			t.Fatalf("failure %d: When = %v, less than the previous %v: it overflowed", i+1, got, last)
		}
		last = got
	}
	if last != time.Duration(1<<63-1) {
		t.Fatalf("after 200 failures When = %v, want the max", last)
	}
}

func TestExponential_keys_back_off_separately_and_Forget_starts_afresh(t *testing.T) {
	l := queue.NewExponential[string](time.Millisecond, time.Second)
	l.When("a")
	l.When("a")
	if got, want := l.When("b"), time.Millisecond; got != want {
		t.Fatalf("first failure of b: When = %v, want %v", got, want)
	}
	l.Forget("a")
	if got, want := l.NumRequeues("a"), 0; got != want {
		t.Fatalf("NumRequeues after Forget = %d, want %d", got, want)
	}
	if got, want := l.When("a"), time.Millisecond; got != want {
		t.Fatalf("first failure after Forget: When = %v, want %v", got, want)
	}
}

func TestExponential_zero_value_counts_without_delaying(t *testing.T) {
	var l queue.Exponential[string]
	if got := l.When("a"); got != 0 {
		t.Fatalf("When = %v, want 0", got)
	}
	if got, want := l.NumRequeues("a"), 1; got != want {
		t.Fatalf("NumRequeues = %d, want %d", got, want)
	}
}

func TestTokenBucket(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name     string
		qps      float64
		burst    int
		maxDelay time.Duration
		script   []string // "when D" expects a delay of D; "step D" moves the clock
	}{{
		name: "the_burst_is_free_then_one_token_every_1/qps",
		qps:  10, burst: 3, maxDelay: time.Hour,
		script: []string{"when 0s", "when 0s", "when 0s", "when 100ms", "when 200ms", "when 300ms"},
	}, {
		name: "tokens_refill_with_time_up_to_the_burst",
		qps:  10, burst: 2, maxDelay: time.Hour,
		script: []string{"when 0s", "when 0s", "step 1s", "when 0s", "when 0s", "when 100ms"},
	}, {
		name: "time_repays_reservations",
		qps:  10, burst: 1, maxDelay: time.Hour,
		script: []string{"when 0s", "when 100ms", "when 200ms", "step 200ms", "when 100ms"},
	}, {
		name: "no_delay_exceeds_maxDelay",
		qps:  10, burst: 1, maxDelay: 300 * ms,
		script: []string{"when 0s", "when 100ms", "when 200ms", "when 300ms",
			"when 300ms", "when 300ms", "when 300ms"},
	}, {
		name: "capped_calls_take_no_token_so_the_debt_stays_bounded",
		qps:  10, burst: 1, maxDelay: 300 * ms,
		// Three reservations (100, 200, 300 ms) are the whole debt, however many
		// calls were capped: 300 ms later the bucket is even, and it refills.
		script: []string{"when 0s", "when 100ms", "when 200ms", "when 300ms",
			"when 300ms", "when 300ms", "when 300ms", "when 300ms", "when 300ms",
			"step 300ms", "when 100ms", "step 200ms", "step 1s", "when 0s"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := clock.NewFake()
			b := queue.NewTokenBucket[string](clock, tt.qps, tt.burst, tt.maxDelay)
			for i, line := range tt.script {
				verb, d := parseScriptLine(t, line)
				switch verb {
				case "when":
					if got := b.When("any"); got != d {
						t.Fatalf("line %d %q: When = %v, want %v", i+1, line, got, d)
					}
				case "step":
					clock.Step(d)
				default:
					t.Fatalf("script line %q: unknown verb %q", line, verb)
				}
			}
		})
	}
}

// parseScriptLine reads "verb duration".
func parseScriptLine(t *testing.T, line string) (string, time.Duration) {
	t.Helper()
	var verb, dur string
	if _, err := fmt.Sscan(line, &verb, &dur); err != nil {
		t.Fatalf("script line %q: %v", line, err)
	}
	d, err := time.ParseDuration(dur)
	if err != nil {
		t.Fatalf("script line %q: %v", line, err)
	}
	return verb, d
}

func TestTokenBucket_keeps_nothing_per_key(t *testing.T) {
	b := queue.NewTokenBucket[string](nil, 1, 1, time.Second)
	b.When("a")
	b.Forget("a")
	if got := b.NumRequeues("a"); got != 0 {
		t.Fatalf("NumRequeues = %d, want 0", got)
	}
}

func TestNewTokenBucket_panics_on_a_rate_that_is_not_positive(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatalf("NewTokenBucket with qps 0 did not panic")
		}
	}()
	queue.NewTokenBucket[string](nil, 0, 1, time.Second)
}

func TestMaxOf_waits_the_longest_and_forgets_everywhere(t *testing.T) {
	fast := queue.NewExponential[string](time.Millisecond, time.Hour)
	slow := queue.NewExponential[string](time.Second, time.Hour)
	l := queue.MaxOf[string](fast, slow)
	if got, want := l.When("a"), time.Second; got != want {
		t.Fatalf("When = %v, want %v", got, want)
	}
	if got, want := fast.NumRequeues("a"), 1; got != want {
		t.Fatalf("the shorter limiter's count = %d, want %d: every limiter sees every When", got, want)
	}
	fast.When("a") // fast now remembers 2, slow 1
	if got, want := l.NumRequeues("a"), 2; got != want {
		t.Fatalf("NumRequeues = %d, want the largest, %d", got, want)
	}
	l.Forget("a")
	if fast.NumRequeues("a") != 0 || slow.NumRequeues("a") != 0 {
		t.Fatalf("after Forget: counts %d and %d, want 0 and 0", fast.NumRequeues("a"), slow.NumRequeues("a"))
	}
}

func TestDefaultLimiter(t *testing.T) {
	clock := clock.NewFake()

	t.Run("one_key_backs_off_from_5ms_to_1000s", func(t *testing.T) {
		l := queue.DefaultLimiter[string](clock)
		if got, want := l.When("a"), 5*time.Millisecond; got != want {
			t.Fatalf("first failure: When = %v, want %v", got, want)
		}
		var got time.Duration
		for range 30 {
			got = l.When("a")
		}
		if want := 1000 * time.Second; got != want {
			t.Fatalf("31st failure: When = %v, want %v", got, want)
		}
	})

	t.Run("past_a_burst_of_100_keys_are_spaced_at_10_per_second", func(t *testing.T) {
		l := queue.DefaultLimiter[string](clock)
		for i := range 100 {
			if got, want := l.When(fmt.Sprint(i)), 5*time.Millisecond; got != want {
				t.Fatalf("key %d: When = %v, want %v", i, got, want)
			}
		}
		if got, want := l.When("100"), 100*time.Millisecond; got != want {
			t.Fatalf("key 100: When = %v, want %v", got, want)
		}
	})

	t.Run("a_mass_failure_never_waits_more_than_1000s", func(t *testing.T) {
		// 20,100 keys failing at once: client-go's bucket would put the last one
		// 2,000 s out, and further the more keys fail.
		l := queue.DefaultLimiter[string](clock)
		var longest time.Duration
		for i := range 20_100 {
			longest = max(longest, l.When(fmt.Sprint(i)))
		}
		if want := 1000 * time.Second; longest != want {
			t.Fatalf("longest delay = %v, want %v", longest, want)
		}
	})
}

func TestQueue_AddRateLimited_waits_what_the_limiter_says(t *testing.T) {
	q, clock := newQueue(t) // the default limiter, on the fake clock
	q.Add("a")
	for i, delay := range []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond} {
		key := get(t, q)
		q.AddRateLimited(key) // processing failed
		q.Done(key)
		if got, want := q.NumRequeues(key), i+1; got != want {
			t.Fatalf("NumRequeues = %d, want %d", got, want)
		}
		clock.Step(delay - time.Nanosecond)
		if got := q.Len(); got != 0 {
			t.Fatalf("retry %d: queued before its %v delay", i+1, delay)
		}
		clock.Step(time.Nanosecond)
		if got := q.Len(); got != 1 {
			t.Fatalf("retry %d: not queued after its %v delay", i+1, delay)
		}
	}
	q.Forget("a")
	if got := q.NumRequeues("a"); got != 0 {
		t.Fatalf("NumRequeues after Forget = %d, want 0", got)
	}
}

func TestQueue_AddRateLimited_after_ShutDown_does_not_charge_the_limiter(t *testing.T) {
	l := queue.NewExponential[string](time.Millisecond, time.Second)
	q := queue.New(queue.Config[string]{Clock: clock.NewFake(), Limiter: l})
	q.ShutDown()
	q.AddRateLimited("a")
	if got := l.NumRequeues("a"); got != 0 {
		t.Fatalf("NumRequeues = %d, want 0", got)
	}
}
