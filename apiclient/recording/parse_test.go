package recording_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/recording"
)

const sample = `kubewire-recording v1
# made by hand for the parser's tests

> GET /api/v1/namespaces/demo/pods?limit=500&resourceVersion=0
< 200
{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[]}
# the watch after it
> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=10&watch=true
< 200
{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a","resourceVersion":"11"}}}
| not json at all
{"type":"MODIFIED","object":{"kind":"Pod","meta
< cut 20
> GET /api/v1/namespaces/demo/pods?watch=true
< stall # nobody answered
> GET /api/v1/namespaces/demo/pods?limit=500
< 429 retry-after=3
{"kind":"Status","code":429}
< close
`

func TestParse_reads_every_kind_of_line(t *testing.T) {
	rec, err := recording.Parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	want := &recording.Recording{
		Comments: []string{"made by hand for the parser's tests"},
		Exchanges: []recording.Exchange{
			{Method: "GET", Target: "/api/v1/namespaces/demo/pods?limit=500&resourceVersion=0", Status: 200,
				Lines: [][]byte{[]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[]}`)}},
			{Comments: []string{"the watch after it"}, Method: "GET", Target: "/api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=10&watch=true", Status: 200,
				Lines: [][]byte{
					[]byte(`{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a","resourceVersion":"11"}}}`),
					[]byte(`not json at all`),
					[]byte(`{"type":"MODIFIED","object":{"kind":"Pod","meta`),
				}, End: recording.Cut, CutAt: 20},
			{Method: "GET", Target: "/api/v1/namespaces/demo/pods?watch=true", End: recording.Stall, EndNote: "nobody answered"},
			{Method: "GET", Target: "/api/v1/namespaces/demo/pods?limit=500", Status: 429, RetryAfter: 3,
				Lines: [][]byte{[]byte(`{"kind":"Status","code":429}`)}, End: recording.Close},
		},
	}
	if !reflect.DeepEqual(rec, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", rec, want)
	}
}

func TestParse_then_WriteTo_gives_back_the_same_recording(t *testing.T) {
	rec, err := recording.Parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := rec.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	again, err := recording.Parse(&buf)
	if err != nil {
		t.Fatalf("%v in\n%s", err, buf.String())
	}
	if !reflect.DeepEqual(rec, again) {
		t.Fatalf("round trip changed the recording:\n%+v\n%+v", rec, again)
	}
}

func TestParse_errors_name_the_line(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"empty input", "", "empty input"},
		{"another format", "HTTP/1.1 200 OK\n", `recording:1: want "kubewire-recording v1"`},
		{"a request without a response", "kubewire-recording v1\n> GET /x\n", "recording:2: request GET /x has no response line"},
		{"two requests in a row", "kubewire-recording v1\n> GET /x\n> GET /y\n", "recording:3: request GET /x has no response line"},
		{"a body before any status", "kubewire-recording v1\n> GET /x\n{}\n", "recording:3: body line outside a response"},
		{"a body after the end", "kubewire-recording v1\n> GET /x\n< 200\n< end\n{}\n", "recording:5: body line outside a response"},
		{"a status out of range", "kubewire-recording v1\n> GET /x\n< 42\n", "recording:3: want \"< CODE\""},
		{"a bad retry-after", "kubewire-recording v1\n> GET /x\n< 429 retry-after=soon\n", "recording:3: after the status code"},
		{"a cut longer than its line", "kubewire-recording v1\n> GET /x\n< 200\n{}\n< cut 3\n", "recording:5: \"cut 3\": want a byte count from 0 to 2"},
		{"a cut with no line", "kubewire-recording v1\n> GET /x\n< 200\n< cut 0\n", "recording:4: \"cut\" needs a body line"},
		{"end before a status", "kubewire-recording v1\n> GET /x\n< end\n", "recording:3: \"end\" before a status line"},
		{"a target that is not a path", "kubewire-recording v1\n> GET pods\n", "recording:2: want \"> METHOD /path?query\""},
		{"an unknown line", "kubewire-recording v1\nGET /x\n", "recording:2: unknown line"},
		{"a response before any request", "kubewire-recording v1\n< 200\n", "recording:2: \"< 200\" before any request"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := recording.Parse(strings.NewReader(tt.in))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParse_ignores_blank_lines_and_CRLF(t *testing.T) {
	rec, err := recording.Parse(strings.NewReader("kubewire-recording v1\r\n\r\n> GET /x\r\n< 200\r\n{}\r\n\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rec.Exchanges), 1; got != want {
		t.Fatalf("%d exchanges, want %d", got, want)
	}
	if got, want := string(rec.Exchanges[0].Lines[0]), "{}"; got != want {
		t.Fatalf("line %q, want %q", got, want)
	}
}

func TestExchange_Valid_checks_JSON_lines_but_a_cut_last_line(t *testing.T) {
	for _, tt := range []struct {
		name string
		ex   recording.Exchange
		want bool
	}{
		{"whole lines", recording.Exchange{Lines: [][]byte{[]byte(`{"a":1}`)}}, true},
		{"a broken JSON line", recording.Exchange{Lines: [][]byte{[]byte(`{"a":`)}}, false},
		{"a cut last line", recording.Exchange{Lines: [][]byte{[]byte(`{"a":`)}, End: recording.Cut, CutAt: 3}, true},
		{"a text line", recording.Exchange{Lines: [][]byte{[]byte(`garbage`)}}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.ex.Valid(); got != tt.want {
				t.Fatalf("Valid() = %v, want %v", got, tt.want)
			}
		})
	}
}
