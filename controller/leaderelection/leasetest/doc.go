// Package leasetest is an in-memory API server for coordination.k8s.io/v1 Leases,
// for testing leader election without a cluster: it serves GET, POST and PUT as
// kube-apiserver does, resourceVersion conflicts included, and lets a test play
// the other writer, break the server, or step in before a request is served.
//
// Mount it alone (NewServer) or inside a bigger fake server: it is an http.Handler
// for the paths under /apis/coordination.k8s.io/v1/namespaces/NS/leases.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^
//	                                                    leaderelection's tests: a fake API server for Leases
//
// # Guarantees
//   - Writes follow the API's rules for a Lease: Create of an existing name is 409
//     AlreadyExists; Update at a resourceVersion other than the stored one is 409
//     Conflict; Update with none always wins; every write gets a new
//     resourceVersion, a counter shared by all Leases of the server.
//   - Error bodies are Status objects, as kube-apiserver's, so apiclient's
//     IsNotFound, IsConflict and IsAlreadyExists work on them.
//   - Everything is in memory and answered at once: tests built on it take no
//     real time beyond the loopback round trip.
//
// # Compared with client-go
//
// client-go's leader election tests fake the lock itself (a resourcelock.Interface
// in memory) rather than the server. This fakes the server, so the tests exercise
// the real requests, the real JSON, and apiclient's error mapping.
package leasetest
