package metrics

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Registry holds metric families and renders them for /metrics. Everything that
// counts registers here once, at wiring time, and then updates its own Counter,
// Gauge or Histogram without the registry being involved again.
//
// The zero value is an empty registry, ready to use. A Registry is safe for
// concurrent use: register, update and scrape from any goroutine.
type Registry struct {
	mu       sync.Mutex
	families map[string]*family
}

// Labels name the label values of one series registered with a func
// (CounterFunc, GaugeFunc, HistogramFunc): {"name": "pods"}. They are rendered
// sorted by label name. nil means no labels.
type Labels map[string]string

// kind is a family's Prometheus type.
type kind uint8

const (
	counterKind kind = iota
	gaugeKind
	histogramKind
)

func (k kind) String() string {
	return [...]string{"counter", "gauge", "histogram"}[k]
}

// maxLabels bounds how many labels one family may have. A series is found by its
// label values held in a fixed-size array, which is comparable: a map keyed by it
// needs no string joined per lookup, so With allocates nothing. Eight is more than
// any metric here uses; a family with more labels is a cardinality problem anyway.
const maxLabels = 8

// labelValues is a series' identity inside its family: the values of the family's
// labels, in the family's order, the rest empty.
type labelValues [maxLabels]string

// family is one metric name: its # HELP and # TYPE, its label names, and the series
// that have been created. Its series map is guarded by mu, which is taken per With
// and per scrape, never while a series is updated.
type family struct {
	name    string
	help    string
	kind    kind
	labels  []string  // label names, in the order values are given and rendered
	buckets []float64 // histogram upper bounds, ascending, +Inf left out

	mu     sync.RWMutex
	series map[labelValues]*series
}

// series is one line (or, for a histogram, one block of lines) of the page. Exactly
// one of the value fields is set.
type series struct {
	values labelValues
	pairs  string // rendered label pairs without braces: code="200",method="GET"

	counter   *Counter
	gauge     *Gauge
	histogram *Histogram
	fn        func() float64           // CounterFunc, GaugeFunc
	histFn    func() HistogramSnapshot // HistogramFunc
}

// register returns the family called name, creating it when it is new. Registering
// the same name again with the same type, help, labels and buckets returns the same
// family, so two controllers can both register "workqueue_depth" and add their own
// series; any difference is a programmer error and panics, because the page would
// otherwise carry one name with two meanings.
func (r *Registry) register(name, help string, k kind, labels []string, buckets []float64) *family {
	mustValidName(name)
	if len(labels) > maxLabels {
		panic(fmt.Sprintf("metrics: %s has %d labels, at most %d are supported", name, len(labels), maxLabels))
	}
	for i, l := range labels {
		mustValidLabel(name, l, k)
		if slices.Contains(labels[:i], l) {
			panic(fmt.Sprintf("metrics: %s declares label %q twice", name, l))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.families[name]; ok {
		if f.kind != k || f.help != help || !slices.Equal(f.labels, labels) || !slices.Equal(f.buckets, buckets) {
			panic(fmt.Sprintf("metrics: %s registered twice, differently (%s %q %v and %s %q %v)",
				name, f.kind, f.help, f.labels, k, help, labels))
		}
		return f
	}
	if r.families == nil {
		r.families = make(map[string]*family)
	}
	f := &family{
		name: name, help: help, kind: k,
		labels:  slices.Clone(labels),
		buckets: slices.Clone(buckets),
		series:  make(map[labelValues]*series),
	}
	r.families[name] = f
	return f
}

// get returns the series with these label values, creating it with create when
// it is new. It costs one map lookup under a read lock when the series exists.
func (f *family) get(values []string, create func(*series)) *series {
	if len(values) != len(f.labels) {
		// Only the count goes into the message: were values passed to Sprintf, the
		// compiler would move every caller's variadic slice to the heap.
		panic(fmt.Sprintf("metrics: %s has labels %v, given %d values", f.name, f.labels, len(values)))
	}
	var key labelValues
	copy(key[:], values)
	f.mu.RLock()
	s, ok := f.series[key]
	f.mu.RUnlock()
	if ok {
		return s
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.series[key]; ok { // another goroutine created it between the locks
		return s
	}
	s = &series{values: key, pairs: renderPairs(f.labels, values)}
	create(s)
	f.series[key] = s
	return s
}

// add registers a func series under labels. register has already checked that
// labels name exactly the family's labels. A second series with the same label
// values panics: the page would show the same line twice, and Prometheus rejects
// the whole scrape.
func (f *family) add(labels Labels, create func(*series)) {
	values := make([]string, len(f.labels))
	for i, name := range f.labels {
		values[i] = labels[name]
	}
	var key labelValues
	copy(key[:], values)
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.series[key]; ok {
		panic(fmt.Sprintf("metrics: %s{%s} registered twice", f.name, renderPairs(f.labels, values)))
	}
	s := &series{values: key, pairs: renderPairs(f.labels, values)}
	create(s)
	f.series[key] = s
}

// sortedSeries returns the family's series ordered by label values, label by label,
// so the page is the same from one scrape to the next.
func (f *family) sortedSeries() []*series {
	f.mu.RLock()
	out := make([]*series, 0, len(f.series))
	for _, s := range f.series {
		out = append(out, s)
	}
	f.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		for k := range f.labels {
			if a, b := out[i].values[k], out[j].values[k]; a != b {
				return a < b
			}
		}
		return false
	})
	return out
}

// sortedFamilies returns the registry's families ordered by name.
func (r *Registry) sortedFamilies() []*family {
	r.mu.Lock()
	out := make([]*family, 0, len(r.families))
	for _, f := range r.families {
		out = append(out, f)
	}
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// sortedNames returns the label names of labels, sorted: the order a func series'
// labels are declared and rendered in.
func (l Labels) sortedNames() []string {
	names := make([]string, 0, len(l))
	for name := range l {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// mustValidName panics unless name is a valid metric name: [a-zA-Z_:][a-zA-Z0-9_:]*.
func mustValidName(name string) {
	if !validName(name, true) {
		panic(fmt.Sprintf("metrics: invalid metric name %q", name))
	}
}

// mustValidLabel panics unless label is a valid label name for family name:
// [a-zA-Z_][a-zA-Z0-9_]*, not reserved (names starting "__" are Prometheus's own,
// and a histogram's "le" holds its bucket bounds).
func mustValidLabel(name, label string, k kind) {
	if !validName(label, false) || strings.HasPrefix(label, "__") || (k == histogramKind && label == "le") {
		panic(fmt.Sprintf("metrics: %s: invalid label name %q", name, label))
	}
}

func validName(s string, colon bool) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		ok := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			(colon && c == ':') || (i > 0 && c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}
