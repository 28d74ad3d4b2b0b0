// Package rbac says what a controller may do to the API server, as Kubernetes
// RBAC says it: from what the process does (every request its client makes,
// and what its Manager knows it will do), the least-privilege Roles and
// ClusterRoles, bound to a ServiceAccount, as YAML.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	(RequestInfo)                                       ^^^^^^^^^^ (Manager.Permissions; a leaf beside trace and metrics)
//
// # From requests to rules
//
//	request (apiclient.RequestInfo)   GET /apis/apps/v1/namespaces/demo/deployments?watch=true
//	Access (Of)                       watch deployments.apps in demo
//	Rule (Rules)                      apiGroups: [apps], resources: [deployments], verbs: [list, watch]
//	Scope (Scopes)                    the rules of one namespace (a Role), or cluster-wide (a ClusterRole)
//	objects (Objects)                 Role + RoleBinding per namespace, ClusterRole + ClusterRoleBinding
//
// A Recorder notes the Access of each request a client makes (call
// Recorder.Observe from an apiclient.Observer's Answered; a controller.Manager
// records its client's from NewManager on). A run of the controller that does
// its whole job — a test against apitest or a real server — has then made every
// request it needs; Manager.Permissions adds what the Manager knows it will do
// whether or not the run got to it (a Lease renewal, an Event's count).
//
// # Guarantees
//   - Verbs are kube-apiserver's (apiclient.RequestInfo.Action): get, list,
//     watch, create, update, patch (server-side apply included), delete,
//     deletecollection. No rule holds "*", in a verb, a group or a resource.
//   - A namespaced resource used in one namespace needs a Role there; used
//     across all namespaces, or a cluster-scoped resource, a ClusterRole.
//   - Rules are merged as kubectl prints them: one per group and set of verbs,
//     resources sorted, verbs sorted; the same accesses give the same bytes.
//   - Discovery (/api, /apis) and /version need no rule: the system:discovery
//     ClusterRole lets every authenticated user read them; requests to them
//     have no Access (Of says false).
//   - A request counts whatever its answer: a 403 or a 404 was still needed.
//
// # Compared with controller-gen
// controller-gen derives roles from //+kubebuilder:rbac markers the author
// writes by hand beside the code, and a marker forgotten or left behind is a
// 403 or a permission too many; here they are derived from what the process
// did, so a rule exists exactly when a request needed it. The price: a path
// the run never took (a delete only on a rare error) is not in the role, and
// the run that derives it must do the controller's whole job.
package rbac
