package apitest_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/apitest"
)

// BenchmarkCreatePatch is what a controller's test costs the server: each
// iteration creates a Pod, patches it (JSON merge) and applies to it — through
// the handler, without TLS, so that it measures apitest's own work.
func BenchmarkCreatePatch(b *testing.B) {
	h, stop := apitest.NewHandlerWith(apitest.HandlerOptions{Namespaces: []string{"bench"}})
	defer stop()
	do := func(method, path, ct, body string) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", ct)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 300 {
			b.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
	}
	const pods = "/api/v1/namespaces/bench/pods"
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		name := "p" + strconv.Itoa(i)
		do(http.MethodPost, pods, "application/json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"`+name+`","labels":{"app":"web"}},"spec":{"containers":[{"name":"c1","image":"img:1","resources":{"requests":{"cpu":"100m","memory":"64Mi"}},"env":[{"name":"A","value":"1"}]}]}}`)
		do(http.MethodPatch, pods+"/"+name, "application/merge-patch+json", `{"metadata":{"labels":{"tier":"front"}}}`)
		do(http.MethodPatch, pods+"/"+name+"?fieldManager=ctl", "application/apply-patch+yaml", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"`+name+`","annotations":{"a":"1"}}}`)
	}
}
