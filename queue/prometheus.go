package queue

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// WritePrometheus writes m in the Prometheus text exposition format (version 0.0.4),
// every sample labelled name="<name>", with client-go's metric names:
//
//	workqueue_depth, workqueue_adds_total, workqueue_retries_total,
//	workqueue_queue_duration_seconds, workqueue_work_duration_seconds (histograms),
//	workqueue_unfinished_work_seconds, workqueue_longest_running_processor_seconds
//
// It writes each family's # HELP and # TYPE lines, so it suits one queue per scrape
// body; a second queue in the same body would repeat them, which Prometheus rejects.
// It returns the first error from w.
func WritePrometheus(w io.Writer, name string, m Metrics) error {
	p := promWriter{w: bufio.NewWriter(w), label: `name="` + escapeLabel(name) + `"`}
	p.gauge("workqueue_depth", "Keys waiting to be processed.", float64(m.Depth))
	p.counter("workqueue_adds_total", "Adds that queued a key (not absorbed by one already waiting).", m.Adds)
	p.counter("workqueue_retries_total", "Calls to AddAfter and AddRateLimited.", m.Retries)
	p.histogram("workqueue_queue_duration_seconds",
		"Seconds from Add to Get.", m.QueueTime)
	p.histogram("workqueue_work_duration_seconds",
		"Seconds from Get to Done.", m.WorkTime)
	p.gauge("workqueue_unfinished_work_seconds",
		"Seconds spent so far on keys still being processed, summed.",
		m.UnfinishedWork.Seconds())
	p.gauge("workqueue_longest_running_processor_seconds",
		"Seconds the longest-running key still being processed has taken so far.",
		m.LongestRunning.Seconds())
	return p.w.Flush() // a bufio.Writer keeps its first error, so checking once suffices
}

// promWriter writes samples of one label set. Built by WritePrometheus for one call;
// not safe for concurrent use.
type promWriter struct {
	w     *bufio.Writer
	label string // name="..."
}

func (p promWriter) gauge(name, help string, v float64) {
	p.header(name, help, "gauge")
	p.sample(name, p.label, formatFloat(v))
}

func (p promWriter) counter(name, help string, v uint64) {
	p.header(name, help, "counter")
	p.sample(name, p.label, strconv.FormatUint(v, 10))
}

func (p promWriter) histogram(name, help string, h Histogram) {
	p.header(name, help, "histogram")
	for _, b := range h.Buckets {
		le := formatFloat(b.Le.Seconds())
		p.sample(name+"_bucket", p.label+`,le="`+le+`"`, strconv.FormatUint(b.Count, 10))
	}
	p.sample(name+"_bucket", p.label+`,le="+Inf"`, strconv.FormatUint(h.Count, 10))
	p.sample(name+"_sum", p.label, formatFloat(h.Sum.Seconds()))
	p.sample(name+"_count", p.label, strconv.FormatUint(h.Count, 10))
}

func (p promWriter) header(name, help, typ string) {
	p.w.WriteString("# HELP " + name + " " + help + "\n# TYPE " + name + " " + typ + "\n")
}

func (p promWriter) sample(name, labels, value string) {
	p.w.WriteString(name + "{" + labels + "} " + value + "\n")
}

// formatFloat writes v as Prometheus reads it: the shortest decimal that parses back
// to v (1e-08, 0.25, 3).
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// escapeLabel escapes a label value as the text format requires: backslash, double
// quote and newline.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}
