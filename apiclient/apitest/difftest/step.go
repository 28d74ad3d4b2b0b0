package difftest

import (
	"fmt"
	"strconv"
	"strings"
)

// Sequence is what the harness runs on both servers: steps in order, and the
// seed that generated them (0 for one written by hand).
type Sequence struct {
	Seed  uint64
	Steps []Step
}

// Step is one request, or one small group of requests, of a sequence. It is
// plain data, so that a sequence prints as Go (GoString) and replays as it ran.
//
// What Do means, and which fields it reads:
//
//	create    POST Body to Res
//	update    PUT Body to Res/Name[/Sub], with metadata.resourceVersion set per RV
//	patch     PATCH Res/Name[/Sub] with Body; Type: merge, json or strategic
//	apply     server-side apply of Body to Res/Name[/Sub] as Manager, Force
//	delete    DELETE Res/Name, with preconditions per RV and UID
//	get       GET Res/Name[/Sub]
//	list      GET Res with Query (labelSelector=…, fieldSelector=…, limit=…)
//	next      GET Res with the continue token of the last list of Res
//	watch     open a watch of Res from the resourceVersion RV names; its events
//	          are compared at the end, with every other watch's
//	stream    a streaming list of Res (sendInitialEvents), with Query, up to
//	          its initial-events-end bookmark
//	expired   a watch of Res from resourceVersion 1, after a compaction: 410
//	burst     N concurrent merge patches of Res/Name, each setting its own key
//	raw       one request as written: Method to Path ("{ns}" is the run's
//	          namespace; empty: Res/Name[/Sub]) with Query and Body; Type
//	          is a PATCH's (merge, json, strategic, apply). Its line shows
//	          the code, Retry-After and Warning headers, and the answer
//	          normalised as Res's (raw.go)
//
// Dry asks a write for dryRun=All: answered as done, nothing stored.
//
// RV names a resourceVersion the runner knows for Res/Name: "" none, "latest"
// the last one a response showed, "stale" the one before it, "bogus" one no
// object ever had. UID is "", "latest" or "bogus" likewise.
type Step struct {
	Do    string
	Res   string
	Name  string `json:",omitempty"`
	Sub   string `json:",omitempty"`
	Type  string `json:",omitempty"`
	Body  string `json:",omitempty"`
	Mgr   string `json:",omitempty"`
	Force bool   `json:",omitempty"`
	Dry   bool   `json:",omitempty"`
	RV    string `json:",omitempty"`
	UID   string `json:",omitempty"`
	Query string `json:",omitempty"`
	N     int    `json:",omitempty"`
	// Method and Path are a raw step's.
	Method string `json:",omitempty"`
	Path   string `json:",omitempty"`
}

// String is the step in one line, as the transcript shows it.
func (s Step) String() string {
	var b strings.Builder
	b.WriteString(s.Do + " " + s.Res)
	if s.Method != "" {
		b.WriteString(" " + s.Method)
	}
	if s.Path != "" {
		b.WriteString(" " + s.Path)
	}
	if s.Name != "" {
		b.WriteString("/" + s.Name)
	}
	if s.Sub != "" {
		b.WriteString("/" + s.Sub)
	}
	for _, f := range []struct{ k, v string }{{"type", s.Type}, {"mgr", s.Mgr}, {"rv", s.RV}, {"uid", s.UID}, {"query", s.Query}} {
		if f.v != "" {
			b.WriteString(" " + f.k + "=" + f.v)
		}
	}
	if s.Force {
		b.WriteString(" force")
	}
	if s.Dry {
		b.WriteString(" dry")
	}
	if s.N > 0 {
		b.WriteString(" n=" + strconv.Itoa(s.N))
	}
	if s.Body != "" {
		b.WriteString(" " + s.Body)
	}
	return b.String()
}

// GoString is the step as a Go composite literal, for a replayable test.
func (s Step) GoString() string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+": "+goQuote(v))
		}
	}
	add("Do", s.Do)
	add("Res", s.Res)
	add("Name", s.Name)
	add("Sub", s.Sub)
	add("Type", s.Type)
	add("Body", s.Body)
	add("Mgr", s.Mgr)
	if s.Force {
		parts = append(parts, "Force: true")
	}
	if s.Dry {
		parts = append(parts, "Dry: true")
	}
	add("RV", s.RV)
	add("UID", s.UID)
	add("Query", s.Query)
	if s.N > 0 {
		parts = append(parts, "N: "+strconv.Itoa(s.N))
	}
	add("Method", s.Method)
	add("Path", s.Path)
	return "{" + strings.Join(parts, ", ") + "}"
}

// goQuote quotes s as a raw string when it can (JSON reads better without
// escapes), else as an interpreted one.
func goQuote(s string) string {
	if !strings.Contains(s, "`") && !strings.ContainsAny(s, "\r\x00") {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

// GoString prints the sequence as Go, one step a line.
func (q Sequence) GoString() string {
	var b strings.Builder
	fmt.Fprintf(&b, "difftest.Sequence{Seed: %d, Steps: []difftest.Step{\n", q.Seed)
	for _, s := range q.Steps {
		b.WriteString("\t" + s.GoString() + ",\n")
	}
	b.WriteString("}}")
	return b.String()
}

// resources returns the resources of the universe the sequence touches, in
// kindNames order: each gets its watches and its marker.
func (q Sequence) resources() []string {
	used := map[string]bool{}
	for _, s := range q.Steps {
		used[s.Res] = true
	}
	var out []string
	for _, k := range kindNames {
		if used[k] {
			out = append(out, k)
		}
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

// cleanups returns every resource the sequence may have written: the
// universe's, and the others raw steps write (leases, secrets), which have no
// watches but must leave a shared real server's namespace empty too.
func (q Sequence) cleanups() []string {
	out := q.resources()
	for _, k := range extraNames {
		for _, s := range q.Steps {
			if s.Res == k {
				out = append(out, k)
				break
			}
		}
	}
	return out
}
