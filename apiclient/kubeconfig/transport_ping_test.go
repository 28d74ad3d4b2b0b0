package kubeconfig_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// The transport pings an HTTP/2 connection silent for 30 s and closes it when
// the answer takes over 15 s, as client-go does: what fails a watch on a
// half-open connection within 45 s. (controller/chaos shows it on a stopped
// kube-apiserver: TestIntegration_a_stopped_server_is_noticed_by_HTTP2_pings.)
func TestTransport_pings_HTTP2_connections(t *testing.T) {
	rt, err := (&kubeconfig.Config{Server: "https://127.0.0.1:6443", Source: "test"}).Transport()
	if err != nil {
		t.Fatal(err)
	}
	tr, ok := rt.(*http.Transport)
	if !ok {
		t.Fatalf("transport %T, want *http.Transport (no credentials: no wrapper)", rt)
	}
	if tr.HTTP2 == nil || tr.HTTP2.SendPingTimeout != 30*time.Second || tr.HTTP2.PingTimeout != 15*time.Second {
		t.Fatalf("HTTP/2 config %+v, want a ping after 30 s of silence and 15 s for its answer", tr.HTTP2)
	}
}
