package recording_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/recording"
)

// FuzzTransport_records_no_secret runs the recorder as listwatch.Record runs it —
// Transport, its body, Writer — on answers made from the fuzzer's bytes, with
// secret values planted in every place a Secret keeps one (data, stringData, the
// last-applied annotation) and credentials (a password, a PEM private key, a
// Bearer, Basic or JWT token) anywhere, in every shape a server or a proxy may
// send: kind missing, first, last, wrong or twice; a list, watch events, a Table,
// one object; one document a line, pretty-printed, two documents on a line,
// escaped names; cut at any byte, closed by the client, or no answer at all but
// an error that quotes it. What must never reach the recording:
//
//   - anything planted in an answer of the secrets resource, whatever its shape;
//   - a credential, in any answer;
//   - a Secret's values in an answer of another resource, where the Secret
//     says it is one (its kind, or its list's) before them, or on a line that
//     is whole and one document.
//
// A planted value is caught by its first 5 bytes: a cut leaving fewer is not
// looked for.
func FuzzTransport_records_no_secret(f *testing.F) {
	f.Fuzz(func(t *testing.T, shape []byte) {
		g := &gen{in: shape}
		path, secrets := g.path()
		a := g.answer(secrets)
		rec := a.record(t, path)
		if _, err := recording.Parse(strings.NewReader(rec)); err != nil {
			t.Fatalf("the recording does not parse: %v\n%s", err, rec)
		}
		for _, p := range a.plants {
			if p.mustGo(a) && strings.Contains(rec, p.marker[:5]) {
				t.Fatalf("GET %s: %s reached the recording (%s; answer %s):\n%s\nanswer:\n%s",
					path, p.marker, p.what, a.how(), rec, a.body)
			}
		}
	})
}

// gen makes choices from the fuzzer's bytes; with none left it picks 0.
type gen struct{ in []byte }

func (g *gen) pick(n int) int {
	if len(g.in) == 0 || n <= 1 {
		return 0
	}
	v := int(g.in[0])
	g.in = g.in[1:]
	if n > 256 && len(g.in) > 0 {
		v = v<<8 | int(g.in[0])
		g.in = g.in[1:]
	}
	return v % n
}

var secretPaths = []string{
	"/api/v1/namespaces/d/secrets?limit=500&resourceVersion=0",
	"/api/v1/secrets?allowWatchBookmarks=true&resourceVersion=5&watch=true",
	"/api/v1/namespaces/d/secrets/db",
	"/api/v1/watch/namespaces/d/secrets?resourceVersion=5",
	"/proxy/x/api/v1/secrets?watch=1",
	"/api/v1/namespaces/a%2Fb/secrets",
	"/api/v1/namespaces/d/secrets?fieldSelector=metadata.name%3Ddb&limit=1",
}

var otherPaths = []string{
	"/api/v1/namespaces/d/configmaps?limit=500",
	"/api/v1/namespaces/secrets/configmaps?watch=true",
	"/apis/apps/v1/deployments",
	"/apis/example.com/v1/secrets?watch=true",
}

func (g *gen) path() (string, bool) {
	i := g.pick(len(secretPaths) + len(otherPaths))
	if i < len(secretPaths) {
		return secretPaths[i], true
	}
	return otherPaths[i-len(secretPaths)], false
}

// How an answer is written, and how it ends.
const (
	compact = iota // one document a line
	pretty         // indented, a document over many lines
	joined         // two documents on one line
	escaped        // names written with \u escapes

	eof      = iota - 4 // read to its end
	cutAt               // the connection breaks after k bytes
	closedAt            // the client reads k bytes and closes
	noAnswer            // no answer: an error quoting the first k bytes
)

type answer struct {
	body          []byte
	encoding, end int
	k, chunk      int
	plants        []plant
}

