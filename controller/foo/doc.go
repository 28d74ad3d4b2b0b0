// Package foo is kubernetes/sample-controller's Foo controller on kubewire: the
// controller every client-go tutorial points at, and this tutorial's last
// chapter, where every piece before it is used at once.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^ a user of it, as your operator would be
//
// `kubewire run foo` runs it (--install-crd creates the CRD when the server does
// not serve it; crd.go builds it from the Foo type). With --shards, several
// replicas share the Foos (package sharding): the resource a controller is For
// is cached and reconciled by shares, the Deployments are cached whole on
// every replica, since a Foo's Deployment hashes apart from its Foo.
//
// # What it does
//
// A Foo (samplecontroller.k8s.io/v1alpha1) asks for a Deployment:
//
//	spec.deploymentName  the Deployment's name       spec.replicas  its replicas
//	status.availableReplicas  what the Deployment reports, written back by the controller
//
// For each Foo, Reconcile (reconcile.go) makes sure that a Deployment of that
// name exists, is controlled by the Foo (an owner reference with
// controller=true: owner.go in package controller), runs nginx:latest with the
// labels app=nginx and controller=<foo>, and has the Foo's replicas; then writes
// the Deployment's available replicas into the Foo's status, and records a
// Normal "Synced" Event. A Deployment of that name that someone else controls is
// left alone, with a Warning "ErrResourceExists" Event; a Foo with no
// deploymentName gets a Warning "InvalidSpec" Event and no retry.
//
// # Walking through it
//
// Setup (foo.go) is the wiring, one builder chain and two reads:
//
//  1. controller.New(m, "foo", …).For(Foos, WithPredicates(GenerationChanged)):
//     a Foo's own Request, but only for spec changes — the controller's status
//     writes do not move the generation, so they do not wake it.
//  2. .Owns(Deployments): any change to a Deployment a Foo controls — deleted
//     or scaled by hand, its status moved — reconciles that Foo (the owner
//     reference with controller=true leads back to it).
//  3. .Watches(Deployments, ToIndexed(…, byDeployment)) with m.Index on the
//     Foos: any change to a Deployment a Foo asks for by name reconciles that
//     Foo, controlled or not — when someone else's Deployment in the way is
//     deleted, the Foo creates its own at once.
//  4. controller.Lister[Foo] and [builtin.Deployment]: the Manager's caches
//     read as Go structs (Foo of our own, Deployment from package
//     apiclient/builtin), each object decoded once, however often it is read.
//  5. m.Recorder: an Event recorder the Manager runs; Eventf never blocks a
//     reconcile. Complete(r) checks the wiring; the
//     Manager's Run starts the caches, then the workers.
//
// Reconcile is level-based: it is told only which Foo, reads the Foo and its
// Deployment from the caches as they are now, and writes only what differs:
//
//   - no Deployment: create it (a POST, which fails if the name is taken
//     meanwhile, so it never takes over someone else's);
//   - wrong replicas: a server-side apply of the whole Deployment with
//     Force and the resourceVersion read (a conditional apply: a Deployment
//     changed since is a Conflict and a retry, never a blind overwrite);
//   - status: status.Update, which sends nothing when the status is already
//     right.
//
// What was seen last is never remembered in memory: a restart, or another
// replica taking over the Lease, reconciles every Foo once and arrives at the
// same place (compare package podrestart, which is edge-triggered).
//
// It reads the Deployment from a cache, which may not show yet the Deployment
// it created a moment ago: a Foo scaled right after would be reconciled on a
// cache that says "no Deployment", create it again and fail AlreadyExists. The
// Manager's staleness guard (package controller, "A stale cache after your own
// write") holds that turn back until the cache shows the create;
// controller/guard_examples_test.go plays it on the in-memory server and on a
// real one, and /metrics counts the turns held back.
//
// # Testing it, and your own
//
// foo_test.go runs every behaviour on the in-memory API server
// (apiclient/apitest), and integration_test.go runs the same scenario on a real
// kube-apiserver, with leader election and two workers; example_test.go is the
// smallest test of a controller to copy.
//
// # Compared with sample-controller
//
// Its controller.go is 421 lines (264 without comments and blank lines), on top
// of generated clientset, informers and listers for Foo; foo.go and reconcile.go
// are 195 (135), with no generated code. What it spells out, kubewire does
// once: the worker loop, the queue, waiting for sync, the owner lookup (Owns),
// the event broadcaster, copying before writing status. It updates the
// Deployment with a PUT of a whole object it built; this controller applies it,
// conditionally. It retries ErrResourceExists with backoff, up to 1000 s
// apart, until the name is free; this one reports it once and is woken by the
// index the moment the other Deployment changes or goes.
package foo
