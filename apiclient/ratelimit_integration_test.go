package apiclient_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/realtest"
)

// What the default of no client-side rate limit is worth (Options.QPS): label
// 150 ConfigMaps, one PATCH each, one after the other, as an operator
// reconciling them would, with kubewire's default and with client-go's 5 QPS,
// burst 10. Reported as s/150-patches; needs a real server:
//
//	KUBEWIRE_TEST_KUBECONFIG=/tmp/kw/kubeconfig go test -run '^$' -bench Integration_label_150 -benchtime 1x ./apiclient
func BenchmarkIntegration_label_150_configmaps(b *testing.B) {
	setup, _ := realtest.Client(b, apiclient.Options{})
	ns := realtest.Namespace(b, setup, "qps")
	ctx := context.Background()
	const n = 150
	for i := range n {
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%03d"}}`, i)
		if _, err := setup.Resource(apiclient.ConfigMaps).Namespace(ns).Create(ctx, []byte(body), apiclient.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		qps  float64
	}{{"default (no limit)", 0}, {"client-go's 5 QPS, burst 10", 5}} {
		b.Run(tc.name, func(b *testing.B) {
			var took time.Duration
			for round := range b.N {
				c, _ := realtest.Client(b, apiclient.Options{QPS: tc.qps, Burst: 10}) // a fresh bucket each round
				cms := c.Resource(apiclient.ConfigMaps).Namespace(ns)
				patch := []byte(fmt.Sprintf(`{"metadata":{"labels":{"round":"qps%v-%d"}}}`, tc.qps, round))
				start := time.Now()
				for i := range n {
					if _, err := cms.Patch(ctx, fmt.Sprintf("cm-%03d", i), apiclient.MergePatch, patch, apiclient.WriteOptions{}); err != nil {
						b.Fatal(err)
					}
				}
				took += time.Since(start)
			}
			b.ReportMetric(took.Seconds()/float64(b.N), "s/150-patches")
		})
	}
}
