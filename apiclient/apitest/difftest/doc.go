// Package difftest checks apitest against kube-apiserver: it generates
// sequences of raw HTTP requests, plays each on an apitest.Server and on a real
// server, and compares what came back. A sequence whose transcripts differ is
// shrunk to a smallest one that still does and printed as a Go test that
// replays it (regressions_test.go holds the ones found so far).
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	^^^^^^^^^ (apiclient/apitest, checked against a real server)
//
// Tests only: it imports package testing (Replay), which main_test.go allows for
// the packages it lists as testsOnly.
//
// # Running it
//
// TestDifferential skips without a server; CI runs it with the default count
// against each server it starts. The full count:
//
//	KUBEWIRE_TEST_KUBECONFIG=$CLUSTER/kubeconfig \
//	KUBEWIRE_DIFFTEST_COUNT=20000 KUBEWIRE_DIFFTEST_WORKERS=2 \
//	go test -run TestDifferential -timeout 0 -v ./apiclient/apitest/difftest
//
// ($CLUSTER is the directory .ci/cluster/up.sh made.) On 2026-11-25, on two
// cores, the final runs found no divergence: 20,000 sequences against v1.37.2
// in 35 minutes (two runs, seeds 1–13,899 and 13,900–20,000) and 5,000 against
// v1.32.4 in 15, each server shared with other runs. On 2026-11-28, after
// custom resources' schemas, validation, merge rules from the record and
// namespaces came in, again none: 20,000 against v1.37.2 (seeds 1–3,000 in
// 5 minutes, 3,001–20,000 in 37) and 5,000 against v1.32.4 in 14, beside a
// CI run — after a first run had found 3 in 548 (TestReplay_v137_seed_546).
//
// An expired step (a watch from resourceVersion 1, which must be answered 410
// Expired) is compared only where the real server answers it so.
// kube-apiserver serves a watch from its watch cache, one per resource, and a
// cache that has not yet let go of an event since it started still serves
// from version 1, whatever etcd has compacted: on a new server (each of CI's),
// and on an old one for a resource with few writes (a 45-minute-old v1.32.4
// answered Deployments with events and ConfigMaps with 410). There the step is
// told as "not compared" on both servers (Profile.Unexpired, decided by the
// real server's run, step by step). apitest's own tests and the chaos run
// (controller/chaos) cover 410 Expired on every CI run.
//
// KUBEWIRE_DIFFTEST_SEED picks the first seed (1), KUBEWIRE_DIFFTEST_MAX how
// many divergences to report before stopping (3). Each worker works in a
// namespace of its own, emptied after every sequence, so runs may share a
// server with other tests.
//
// # A sequence
//
// One or two resources of a small universe (universe.go): ConfigMaps, a custom
// resource with a status subresource (widgets, whose CRD the harness installs),
// Deployments and Pods; two names; two or three values per field, so that
// writes that change nothing, conflicts and re-creations come often. Steps
// (step.go, gen.go, gen_patch.go) are creates, updates (at the latest
// resourceVersion, a stale one, none), JSON merge, JSON and strategic merge
// patches, server-side applies by two managers (forced or not, conditional or
// not, to the main resource and to status), deletes (with preconditions),
// gets, lists (label and field selectors, pages and their continuation, at an
// exact older version), watches from a version, streaming lists, a watch from
// a compacted version, dry runs, and bursts of concurrent patches of one
// object. A seed makes the same sequence every time.
//
// # Classes
//
// Besides the universe's sequences, GenerateClass makes short ones that probe
// one class of request each (gen_class.go, Classes): unknown resources,
// collection deletes, creates carrying a resourceVersion, bodies that do not
// match their URL, long generateNames, LISTs at resourceVersion 0 with a
// limit, reads at a version not yet reached, parameters the server refuses,
// unknown fields under each fieldValidation, quantities, a Lease's times,
// a Secret's stringData; a custom resource checked, pruned and defaulted by
// its CRD's structural schema (sprockets: typed fields, defaults, an object
// that keeps unknown fields, an embedded resource), names, labels,
// annotations and finalizers validated, immutable ConfigMaps and Secrets,
// the scale subresource of a custom resource, a Service's keyed ports under apply and strategic
// merge, ownerReferences applied by two managers, and namespaces (a create
// in a missing one; one deleted, then written in: the class's own
// namespace, named after the run's, is finalized after the run, as no
// namespace controller runs beside a bare kube-apiserver). Their requests are raw steps (raw.go): a path and a
// query as written, answered with the code, Retry-After, the Warning headers
// and the Status's causes. TestClasses counts the divergences per class
// (KUBEWIRE_DIFFTEST_CLASS_COUNT per class) and fails on one in a class that
// its knownDivergent table does not list.
//
// # What is compared
//
// The transcript (run.go, watch.go) has a line per step — the step, the status
// code, and the object or Status answered — and then the events every watch
// delivered: an unfiltered and a label-selecting watch of each resource, opened
// before the first step, and the watches steps opened, each read up to a marker
// object created last. normalize.go makes two servers' transcripts comparable:
//
//   - resourceVersions and uids become r1, r2, … and u1, u2, … in the order
//     they first appear: whether a write made a new version, and which event
//     carries which, is compared; their values are not. A list's version is
//     compared only as "current" (it moves with everyone's writes on a shared
//     server);
//   - times become T; managedFields entries lose their times and are sorted;
//   - of a Status, the status, reason, code and the fields of apply conflicts;
//     not the message;
//   - Deployments and Pods are compared through a shape (project.go): the
//     fields a sequence writes and all metadata, since the real server fills in
//     defaults apitest does not model (apitest's divergence 1); their
//     managedFields are cut to the same shape;
//   - a burst's writes are shown as counts, and its events without content:
//     which write the server took first is its own business. That no
//     acknowledged write was lost is checked by TestConcurrent_writers.
//
// # What is not generated, and why
//
// Each is one of apitest's documented divergences, or a place where the real
// server's answer is not determined:
//
//   - invalid objects (a Deployment's selector always matches its template, a
//     Pod's containers never change but for an image): divergence 1;
//   - field selectors apitest refuses (spec.restartPolicy): divergence 4;
//   - a watch of Pods from a compacted version: kube-apiserver v1.37 serves it
//     from etcd rather than answer 410 (divergence 8);
//   - versions older than an expired step's compaction: apitest forgets at
//     once, the real server by a window (divergence 5);
//   - a custom resource's status written by an update, or with metadata:
//     1.32 gives the writer ownership of metadata it could not change
//     (divergence 7);
//   - a strategic merge patch that both sets and deletes from one list: the
//     real result depends on Go's map order in kube-apiserver;
//   - more than one name from generateName a sequence: the servers draw the
//     names, and they sort differently.
//
// Pods' metadata.generation is compared on servers from 1.35 on only
// (divergence 7), and v1.32's list blueprint on a streaming list's bookmark is
// ignored.
//
// # Compared with client-go
//
// client-go has no such harness; Kubernetes itself checks its server with
// integration tests against etcd. This is closer to differential testing of
// two implementations of one protocol, with the real one as the oracle.
package difftest
