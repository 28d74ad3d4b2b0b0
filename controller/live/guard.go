package live

import (
	"fmt"
	"net"
	"net/http"

	"github.com/kubewire/kubewire/controller/metrics"
)

// The page belongs to the person who opened it. It has no login (it shows
// names and counts, and runs on a laptop), so what keeps others out is where
// it listens (Listen: loopback unless asked) and what it answers, by the
// rules every server of the process follows (controller/metrics/listen.go),
// and by rules of its own:
//
//   - Host. A request whose Host is not an address the page was opened on is
//     refused (403): metrics.HostsFor, which says which names and addresses
//     those are. This is what stops DNS rebinding. The page applies it
//     wherever it listens, beyond loopback too (the metrics server there
//     cannot: a scrape comes by a Service's name).
//   - Origin. A request that changes something (POST /api/step; anything but
//     GET and HEAD) must carry the page's own Origin, http://HOST: a form or
//     a text/plain fetch from another website is a "simple" request the
//     browser sends without asking, and the Host check alone lets it through
//     when the user's browser is the one sending it.
//   - Connections (metrics.Limits, the defaults). At most 64 are open at
//     once (the next are closed as they come); a request has 10 s to arrive,
//     its body included; an idle keep-alive connection is closed after 30 s;
//     an event stream whose reader does not take what is written is dropped
//     after 10 s, a stream being the one response that may last (it sets
//     its own deadlines, server.go); and with maxPages streams open, the
//     next page replaces the oldest, so streams that never read cannot keep
//     the person who opens the page out.
//   - What it writes. Its strings come from the cluster, and its API is read
//     by curl as often as by the page: every rune that is not printable is
//     a \u escape in the JSON (escapeJSON), so nothing reaches a terminal
//     that would act on it.
//
// Nothing the page shows comes from the credential path: errors on it are
// rendered by kubeconfig.*Error's Error, which holds no plugin output, no
// file path and no credential (apiclient/kubeconfig/errors.go).
var limits = metrics.DefaultLimits

// guard wraps the page's handler with the Host and Origin checks for a page
// listening on addr.
func guard(addr net.Addr, next http.Handler) http.Handler {
	return metrics.HostsFor(addr).Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if origin := r.Header.Get("Origin"); origin != "http://"+r.Host {
				http.Error(w, fmt.Sprintf("%s needs the page's own Origin (http://%s), not %.100q: refused", r.Method, r.Host, origin), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	}))
}
