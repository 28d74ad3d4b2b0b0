package perturb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Kind is a family of perturbations: what goes wrong, in the words of what
// breaks controllers in production.
type Kind string

// The kinds, in the order Explore tries them.
const (
	// Crash: the process stops right after its k-th write is answered —
	// caches, queues and memory gone, the answer never read — and a fresh
	// process starts from Spec.Setup.
	Crash Kind = "crash"
	// Down: the process is stopped right before the i-th step of the workload,
	// and a fresh one starts right after it: the step happens while no
	// process watches, as during a rollout of the controller.
	Down Kind = "down"
	// Stale: a Crash, or a Down, and the fresh process's view of one
	// collection lags: what a lagging API server may serve stale (lag.go) is
	// served from an older version for Spec.Lag at most, and then its watches
	// catch up.
	Stale Kind = "stale"
	// Late: the process's own write k is answered at once, and its watch
	// event is not: the process's watches of that collection hold, from the
	// write on, for Spec.Lag (or until it is idle), as a lagging API server's
	// would. The next Reconcile — brought by another event, a requeue — reads
	// a cache without the write: the Manager's staleness guard makes it wait
	// (controller.Options.DisableStaleGuard turns that off).
	Late Kind = "late"
	// Coalesce: one state of an object is never seen. The watches of its
	// collection hold from that event until the object's next change, then
	// end with 410 Expired, and the Reflector's relist shows the later state
	// only: what a restart or an expired watch does to a transition.
	Coalesce Kind = "coalesce"
	// Conflict: the k-th write, if it is one that can conflict — an update
	// (PUT), a patch that carries a resourceVersion, an apply without force —
	// is answered 409 Conflict and not made, as when someone else wrote first.
	Conflict Kind = "conflict"
	// Throttle: the k-th write is answered 429 with Retry-After: 1, and not
	// made (API Priority and Fairness).
	Throttle Kind = "throttle"
	// Unavailable: the k-th write is answered 503 with Retry-After: 1, and
	// not made.
	Unavailable Kind = "unavailable"
	// Internal: the k-th write is answered 500 without Retry-After, and not
	// made: the client does not retry it, the controller must.
	Internal Kind = "internal"
	// Timeout: the k-th write is made, and answered 504: the controller
	// cannot know that it was.
	Timeout Kind = "timeout"
	// Cut: a watch breaks right after its i-th event; the Reflector watches
	// again from where it was.
	Cut Kind = "cut"
	// Expire: the i-th watch event is replaced by 410 Expired; the Reflector
	// relists.
	Expire Kind = "expire"
)

// Kinds is every kind, in the order Explore tries them.
var Kinds = []Kind{Crash, Down, Stale, Late, Coalesce, Conflict, Throttle, Unavailable, Internal, Timeout, Cut, Expire}

// Perturbation is one fault at one point of the reference execution. Its ID
// names it in a report and replays it (KUBEWIRE_PERTURB, doc.go):
//
//	crash/3                              after the 3rd write
//	down/2                               across the 2nd step of the workload
//	late/3                               the 3rd write's watch event, held back
//	stale/3/deployments.apps@12          after the 3rd write, deployments as at version 12
//	stale/step2/deployments.apps@12      across the 2nd step (as down/2), the same
//	coalesce/pods/default/web-1@7        the state of pod default/web-1 written at version 7
//	conflict/2  throttle/2  unavailable/2  internal/2  timeout/2
//	cut/5  expire/5                      the 5th watch event delivered
type Perturbation struct {
	Kind  Kind
	Write int    // the write it follows or answers (Crash to Timeout, Late), from 1
	Event int    // the watch event it cuts or expires (Cut, Expire), from 1
	Step  int    // the step of the workload it happens across (Down, Stale), from 1
	Coll  string // Stale: what lags; Coalesce: the object's collection
	Key   string // Coalesce: the object, "namespace/name"
	// Version is, for Stale, the version the view stands at; for Coalesce, the
	// state hidden. A version counts the changes to state (ordinal, in
	// history.go), not the server's resourceVersions.
	Version int
}

// ID is the perturbation's name, as above.
func (p Perturbation) ID() string {
	switch p.Kind {
	case "":
		return "none"
	case Stale:
		if p.Step > 0 {
			return fmt.Sprintf("stale/step%d/%s@%d", p.Step, p.Coll, p.Version)
		}
		return fmt.Sprintf("stale/%d/%s@%d", p.Write, p.Coll, p.Version)
	case Coalesce:
		return fmt.Sprintf("coalesce/%s/%s@%d", p.Coll, p.Key, p.Version)
	case Cut, Expire:
		return fmt.Sprintf("%s/%d", p.Kind, p.Event)
	case Down:
		return fmt.Sprintf("%s/%d", p.Kind, p.Step)
	}
	return fmt.Sprintf("%s/%d", p.Kind, p.Write)
}

