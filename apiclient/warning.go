package apiclient

import (
	"log/slog"
	"strings"
	"sync"
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

// maxWarnings bounds how many distinct texts the default handler remembers; past
// it, repeats are logged again rather than remembered without end.
const maxWarnings = 256

// warnings is the default OnWarning: log each distinct text once.
type warnings struct {
	log  *slog.Logger
	mu   sync.Mutex
	seen map[string]bool
}

func (w *warnings) warn(text string) {
	w.mu.Lock()
	if w.seen == nil || len(w.seen) >= maxWarnings {
		w.seen = map[string]bool{}
	}
	first := !w.seen[text]
	w.seen[text] = true
	w.mu.Unlock()
	if first {
		w.log.Warn("the API server warns", "warning", text)
	}
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
