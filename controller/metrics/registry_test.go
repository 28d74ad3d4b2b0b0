package metrics_test

import (
	"errors"
	"math"
	"testing"

	"github.com/kubewire/kubewire/controller/metrics"
)

func TestRegistry_renders_each_kind(t *testing.T) {
	tests := []struct {
		name  string
		build func(reg *metrics.Registry)
		want  string
	}{{
		name:  "an empty registry renders nothing",
		build: func(*metrics.Registry) {},
		want:  "",
	}, {
		name: "a counter without labels has no braces",
		build: func(reg *metrics.Registry) {
			c := reg.Counter("events_total", "Events seen.")
			c.Inc()
			c.Add(2.5)
		},
		want: "# HELP events_total Events seen.\n# TYPE events_total counter\nevents_total 3.5\n",
	}, {
		name: "a gauge goes both ways",
		build: func(reg *metrics.Registry) {
			g := reg.Gauge("backlog", "Notifications waiting.")
			g.Set(10)
			g.Dec()
			g.Add(-4)
			g.Inc()
		},
		want: "# HELP backlog Notifications waiting.\n# TYPE backlog gauge\nbacklog 6\n",
	}, {
		name: "series of a vec come in label-value order, label by label",
		build: func(reg *metrics.Registry) {
			v := reg.CounterVec("requests_total", "Requests.", "code", "method")
			v.With("404", "GET").Inc()
			v.With("200", "PUT").Add(2)
			v.With("200", "GET").Add(3)
		},
		want: `# HELP requests_total Requests.
# TYPE requests_total counter
requests_total{code="200",method="GET"} 3
requests_total{code="200",method="PUT"} 2
requests_total{code="404",method="GET"} 1
`,
	}, {
		name: "families come in name order, and an unused vec is left out",
		build: func(reg *metrics.Registry) {
			reg.Gauge("zeta", "Last.").Set(1)
			reg.CounterVec("middle_total", "Never used.", "x")
			reg.Gauge("alpha", "First.").Set(2)
		},
		want: "# HELP alpha First.\n# TYPE alpha gauge\nalpha 2\n# HELP zeta Last.\n# TYPE zeta gauge\nzeta 1\n",
	}, {
		name: "a histogram has cumulative buckets, +Inf, sum and count",
		build: func(reg *metrics.Registry) {
			h := reg.Histogram("took_seconds", "Durations.", []float64{0.1, 1})
			for _, v := range []float64{0.05, 0.1, 0.5, 3} { // 0.1 is inclusive: bucket le=0.1
				h.Observe(v)
			}
		},
		want: `# HELP took_seconds Durations.
# TYPE took_seconds histogram
took_seconds_bucket{le="0.1"} 2
took_seconds_bucket{le="1"} 3
took_seconds_bucket{le="+Inf"} 4
took_seconds_sum 3.65
took_seconds_count 4
`,
	}, {
		name: "a histogram vec puts le after its own labels",
		build: func(reg *metrics.Registry) {
			reg.HistogramVec("took_seconds", "Durations.", []float64{1, math.Inf(+1)}, "verb").With("GET").Observe(2)
		},
		want: `# HELP took_seconds Durations.
# TYPE took_seconds histogram
took_seconds_bucket{verb="GET",le="1"} 0
took_seconds_bucket{verb="GET",le="+Inf"} 1
took_seconds_sum{verb="GET"} 2
took_seconds_count{verb="GET"} 1
`,
	}, {
		name: "funcs are read at scrape time, labels sorted by name",
		build: func(reg *metrics.Registry) {
			n := 0
			reg.GaugeFunc("cache_size", "Objects cached.", metrics.Labels{"resource": "pods", "group": ""},
				func() float64 { n++; return float64(n * 10) })
			reg.CounterFunc("relists_total", "Relists.", nil, func() float64 { return 7 })
			reg.HistogramFunc("wait_seconds", "Waits.", metrics.Labels{"name": "q"}, func() metrics.HistogramSnapshot {
				return metrics.HistogramSnapshot{Buckets: []metrics.Bucket{{UpperBound: 1e-08, Count: 1}}, Count: 2, Sum: 12}
			})
		},
		want: `# HELP cache_size Objects cached.
# TYPE cache_size gauge
cache_size{group="",resource="pods"} 10
# HELP relists_total Relists.
# TYPE relists_total counter
relists_total 7
# HELP wait_seconds Waits.
# TYPE wait_seconds histogram
wait_seconds_bucket{name="q",le="1e-08"} 1
wait_seconds_bucket{name="q",le="+Inf"} 2
wait_seconds_sum{name="q"} 12
wait_seconds_count{name="q"} 2
`,
	}, {
		name: "label values and help text are escaped as the format says",
		build: func(reg *metrics.Registry) {
			reg.GaugeVec("odd", "Back\\slash and\nnewline; \"quotes\" stay.", "v").With("a\"b\\c\nd").Set(1)
		},
		want: "# HELP odd Back\\\\slash and\\nnewline; \"quotes\" stay.\n# TYPE odd gauge\nodd{v=\"a\\\"b\\\\c\\nd\"} 1\n",
	}, {
		name: "special values are written as Prometheus reads them",
		build: func(reg *metrics.Registry) {
			v := reg.GaugeVec("special", "Specials.", "k")
			v.With("a").Set(math.Inf(+1))
			v.With("b").Set(math.Inf(-1))
			v.With("c").Set(math.NaN())
			v.With("d").Set(1e-9)
			v.With("e").Set(123456789)
		},
		want: `# HELP special Specials.
# TYPE special gauge
special{k="a"} +Inf
special{k="b"} -Inf
special{k="c"} NaN
special{k="d"} 1e-09
special{k="e"} 1.23456789e+08
`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := new(metrics.Registry)
			tt.build(reg)
			if got := render(t, reg); got != tt.want {
				t.Fatalf("page:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestRegistry_registering_the_same_name_the_same_way_returns_the_same_metric(t *testing.T) {
	reg := new(metrics.Registry)
	reg.Counter("c_total", "C.").Inc()
	reg.Counter("c_total", "C.").Inc()
	reg.CounterVec("v_total", "V.", "a").With("x").Inc()
	reg.CounterVec("v_total", "V.", "a").With("x").Inc()
	reg.Histogram("h", "H.", nil).Observe(1)
	reg.Histogram("h", "H.", metrics.DefaultBuckets).Observe(1)
	if got, want := reg.Counter("c_total", "C.").Value(), 2.0; got != want {
		t.Fatalf("c_total = %v, want %v", got, want)
	}
	if got, want := reg.CounterVec("v_total", "V.", "a").With("x").Value(), 2.0; got != want {
		t.Fatalf("v_total = %v, want %v", got, want)
	}
	if got, want := reg.Histogram("h", "H.", nil).Snapshot().Count, uint64(2); got != want {
		t.Fatalf("h count = %v, want %v", got, want)
	}
}

func TestRegistry_panics_on_wiring_mistakes(t *testing.T) {
	tests := []struct {
		name string
		want string
		f    func(reg *metrics.Registry)
	}{
		{"a name registered as two kinds", "registered twice, differently", func(reg *metrics.Registry) {
			reg.Counter("x", "X.")
			reg.Gauge("x", "X.")
		}},
		{"a name registered with other help", "registered twice, differently", func(reg *metrics.Registry) {
			reg.Counter("x", "X.")
			reg.Counter("x", "Y.")
		}},
		{"a name registered with other labels", "registered twice, differently", func(reg *metrics.Registry) {
			reg.CounterVec("x", "X.", "a")
			reg.CounterVec("x", "X.", "b")
		}},
		{"a histogram registered with other buckets", "registered twice, differently", func(reg *metrics.Registry) {
			reg.Histogram("x", "X.", []float64{1})
			reg.Histogram("x", "X.", []float64{2})
		}},
		{"the same func series twice", `x{name="a"} registered twice`, func(reg *metrics.Registry) {
			reg.GaugeFunc("x", "X.", metrics.Labels{"name": "a"}, func() float64 { return 0 })
			reg.GaugeFunc("x", "X.", metrics.Labels{"name": "a"}, func() float64 { return 0 })
		}},
		{"a func series with other label names", "registered twice, differently", func(reg *metrics.Registry) {
			reg.GaugeFunc("x", "X.", metrics.Labels{"name": "a"}, func() float64 { return 0 })
			reg.GaugeFunc("x", "X.", metrics.Labels{"name": "b", "extra": "c"}, func() float64 { return 0 })
		}},
		{"a func series taken for a gauge", "registered as a func, not a Gauge", func(reg *metrics.Registry) {
			reg.GaugeFunc("x", "X.", nil, func() float64 { return 0 })
			reg.Gauge("x", "X.")
		}},
		{"too few label values", "given 1 values", func(reg *metrics.Registry) {
			reg.CounterVec("x", "X.", "a", "b").With("only-a")
		}},
		{"an invalid metric name", `invalid metric name "1x"`, func(reg *metrics.Registry) { reg.Counter("1x", "X.") }},
		{"an invalid label name", `invalid label name "a-b"`, func(reg *metrics.Registry) { reg.CounterVec("x", "X.", "a-b") }},
		{"a reserved label name", `invalid label name "__name"`, func(reg *metrics.Registry) { reg.CounterVec("x", "X.", "__name") }},
		{"le on a histogram", `invalid label name "le"`, func(reg *metrics.Registry) { reg.HistogramVec("x", "X.", nil, "le") }},
		{"a label declared twice", `declares label "a" twice`, func(reg *metrics.Registry) { reg.CounterVec("x", "X.", "a", "a") }},
		{"more than eight labels", "at most 8", func(reg *metrics.Registry) {
			reg.CounterVec("x", "X.", "a", "b", "c", "d", "e", "f", "g", "h", "i")
		}},
		{"buckets out of order", "ascend strictly", func(reg *metrics.Registry) { reg.Histogram("x", "X.", []float64{1, 1}) }},
		{"a counter going down", "counter decreased", func(reg *metrics.Registry) { reg.Counter("x", "X.").Add(-1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustPanic(t, tt.want, func() { tt.f(new(metrics.Registry)) })
		})
	}
}

func TestRegistry_WriteTo_returns_the_writers_error(t *testing.T) {
	reg := new(metrics.Registry)
	reg.Counter("c_total", "C.").Inc()
	broken := errors.New("connection reset")
	if _, err := reg.WriteTo(failingWriter{broken}); !errors.Is(err, broken) {
		t.Fatalf("WriteTo = %v, want %v", err, broken)
	}
}

func TestRegistry_a_func_may_read_the_registry_while_it_is_scraped(t *testing.T) {
	reg := new(metrics.Registry)
	reg.Counter("a_total", "A.").Add(4)
	reg.GaugeFunc("b", "B.", nil, func() float64 { return reg.Counter("a_total", "A.").Value() * 2 })
	if got, want := render(t, reg), "# HELP a_total A.\n# TYPE a_total counter\na_total 4\n# HELP b B.\n# TYPE b gauge\nb 8\n"; got != want {
		t.Fatalf("page:\n%s\nwant:\n%s", got, want)
	}
}

func TestHistogram_zero_value_counts_into_inf_only(t *testing.T) {
	var h metrics.Histogram
	h.Observe(3)
	h.ObserveDuration(1500 * 1e6) // 1.5 s
	s := h.Snapshot()
	if got, want := len(s.Buckets), 0; got != want {
		t.Fatalf("%d buckets, want %d", got, want)
	}
	if got, want := s.Count, uint64(2); got != want {
		t.Fatalf("count %d, want %d", got, want)
	}
	if got, want := s.Sum, 4.5; got != want {
		t.Fatalf("sum %v, want %v", got, want)
	}
}

func TestHistogram_NewHistogram_does_not_share_the_callers_bounds(t *testing.T) {
	bounds := []float64{1, 2}
	h := metrics.NewHistogram(bounds)
	bounds[0] = 100
	h.Observe(1)
	if got, want := h.Snapshot().Buckets[0], (metrics.Bucket{UpperBound: 1, Count: 1}); got != want {
		t.Fatalf("first bucket %+v, want %+v", got, want)
	}
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }
