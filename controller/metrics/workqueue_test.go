package metrics_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/queue"
)

// Two controllers' queues on one page share one # HELP per family.
func TestWorkqueue_two_queues_share_each_family(t *testing.T) {
	clock := clock.NewFake()
	reg := new(metrics.Registry)
	a := queue.New(queue.Config[string]{Clock: clock})
	b := queue.New(queue.Config[string]{Clock: clock})
	metrics.Workqueue(reg, "a", a.Metrics)
	metrics.Workqueue(reg, "b", b.Metrics)
	a.Add("x")
	b.Add("y")
	b.Add("z")
	page := render(t, reg)

	if got, want := strings.Count(page, "# HELP workqueue_depth "), 1; got != want {
		t.Fatalf("%d HELP lines for workqueue_depth, want %d:\n%s", got, want, page)
	}
	for _, want := range []string{`workqueue_depth{name="a"} 1`, `workqueue_depth{name="b"} 2`, `workqueue_adds_total{name="b"} 2`} {
		if !strings.Contains(page, want+"\n") {
			t.Errorf("no line %s in:\n%s", want, page)
		}
	}
}

// One queue's page carries client-go's workqueue names, help, types and values:
// two keys added, one done after 0.5 s, one processing for 1.5 s, one retry.
func TestWorkqueue_writes_client_gos_names_and_values(t *testing.T) {
	clock := clock.NewFake()
	q := queue.New(queue.Config[string]{Clock: clock})
	q.Add("a")
	q.Add("b")
	clock.Step(2 * time.Millisecond)
	k, _ := q.Get()
	clock.Step(500 * time.Millisecond)
	q.Done(k)
	q.Get() // b: still processing when scraped
	q.AddAfter("c", time.Minute)
	clock.Step(1500 * time.Millisecond)

	reg := new(metrics.Registry)
	metrics.Workqueue(reg, "pods", q.Metrics)
	want := `# HELP workqueue_adds_total Adds that queued a key (not absorbed by one already waiting).
# TYPE workqueue_adds_total counter
workqueue_adds_total{name="pods"} 2
# HELP workqueue_depth Keys waiting to be processed.
# TYPE workqueue_depth gauge
workqueue_depth{name="pods"} 0
# HELP workqueue_longest_running_processor_seconds Seconds the longest-running key still being processed has taken so far.
# TYPE workqueue_longest_running_processor_seconds gauge
workqueue_longest_running_processor_seconds{name="pods"} 1.5
# HELP workqueue_queue_duration_seconds Seconds from Add to Get.
# TYPE workqueue_queue_duration_seconds histogram
workqueue_queue_duration_seconds_bucket{name="pods",le="1e-08"} 0
workqueue_queue_duration_seconds_bucket{name="pods",le="1e-07"} 0
workqueue_queue_duration_seconds_bucket{name="pods",le="1e-06"} 0
workqueue_queue_duration_seconds_bucket{name="pods",le="1e-05"} 0
workqueue_queue_duration_seconds_bucket{name="pods",le="0.0001"} 0
workqueue_queue_duration_seconds_bucket{name="pods",le="0.001"} 0
workqueue_queue_duration_seconds_bucket{name="pods",le="0.01"} 1
workqueue_queue_duration_seconds_bucket{name="pods",le="0.1"} 1
workqueue_queue_duration_seconds_bucket{name="pods",le="1"} 2
workqueue_queue_duration_seconds_bucket{name="pods",le="10"} 2
workqueue_queue_duration_seconds_bucket{name="pods",le="+Inf"} 2
workqueue_queue_duration_seconds_sum{name="pods"} 0.504
workqueue_queue_duration_seconds_count{name="pods"} 2
# HELP workqueue_retries_total Calls to AddAfter and AddRateLimited.
# TYPE workqueue_retries_total counter
workqueue_retries_total{name="pods"} 1
# HELP workqueue_unfinished_work_seconds Seconds spent so far on keys still being processed, summed.
# TYPE workqueue_unfinished_work_seconds gauge
workqueue_unfinished_work_seconds{name="pods"} 1.5
# HELP workqueue_work_duration_seconds Seconds from Get to Done.
# TYPE workqueue_work_duration_seconds histogram
workqueue_work_duration_seconds_bucket{name="pods",le="1e-08"} 0
workqueue_work_duration_seconds_bucket{name="pods",le="1e-07"} 0
workqueue_work_duration_seconds_bucket{name="pods",le="1e-06"} 0
workqueue_work_duration_seconds_bucket{name="pods",le="1e-05"} 0
workqueue_work_duration_seconds_bucket{name="pods",le="0.0001"} 0
workqueue_work_duration_seconds_bucket{name="pods",le="0.001"} 0
workqueue_work_duration_seconds_bucket{name="pods",le="0.01"} 0
workqueue_work_duration_seconds_bucket{name="pods",le="0.1"} 0
workqueue_work_duration_seconds_bucket{name="pods",le="1"} 1
workqueue_work_duration_seconds_bucket{name="pods",le="10"} 1
workqueue_work_duration_seconds_bucket{name="pods",le="+Inf"} 1
workqueue_work_duration_seconds_sum{name="pods"} 0.5
workqueue_work_duration_seconds_count{name="pods"} 1
`
	if got := render(t, reg); got != want {
		t.Fatalf("registry page:\n%s\nwant:\n%s", got, want)
	}
}
