package metrics_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/queue"
	"github.com/kubewire/kubewire/queue/queuetest"
)

// queue.WritePrometheus writes one queue per page; two controllers' queues on one
// page need one # HELP per family, which is what Workqueue is for.
func TestWorkqueue_two_queues_share_each_family(t *testing.T) {
	clock := queuetest.NewClock(time.Unix(0, 0))
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

// The registry's lines for one queue are the lines queue.WritePrometheus writes:
// same names, help, types and values.
func TestWorkqueue_agrees_with_queue_WritePrometheus(t *testing.T) {
	clock := queuetest.NewClock(time.Unix(0, 0))
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
	var want strings.Builder
	if err := queue.WritePrometheus(&want, "pods", q.Metrics()); err != nil {
		t.Fatal(err)
	}
	if got, want := sortedLines(render(t, reg)), sortedLines(want.String()); got != want {
		t.Fatalf("registry page (lines sorted):\n%s\nqueue.WritePrometheus (lines sorted):\n%s", got, want)
	}
}

// sortedLines groups a page into families, sorted by name, so two writers that
// order families differently can be compared.
func sortedLines(page string) string {
	var fams []string
	for _, f := range strings.Split(page, "# HELP ")[1:] {
		fams = append(fams, f)
	}
	for i := range fams {
		for j := i + 1; j < len(fams); j++ {
			if fams[j] < fams[i] {
				fams[i], fams[j] = fams[j], fams[i]
			}
		}
	}
	return strings.Join(fams, "# HELP ")
}
