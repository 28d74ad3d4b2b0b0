package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"net/url"
	"path/filepath"

	"github.com/kubewire/kubewire/apiclient/recording"
)

// Status bodies in the shape kube-apiserver writes them, for faults a healthy
// server does not produce on demand.
const (
	status500 = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: etcdserver: request timed out","reason":"InternalError","details":{"causes":[{"message":"etcdserver: request timed out"}]},"code":500}`
	status429 = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Too many requests, please try again later.","reason":"TooManyRequests","details":{"retryAfterSeconds":%d},"code":429}`
)

// faults builds the fault scenarios from list-watch.rec: its LIST (ex 0) and its
// watch (ex 1, three events l0 l1 l2 and maybe a bookmark), with the fault written
// in and the watch the reflector then makes, from the resourceVersion of the last
// event it could apply.
func (m *maker) faults() {
	src, err := recording.Open(filepath.Join(*out, "list-watch.rec"))
	if err != nil {
		log.Fatal(err)
	}
	list, watch := src.Exchanges[0], src.Exchanges[1]
	if len(watch.Lines) < 3 {
		log.Fatalf("list-watch.rec: the watch has %d lines, want at least 3", len(watch.Lines))
	}
	lines := watch.Lines
	from := func(i int) recording.Exchange { // the watch the reflector makes after lines[:i] were applied
		ex := watch
		ex.Comments = nil
		ex.Target = rewatchTarget(watch.Target, rvOf(lines[i-1]))
		ex.Lines = lines[i:]
		return ex
	}
	cutWatch := func(n int, end recording.End, extra ...[]byte) recording.Exchange {
		ex := watch
		ex.Comments = nil
		ex.Lines = append(append([][]byte{}, lines[:n]...), extra...)
		ex.End = end
		return ex
	}
	header := func(name, what string) []string {
		return append(append([]string{}, src.Comments[0]),
			"scenario "+name+": built by recordscenarios from list-watch.rec (its bodies verbatim) with a fault written in:",
			what)
	}
	unknown := bytes.Replace(lines[0], []byte(`"type":"ADDED"`), []byte(`"type":"FUTURE"`), 1)
	save := func(name, what string, exs ...recording.Exchange) {
		rec := &recording.Recording{Comments: header(name, what), Exchanges: exs}
		var buf bytes.Buffer
		rec.WriteTo(&buf)
		m.save(name, buf.Bytes())
	}

	save("malformed-line", "the watch sends an event of an unknown type (skipped), then a line that is not JSON (the stream is dropped and resumed).",
		list, cutWatch(1, recording.Finished, unknown, []byte(`this is not JSON {"type":`)), from(1))
	save("stall", "the watch sends one event, then nothing, holding the connection open, until the idle timeout drops it.",
		list, cutWatch(1, recording.Stall), from(1))
	cut := cutWatch(2, recording.Cut)
	cut.CutAt = len(lines[1]) / 2
	save("cut", "the connection drops in the middle of the second event; the watch resumes after the first.",
		list, cut, from(1))
	save("close", "the connection drops after the first event (no end of the chunked body).",
		list, cutWatch(1, recording.Close), from(1))

	fail := func(target string) recording.Exchange {
		return recording.Exchange{Method: "GET", Target: target, Status: 500, Lines: [][]byte{[]byte(status500)}}
	}
	var exs []recording.Exchange
	for i := 0; i < 5; i++ {
		exs = append(exs, fail(list.Target))
	}
	exs = append(exs, list, cutWatch(1, recording.Stall), fail(from(1).Target), from(1))
	save("backoff-500", "five 500s to the LIST (backoff doubling from 0.8 s); the watch stalls (idle timeout, and the backoff resets since more than two minutes passed), then one 500, then the rest.",
		exs...)

	throttle := func(target string, retryAfter int) recording.Exchange {
		return recording.Exchange{Method: "GET", Target: target, Status: 429, RetryAfter: retryAfter, Lines: [][]byte{[]byte(fmt.Sprintf(status429, 5))}}
	}
	save("throttled-429", "the LIST gets 429 with Retry-After: 2 twice (apiclient waits and retries); the watch gets a 429 without the header, whose Status asks for 5 s (the reflector waits that long).",
		throttle(list.Target, 2), throttle(list.Target, 2), list, throttle(watch.Target, 0), watch)
}

func rvOf(line []byte) string {
	var ev struct {
		Object struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		} `json:"object"`
	}
	if err := json.Unmarshal(line, &ev); err != nil || ev.Object.Metadata.ResourceVersion == "" {
		log.Fatalf("no resourceVersion in %.80s", line)
	}
	return ev.Object.Metadata.ResourceVersion
}

func rewatchTarget(target, rv string) string {
	u, err := url.ParseRequestURI(target)
	if err != nil {
		log.Fatal(err)
	}
	q := u.Query()
	q.Set("resourceVersion", rv)
	return withQuery(target, q)
}
