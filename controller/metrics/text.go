package metrics

import (
	"bytes"
	"io"
	"math"
	"strconv"
	"strings"
)

// ContentType is the media type of the page WriteTo renders: the Prometheus text
// exposition format, version 0.0.4, which every Prometheus-compatible scraper reads.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// WriteTo renders every family in the Prometheus text format and returns the
// bytes written and the first error from w. Families come in name order and series
// in label-value order, so two scrapes of an idle process are byte-identical; a
// family with no series yet is left out (a CounterVec nobody has used).
//
// Each family is written as
//
//	# HELP workqueue_depth Keys waiting to be processed.
//	# TYPE workqueue_depth gauge
//	workqueue_depth{name="pods"} 3
//
// Funcs are called here, one after another, with no lock of the registry held,
// so a func may itself read the registry. The cost is O(series), plus the funcs.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	p := pageWriter{b: new(bytes.Buffer)} // the page whole, then to w: a scrape is tens of KB
	for _, f := range r.sortedFamilies() {
		series := f.sortedSeries()
		if len(series) == 0 {
			continue
		}
		p.b.WriteString("# HELP " + f.name + " " + escapeHelp(f.help) + "\n")
		p.b.WriteString("# TYPE " + f.name + " " + f.kind.String() + "\n")
		for _, s := range series {
			p.series(f.name, s)
		}
	}
	return p.b.WriteTo(w)
}

// pageWriter writes sample lines. Numbers are formatted into scratch, reused from
// line to line, so a scrape allocates per family rather than per line. Not safe for
// concurrent use: WriteTo makes one per call.
type pageWriter struct {
	b       *bytes.Buffer
	scratch []byte
}

// series writes the sample line(s) of one series.
func (p *pageWriter) series(name string, s *series) {
	switch {
	case s.counter != nil:
		p.float(name, "", s.pairs, s.counter.Value())
	case s.gauge != nil:
		p.float(name, "", s.pairs, s.gauge.Value())
	case s.fn != nil:
		p.float(name, "", s.pairs, s.fn())
	case s.histogram != nil:
		p.histogram(name, s.pairs, s.histogram.Snapshot())
	case s.histFn != nil:
		p.histogram(name, s.pairs, s.histFn())
	}
}

// histogram writes a histogram's _bucket lines (cumulative, ending with
// le="+Inf", which equals the count), then _sum and _count.
func (p *pageWriter) histogram(name, pairs string, h HistogramSnapshot) {
	for _, bk := range h.Buckets {
		p.bucket(name, pairs, bk.UpperBound, bk.Count)
	}
	p.bucket(name, pairs, math.Inf(+1), h.Count)
	p.float(name, "_sum", pairs, h.Sum)
	p.start(name, "_count", pairs)
	p.scratch = strconv.AppendUint(p.scratch[:0], h.Count, 10)
	p.end()
}

// float writes one line whose value is v.
func (p *pageWriter) float(name, suffix, pairs string, v float64) {
	p.start(name, suffix, pairs)
	p.scratch = appendFloat(p.scratch[:0], v)
	p.end()
}

// bucket writes one _bucket line: the series' labels, then le="bound".
func (p *pageWriter) bucket(name, pairs string, le float64, n uint64) {
	p.b.WriteString(name)
	p.b.WriteString(`_bucket{`)
	if pairs != "" {
		p.b.WriteString(pairs)
		p.b.WriteByte(',')
	}
	p.b.WriteString(`le="`)
	p.scratch = appendFloat(p.scratch[:0], le)
	p.b.Write(p.scratch)
	p.b.WriteString(`"} `)
	p.scratch = strconv.AppendUint(p.scratch[:0], n, 10)
	p.end()
}

// start writes name+suffix and the series' labels, in braces unless there are
// none, and the space before the value.
func (p *pageWriter) start(name, suffix, pairs string) {
	p.b.WriteString(name)
	p.b.WriteString(suffix)
	if pairs != "" {
		p.b.WriteByte('{')
		p.b.WriteString(pairs)
		p.b.WriteByte('}')
	}
	p.b.WriteByte(' ')
}

// end writes the value in scratch and the newline.
func (p *pageWriter) end() {
	p.b.Write(p.scratch)
	p.b.WriteByte('\n')
}

// renderPairs renders label names and values as the text format writes them inside
// braces: code="200",method="GET". It runs once per series, when it is created.
func renderPairs(names, values []string) string {
	var b strings.Builder
	for i, name := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(name + `="` + escapeLabel(values[i]) + `"`)
	}
	return b.String()
}

// appendFloat writes v as Prometheus reads it, and as package queue does: the
// shortest decimal that parses back to v (1e-08, 0.25, 3), and +Inf, -Inf, NaN.
func appendFloat(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'g', -1, 64) }

// The text format escapes backslash and newline in help text, and double quotes
// too in label values; nothing else.
var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
)

func escapeHelp(s string) string  { return helpEscaper.Replace(s) }
func escapeLabel(s string) string { return labelEscaper.Replace(s) }