// plant is one secret value put in an answer.
type plant struct {
	marker string
	what   string
	always bool // a credential, or anything in an answer of the secrets resource
	// A Secret's value in an answer of another resource: declared says the
	// Secret says it is one, first that it does so before the value.
	declared, first bool
}

func (g *gen) answer(secrets bool) *answer {
	a := &answer{encoding: g.pick(4), end: g.pick(4), chunk: 1 + g.pick(64)}
	obj := func() string { return a.object(g, secrets, false, false) }
	var docs []string
	switch g.pick(4) {
	case 0:
		docs = []string{obj()}
	case 1: // a list: kind SecretList first, last, List, or none
		kind := g.pick(4)
		declared, first := kind < 2, kind == 0
		items := a.object(g, secrets, declared, first) + "," + a.object(g, secrets, declared, first)
		head, tail := "", ""
		switch kind {
		case 0:
			head = `"kind":"SecretList",`
		case 1:
			tail = `,"kind":"SecretList"`
		case 2:
			head = `"kind":"List",`
		}
		docs = []string{`{` + head + `"apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[` + items + `]` + tail + `}`}
	case 2:
		docs = []string{`{"type":"ADDED","object":` + obj() + `}`, `{"type":"MODIFIED","object":` + obj() + `}`}
	case 3:
		docs = []string{`{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[{"name":"Name"}],"rows":[{"cells":["db"],"object":` + obj() + `}]}`}
	}
	var b bytes.Buffer
	for i, d := range docs {
		switch a.encoding {
		case pretty:
			json.Indent(&b, []byte(d), "", "  ")
		case joined:
			if len(docs) == 1 {
				b.WriteString(`{"kind":"ConfigMap","data":{"a":"b"}}`)
			}
			b.WriteString(d)
			if i < len(docs)-1 {
				continue
			}
		case escaped:
			r := strings.NewReplacer(`"kind"`, `"\u006bind"`, `"Secret"`, `"S\u0065cret"`, `"SecretList"`, `"S\u0065cretList"`, `"data"`, `"d\u0061ta"`)
			b.WriteString(r.Replace(d))
		default:
			b.WriteString(d)
		}
		b.WriteByte('\n')
	}
	a.body = b.Bytes()
	a.k = g.pick(len(a.body) + 1)
	return a
}

// object writes one object with secret values planted; inList and listFirst say
// whether a SecretList holding it declares it a Secret, and before it.
func (a *answer) object(g *gen, secrets, inList, listFirst bool) string {
	kind := g.pick(5) // none, Secret first, Secret last, ConfigMap, ConfigMap first and Secret last
	declared := inList || kind == 1 || kind == 2 || kind == 4
	first := inList && listFirst || kind == 1
	value := func(what string) string { // a Secret's value
		m := fmt.Sprintf("QZ%02dX%sW8rT5mN2pL", len(a.plants), "abcdefgh"[len(a.plants)%8:len(a.plants)%8+1])
		a.plants = append(a.plants, plant{marker: m, what: what, always: secrets, declared: declared, first: first})
		return m
	}
	credential := func() string {
		pick := g.pick(6)
		if pick == 5 {
			return ""
		}
		m := fmt.Sprintf("QZ%02dC7vB3nK9sD1f", len(a.plants))
		a.plants = append(a.plants, plant{marker: m, what: "a credential", always: true})
		k, v := credentialAt(pick, m)
		return "," + q(k) + ":" + q(v)
	}
	annotations := ""
	if g.pick(2) == 0 { // kubectl apply's copy, which names the kind
		annotations = `"kubectl.kubernetes.io/last-applied-configuration":` +
			q(`{"apiVersion":"v1","data":{"k":"`+value("last-applied")+`"},"kind":"Secret"}`)
	}
	annotations = strings.TrimPrefix(annotations+credential(), ",")
	members := []string{
		`"apiVersion":"v1"`,
		`"metadata":{"name":"db","annotations":{` + annotations + `}}`,
		`"data":{"k":"` + value("data") + `"}`,
		`"stringData":{"k":"` + value("stringData") + `"}`,
		`"type":"Opaque"`,
	}
	switch kind {
	case 1:
		members = append([]string{`"kind":"Secret"`}, members...)
	case 2:
		members = append(members, `"kind":"Secret"`)
	case 3:
		members = append([]string{`"kind":"ConfigMap"`}, members...)
	case 4:
		members = append(append([]string{`"kind":"ConfigMap"`}, members...), `"kind":"Secret"`)
	}
	return "{" + strings.Join(members, ",") + "}"
}

