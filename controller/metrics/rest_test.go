package metrics_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/controller/metrics"
)

// The apiclient tells its Observer's Answered of each request; RESTClient turns those reports
// into client-go's two REST metrics.
func TestRESTClient_counts_what_the_client_sends(t *testing.T) {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == "PUT" {
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409}`))
			return
		}
		_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"default","resourceVersion":"1"}}`))
	}))
	defer ts.Close()
	c, err := apiclient.New(&kubeconfig.Config{Server: ts.URL, Namespace: "default", Source: "test"},
		apiclient.Options{Transport: ts.Client().Transport, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	reg := new(metrics.Registry)
	c = c.Derive(apiclient.Derived{Observer: apiclient.Observer{Answered: metrics.RESTClient(reg)}})

	cms := c.Resource(apiclient.ConfigMaps).Namespace("default")
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if _, err := cms.Get(ctx, "x"); err != nil {
			t.Fatal(err)
		}
	}
	obj, _ := cms.Get(ctx, "x")
	if _, err := cms.Update(ctx, obj, apiclient.WriteOptions{}); !apiclient.IsConflict(err) {
		t.Fatalf("Update = %v, want a conflict", err)
	}

	host := strings.TrimPrefix(ts.URL, "https://")
	page := render(t, reg)
	for _, want := range []string{
		`rest_client_requests_total{code="200",host="` + host + `",method="GET"} 3`,
		`rest_client_requests_total{code="409",host="` + host + `",method="PUT"} 1`,
		`rest_client_request_duration_seconds_count{host="` + host + `",verb="GET"} 3`,
		`rest_client_request_duration_seconds_count{host="` + host + `",verb="PUT"} 1`,
	} {
		if !strings.Contains(page, want+"\n") {
			t.Errorf("no line %s in:\n%s", want, page)
		}
	}
}

func TestRESTClient_labels(t *testing.T) {
	tests := []struct {
		name string
		info apiclient.RequestInfo
		want string
	}{
		{"a transport failure has code <error>",
			apiclient.RequestInfo{Verb: "GET", URL: "https://10.0.0.1:6443/api", Host: "10.0.0.1:6443", Code: 0, Took: time.Second},
			`rest_client_requests_total{code="<error>",host="10.0.0.1:6443",method="GET"} 1`},
		{"the host is the client's, never parsed back from the URL",
			apiclient.RequestInfo{Verb: "DELETE", URL: "https://elsewhere:1/api?x=1", Host: "api.example.com", Code: 200},
			`rest_client_requests_total{code="200",host="api.example.com",method="DELETE"} 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := new(metrics.Registry)
			metrics.RESTClient(reg)(context.Background(), tt.info)
			if page := render(t, reg); !strings.Contains(page, tt.want+"\n") {
				t.Fatalf("no line %s in:\n%s", tt.want, page)
			}
		})
	}
}
