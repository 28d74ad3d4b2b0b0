// Package finalizer lets a controller clean up after an object before the API
// server lets it go: add a finalizer while the object lives, run the cleanup once
// it is being deleted, then remove the finalizer.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^ controller/finalizer, inside a Reconcile
//
// # On the wire
//
// A finalizer is a name in metadata.finalizers ("kubewire.io/cleanup"). A DELETE
// of an object that has any does not delete it: the server sets
// metadata.deletionTimestamp (a MODIFIED event, so the controller is told) and
// waits. Each finalizer's owner does its cleanup and removes its name; when the
// list is empty, the object goes (a DELETED event). Add and Remove change the
// list with a JSON patch that first tests the list is still what was read:
//
//	PATCH …/foos/example-foo   Content-Type: application/json-patch+json
//	[{"op":"test","path":"/metadata/finalizers","value":["other.io/x"]},
//	 {"op":"replace","path":"/metadata/finalizers","value":["other.io/x","kubewire.io/cleanup"]}]
//
// (An object with no finalizers has no list to test: then the patch tests
// /metadata/resourceVersion and adds the list.) If someone else changed the list
// meanwhile, the test fails (422), and the patch is tried again on the object as
// it is now — their finalizer is never
// overwritten, as a merge patch of the whole list would do. Nothing else in the
// object is sent, so no other field can conflict.
//
// # Guarantees
//   - Add and Remove send nothing when the name is already there, or already gone.
//   - Reconcile runs cleanup only while the object is being deleted and still has
//     the finalizer, and removes the finalizer only after cleanup succeeded. "Once"
//     is at least once: a crash between cleanup and Remove runs cleanup again
//     after the restart, so cleanup must be idempotent (deleting what is already
//     gone is success).
//
// # Compared with client-go, controller-runtime and kube-rs
//
// client-go has nothing for finalizers. controller-runtime's controllerutil
// AddFinalizer and RemoveFinalizer change the object in memory, and the caller
// writes the whole object with an Update that may conflict. Reconcile is kube-rs's
// runtime::finalizer(): one call that adds the finalizer, then runs either the
// apply or the cleanup step.
package finalizer