// credentialAt is a member that holds marker as a credential: under a key that
// names one, or as a value that looks like one.
func credentialAt(pick int, m string) (key, value string) {
	switch pick {
	case 0:
		return "db_password", m
	case 1:
		return "note", "-----BEGIN RSA PRIVATE KEY-----\n" + m + "\n-----END RSA PRIVATE KEY-----"
	case 2:
		return "authorization", "Bearer " + m
	case 3:
		return "header", "Basic " + m
	}
	return "session", "eyJhbGciOiJIUzI1NiJ9." + m + ".c2lnbmF0dXJlLXNpZ25hdHVyZQ"
}

func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// mustGo says whether the rule promises that p never reaches the recording.
func (p plant) mustGo(a *answer) bool {
	if p.always {
		return true
	}
	if !p.declared {
		return false
	}
	if p.first {
		return !(a.end == noAnswer && a.encoding == escaped) // an error quotes escapes escaped again
	}
	// Declared after the value: known only from a whole line of one document.
	return a.encoding != pretty && a.end != noAnswer && a.lineWhole(p.marker)
}

// lineWhole says whether the line holding marker reaches the recorder whole.
func (a *answer) lineWhole(marker string) bool {
	if a.end != cutAt {
		return true // or not recorded at all: a watch closed mid-line drops it
	}
	at := bytes.Index(a.body, []byte(marker))
	nl := bytes.IndexByte(a.body[at:], '\n')
	return nl >= 0 && at+nl < a.k
}

func (a *answer) how() string {
	return fmt.Sprintf("encoding %d, end %d at byte %d of %d, reads of %d", a.encoding, a.end, a.k, len(a.body), a.chunk)
}

// record sends one GET of path through a recording Transport to a server that
// gives a, reads it as a says, and returns the recording.
func (a *answer) record(t *testing.T, path string) string {
	t.Helper()
	u, err := url.Parse("https://apiserver.test" + path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := recording.NewWriter(&out)
	tr := &recording.Transport{Base: a, W: w}
	resp, err := tr.RoundTrip(&http.Request{Method: "GET", URL: u, Header: http.Header{}})
	if err == nil {
		if a.end == closedAt {
			io.ReadFull(resp.Body, make([]byte, a.k))
		} else {
			io.ReadAll(resp.Body)
		}
		resp.Body.Close()
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// RoundTrip is the server: a's body in reads of a.chunk bytes, ending as a.end says.
func (a *answer) RoundTrip(req *http.Request) (*http.Response, error) {
	if a.end == noAnswer { // as net/http says of an answer that is not HTTP
		return nil, errors.New("net/http: HTTP/1.x transport connection broken: malformed HTTP response " + strconv.Quote(string(a.body[:a.k])))
	}
	body := &chunks{data: a.body, chunk: a.chunk}
	if a.end == cutAt {
		body.data, body.err = a.body[:a.k], errors.New("read tcp 127.0.0.1:1->127.0.0.1:2: connection reset by peer")
	}
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: body, Request: req}, nil
}

// chunks reads data at most chunk bytes at a time, then fails with err (io.EOF
// when nil).
type chunks struct {
	data  []byte
	chunk int
	err   error
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.chunk)], c.data)
	c.data = c.data[n:]
	return n, nil
}

func (*chunks) Close() error { return nil }
