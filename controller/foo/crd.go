package foo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/crd"
)

// Foos is the resource this controller reconciles: sample-controller's custom
// resource, served by the API server once CRD is installed.
var Foos = apiclient.Resource{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Name: "foos", Singular: "foo",
	Kind: "Foo", Namespaced: true, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}}

// CRDName is the CustomResourceDefinition's name: plural.group.
const CRDName = "foos.samplecontroller.k8s.io"

// CRD is the CustomResourceDefinition of Foo, built from the Go type (package
// crd) as sample-controller's artifacts/examples/crd-status-subresource.yaml
// defines it: a namespaced kind with spec.deploymentName, spec.replicas (1 to
// 10) and status.availableReplicas, and a status subresource, so that the
// controller's status writes and users' spec writes never overwrite each
// other, and spec changes move metadata.generation. The group ends in
// .k8s.io, which the API server reserves for APIs its reviewers approved
// (KEP-1111): a CRD there needs the api-approved.kubernetes.io annotation, and
// a value starting with "unapproved" is accepted for examples like this one.
func CRD() *crd.CustomResourceDefinition {
	return crd.MustNew(crd.Options{APIApproved: "unapproved, experimental-only; sample-controller's example, not a Kubernetes API"}, new(Foo))
}

// HasCRD reports whether the API server serves Foos (discovery lists them).
func HasCRD(ctx context.Context, c *apiclient.Client) (bool, error) {
	c.Invalidate()
	_, err := c.Resolve(ctx, CRDName)
	var unknown *apiclient.ErrUnknownResource
	if errors.As(err, &unknown) {
		return false, nil
	}
	return err == nil, err
}

// InstallCRD applies CRD (field manager "kubewire") and waits, a minute at
// most, until the server serves Foos (crd.Install), then until discovery lists
// them, which the server rebuilds a moment later, asynchronously: HasCRD and
// `kubewire get foos` read discovery.
func InstallCRD(ctx context.Context, c *apiclient.Client) error {
	if err := crd.Install(ctx, c, CRD(), crd.InstallOptions{}); err != nil {
		return fmt.Errorf("install the Foo CRD: %w", err)
	}
	try := apiclient.Backoff{Steps: 12, Initial: 10 * time.Millisecond, Factor: 2} // about 40 s in all
	notYet := errors.New("not in discovery yet")
	err := apiclient.Retry(ctx, try, apiclient.RealClock{}, func(err error) bool { return err == notYet }, func() error {
		if served, err := HasCRD(ctx, c); err != nil || served {
			return err
		}
		return notYet
	})
	if err != nil {
		return fmt.Errorf("the Foo CRD %s is served but discovery does not list it (%v): is the API server healthy?", CRDName, err)
	}
	return nil
}
