package metrics

import (
	"fmt"
	"math"
	"sync/atomic"
)

// Counter is a value that only goes up: requests made, events seen, errors. Rate
// and increase are computed from it by Prometheus, so it must never be set back.
//
// The zero value is a counter at 0, usable on its own (unregistered) too. A Counter
// is safe for concurrent use; Inc and Add are one atomic operation (a compare-and-swap
// loop for Add, since the value is a float64 as Prometheus's are).
type Counter struct {
	bits atomic.Uint64 // math.Float64bits of the value
}

// Counter registers a counter without labels and returns it. Registering the same
// name again returns the same Counter.
func (r *Registry) Counter(name, help string) *Counter {
	f := r.register(name, help, counterKind, nil, nil)
	return mustCounter(f, f.get(nil, func(s *series) { s.counter = new(Counter) }))
}

// Inc adds 1.
func (c *Counter) Inc() { c.Add(1) }

// Add adds v, which must not be negative: a counter that went down would read, to
// Prometheus, as a process restart. A negative v is a programmer error and panics.
func (c *Counter) Add(v float64) {
	if v < 0 {
		panic(fmt.Sprintf("metrics: counter decreased by %v", v))
	}
	addFloat(&c.bits, v)
}

// Value returns the current value.
func (c *Counter) Value() float64 { return math.Float64frombits(c.bits.Load()) }

// CounterVec is a family of counters told apart by label values: requests by verb
// and code. Each distinct set of values is one series, created on first use.
//
// The zero value is not usable; get one from Registry.CounterVec. A CounterVec is
// safe for concurrent use.
type CounterVec struct{ f *family }

// CounterVec registers a counter family with these label names and returns it.
// Registering the same name again with the same labels returns the same family.
func (r *Registry) CounterVec(name, help string, labels ...string) *CounterVec {
	return &CounterVec{r.register(name, help, counterKind, labels, nil)}
}

// With returns the counter for these label values, one per label in the order the
// labels were declared, creating it at 0 on first use. It costs one map lookup and
// allocates only the first time; a hot path can keep the *Counter it returns.
func (v *CounterVec) With(values ...string) *Counter {
	return mustCounter(v.f, v.f.get(values, func(s *series) { s.counter = new(Counter) }))
}

// CounterFunc registers a counter whose value is read by calling fn at scrape time,
// for totals something else already keeps (a queue's adds, an informer's relists).
// fn must be safe to call from any goroutine and must never return less than it
// did before. Several funcs may share a name if their labels differ.
func (r *Registry) CounterFunc(name, help string, labels Labels, fn func() float64) {
	r.register(name, help, counterKind, labels.sortedNames(), nil).add(labels, func(s *series) { s.fn = fn })
}

func mustCounter(f *family, s *series) *Counter {
	if s.counter == nil {
		panic(fmt.Sprintf("metrics: %s{%s} is registered as a func, not a Counter", f.name, s.pairs))
	}
	return s.counter
}

// addFloat adds v to the float64 held in bits. It loops only when another goroutine
// changed the value between the load and the swap.
func addFloat(bits *atomic.Uint64, v float64) {
	for {
		old := bits.Load()
		if bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}
