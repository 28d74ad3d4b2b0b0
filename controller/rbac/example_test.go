package rbac_test

import (
	"os"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/rbac"
)

// A Recorder hears of each request a client makes (here told by hand, as
// a client's apiclient.Observer would tell it); the role is what they needed.
func Example() {
	var rec rbac.Recorder
	foos := apiclient.Resource{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Name: "foos", Namespaced: true}
	for _, r := range []apiclient.RequestInfo{
		{Verb: "GET", Action: "list", Resource: foos, Namespace: "demo"},
		{Verb: "GET", Action: "watch", Resource: foos, Namespace: "demo"},
		{Verb: "PATCH", Action: "patch", Resource: foos, Namespace: "demo", Name: "a", Subresource: "status"},
		{Verb: "GET", Action: "list", Resource: apiclient.Deployments, Namespace: "demo"},
		{Verb: "GET", Action: "watch", Resource: apiclient.Deployments, Namespace: "demo"},
		{Verb: "POST", Action: "create", Resource: apiclient.Deployments, Namespace: "demo"},
		{Verb: "GET", URL: "https://10.0.0.1:6443/apis"}, // discovery: no rule
	} {
		rec.Observe(r)
	}
	sa := rbac.ServiceAccount{Name: "kubewire-foo", Namespace: "demo"}
	_ = rbac.WriteYAML(os.Stdout, rbac.Objects("kubewire-foo", sa, rec.Accesses())...)
	// Output:
	// apiVersion: rbac.authorization.k8s.io/v1
	// kind: Role
	// metadata:
	//   name: kubewire-foo
	//   namespace: demo
	//   labels:
	//     app.kubernetes.io/name: kubewire-foo
	// rules:
	//   - apiGroups: [apps]
	//     resources: [deployments]
	//     verbs: [create, list, watch]
	//   - apiGroups: [samplecontroller.k8s.io]
	//     resources: [foos]
	//     verbs: [list, watch]
	//   - apiGroups: [samplecontroller.k8s.io]
	//     resources: [foos/status]
	//     verbs: [patch]
	// ---
	// apiVersion: rbac.authorization.k8s.io/v1
	// kind: RoleBinding
	// metadata:
	//   name: kubewire-foo
	//   namespace: demo
	//   labels:
	//     app.kubernetes.io/name: kubewire-foo
	// roleRef:
	//   apiGroup: rbac.authorization.k8s.io
	//   kind: Role
	//   name: kubewire-foo
	// subjects:
	//   - kind: ServiceAccount
	//     name: kubewire-foo
	//     namespace: demo
}
