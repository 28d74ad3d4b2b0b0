package leaderelection_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller/lease"
)

// leaseServer is apitest's live API server as the election tests use it: the
// electors' clients go through it as a RoundTripper, so a test can read the
// requests they made ("PUT default/kubewire 409"), make the server fail, or step
// in just before a request is served. The test's own moves (Lease, Put, Delete)
// use a client of their own and are not logged.
type leaseServer struct {
	srv    *apitest.Server
	base   http.RoundTripper // to srv, over its TLS
	leases apiclient.Typed[lease.Lease]

	mu        sync.Mutex
	failCode  int                        // non-zero: answer the elector requests failWhen picks with it
	failWhen  func(r *http.Request) bool // nil: every request
	intercept func(r *http.Request)      // called before each elector request
	log       []string
}

func newLeaseServer(t testing.TB) *leaseServer {
	t.Helper()
	srv := apitest.NewServer(nil)
	t.Cleanup(srv.Close)
	base, err := srv.Config().Transport()
	if err != nil {
		t.Fatal(err)
	}
	own, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &leaseServer{srv: srv, base: base, leases: apiclient.NewTyped[lease.Lease](own).Namespace(ns)}
}

// Client returns a client whose requests go through s, with clock for its waits
// (nil: the wall clock).
func (s *leaseServer) Client(t testing.TB, clock apiclient.Clock) *apiclient.Client {
	t.Helper()
	c, err := s.srv.Client(apiclient.Options{Transport: s, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// RoundTrip runs the intercept, then answers with the injected failure or passes
// the request on, and logs it.
func (s *leaseServer) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	f, code, when := s.intercept, s.failCode, s.failWhen
	s.mu.Unlock()
	if f != nil {
		f(r) // outside the lock: f may call Put, Delete or Fail
	}
	if when != nil && !when(r) {
		code = 0
	}
	key := leaseKey(r)
	resp := failure(r, code)
	if resp == nil {
		var err error
		if resp, err = s.base.RoundTrip(r); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	s.log = append(s.log, fmt.Sprintf("%s %s %d", r.Method, key, resp.StatusCode))
	s.mu.Unlock()
	return resp, nil
}

// Lease returns the stored Lease namespace/name.
func (s *leaseServer) Lease(namespace, name string) (lease.Lease, bool) {
	l, err := s.leases.Get(context.Background(), name)
	if err != nil {
		return lease.Lease{}, false
	}
	return *l, true
}

// Put stores l as another writer would (a replica the test plays, kubectl edit):
// over whatever is stored, and returns its new resourceVersion. A Lease's
// update must name a resourceVersion (the API server answers 422 without),
// so it names the stored one.
func (s *leaseServer) Put(l lease.Lease) string {
	l.Metadata.ResourceVersion = ""
	if cur, ok := s.Lease(l.Metadata.Namespace, l.Metadata.Name); ok {
		l.Metadata.ResourceVersion = cur.Metadata.ResourceVersion
	}
	ctx := context.Background()
	out, err := s.leases.Update(ctx, &l, apiclient.WriteOptions{})
	if apiclient.IsNotFound(err) {
		out, err = s.leases.Create(ctx, &l, apiclient.WriteOptions{})
	}
	if err != nil {
		panic(err) // the live server in memory does not fail
	}
	return out.Metadata.ResourceVersion
}

// Delete removes a Lease.
func (s *leaseServer) Delete(namespace, name string) {
	if err := s.leases.Delete(context.Background(), name, apiclient.DeleteOptions{}); err != nil {
		panic(err)
	}
}

// Fail makes every elector request fail with code (503, say) until Fail(0).
func (s *leaseServer) Fail(code int) { s.FailWhen(code, nil) }

// FailWhen makes the elector requests for which when is true fail with code
// (every request when it is nil), until Fail(0).
func (s *leaseServer) FailWhen(code int, when func(r *http.Request) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failCode, s.failWhen = code, when
}

// Intercept calls f before each elector request; nil removes it.
func (s *leaseServer) Intercept(f func(r *http.Request)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.intercept = f
}

// Requests returns one line per elector request so far, "PUT default/lock 409".
func (s *leaseServer) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

// leaseKey is "namespace/name" of the Lease r reads or writes: from the path, or
// for a create from the body (which it leaves readable).
func leaseKey(r *http.Request) string {
	path := strings.TrimPrefix(r.URL.Path, "/apis/coordination.k8s.io/v1/namespaces/")
	namespace, rest, _ := strings.Cut(path, "/leases")
	if name := strings.TrimPrefix(rest, "/"); name != "" {
		return namespace + "/" + name
	}
	if r.Body == nil {
		return namespace + "/"
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var l lease.Lease
	json.Unmarshal(body, &l)
	return namespace + "/" + l.Metadata.Name
}

// failure is the response of a server told to fail with code, a Status as
// kube-apiserver sends; nil when code is 0.
func failure(r *http.Request, code int) *http.Response {
	if code == 0 {
		return nil
	}
	body := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"injected failure","reason":%q,"code":%d}`, http.StatusText(code), code)
	return &http.Response{
		StatusCode: code, Status: fmt.Sprintf("%d %s", code, http.StatusText(code)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/json"}},
		Body:    io.NopCloser(strings.NewReader(body)),
		Request: r, ContentLength: int64(len(body)),
	}
}
