package leaderelection_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/leaderelection/leasetest"
)

// One replica takes the Lease, does its work, and releases the Lease when the work
// is done, so that a standby would take over at its next read.
func ExampleElector_Run() {
	leases := new(leasetest.Server) // an in-memory API server for Leases
	ts := httptest.NewTLSServer(leases)
	defer ts.Close()
	client, _ := apiclient.New(&kubeconfig.Config{Server: ts.URL, Namespace: "default"},
		apiclient.Options{Transport: ts.Client().Transport})

	e, err := leaderelection.New(leaderelection.Config{
		Client:          client,
		Name:            "kubewire",
		Identity:        "replica-a",
		ReleaseOnCancel: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	err = e.Run(context.Background(),
		func(ctx context.Context) {
			// The reconcile workers would run here, until ctx is cancelled.
			fmt.Println("leading:", e.IsLeader(), e.Leader())
		},
		func() { fmt.Println("stopped leading") })
	fmt.Println("Run:", err)

	l, _ := leases.Lease("default", "kubewire")
	fmt.Printf("holder=%q leaseDurationSeconds=%d leaseTransitions=%d\n",
		l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds, l.Spec.LeaseTransitions)
	// Output:
	// leading: true replica-a
	// stopped leading
	// Run: <nil>
	// holder="" leaseDurationSeconds=1 leaseTransitions=0
}
