package foo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// Foos is the resource this controller reconciles: sample-controller's custom
// resource, served by the API server once CRD is installed.
var Foos = apiclient.Resource{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Name: "foos", Singular: "foo",
	Kind: "Foo", Namespaced: true, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}}

// CRDName is the CustomResourceDefinition's name: plural.group.
const CRDName = "foos.samplecontroller.k8s.io"

// CRD is the CustomResourceDefinition of Foo, as sample-controller's
// artifacts/examples/crd-status-subresource.yaml defines it: a namespaced kind
// with spec.deploymentName, spec.replicas (1 to 10) and status.availableReplicas,
// and a status subresource, so that the controller's status writes and users'
// spec writes never overwrite each other, and spec changes move
// metadata.generation. The group ends in .k8s.io, which the API server reserves
// for APIs its reviewers approved (KEP-1111): a CRD there needs the
// api-approved.kubernetes.io annotation, and a value starting with
// "unapproved" is accepted for examples like this one.
const CRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"foos.samplecontroller.k8s.io",
  "annotations":{"api-approved.kubernetes.io":"unapproved, experimental-only; sample-controller's example, not a Kubernetes API"}},
 "spec":{"group":"samplecontroller.k8s.io","scope":"Namespaced",
  "names":{"plural":"foos","singular":"foo","kind":"Foo"},
  "versions":[{"name":"v1alpha1","served":true,"storage":true,
   "subresources":{"status":{}},
   "schema":{"openAPIV3Schema":{"type":"object","properties":{
    "spec":{"type":"object","properties":{
     "deploymentName":{"type":"string"},
     "replicas":{"type":"integer","minimum":1,"maximum":10}}},
    "status":{"type":"object","properties":{
     "availableReplicas":{"type":"integer"}}}}}}}]}}`

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

// InstallCRD creates the CRD unless it exists, then waits until the server
// serves Foos: until discovery lists them, which happens once the CRD is
// Established and the server has rebuilt its discovery documents, a moment
// later, asynchronously. It gives up when ctx ends, or after a minute.
func InstallCRD(ctx context.Context, c *apiclient.Client) error {
	crds := c.Resource(apiclient.CRDs)
	if _, err := crds.Create(ctx, []byte(CRD), apiclient.WriteOptions{FieldManager: "kubewire"}); err != nil && !apiclient.IsAlreadyExists(err) {
		return fmt.Errorf("install the Foo CRD: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		if served, err := HasCRD(ctx, c); served {
			return nil
		} else if ctx.Err() != nil {
			return fmt.Errorf("the Foo CRD %s was created but is not served yet (%v): is the API server healthy?", CRDName, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond): // the server's own delay; nothing to watch for discovery
		}
	}
}
