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
// It is the example `kubewire run` runs, and the shape of most controllers:
//
//	pods informer ─▶ transitions handler ─▶ queue: Request{namespace, deployment} ─▶ Reconcile: PATCH
//
// # Why the handler, and not Reconcile, looks at phases
//
// Reconcile is level-based: it sees the state now, not how it got there. "First
// seen Pending, now Running" is a transition, so the handler, which sees old and
// new, notes it per pod UID and enqueues the deployment. Reconcile then acts on
// what the handler noted (restarts owed), and several pods becoming Running at
// once cost one restart, because the queue merges their Requests.
package podrestart