// ParseID reads an ID back.
func ParseID(id string) (Perturbation, error) {
	kind, rest, _ := strings.Cut(id, "/")
	p := Perturbation{Kind: Kind(kind)}
	bad := fmt.Errorf("perturb: %q is not a perturbation (crash/3, down/2, stale/3/pods@12, coalesce/pods/default/web@7, cut/5, …)", id)
	at := func(s string) (string, int, bool) {
		i := strings.LastIndex(s, "@")
		if i < 0 {
			return "", 0, false
		}
		v, err := strconv.Atoi(s[i+1:])
		return s[:i], v, err == nil && v >= 0
	}
	var err error
	switch p.Kind {
	case Stale:
		k, coll, _ := strings.Cut(rest, "/")
		var ok bool
		if p.Coll, p.Version, ok = at(coll); !ok {
			return p, bad
		}
		if step, ok := strings.CutPrefix(k, "step"); ok {
			p.Step, err = strconv.Atoi(step)
			if err == nil && p.Step == 0 {
				return p, bad
			}
		} else {
			p.Write, err = strconv.Atoi(k)
		}
	case Coalesce:
		coll, key, _ := strings.Cut(rest, "/")
		var ok bool
		if p.Key, p.Version, ok = at(key); !ok {
			return p, bad
		}
		p.Coll = coll
	case Cut, Expire:
		p.Event, err = strconv.Atoi(rest)
	case Down:
		p.Step, err = strconv.Atoi(rest)
	case Crash, Late, Conflict, Throttle, Unavailable, Internal, Timeout:
		p.Write, err = strconv.Atoi(rest)
	default:
		return p, bad
	}
	if err != nil || p.Write < 0 || p.Event < 0 || p.Step < 0 || (p.Write == 0 && p.Event == 0 && p.Step == 0 && p.Kind != Coalesce) {
		return p, bad
	}
	return p, nil
}

// conditional says whether a write can be answered 409 Conflict: an update,
// a patch that names the resourceVersion it was made from, a server-side
// apply without force (a field another manager owns). A forced apply of no
// resourceVersion, a merge patch, a create cannot be.
func conditional(req *http.Request, body []byte) bool {
	switch {
	case req.Method == http.MethodPut:
		return true
	case req.Method != http.MethodPatch:
		return false
	case bytes.Contains(body, []byte(`"resourceVersion"`)):
		return true
	}
	return strings.HasPrefix(req.Header.Get("Content-Type"), "application/apply-patch") && req.URL.Query().Get("force") != "true"
}

// fault is how the gate answers a write a perturbation picked.
type fault struct {
	code       int
	reason     string
	retryAfter string
	applied    bool // the server makes the write; only its answer is the fault's
}

// faultFor is p's fault for a write, nil when p has none for it (a Conflict on
// a create, or on a merge patch with no resourceVersion: nobody can have
// written first).
func faultFor(p Perturbation, w point) *fault {
	switch p.Kind {
	case Conflict:
		if w.conditional {
			return &fault{code: http.StatusConflict, reason: "Conflict"}
		}
	case Throttle:
		return &fault{code: http.StatusTooManyRequests, reason: "TooManyRequests", retryAfter: "1"}
	case Unavailable:
		return &fault{code: http.StatusServiceUnavailable, reason: "ServiceUnavailable", retryAfter: "1"}
	case Internal:
		return &fault{code: http.StatusInternalServerError, reason: "InternalError"}
	case Timeout:
		return &fault{code: http.StatusGatewayTimeout, reason: "Timeout", applied: true}
	}
	return nil
}

func (f *fault) response(req *http.Request) *http.Response {
	msg := "perturb: " + strings.ToLower(http.StatusText(f.code))
	if f.code == http.StatusConflict {
		msg = "Operation cannot be fulfilled: the object has been modified; please apply your changes to the latest version and try again"
	}
	return statusResponse(f.code, f.reason, msg, f.retryAfter)
}

// statusResponse is a meta.k8s.io/v1 Status answer, the API server's way of
// saying no.
func statusResponse(code int, reason, message, retryAfter string) *http.Response {
	body, _ := json.Marshal(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reason, "code": code})
	h := http.Header{"Content-Type": {"application/json"}}
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	return &http.Response{StatusCode: code, Header: h, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body))}
}

// expiredLine is the watch event that ends a watch whose version the server
// no longer has: the Reflector relists.
func expiredLine() []byte {
	return eventLine("ERROR", []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version","reason":"Expired","code":410}`))
}

// coalesce is a stream holding from the state of key at rv until the object's
// next change (fault Coalesce).
type coalesce struct {
	key string
	rv  int64
}
