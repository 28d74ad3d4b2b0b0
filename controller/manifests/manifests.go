package manifests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/rbac"
)

// Options say what to deploy.
type Options struct {
	// Name names the ServiceAccount, the roles, the Deployment and (with
	// "-metrics") the Service: "kubewire-foo". It is also the pods' label
	// app.kubernetes.io/name, which the Service selects.
	Name string
	// Namespace is where the controller runs: its ServiceAccount, Deployment
	// and Service.
	Namespace string
	// Image is the container's image; Command and Args run the controller in
	// it (the Args of `kubewire run foo -n NS` are "run", "foo", "-n", "NS").
	// The metrics address, and --leader-elect with Replicas over 1, are
	// appended here.
	Image   string
	Command []string
	Args    []string
	// Replicas of the Deployment; 0 means 1. Over 1, "--leader-elect" is
	// appended to Args unless Sharded says the replicas share the work.
	Replicas int
	Sharded  bool
	// MetricsPort is where the metrics server listens on every interface;
	// 0 means 8080.
	MetricsPort int
	// Permissions are what RBAC grants the ServiceAccount (rbac.Objects):
	// Manager.Permissions().All() after a run that did the whole job.
	Permissions []rbac.Access
	// CRDs are CustomResourceDefinitions, each as JSON, written first: the
	// resources the controller reconciles must be served before it starts.
	// A CRD converted by a webhook carries its spec.conversion already
	// (webhook.Manifests.SetConversion).
	CRDs [][]byte
	// Webhooks, for a controller that serves admission or conversion
	// webhooks (controller/webhook), adds what serves them: a container port
	// "webhooks" and a Service in front of it (WebhookServiceName, port 443),
	// and the webhook server's own objects after everything else.
	Webhooks *Webhooks
}

// Webhooks is what a webhook server adds to the manifests.
type Webhooks struct {
	// Port is the webhook server's port in the pod (its Addr, on every
	// interface); 0 means 9443.
	Port int
	// Objects are the CA's Secret and the webhook configurations that trust
	// it, in the order to apply them: webhook.Server.Manifests(…).Objects(),
	// for a Server whose Options.Service is WebhookServiceName in Namespace.
	Objects []any
}

// Objects returns what deploys the controller, in the order to apply it:
// the CRDs, the ServiceAccount, the RBAC objects (rbac.Objects), the
// Deployment and the metrics Service; with Webhooks, the webhooks' Service,
// Secret and configurations last (a configuration applied before its server
// can answer would refuse writes while failurePolicy is Fail). A CRD is its
// JSON (json.RawMessage); the others are apiclient/builtin's kinds. Each
// encodes to JSON, and rbac.WriteYAML writes it as YAML.
func Objects(o Options) ([]any, error) {
	o = o.withDefaults()
	var out []any
	for i, crd := range o.CRDs {
		if !json.Valid(crd) {
			return nil, fmt.Errorf("manifests: CRD %d is not JSON", i)
		}
		out = append(out, json.RawMessage(crd))
	}
	labels := map[string]string{"app.kubernetes.io/name": o.Name}
	meta := apiclient.ObjectMeta{Name: o.Name, Namespace: o.Namespace, Labels: labels}
	out = append(out, serviceAccount(meta))
	out = append(out, rbac.Objects(o.Name, rbac.ServiceAccount{Name: o.Name, Namespace: o.Namespace}, o.Permissions)...)
	out = append(out, deployment(o, meta), service(o))
	if o.Webhooks != nil {
		out = append(out, webhookService(o))
		out = append(out, o.Webhooks.Objects...)
	}
	return out, nil
}

func (o Options) withDefaults() Options {
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	if o.MetricsPort == 0 {
		o.MetricsPort = 8080
	}
	if o.Webhooks != nil && o.Webhooks.Port == 0 {
		w := *o.Webhooks
		w.Port = 9443
		o.Webhooks = &w
	}
	return o
}

// MetricsAddr is the --metrics-addr the container is given: every interface,
// so that the kubelet's probes and a scrape reach it (metrics.Listen takes a
// bare ":PORT" as loopback).
func (o Options) MetricsAddr() string {
	return "0.0.0.0:" + strconv.Itoa(o.withDefaults().MetricsPort)
}

// args are the container's arguments: the caller's, the metrics address, and
// leader election where several replicas would otherwise all reconcile.
func (o Options) args() []string {
	args := append(append([]string(nil), o.Args...), "--metrics-addr", o.MetricsAddr())
	if o.Replicas > 1 && !o.Sharded && !contains(args, "--leader-elect") {
		args = append(args, "--leader-elect")
	}
	return args
}

// Write writes objs as one YAML stream, after header (comment lines, each
// prefixed with "# " here), a document each.
func Write(w io.Writer, header []string, objs ...any) error {
	var b bytes.Buffer
	for _, h := range header {
		b.WriteString("# " + h + "\n")
	}
	if err := rbac.WriteYAML(&b, objs...); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
