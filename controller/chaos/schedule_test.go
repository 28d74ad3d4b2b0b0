//go:build unix

package chaos_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/listwatch"
)

// The faults, by the churn op before which they begin. Each waits for the one
// before it to be over.
var (
	restartAt = []int{100, 270, 440, 610, 780, 950, 1120, 1290, 1460, 1980}
	pauseAt   = []int{360, 1700}
)

// schedule runs the faults. before is called by the churn before each op: at an op
// with a fault it waits for the previous fault to be over, begins this one (kills
// the server, pauses the proxy) and leaves its end (server ready again, proxy
// resumed) to a goroutine, so the churn goes on meanwhile. Owned by the churn's
// goroutine; err, lastEnd and the durations may be read once prev is closed.
type schedule struct {
	t     *testing.T
	cl    *cluster
	px    *proxy
	refl  *listwatch.Reflector
	probe apiclient.ResourceClient // straight to the server
	steps *tally

	prev    chan struct{} // closed when the last fault begun is over
	err     error
	lastEnd time.Time
	outages []time.Duration // each restart, from the stop to /readyz
	pauses  []time.Duration // each pause, until the reflector met its 410
}

func (s *schedule) before(op int) {
	var end func() error
	took := &s.pauses
	switch {
	case contains(restartAt, op):
		<-s.prev
		s.cl.stopAPI()
		end = func() error { return s.cl.startAPI(s.t) }
		took = &s.outages
	case contains(pauseAt, op):
		<-s.prev
		if err := s.waitWatching(); err != nil {
			s.err = err
			return
		}
		gone := s.steps.counts().gone
		s.px.pause()
		end = func() error { return s.pauseUntilGone(gone) }
	default:
		return
	}
	done := make(chan struct{})
	s.prev = done
	began := time.Now()
	go func() { // owned by the schedule: the test waits on prev
		defer close(done)
		if err := end(); err != nil && s.err == nil {
			s.err = err
		}
		s.lastEnd = time.Now()
		*took = append(*took, s.lastEnd.Sub(began))
	}()
}

// waitWatching waits (at most 10 s) for the reflector to be in the Watching state,
// so that a pause breaks a watch rather than a list.
func (s *schedule) waitWatching() error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); <-tick.C {
		if s.refl.Health().State == listwatch.Watching {
			return nil
		}
	}
	return fmt.Errorf("pause: the reflector is not watching after 10 s: %+v", s.refl.Health())
}

// pauseUntilGone keeps the proxy paused for two compaction intervals of churn, and
// then until the server itself says that a watch from the reflector's
// resourceVersion is too old (410); then it resumes, and waits (at most 10 s) for
// the reflector to meet that 410: its count of them passes gone.
func (s *schedule) pauseUntilGone(gone int) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	<-time.After(2 * compactionInterval)
	deadline := time.Now().Add(30 * time.Second)
	for rv := s.refl.LastSyncResourceVersion(); !watchGone(s.probe, rv); rv = s.refl.LastSyncResourceVersion() {
		if time.Now().After(deadline) {
			s.px.resume()
			return fmt.Errorf("pause: a watch from rv %s still works after 30 s", rv)
		}
		<-tick.C
	}
	s.px.resume()
	for deadline := time.Now().Add(10 * time.Second); s.steps.counts().gone == gone; <-tick.C {
		if time.Now().After(deadline) {
			return fmt.Errorf("pause: no 410 within 10 s of resuming: %+v", s.refl.Health())
		}
	}
	return nil
}

// watchGone reports whether a watch from rv gets 410.
func watchGone(rc apiclient.ResourceClient, rv string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	w, err := rc.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{ResourceVersion: rv}})
	if err != nil {
		return apiclient.IsGone(err)
	}
	defer w.Close()
	_, err = w.Next()
	return apiclient.IsGone(err)
}

func closed() chan struct{} { c := make(chan struct{}); close(c); return c }

func contains(ops []int, op int) bool {
	for _, o := range ops {
		if o == op {
			return true
		}
	}
	return false
}

// span is the shortest and longest of ds, as "1.2–3.4s".
func span(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	lo, hi := ds[0], ds[0]
	for _, d := range ds {
		lo, hi = min(lo, d), max(hi, d)
	}
	return fmt.Sprintf("%.1f–%.1fs", lo.Seconds(), hi.Seconds())
}
