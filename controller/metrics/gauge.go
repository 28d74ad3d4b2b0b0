package metrics

import (
	"fmt"
	"math"
	"sync/atomic"
)

// Gauge is a value that goes up and down: keys in a queue, objects in a cache,
// whether this replica leads.
//
// The zero value is a gauge at 0, usable on its own too. A Gauge is safe for
// concurrent use; every method is one atomic operation (Add a compare-and-swap loop).
type Gauge struct {
	bits atomic.Uint64 // math.Float64bits of the value
}

// Gauge registers a gauge without labels and returns it. Registering the same name
// again returns the same Gauge.
func (r *Registry) Gauge(name, help string) *Gauge {
	f := r.register(name, help, gaugeKind, nil, nil)
	return mustGauge(f, f.get(nil, func(s *series) { s.gauge = new(Gauge) }))
}

// Set sets the value.
func (g *Gauge) Set(v float64) { g.bits.Store(math.Float64bits(v)) }

// Add adds v, which may be negative.
func (g *Gauge) Add(v float64) { addFloat(&g.bits, v) }

// Inc adds 1.
func (g *Gauge) Inc() { g.Add(1) }

// Dec subtracts 1.
func (g *Gauge) Dec() { g.Add(-1) }

// Value returns the current value.
func (g *Gauge) Value() float64 { return math.Float64frombits(g.bits.Load()) }

// GaugeVec is a family of gauges told apart by label values.
//
// The zero value is not usable; get one from Registry.GaugeVec. A GaugeVec is safe
// for concurrent use.
type GaugeVec struct{ f *family }

// GaugeVec registers a gauge family with these label names and returns it.
// Registering the same name again with the same labels returns the same family.
func (r *Registry) GaugeVec(name, help string, labels ...string) *GaugeVec {
	return &GaugeVec{r.register(name, help, gaugeKind, labels, nil)}
}

// With returns the gauge for these label values, creating it at 0 on first use.
// One map lookup; it allocates only the first time.
func (v *GaugeVec) With(values ...string) *Gauge {
	return mustGauge(v.f, v.f.get(values, func(s *series) { s.gauge = new(Gauge) }))
}

// GaugeFunc registers a gauge whose value is read by calling fn at scrape time:
// the size of a cache, the age of the last event, 1 while leading. It is the usual
// way to expose state that already lives elsewhere, since nothing has to be kept in
// step. fn must be safe to call from any goroutine, and quick: a scrape calls every
// func in turn. Several funcs may share a name if their labels differ.
func (r *Registry) GaugeFunc(name, help string, labels Labels, fn func() float64) {
	r.register(name, help, gaugeKind, labels.sortedNames(), nil).add(labels, func(s *series) { s.fn = fn })
}

func mustGauge(f *family, s *series) *Gauge {
	if s.gauge == nil {
		panic(fmt.Sprintf("metrics: %s{%s} is registered as a func, not a Gauge", f.name, s.pairs))
	}
	return s.gauge
}
