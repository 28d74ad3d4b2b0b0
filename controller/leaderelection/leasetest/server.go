package leasetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/controller/leaderelection"
)

// Server holds Leases in memory and serves them.
//
// The zero value is an empty server, usable as an http.Handler; NewServer also
// starts it on a TLS test listener. A Server is safe for concurrent use.
type Server struct {
	mu        sync.Mutex
	leases    map[string]leaderelection.Lease // by "namespace/name"
	rv        int64                           // the last resourceVersion handed out
	failCode  int                             // non-zero: answer every request with it
	intercept func(r *http.Request)
	log       []string

	ts *httptest.Server
}

// NewServer starts a Server on a TLS test listener, closed when t ends.
func NewServer(t testing.TB) *Server {
	t.Helper()
	s := &Server{}
	s.ts = httptest.NewTLSServer(s)
	t.Cleanup(s.ts.Close)
	return s
}

// Client returns an apiclient.Client for a Server from NewServer, in namespace
// "default", with rate limiting off and clock for its waits (nil: the wall clock).
func (s *Server) Client(t testing.TB, clock apiclient.Clock) *apiclient.Client {
	t.Helper()
	c, err := apiclient.New(&kubeconfig.Config{Server: s.ts.URL, Namespace: "default", Source: "leasetest"},
		apiclient.Options{Transport: s.ts.Client().Transport, QPS: -1, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Lease returns the stored Lease namespace/name.
func (s *Server) Lease(namespace, name string) (leaderelection.Lease, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.leases[namespace+"/"+name]
	return l, ok
}

// Put stores l as another writer would (a replica the test plays, kubectl edit):
// unconditionally, with a new resourceVersion, which it returns.
func (s *Server) Put(l leaderelection.Lease) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store(l)
}

// Delete removes a Lease.
func (s *Server) Delete(namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.leases, namespace+"/"+name)
}

// Fail makes every request fail with code (503, say) until Fail(0).
func (s *Server) Fail(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failCode = code
}

// Intercept calls f before each request is served, outside the server's lock, so
// that f may call Put, Delete or Fail: that is how a test makes another writer win
// a race at exactly the wrong moment. nil removes it.
func (s *Server) Intercept(f func(r *http.Request)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.intercept = f
}

// Requests returns one line per request served so far, "PUT default/lock 409".
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

const prefix = "/apis/coordination.k8s.io/v1/namespaces/"

// ServeHTTP serves GET of a Lease, POST to the collection, and PUT of a Lease.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	f := s.intercept
	s.mu.Unlock()
	if f != nil {
		f(r)
	}

	ns, name, ok := parsePath(r.URL.Path)
	if !ok {
		s.answer(w, r, "?", http.StatusNotFound, status(http.StatusNotFound, "NotFound", "", "the server could not find the requested resource"))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := ns + "/" + name
	if s.failCode != 0 {
		s.answer(w, r, key, s.failCode, status(s.failCode, http.StatusText(s.failCode), name, "injected failure"))
		return
	}
	switch {
	case r.Method == http.MethodGet && name != "":
		l, ok := s.leases[key]
		if !ok {
			s.answer(w, r, key, http.StatusNotFound, notFound(name))
			return
		}
		s.answer(w, r, key, http.StatusOK, l)
	case r.Method == http.MethodPost && name == "":
		l, err := decode(r)
		if err != nil {
			s.answer(w, r, key, http.StatusBadRequest, status(http.StatusBadRequest, "BadRequest", "", err.Error()))
			return
		}
		l.Metadata.Namespace = ns
		key = ns + "/" + l.Metadata.Name
		if _, exists := s.leases[key]; exists {
			s.answer(w, r, key, http.StatusConflict, status(http.StatusConflict, "AlreadyExists", l.Metadata.Name,
				fmt.Sprintf("leases.coordination.k8s.io %q already exists", l.Metadata.Name)))
			return
		}
		l.Metadata.UID = "uid-" + l.Metadata.Name
		l.Metadata.CreationTimestamp = &apiclient.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		s.store(l)
		s.answer(w, r, key, http.StatusCreated, s.leases[key])
	case r.Method == http.MethodPut && name != "":
		l, err := decode(r)
		if err != nil {
			s.answer(w, r, key, http.StatusBadRequest, status(http.StatusBadRequest, "BadRequest", name, err.Error()))
			return
		}
		old, exists := s.leases[key]
		if !exists {
			s.answer(w, r, key, http.StatusNotFound, notFound(name))
			return
		}
		// An update names the version it was based on; if the stored one is newer,
		// someone else wrote in between. (Leases allow an update without a
		// resourceVersion, which always wins, as kube-apiserver does.)
		if rv := l.Metadata.ResourceVersion; rv != "" && rv != old.Metadata.ResourceVersion {
			s.answer(w, r, key, http.StatusConflict, status(http.StatusConflict, "Conflict", name,
				fmt.Sprintf("Operation cannot be fulfilled on leases.coordination.k8s.io %q: the object has been modified; please apply your changes to the latest version and try again", name)))
			return
		}
		l.Metadata.Namespace, l.Metadata.Name = ns, name
		l.Metadata.UID, l.Metadata.CreationTimestamp = old.Metadata.UID, old.Metadata.CreationTimestamp
		s.store(l)
		s.answer(w, r, key, http.StatusOK, s.leases[key])
	default:
		s.answer(w, r, key, http.StatusMethodNotAllowed, status(http.StatusMethodNotAllowed, "MethodNotAllowed", name, "leasetest serves GET, POST and PUT"))
	}
}

// store saves l under a new resourceVersion and returns it. s.mu must be held.
func (s *Server) store(l leaderelection.Lease) string {
	if s.leases == nil {
		s.leases = make(map[string]leaderelection.Lease)
	}
	s.rv++
	l.APIVersion, l.Kind = "coordination.k8s.io/v1", "Lease"
	l.Metadata.ResourceVersion = strconv.FormatInt(s.rv, 10)
	s.leases[l.Metadata.Namespace+"/"+l.Metadata.Name] = l
	return l.Metadata.ResourceVersion
}

// answer writes body as JSON with code, and logs the request. s.mu must be held.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, key string, code int, body any) {
	s.log = append(s.log, fmt.Sprintf("%s %s %d", r.Method, key, code))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(body)
}

// parsePath splits …/namespaces/NS/leases[/NAME].
func parsePath(p string) (ns, name string, ok bool) {
	rest, found := strings.CutPrefix(p, prefix)
	if !found {
		return "", "", false
	}
	parts := strings.Split(rest, "/")
	switch {
	case len(parts) == 2 && parts[1] == "leases":
		return parts[0], "", parts[0] != ""
	case len(parts) == 3 && parts[1] == "leases":
		return parts[0], parts[2], parts[0] != "" && parts[2] != ""
	}
	return "", "", false
}

func decode(r *http.Request) (leaderelection.Lease, error) {
	var l leaderelection.Lease
	if err := json.NewDecoder(r.Body).Decode(&l); err != nil {
		return l, fmt.Errorf("decode Lease: %w", err)
	}
	return l, nil
}

func notFound(name string) any {
	return status(http.StatusNotFound, "NotFound", name, fmt.Sprintf("leases.coordination.k8s.io %q not found", name))
}

// status builds the Status body kube-apiserver sends with an error.
func status(code int, reason, name, message string) any {
	st := apiclient.Status{Status: "Failure", Message: message, Reason: reason, Code: code}
	if name != "" {
		st.Details = &apiclient.StatusDetails{Name: name, Group: "coordination.k8s.io", Kind: "leases"}
	}
	return struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
		apiclient.Status
	}{"Status", "v1", st}
}
