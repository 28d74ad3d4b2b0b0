package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

var (
	eventsV1 = apiclient.Resource{Group: "events.k8s.io", Version: "v1", Name: "events", Kind: "Event", Namespaced: true}
	coreV1   = apiclient.Resource{Version: "v1", Name: "events", Kind: "Event", Namespaced: true}
)

// microTime is how the API writes eventTime and lastObservedTime.
const microTime = "2006-01-02T15:04:05.000000Z07:00"

// create writes a new Event for p and returns its record, or nil if it could
// not be written.
func (r *Recorder) create(ctx context.Context, p pending) *record {
	ns := p.regarding.Namespace
	if ns == "" {
		ns = "default" // where events about cluster-scoped objects go
	}
	r.seq++
	rec := &record{name: fmt.Sprintf("%s.%x", p.regarding.Name, uint64(p.at.UnixNano())+r.seq), namespace: ns,
		count: 1, first: p.at, last: p.at}
	err := r.write(ctx, func(ctx context.Context) error {
		if !r.core {
			_, err := r.client.Resource(eventsV1).Namespace(ns).Create(ctx, r.eventsV1Body(rec, p), apiclient.WriteOptions{})
			if !notServed(err) {
				return err
			}
			r.core = true
			r.opts.Log.Info("events.k8s.io/v1 is not served; writing core/v1 Events", "err", err)
		}
		_, err := r.client.Resource(coreV1).Namespace(ns).Create(ctx, r.coreBody(rec, p), apiclient.WriteOptions{})
		return err
	})
	if err != nil {
		r.opts.Log.Warn("could not write an event", "regarding", p.regarding.Kind+" "+p.regarding.Namespace+"/"+p.regarding.Name, "reason", p.reason, "err", err)
		return nil
	}
	r.stats.written.Add(1)
	return rec
}

// writeSeries writes rec's count: events.k8s.io's series, or core/v1's count.
func (r *Recorder) writeSeries(ctx context.Context, rec *record) {
	res, patch := eventsV1, map[string]any{"series": map[string]any{
		"count": rec.count, "lastObservedTime": rec.last.UTC().Format(microTime)}}
	if r.core {
		res, patch = coreV1, map[string]any{"count": rec.count, "lastTimestamp": rec.last.UTC().Format(time.RFC3339)}
	}
	body, _ := json.Marshal(patch) // maps of strings and numbers always encode
	err := r.write(ctx, func(ctx context.Context) error {
		_, err := r.client.Resource(res).Namespace(rec.namespace).Patch(ctx, rec.name, apiclient.MergePatch, body, apiclient.WriteOptions{})
		return err
	})
	if err != nil {
		r.opts.Log.Warn("could not write an event's count", "event", rec.namespace+"/"+rec.name, "count", rec.count, "err", err)
		return
	}
	rec.dirty = false
	r.stats.written.Add(1)
}

func (r *Recorder) eventsV1Body(rec *record, p pending) map[string]any {
	return map[string]any{
		"apiVersion": "events.k8s.io/v1", "kind": "Event",
		"metadata":  map[string]any{"name": rec.name, "namespace": rec.namespace},
		"eventTime": p.at.UTC().Format(microTime), "type": p.eventType, "reason": p.reason, "action": p.action, "note": p.note,
		"reportingController": r.opts.Controller, "reportingInstance": r.opts.Instance, "regarding": p.regarding,
	}
}

func (r *Recorder) coreBody(rec *record, p pending) map[string]any {
	at := p.at.UTC().Format(time.RFC3339)
	return map[string]any{
		"apiVersion": "v1", "kind": "Event",
		"metadata":       map[string]any{"name": rec.name, "namespace": rec.namespace},
		"involvedObject": p.regarding, "type": p.eventType, "reason": p.reason, "message": p.note, "action": p.action,
		"source": map[string]any{"component": r.opts.Controller}, "reportingComponent": r.opts.Controller,
		"reportingInstance": r.opts.Instance, "count": 1, "firstTimestamp": at, "lastTimestamp": at,
	}
}

// writeTimeout bounds one write: a server that does not answer holds the
// Recorder up for this long, never its reconciles.
const writeTimeout = 10 * time.Second

// write runs fn, and again after 1 s and 2 s when it fails in a way that may
// pass (no answer, a 5xx; the client already waits out 429s): three tries, then
// the error (apiclient.Retry). Each try has writeTimeout.
func (r *Recorder) write(ctx context.Context, fn func(context.Context) error) error {
	return apiclient.Retry(ctx, writeRetry, r.opts.Clock, transient, func() error {
		wctx, cancel := context.WithTimeout(ctx, writeTimeout)
		defer cancel()
		return fn(wctx)
	})
}

// writeRetry is write's series of waits: 1 s, then 2 s, for three tries.
var writeRetry = apiclient.Backoff{Steps: 3, Initial: time.Second, Factor: 2}

func transient(err error) bool {
	code := apiclient.CodeOf(err)
	return code == 0 || code >= 500
}

// notServed: a 404 for the events.k8s.io collection itself, not for a missing
// namespace (whose Status names the namespaces kind).
func notServed(err error) bool {
	var se *apiclient.StatusError
	if apiclient.CodeOf(err) != http.StatusNotFound || !errors.As(err, &se) {
		return false
	}
	return se.Status.Details == nil || se.Status.Details.Kind != "namespaces"
}
