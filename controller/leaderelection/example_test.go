package leaderelection_test

import (
	"context"
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/lease"
)

// One replica takes the Lease, does its work, and releases the Lease when the work
// is done, so that a standby would take over at its next read.
func ExampleElector_Run() {
	srv := apitest.NewServer(nil) // an API server in memory
	defer srv.Close()
	client, _ := srv.Client(apiclient.Options{})

	e, err := leaderelection.New(leaderelection.Config{
		Member:          lease.Member{Client: client, Identity: "replica-a"},
		Name:            "kubewire",
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

	leases := apiclient.NewTyped[lease.Lease](client).Namespace("default")
	l, _ := leases.Get(context.Background(), "kubewire")
	fmt.Printf("holder=%q leaseDurationSeconds=%d leaseTransitions=%d\n",
		l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds, l.Spec.LeaseTransitions)
	// Output:
	// leading: true replica-a
	// stopped leading
	// Run: <nil>
	// holder="" leaseDurationSeconds=1 leaseTransitions=0
}
