// Package status writes what a controller observed back to its object: the status
// subresource, written only when it changed, and conditions with the rules every
// Kubernetes API follows.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^ controller/status, at the end of a Reconcile
//
// # On the wire
//
// An object with a status subresource ignores status in writes to the object,
// and ignores everything but status in writes to …/NAME/status. A controller
// owns the status; users own the spec. Update sends
//
//	PATCH /apis/example.com/v1/namespaces/demo/widgets/w1/status
//	Content-Type: application/merge-patch+json
//	{"status":{"readyReplicas":1,"observedGeneration":4}}
//
// — and nothing at all when the status the controller computed equals the one
// the object has: a reconcile that changes nothing writes nothing, so it wakes
// nobody (every write is a watch event for every informer of the kind, this
// controller's included).
//
// observedGeneration, where a kind's status has one (a Deployment's does; the Foo
// of package foo has none), tells a reader which spec the status describes: the
// metadata.generation the controller acted on. `kubectl rollout status` waits for
// it to reach the generation; so can a user.
//
// # Guarantees
//   - Update sends no request when desired equals current as JSON values (key
//     order and number spelling do not matter: 1, 1.0 and 1e0 are equal).
//   - SetCondition moves lastTransitionTime only when the condition's status
//     changes, as metav1.Condition requires.
//
// # Compared with client-go and controller-runtime
//
// apimachinery's meta.SetStatusCondition and FindStatusCondition follow the same
// rules on []metav1.Condition. controller-runtime has no "write only if changed"
// helper; controllers compare by hand (reflect.DeepEqual) before
// Status().Update, a PUT that fails with a conflict when the object moved. The
// merge patch here does not conflict: it sets the fields of desired and leaves
// the rest of status alone, so the controller must be the only writer of the
// fields it sets (it is, by convention: the status is the controller's).
package status
