package metrics_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/kubewire/kubewire/controller/metrics"
)

func TestHandler_answers_probes_and_metrics(t *testing.T) {
	reg := new(metrics.Registry)
	reg.Counter("hits_total", "Hits.").Add(3)
	tests := []struct {
		name        string
		ready       metrics.ReadyFunc
		method      string
		path        string
		code        int
		body        string
		contentType string
	}{
		{"healthz is ok while the process lives", nil, "GET", "/healthz", 200, "ok", "text/plain; charset=utf-8"},
		{"readyz without a ready func is ok", nil, "GET", "/readyz", 200, "ok", "text/plain; charset=utf-8"},
		{"readyz says leader", readyAs("leader", nil), "GET", "/readyz", 200, "ok (leader)", "text/plain; charset=utf-8"},
		{"readyz says standby", readyAs("standby", nil), "GET", "/readyz", 200, "ok (standby)", "text/plain; charset=utf-8"},
		{"readyz with no role is ok", readyAs("", nil), "GET", "/readyz", 200, "ok", "text/plain; charset=utf-8"},
		{"readyz not ready is 503 with the reason", readyAs("leader", errors.New("informer pods not synced")),
			"GET", "/readyz", 503, "not ready: informer pods not synced", "text/plain; charset=utf-8"},
		{"metrics renders the registry", nil, "GET", "/metrics", 200,
			"# HELP hits_total Hits.\n# TYPE hits_total counter\nhits_total 3\n", metrics.ContentType},
		{"HEAD is GET without a body", nil, "HEAD", "/metrics", 200, "", metrics.ContentType},
		{"another path is 404", nil, "GET", "/debug/pprof", 404, "404 page not found\n", "text/plain; charset=utf-8"},
		{"another method is 405", nil, "POST", "/metrics", 405, "Method Not Allowed\n", "text/plain; charset=utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			metrics.Handler(reg, tt.ready).ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			res := rec.Result()
			body, _ := io.ReadAll(res.Body)
			if got, want := res.StatusCode, tt.code; got != want {
				t.Fatalf("status %d, want %d (body %q)", got, want, body)
			}
			if got, want := string(body), tt.body; got != want {
				t.Fatalf("body %q, want %q", got, want)
			}
			if got, want := res.Header.Get("Content-Type"), tt.contentType; got != want {
				t.Fatalf("Content-Type %q, want %q", got, want)
			}
		})
	}
}

func TestHandler_asks_ready_on_every_probe(t *testing.T) {
	role := "standby"
	h := metrics.Handler(nil, func() (string, error) { return role, nil })
	probe := func() string {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
		return rec.Body.String()
	}
	if got, want := probe(), "ok (standby)"; got != want {
		t.Fatalf("first probe %q, want %q", got, want)
	}
	role = "leader" // the elector took over
	if got, want := probe(), "ok (leader)"; got != want {
		t.Fatalf("second probe %q, want %q", got, want)
	}
}

func TestHandler_metrics_sets_the_length_of_the_page(t *testing.T) {
	reg := new(metrics.Registry)
	reg.Gauge("g", "G.").Set(1)
	rec := httptest.NewRecorder()
	metrics.Handler(reg, nil).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if got, want := rec.Header().Get("Content-Length"), strconv.Itoa(rec.Body.Len()); got != want || rec.Body.Len() == 0 {
		t.Fatalf("Content-Length %q, want %q for %q", got, want, rec.Body.String())
	}
}

func readyAs(role string, err error) metrics.ReadyFunc {
	return func() (string, error) { return role, err }
}

var _ http.Handler = metrics.Handler(nil, nil)

// Issue 39: /readyz wrote a member Lease's holder identity as the Lease said
// it, so escape sequences and newlines reached the terminal of whoever curled
// it. What the ReadyFunc says comes from the cluster (identities, Lease names,
// a server's errors): every rune a terminal would act on, or that is not
// text, is written as its Go escape; what is already printable (quotes and
// backslashes of a name quoted upstream included) is left as it is.
func TestHandler_readyz_escapes_what_a_terminal_would_act_on(t *testing.T) {
	for _, tt := range []struct {
		role string
		err  error
		want string
	}{
		{"", errors.New("shard r1: waiting for member \"\x1b[31m\n\" to release"), `not ready: shard r1: waiting for member "\x1b[31m\n" to release`},
		{"shard \u009b31m\r\x7f\u202e\xff", nil, `ok (shard \u009b31m\r\x7f\u202e\xff)`},
		{"", errors.New(`already quoted: "r\x1b[31m\n"`), `not ready: already quoted: "r\x1b[31m\n"`},
		{"leader · ünïcode", nil, "ok (leader · ünïcode)"},
	} {
		rec := httptest.NewRecorder()
		metrics.Handler(nil, readyAs(tt.role, tt.err)).ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
		if got := rec.Body.String(); got != tt.want {
			t.Errorf("/readyz = %q, want %q", got, tt.want)
		}
	}
}
