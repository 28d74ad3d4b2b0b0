package queue_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/queue"
)

func TestMetrics_count_adds_depth_and_retries(t *testing.T) {
	q, _ := newQueue(t)
	q.Add("a")
	q.Add("a") // absorbed: not an add
	q.Add("b")
	a := get(t, q)
	q.Add(a)                     // requeue: counts in Depth though not in the FIFO
	q.AddAfter("c", time.Second) // a retry, delayed
	q.AddAfter("d", 0)           // a retry, at once
	q.AddRateLimited("e")        // a retry, 5 ms out
	want := queue.Metrics{Depth: 3, Adds: 4, Retries: 3, Delayed: 2, Processing: 1}
	got := q.Metrics()
	got.QueueTime, got.WorkTime = queue.Histogram{}, queue.Histogram{} // checked below
	if got != want {
		t.Fatalf("Metrics =\n%+v, want\n%+v", got, want)
	}
}

func TestMetrics_time_keys_in_the_queue_and_in_processing(t *testing.T) {
	q, clock := newQueue(t)
	q.Add("a")
	q.Add("b")
	clock.Step(3 * time.Millisecond)
	a := get(t, q) // waited 3 ms
	clock.Step(2 * time.Second)
	b := get(t, q) // waited 2.003 s
	clock.Step(time.Second)

	m := q.Metrics()
	if got, want := m.UnfinishedWork, 4*time.Second; got != want { // a: 3 s, b: 1 s
		t.Errorf("UnfinishedWork = %v, want %v", got, want)
	}
	if got, want := m.LongestRunning, 3*time.Second; got != want {
		t.Errorf("LongestRunning = %v, want %v", got, want)
	}

	q.Done(a) // worked 3 s
	q.Done(b) // worked 1 s
	m = q.Metrics()
	if m.UnfinishedWork != 0 || m.LongestRunning != 0 {
		t.Errorf("with nothing processing: UnfinishedWork %v, LongestRunning %v; want 0, 0", m.UnfinishedWork, m.LongestRunning)
	}
	if got, want := histogramString(m.QueueTime), "≤10ms:1 ≤10s:2 count:2 sum:2.006s"; got != want {
		t.Errorf("QueueTime = %s, want %s", got, want)
	}
	if got, want := histogramString(m.WorkTime), "≤1s:1 ≤10s:2 count:2 sum:4s"; got != want {
		t.Errorf("WorkTime = %s, want %s", got, want)
	}
}

func TestMetrics_durations_land_in_the_right_bucket(t *testing.T) {
	tests := []struct {
		took time.Duration
		want string
	}{
		{0, "≤10ns:1 count:1 sum:0s"},
		{10 * time.Nanosecond, "≤10ns:1 count:1 sum:10ns"}, // bounds are inclusive
		{11 * time.Nanosecond, "≤100ns:1 count:1 sum:11ns"},
		{10 * time.Second, "≤10s:1 count:1 sum:10s"},
		{time.Minute, "count:1 sum:1m0s"}, // above every bound: only in the count
	}
	for _, tt := range tests {
		t.Run(tt.took.String(), func(t *testing.T) {
			q, clock := newQueue(t)
			q.Add("a")
			a := get(t, q)
			clock.Step(tt.took)
			q.Done(a)
			if got := histogramString(q.Metrics().WorkTime); got != tt.want {
				t.Fatalf("WorkTime = %s, want %s", got, tt.want)
			}
		})
	}
}

// histogramString shows h compactly: the bucket counts where they change, the count
// and the sum.
func histogramString(h queue.Histogram) string {
	var b strings.Builder
	var last uint64
	for _, bucket := range h.Buckets {
		if bucket.Count != last {
			b.WriteString("≤" + bucket.Le.String() + ":" + itoa(bucket.Count) + " ")
			last = bucket.Count
		}
	}
	b.WriteString("count:" + itoa(h.Count) + " sum:" + h.Sum.String())
	return b.String()
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

func TestMetrics_NoTiming_keeps_the_counters_and_drops_the_durations(t *testing.T) {
	clock := clock.NewFake()
	q := queue.New(queue.Config[string]{Clock: clock, NoTiming: true})
	q.Add("a")
	q.Add("b")
	clock.Step(time.Second)
	a := get(t, q)
	clock.Step(time.Second)
	q.Done(a)
	get(t, q)
	clock.Step(time.Second)
	got := q.Metrics()
	if got.QueueTime.Count != 0 || got.WorkTime.Count != 0 {
		t.Fatalf("QueueTime.Count %d, WorkTime.Count %d; want 0, 0", got.QueueTime.Count, got.WorkTime.Count)
	}
	got.QueueTime, got.WorkTime = queue.Histogram{}, queue.Histogram{}
	if want := (queue.Metrics{Adds: 2, Processing: 1}); got != want {
		t.Fatalf("Metrics =\n%+v, want\n%+v", got, want)
	}
}
