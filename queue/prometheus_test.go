package queue_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/queue"
)

func TestWritePrometheus_writes_the_text_format(t *testing.T) {
	q, clock := newQueue(t)
	q.Add("a")
	q.Add("b")
	clock.Step(2 * time.Millisecond)
	a := get(t, q)
	clock.Step(500 * time.Millisecond)
	q.Done(a)
	get(t, q) // b: processing for 1.5 s when the metrics are read
	q.AddAfter("c", time.Minute)
	clock.Step(1500 * time.Millisecond)

	var b strings.Builder
	if err := queue.WritePrometheus(&b, "pods", q.Metrics()); err != nil {
		t.Fatal(err)
	}
	want := `# HELP workqueue_depth Keys waiting to be processed.
# TYPE workqueue_depth gauge
workqueue_depth{name="pods"} 0
# HELP workqueue_adds_total Adds that queued a key (not absorbed by one already waiting).
# TYPE workqueue_adds_total counter
workqueue_adds_total{name="pods"} 2
# HELP workqueue_retries_total Calls to AddAfter and AddRateLimited.
# TYPE workqueue_retries_total counter
workqueue_retries_total{name="pods"} 1
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
# HELP workqueue_unfinished_work_seconds Seconds spent so far on keys still being processed, summed.
# TYPE workqueue_unfinished_work_seconds gauge
workqueue_unfinished_work_seconds{name="pods"} 1.5
# HELP workqueue_longest_running_processor_seconds Seconds the longest-running key still being processed has taken so far.
# TYPE workqueue_longest_running_processor_seconds gauge
workqueue_longest_running_processor_seconds{name="pods"} 1.5
`
	if got := b.String(); got != want {
		t.Fatalf("WritePrometheus wrote:\n%s\nwant:\n%s", got, want)
	}
}

func TestWritePrometheus_escapes_the_name_label(t *testing.T) {
	var b strings.Builder
	if err := queue.WritePrometheus(&b, "a\"b\\c\nd", queue.Metrics{}); err != nil {
		t.Fatal(err)
	}
	if want := `workqueue_depth{name="a\"b\\c\nd"} 0`; !strings.Contains(b.String(), want+"\n") {
		t.Fatalf("no line %s in:\n%s", want, b.String())
	}
}

func TestWritePrometheus_returns_the_writers_error(t *testing.T) {
	broken := errors.New("connection reset")
	if err := queue.WritePrometheus(failingWriter{broken}, "pods", queue.Metrics{}); !errors.Is(err, broken) {
		t.Fatalf("WritePrometheus = %v, want %v", err, broken)
	}
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }
