package cli

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/listwatch"
)

// storyOrder is how the demo prints its trace: the same lines in the same order
// every run. The pipeline runs as it always does — two informers, their
// handlers' goroutines and a worker, all at once — so the order in which their
// hops arrive differs from run to run (issue 36 counted 10 stories in 10
// runs). The demo therefore holds each step's hops until the step is over
// (settle: the hops the step ends with have come) and prints them then, in one
// order made only of what happened, never of when it arrived:
//
//   - each goroutine's hops (a lane: the story's writes, of pods; one
//     informer's Reflector; the same informer's FIFO, store and handler hops;
//     the workqueue; the worker, with its writes, of deployments, and the log
//     lines) in the order it made them;
//   - across lanes, cause before effect: a pop after the Reflector hop it
//     pops, a queue add after the handler hop that caused it, a reconcile
//     after its queue add, a watch event after the write that caused it;
//   - where several lanes could go next, the first of them in a fixed order:
//     the story, then the informers by name, each Reflector before its FIFO,
//     then the queue, then the worker — the pipeline's own order.
//
// The live page (--ui) is told every hop as it happens; only the lines on
// stderr wait for their step. A handler hop's backlog (how many notifications
// wait for that handler's goroutine at that moment) and a queue hop's depth
// (whether a worker has already taken what was just added) are matters of
// timing, and are left out of the demo's lines. Safe for concurrent use.
type storyOrder struct {
	print func(string) // writes one line; called from flush only

	mu      sync.Mutex
	hops    []hop         // this step's, in the order they came
	arrived chan struct{} // closed and replaced at every hop: settle waits on it
}

// hop is one line of the story, as it came.
type hop struct {
	e    trace.Event // zero for a log line
	line string
	lane string
	deps []int // indexes in hops of the hops printed before it
}

func newStoryOrder(print func(string)) *storyOrder {
	return &storyOrder{print: print, arrived: make(chan struct{})}
}

// Trace takes one hop: ManagerOptions.Trace.
func (o *storyOrder) Trace(e trace.Event) {
	line := e.String()
	switch e.Stage {
	case trace.Handler:
		line = backlog.ReplaceAllString(line, "")
	case trace.Queue:
		line = depth.ReplaceAllString(line, "")
	}
	o.add(hop{e: e, line: line, lane: laneOf(e)})
}

var (
	backlog = regexp.MustCompile(` backlog=[0-9]+$`)
	depth   = regexp.MustCompile(` depth=[0-9]+`)
)

// Write takes the log's lines (the demo's slog handler writes one record per
// call): the worker's lane, where the reconciles log.
func (o *storyOrder) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimSuffix(string(p), "\n"), "\n") {
		o.add(hop{line: line, lane: "worker"})
	}
	return len(p), nil
}

func (o *storyOrder) add(h hop) {
	o.mu.Lock()
	defer o.mu.Unlock()
	h.deps = o.causesLocked(h.e)
	o.hops = append(o.hops, h)
	close(o.arrived)
	o.arrived = make(chan struct{})
}

// laneOf names the goroutine that makes a hop.
func laneOf(e trace.Event) string {
	switch e.Stage {
	case trace.Reflector:
		return "1 " + e.Informer + " 1 listwatch"
	case trace.FIFO, trace.Store, trace.Handler, trace.Informer:
		return "1 " + e.Informer + " 2 informer"
	case trace.Queue:
		return "2 queue"
	case trace.Client:
		if strings.HasPrefix(e.Resource, "pods") {
			return "0 story" // the story writes pods (runDemo), the controller deployments
		}
	}
	return "worker" // Controller, Client: the worker's reconciles and writes
}

