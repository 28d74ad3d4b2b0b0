package apitest

import (
	"net/http"

	"github.com/kubewire/kubewire/apiclient"
)

// NewHandler returns the live server — the objects, verbs and watches a Server
// keeps (live.go, watch.go) — as an http.Handler that no listener serves, and
// stop, which ends its watches as Close does. A request is answered in the
// goroutine that calls ServeHTTP; a watch streams until its request's context
// ends or stop is called. clock times the watches' timeoutSeconds; nil means
// the real clock.
//
// It is for code that must not touch the network: in a testing/synctest
// bubble a goroutine blocked on a socket is never durably blocked, so a
// Server's listener would keep the bubble's fake time from moving.
// controller/perturb runs every execution of a controller so, behind a
// transport of its own.
func NewHandler(clock apiclient.Clock) (h http.Handler, stop func()) {
	if clock == nil {
		clock = apiclient.RealClock{}
	}
	s := &Server{}
	s.live.init(clock)
	return http.HandlerFunc(s.serveLive), s.live.close
}
