package metrics

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ReadyFunc answers /readyz. It returns nil when the process is ready to serve,
// with role naming the part it plays ("leader", "standby", or "" when there is no
// election); otherwise an error saying what it still waits for ("informer pods not
// synced"). It is called once per probe, from the HTTP server's goroutine, so it
// must be safe for concurrent use and quick.
type ReadyFunc func() (role string, err error)

// Handler serves the three endpoints of a controller process:
//
//	GET /healthz  200 "ok" while the process can answer at all (liveness: restart me if not)
//	GET /readyz   200 "ok (leader)" / "ok (standby)" when ready says so, else 503 and the reason
//	GET /metrics  the registry in the Prometheus text format
//
// What ready says comes from the cluster (identities, Lease names, a server's
// errors) and is read on terminals: every rune of it a terminal would act on,
// or that is not text, is written as its Go escape (Printable).
//
// A nil ready is always ready, with no role; a nil reg serves an empty page. Other
// paths are 404 and other methods 405 (HEAD is served as GET without a body).
// The handler is safe for concurrent use.
func Handler(reg *Registry, ready ReadyFunc) http.Handler {
	if reg == nil {
		reg = new(Registry)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeText(w, http.StatusOK, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		serveReady(w, ready)
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		// Render into a buffer first, so that the response carries its length, and a
		// page cut short by a failing writer cannot pass for a complete one.
		var buf bytes.Buffer
		_, _ = reg.WriteTo(&buf) // a bytes.Buffer does not fail
		w.Header().Set("Content-Type", ContentType)
		w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
		if r.Method == http.MethodHead {
			return // the headers say how long the page would be
		}
		_, _ = w.Write(buf.Bytes())
	})
	return mux
}

// serveReady answers /readyz from ready.
func serveReady(w http.ResponseWriter, ready ReadyFunc) {
	if ready == nil {
		writeText(w, http.StatusOK, "ok")
		return
	}
	role, err := ready()
	role = Printable(role)
	switch {
	case err != nil:
		// 503, as kube-apiserver's own /readyz: a load balancer or a kubelet
		// readiness probe takes the replica out of rotation and tries again later.
		writeText(w, http.StatusServiceUnavailable, "not ready: "+Printable(err.Error()))
	case role == "":
		writeText(w, http.StatusOK, "ok")
	default:
		writeText(w, http.StatusOK, "ok ("+role+")")
	}
}

// writeText writes a short plain-text answer. Probes are read by people as often
// as by kubelets, so the body says in words what the code says.
func writeText(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(body))
}

// Printable is s with every rune a terminal would act on (C0 and C1
// controls, DEL), or that is not text (a format character such as a bidi
// override, a byte that is not UTF-8), written as its Go escape: \x1b, \n,
// \u009b, \u202e, \xff. Everything else is left as it is, quotes and
// backslashes included, so that a name quoted upstream (strconv.Quote) is not
// escaped twice. s is returned unchanged, without allocating, when it needs
// nothing.
//
// It is the rule for free text from the cluster written where a person reads
// it: /readyz here, the command's error line and --trace lines
// (controller/cli); the live page's JSON escapes the same runes (\u). A value
// the command prints as one field of its output (a key, a table cell) is
// quoted whole instead (controller/cli's printable), so that it stays one field.
func Printable(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, notPrint) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case notPrint(r):
			q := strconv.QuoteRune(r) // '\x1b'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func notPrint(r rune) bool { return !unicode.IsPrint(r) }