// causesLocked finds, among the step's hops so far, those that caused e.
func (o *storyOrder) causesLocked(e trace.Event) []int {
	last := func(match func(trace.Event) bool) []int {
		for i := len(o.hops) - 1; i >= 0; i-- {
			if o.hops[i].line != "" && o.hops[i].e.Stage != "" && match(o.hops[i].e) {
				return []int{i}
			}
		}
		return nil
	}
	switch {
	case e.Stage == trace.FIFO:
		// A pop comes after the Reflector handed the FIFO what it pops.
		return last(func(c trace.Event) bool { return c.Stage == trace.Reflector && c.Informer == e.Informer })
	case e.Stage == trace.Queue:
		return last(func(c trace.Event) bool { return c.Stage == trace.Handler && c.Key == e.From })
	case e.Stage == trace.Controller && e.Outcome == "start":
		return last(func(c trace.Event) bool { return c.Stage == trace.Queue && c.Key == e.Key })
	case e.Stage == trace.Reflector && (e.Step.Op == listwatch.OpAdd || e.Step.Op == listwatch.OpUpdate || e.Step.Op == listwatch.OpDelete):
		// A watch event after the write that made it, whose "sent" hop comes
		// first (trace's doc: cause before effect).
		return last(func(c trace.Event) bool { return c.Stage == trace.Client && c.Outcome == "sent" })
	}
	return nil
}

// settle waits until every cue has matched a hop of this step (each cue a
// different hop), or ctx is done.
func (o *storyOrder) settle(ctx context.Context, what string, cues ...func(trace.Event) bool) error {
	for {
		o.mu.Lock()
		done, arrived := o.matchedLocked(cues), o.arrived
		o.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-arrived:
		case <-ctx.Done():
			return fmt.Errorf("demo: gave up waiting for %s: %w", what, context.Cause(ctx))
		}
	}
}

func (o *storyOrder) matchedLocked(cues []func(trace.Event) bool) bool {
	used := make([]bool, len(o.hops))
	for _, cue := range cues {
		found := false
		for i, h := range o.hops {
			if !used[i] && h.e.Stage != "" && cue(h.e) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// flush prints the step's hops in story order and starts the next step.
func (o *storyOrder) flush() {
	o.mu.Lock()
	hops := o.hops
	o.hops = nil
	o.mu.Unlock()
	for _, i := range storyLines(hops) {
		o.print(hops[i].line)
	}
}

// storyLines orders hops: at each turn the first lane, in lane order, whose
// next hop has all its causes printed. Should no lane be ready (a cause that
// cannot come first: a bug), the rest follow in the order they came.
func storyLines(hops []hop) []int {
	lanes := map[string][]int{}
	var names []string
	for i, h := range hops {
		if _, ok := lanes[h.lane]; !ok {
			names = append(names, h.lane)
		}
		lanes[h.lane] = append(lanes[h.lane], i)
	}
	slices.Sort(names)
	printed := make([]bool, len(hops))
	var out []int
	for len(out) < len(hops) {
		next := -1
		for _, name := range names {
			q := lanes[name]
			if len(q) == 0 {
				continue
			}
			if ready(hops[q[0]], printed) {
				next, lanes[name] = q[0], q[1:]
				break
			}
		}
		if next < 0 {
			for i := range hops {
				if !printed[i] {
					out = append(out, i)
				}
			}
			return out
		}
		printed[next] = true
		out = append(out, next)
	}
	return out
}

func ready(h hop, printed []bool) bool {
	for _, d := range h.deps {
		if !printed[d] {
			return false
		}
	}
	return true
}

// Cues: the hops a step of the story ends with.

func handled(verb, key, to string) func(trace.Event) bool {
	return func(e trace.Event) bool {
		return e.Stage == trace.Handler && e.Verb == verb && e.Key == key && e.To == to
	}
}

func reconciled(key string) func(trace.Event) bool {
	return func(e trace.Event) bool {
		return e.Stage == trace.Controller && e.Key == key && e.Outcome == "ok"
	}
}

// listedAndWatching: an informer's first list is in its cache (the FIFO popped
// the bookmark that follows it) and its watch has been sent.
func listedAndWatching(informer string) []func(trace.Event) bool {
	return []func(trace.Event) bool{
		func(e trace.Event) bool {
			return e.Stage == trace.FIFO && e.Informer == informer && e.Delta == "Bookmark"
		},
		func(e trace.Event) bool {
			return e.Stage == trace.Reflector && e.Informer == informer && e.Step.Op == listwatch.OpWatch
		},
	}
}
