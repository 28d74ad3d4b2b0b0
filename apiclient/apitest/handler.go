package apitest

import (
	"io"
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
	return NewHandlerWith(HandlerOptions{Clock: clock})
}

// HandlerOptions tune NewHandlerWith. The zero value is NewHandler(nil).
type HandlerOptions struct {
	// Clock times the watches' timeoutSeconds; nil means the real clock.
	Clock apiclient.Clock
	// Rand is what the server draws the uids and the suffixes of names made
	// from generateName from; nil means crypto/rand. Give a seeded source
	// (math/rand/v2's ChaCha8, say) and the same requests get the same names
	// and uids, run after run: controller/perturb gives each execution one
	// drawn from its seed. It is read with the server's lock held, so it need
	// not be safe for concurrent use.
	Rand io.Reader
	// AnyCustomResource serves a resource of any group kube-apiserver does
	// not define as if a CRD defined it — namespaced or not as the path
	// says, with a status subresource, every field kept — where a Server
	// serves a custom resource only once its CustomResourceDefinition is
	// stored (path.go). It is for explorers of a controller's logic, which
	// run any controller on its own terms (controller/perturb sets it); a
	// test of how a controller meets the API should store the CRD, as a
	// cluster needs, so that a wrong group, plural or version fails there
	// as it would on a cluster. Built-in groups stay as recorded.
	AnyCustomResource bool
	// Namespaces are created at the start, besides default, kube-system,
	// kube-public and kube-node-lease (as Server.CreateNamespaces does).
	Namespaces []string
	// AnyNamespace makes a namespace as Namespaces does the first time a
	// write would create an object in it, where a Server answers 404 (a
	// namespace must exist, as on a cluster). For explorers, as
	// AnyCustomResource: they run a controller's workload on its own
	// terms, in whatever namespaces it names (controller/perturb sets it).
	AnyNamespace bool
}

// NewHandlerWith is NewHandler with the options above.
func NewHandlerWith(o HandlerOptions) (h http.Handler, stop func()) {
	if o.Clock == nil {
		o.Clock = apiclient.RealClock{}
	}
	s := &Server{}
	s.live.init(o.Clock, o.Rand)
	s.live.caller = callWebhooks{}
	s.live.anyCustom = o.AnyCustomResource
	s.live.seed(o.Namespaces...)
	s.live.anyNamespace = o.AnyNamespace
	return http.HandlerFunc(s.serveLive), s.live.close
}
