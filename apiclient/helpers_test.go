package apiclient_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// newServer starts a TLS test server with handler and returns a Client for it, with
// rate limiting off and a fake clock, so tests never wait for real.
func newServer(t testing.TB, handler http.HandlerFunc) (*apiclient.Client, *clock.Fake) {
	t.Helper()
	return newServerWith(t, apiclient.Options{}, handler)
}

// newServerWith is newServer with client options (Transport, QPS and Clock are
// the test's).
func newServerWith(t testing.TB, opts apiclient.Options, handler http.HandlerFunc) (*apiclient.Client, *clock.Fake) {
	t.Helper()
	ts := httptest.NewTLSServer(handler)
	t.Cleanup(ts.Close)
	clock := clock.NewFake()
	opts.Transport, opts.QPS, opts.Clock = ts.Client().Transport, -1, clock
	c, err := apiclient.New(&kubeconfig.Config{Server: ts.URL, Namespace: "default", Source: "test"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c, clock
}

// writeJSON answers with a JSON body and a status code.
func writeJSON(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(body))
}

const podJSON = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"default","uid":"u-1","resourceVersion":"101","generation":9007199254740993,"labels":{"app":"web"},"managedFields":[{"manager":"kubectl","operation":"Update","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{}}}]},"spec":{"nodeName":"node-1","containers":[{"name":"nginx","image":"nginx:1.27"}]},"status":{"phase":"Running"}}`
