package apiclient

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Server warnings. Since Kubernetes 1.19 the API server tells a client about
// things that worked but should not be relied on — a deprecated API version, a
// field it dropped because the schema does not know it (fieldValidation=Warn, the
// default), a value an admission webhook frowned upon — in a response header, on
// any response, success or failure:
//
//	Warning: 299 - "apps/v1beta1 Deployment is deprecated in v1.9+, unavailable in v1.16+"
//	Warning: 299 - "unknown field \"spec.replica\""
//
// The format is RFC 7234's warn-code warn-agent "warn-text" (the code is always
// 299, "miscellaneous persistent warning", the agent "-"); one header per warning.
// send hands each one to Options.OnWarning, which by default logs it at WARN —
// once per distinct text, as kubectl prints each
// warning once, so that a controller writing the same deprecated object every
// reconcile does not fill its log.
//
// The default is bounded against a server that sends more than warnings: each
// text is cut to maxWarningBytes, and at most warningLines lines are logged
// per warningWindow, the rest counted and the count logged with the next line
// (issue 29: 500 distinct warnings on every response made 25,000 log lines in
// 20 s; a 200 KB warning was one 200 KB line). A real API server sends at
// most 4 KiB of warnings per response and cuts each to 256 characters past
// that (k8s.io/apiserver's warning recorder), so neither bound is met by one.

// maxWarnings bounds how many distinct texts the default handler remembers; past
// it, repeats are logged again rather than remembered without end.
const maxWarnings = 256

// maxWarningBytes is where a warning's text is cut: four times what a real
// server sends once it has to cut.
const maxWarningBytes = 1024

// At most warningLines warning lines per warningWindow: enough for every
// deprecated API a controller touches at its start, few enough that a
// hostile server adds a line every few seconds, not thousands.
const (
	warningLines  = 20
	warningWindow = time.Minute
)

// warnings is the default OnWarning: log each distinct text once, at most
// warningLines a warningWindow of the wall clock. Safe for concurrent use; its
// zero value but log is ready.
type warnings struct {
	log *slog.Logger

	mu      sync.Mutex
	seen    map[string]bool
	window  time.Time // when the current window began
	logged  int       // lines logged in it
	dropped int       // distinct warnings not logged since the last line
}

func (w *warnings) warn(text string) {
	text = cutWarning(text)
	now := time.Now()
	w.mu.Lock()
	if w.seen == nil || len(w.seen) >= maxWarnings {
		w.seen = map[string]bool{}
	}
	first := !w.seen[text]
	w.seen[text] = true
	if !first {
		w.mu.Unlock()
		return
	}
	if now.Sub(w.window) >= warningWindow {
		w.window, w.logged = now, 0
	}
	if w.logged >= warningLines {
		w.dropped++
		w.mu.Unlock()
		return
	}
	w.logged++
	dropped := w.dropped
	w.dropped = 0
	w.mu.Unlock()
	if dropped > 0 {
		w.log.Warn("the API server warns", "warning", text, "notLogged", dropped)
		return
	}
	w.log.Warn("the API server warns", "warning", text)
}

// cutWarning cuts text to maxWarningBytes, on a character boundary, and says
// how much was left out.
func cutWarning(text string) string {
	if len(text) <= maxWarningBytes {
		return text
	}
	cut := maxWarningBytes
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d more bytes)", text[:cut], len(text)-cut)
}

// parseWarning reads one Warning header value: `299 - "text"`, the text's
// backslash escapes undone. A value that does not have that shape is passed on
// whole (trimmed) rather than dropped: a warning the server meant us to see
// should not vanish because a proxy rewrote it.
func parseWarning(h string) string {
	h = strings.TrimSpace(h)
	code, rest, ok := strings.Cut(h, " ")
	if !ok || len(code) != 3 {
		return h
	}
	_, rest, ok = strings.Cut(strings.TrimLeft(rest, " "), " ") // the agent
	rest = strings.TrimLeft(rest, " ")
	if !ok || !strings.HasPrefix(rest, `"`) {
		return h
	}
	var b strings.Builder
	for i := 1; i < len(rest); i++ {
		switch c := rest[i]; {
		case c == '"':
			return b.String() // a warn-date may follow; it is not kept
		case c == '\\' && i+1 < len(rest):
			i++
			b.WriteByte(rest[i])
		default:
			b.WriteByte(c)
		}
	}
	return h // no closing quote
}
