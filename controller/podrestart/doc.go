// Package podrestart is the controller of the classic client-go articles, written
// on kubewire: watch the pods that match a selector, and when a pod first seen
// Pending becomes Running, restart a deployment — the same strategic-merge patch of
// spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"] that
// `kubectl rollout restart` sends.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^ a user of it
//
// It is the example `kubewire run` runs:
//
//	pods informer ─▶ transitions handler ─▶ queue: Request{namespace, deployment} ─▶ Reconcile: PATCH
//
// The patch only changes the Deployment's pod template. The Deployment controller
// (in kube-controller-manager, not here) is what sees the new template, makes a new
// ReplicaSet, and so replaces the pods; kubewire creates and deletes no pod itself.
//
// # Edge-triggered, and why most controllers are not
//
// This controller is edge-triggered: it acts on a transition it saw happen, and it
// remembers what it saw in memory (pending: pods first seen Pending; owed: restarts
// not yet made). Most controllers are level-based instead: Reconcile reads the
// state now and makes the world agree, so it needs no memory of events. The
// edge-triggered shape is fragile: a restart of the process, or a standby taking
// over the Lease, loses pending and owed, so a pod that turned Running while no
// replica was watching never causes its restart, and a restart owed but not yet
// patched is forgotten.
// A level-based version would write what it must remember into the cluster (an
// annotation, a status field) and read it back in Reconcile; package foo is a
// whole level-based controller, for comparison.
//
// # Why the handler, and not Reconcile, looks at phases
//
// Reconcile, as everywhere, sees a Request, not how the world got there. "First
// seen Pending, now Running" is a transition, so the handler, which sees old and
// new, notes it per pod UID and enqueues the deployment. Reconcile then acts on
// what the handler noted (restarts owed), and several pods becoming Running at
// once cost one restart, because the queue merges their Requests.
//
// A pod that becomes Running while the controller's cache of the deployment
// does not show its last restart yet waits for it: the Manager's staleness
// guard (package controller, "A stale cache after your own write") holds the
// turn back, /metrics counts it (kubewire_reconcile_total{result="stale_skip"}),
// and the restart follows once the cache shows the one before
// (controller/guard_examples_test.go, on the in-memory server and a real one).
package podrestart
