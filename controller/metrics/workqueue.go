package metrics

import (
	"github.com/kubewire/kubewire/queue"
)

// Workqueue registers the metrics of one workqueue under the label name="<name>",
// read from snapshot at scrape time (pass q.Metrics). Call it once per controller
// with the same reg: the families are shared, each queue adds its own series.
//
// The names, labels and meanings are client-go's workqueue metrics:
// workqueue_depth, workqueue_adds_total, workqueue_retries_total,
// workqueue_queue_duration_seconds, workqueue_work_duration_seconds,
// workqueue_unfinished_work_seconds and workqueue_longest_running_processor_seconds.
// This is the only writer of them (package queue returns plain values); the registry
// puts several queues on one page under one # HELP each.
//
// snapshot is called once per family, so seven times per scrape: a queue's Metrics
// is one lock and O(keys in processing), cheap at scrape rates.
func Workqueue(reg *Registry, name string, snapshot func() queue.Metrics) {
	l := Labels{"name": name}
	reg.GaugeFunc("workqueue_depth", "Keys waiting to be processed.", l,
		func() float64 { return float64(snapshot().Depth) })
	reg.CounterFunc("workqueue_adds_total", "Adds that queued a key (not absorbed by one already waiting).", l,
		func() float64 { return float64(snapshot().Adds) })
	reg.CounterFunc("workqueue_retries_total", "Calls to AddAfter and AddRateLimited.", l,
		func() float64 { return float64(snapshot().Retries) })
	reg.HistogramFunc("workqueue_queue_duration_seconds", "Seconds from Add to Get.", l,
		func() HistogramSnapshot { return fromQueue(snapshot().QueueTime) })
	reg.HistogramFunc("workqueue_work_duration_seconds", "Seconds from Get to Done.", l,
		func() HistogramSnapshot { return fromQueue(snapshot().WorkTime) })
	reg.GaugeFunc("workqueue_unfinished_work_seconds",
		"Seconds spent so far on keys still being processed, summed.", l,
		func() float64 { return snapshot().UnfinishedWork.Seconds() })
	reg.GaugeFunc("workqueue_longest_running_processor_seconds",
		"Seconds the longest-running key still being processed has taken so far.", l,
		func() float64 { return snapshot().LongestRunning.Seconds() })
}

// fromQueue converts a queue.Histogram (durations, cumulative) into a snapshot
// (seconds, cumulative).
func fromQueue(h queue.Histogram) HistogramSnapshot {
	s := HistogramSnapshot{Buckets: make([]Bucket, len(h.Buckets)), Count: h.Count, Sum: h.Sum.Seconds()}
	for i, b := range h.Buckets {
		s.Buckets[i] = Bucket{UpperBound: b.Le.Seconds(), Count: b.Count}
	}
	return s
}
