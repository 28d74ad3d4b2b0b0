// Package apitest holds Server, a test double for code built on apiclient: a
// small Kubernetes API server in memory that either replays a recording
// (faults included) or keeps live objects, the way kube-apiserver keeps them.
// The fake clock a test steps beside it is the module's one, clock.Fake
// (package apiclient/clock), not a name of this package.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	^^^^^^^^^ (its stand-ins, for the tests of every stage after it)
//
// # Replaying a recording
//
// The reflector's scenario tests (package listwatch) go like this:
//
//	srv := apitest.NewServer(clock)
//	srv.Replay(rec)                       // a recording.Recording: LIST, watches, faults
//	client, _ := srv.Client(apiclient.Options{Clock: clock})
//	go reflector.Run(ctx)                 // talks to srv as to a real API server
//	<-srv.Done()                          // it asked for more than the script holds
//	cancel(); if err := srv.Err(); err != nil { … }   // every request was as scripted
//
// Each request must match the next exchange (method, path, query; timeoutSeconds is
// free), so a scenario checks what the client asked as well as what it did with the
// answers. GET /version stands aside from the script: a recording's /version
// exchange (`kubewire record` writes one from every server that answers it)
// answers it whenever it is asked, so a default informer or Manager — whose
// ListCheapest asks it before the first list, and lists as that release wants:
// a LIST from 1.33, a streaming list before — replays the recording as the
// recorder made it (replay.go). Bodies are written line by line with a flush after each, which is how a
// watch reaches the client; "close", "cut N" and "stall" end a response the way a
// dying server, a broken proxy and a dead peer do (see package recording).
//
// # Live objects
//
// Without a script the server stores what it is sent and serves GET, LIST, WATCH,
// POST, PUT, PATCH and DELETE as kube-apiserver v1.37 does — what a controller's
// tests lean on most, and what package difftest checks against real servers
// (v1.37 and v1.32) with generated sequences of requests:
//
//   - What is served (catalog.go, path.go, discovery.go, crd.go). The
//     built-in resources are those of kube-apiserver v1.37, from its own
//     discovery and OpenAPI v3, recorded (internal/recordapi) and embedded;
//     a custom resource is served once a CustomResourceDefinition for it is
//     stored, at the versions it serves, with its scope and subresources,
//     and goes, its objects with it, when the CRD is deleted. Anything else
//     is 404, as on the real server — a typo'd plural, a wrong group, a
//     version not served, a namespace on a cluster-scoped resource, a CRD
//     not installed: a Status NotFound in a group served, plain "404 page
//     not found" in one that is not. So a test installs its CRDs as a
//     cluster needs them (controller/crd builds one from Go types;
//     foo.InstallCRD is an example): that way a wrong group or plural fails
//     the test, not the cluster, and the CRD's schema and subresources are
//     the ones the test runs with. (An explorer that runs any controller on
//     its own terms may serve every custom resource without a CRD:
//     HandlerOptions.AnyCustomResource, which controller/perturb sets.)
//     Discovery (/api, /apis, /apis/GROUP[/VERSION]) answers from the
//     record and the CRDs.
//   - Versions and events. Every write that changes the object gets the next
//     resourceVersion and a watch event; a write that changes nothing (a merge
//     patch of the same value, the same server-side apply) keeps the version and
//     sends no event. Writes are serialised: a patch reads and writes under one
//     lock, so concurrent patches each apply to the latest version, and an update
//     with an old resourceVersion is a 409 Conflict. (write.go, live.go)
//   - Strategies (strategy.go). metadata.generation exists where the kind has
//     one (Deployments and the other workloads, Pods, custom resources; not
//     ConfigMaps), starts at 1 and moves with every change outside metadata and
//     status (and annotations, for Deployments), and with the DELETE that marks
//     an object its finalizers hold. A status subresource makes the main
//     resource ignore status and /status change only status (and what metadata
//     the kind lets through it). A custom resource's strategy comes from its CRD
//     when the CRD is stored in the server.
//   - Deletion. Finalizers hold a deleted object (deletionTimestamp set, one
//     MODIFIED event) until the write that removes the last of them. A Pod's
//     delete is two writes, the mark then the deletion; one bound to a node
//     stays Terminating, as there is no kubelet. A DELETE's preconditions are
//     checked; it answers the object (Pods) or a Status naming it.
//   - Field ownership (managed.go, fields.go, schema.go, recschema.go). metadata.managedFields
//     is kept as kube-apiserver keeps it: who set which field, by Update or
//     Apply, through which subresource. Server-side apply merges a manager's
//     configuration, removes what it applied before and no longer does, and
//     answers 409 with a cause per field when it would change a field another
//     manager owns — unless forced.
//   - Patches: JSON merge, JSON patch (RFC 6902, arrays included), strategic
//     merge with the recorded merge keys and directives (smp.go), apply.
//   - Reads. Label selectors (all of them), field selectors (metadata.name and
//     metadata.namespace; status.phase and a few more for Pods), paging whose
//     pages are all read at the first page's version, a LIST at an exact older
//     version, watches from a version that see objects enter and leave a
//     selection, streaming lists with their bookmark, 410 after Compact.
//   - Decoding (decode.go, quantity.go). A built-in object keeps only the
//     fields its recorded schema has, as kube-apiserver's decoding into its
//     Go type: the others are dropped with a warning `unknown field "PATH"`
//     (fieldValidation Warn or none), dropped silently (Ignore), or refused
//     (Strict: 400 for a POST or PUT, 422 for a patch); an apply that carries
//     one is a 500 in every mode. Quantities are canonical ("0.5" is "500m",
//     "1024Mi" "1Gi"; a ResourceList's rounded up to a thousandth), and one
//     that is not a quantity is 400. Times are parsed and written as
//     meta/v1's Time and MicroTime (which field is which, from the
//     schemas: format date-time, the MicroTime type): a date-time in UTC
//     to the second ("…+02:00" is "…Z"), a micro-time (a Lease's
//     renewTime, an Event's eventTime) only with six fractional digits,
//     written in UTC; one that does not parse is 400 in a body, 422 (its
//     cause "patch") in a patch, 500 in an apply. So are bytes (format
//     byte: a Secret's data) that are not base64; those that are are kept
//     in standard base64 ("eA==\n" is "eA=="). A Secret's stringData is folded into its data
//     (over a key of both) on every write, never stored, and its type
//     defaults to Opaque. A PUT's body is decoded before its object is
//     looked for. A custom resource whose CRD is stored is decoded by the
//     CRD's structural schema (schema_crd.go): its unknown fields dropped
//     as a built-in's are (x-kubernetes-preserve-unknown-fields keeps
//     them; metadata is an ObjectMeta at the top and in an embedded
//     resource, whose apiVersion and kind stay), a null the schema does
//     not allow dropped, the schema's defaults filled in (on create,
//     update and patch; a merge patch's null brings the default back),
//     and each value of the wrong type refused (422, a
//     FieldValueTypeInvalid cause at its path; an apply's configuration
//     500), an embedded resource's apiVersion and kind required, the
//     scale subresource's replica paths integers; a patch that changes
//     its kind or apiVersion is 422 at that field. A member given twice in
//     a POST's or PUT's body (duplicates.go) is warned about as
//     `duplicate field "PATH"` (nothing under Ignore, 400 under Strict),
//     the later value counting — for a built-in kind, an object given
//     twice is the two merged, as decoded into its Go type.
//   - A custom resource's scale subresource (scale.go): GET, PUT, merge
//     and JSON patches and applies of an autoscaling/v1 Scale, read from
//     and written to the paths its CRD names, the replicas owned through
//     the subresource scale.
//   - Validation (validate_meta.go). Names are DNS-1123 subdomains (RFC
//     1123 labels for Namespaces, RFC 1035 for Services, path segments for
//     RBAC's kinds), generateName too; label keys and annotation keys are
//     qualified names, label values at most 63 characters of their set,
//     annotations at most 256 KiB together, finalizers qualified names (a
//     built-in kind's standard or with a "/"; a custom resource's warned
//     about otherwise): each fault a cause as kube-apiserver gives it, and
//     a create is validated before its name is looked for (422 before
//     409). An immutable ConfigMap or Secret refuses a change of its data
//     or its mark, and a Secret one of its type (FieldValueForbidden).
//   - Namespaces (namespace.go). default, kube-system, kube-public and
//     kube-node-lease exist from the start (the first three cannot be
//     deleted: 403), at resourceVersion 1, the server's first; a new one is
//     Active, labelled kubernetes.io/metadata.name, with the finalizer
//     "kubernetes". A write that would create an object in a namespace
//     that does not exist is 404, in one being deleted 403 with the cause
//     NamespaceTerminating, as kube-apiserver's NamespaceLifecycle answers;
//     a DELETE makes a namespace Terminating. A test creates the namespaces
//     it writes in: by a POST, or Server.CreateNamespaces (and
//     HandlerOptions.Namespaces), which adds them as the first four are
//     there, moving no resourceVersion and sending no event. (An explorer
//     may have them made as its writes name them: HandlerOptions.AnyNamespace.)
//   - dryRun=All answers as if done and stores nothing.
//   - The protocol's checks (params.go). The parameters kube-apiserver
//     validates are refused with its codes, error types and causes (a
//     dryRun other than All, fieldManager missing on an apply or longer
//     than 128 bytes, force on a patch that is not an apply,
//     resourceVersionMatch without a version or on a plain watch,
//     sendInitialEvents on a LIST, numbers that are not), before anything
//     is done. A body that does not match its URL — another namespace, or
//     name, or kind through a patch — is 400 (the kind 422); a create
//     carrying a resourceVersion is 500, as etcd's store refuses it; a
//     generateName is cut to 58 characters so that the name stays within
//     63; a Lease's update must name its resourceVersion (422); a PUT of
//     a Lease, Service, Endpoints, Event or LimitRange that does not exist
//     creates it (201), of any other kind is 404; a LIST at
//     resourceVersion 0 is answered whole, whatever its limit; a GET or
//     LIST at a version not yet reached is 504 with the cause
//     ResourceVersionTooLarge and a Retry-After of 1. A DELETE of a
//     collection (deletecollection.go) deletes what its selectors select,
//     as DELETEs of each would (finalizers, dry run, webhooks), and answers
//     them as they were.
//   - Admission webhooks (admission.go; not in a NewPlainServer). The
//     MutatingWebhookConfigurations and ValidatingWebhookConfigurations
//     stored are called on every
//     create, update, patch, apply and delete they match (rules, scope,
//     namespace and object selectors), at their clientConfig.url, over TLS
//     verified by the caBundle, within timeoutSeconds: the mutating ones
//     first, each JSON patch applied in turn, then apitest's own checks,
//     then the validating ones. A refusal is the webhook's Status, its
//     message after `admission webhook "NAME" denied the request: `; a
//     call that fails is a 500 `failed calling webhook "NAME": …` where
//     failurePolicy is Fail, and nothing where it is Ignore; a dry run is
//     refused (400) by a webhook whose sideEffects are not None or
//     NoneOnDryRun; warnings come back as Warning headers.
//   - Conversion webhooks (conversion.go; not in a NewPlainServer). A custom resource whose stored
//     CRD converts by webhook is kept at its storage version; a GET, LIST
//     or WATCH at another version converts each object through the
//     webhook (a ConversionReview), a create or update at another version
//     converts the object to the storage version before it is stored and
//     the answer back, and a patch or apply applies to the object
//     converted to the version it names.
//
// # Divergences
//
// What apitest does not do as kube-apiserver does, each with its reason and what
// a test must do about it. package difftest compares everything else.
//
//  1. No defaulting of built-in kinds, and of their validation only what
//     every object meets. The real server fills in a Deployment's
//     strategy, a container's imagePullPolicy, a Pod's schedulerName and
//     tolerations; apitest keeps what it was sent (a new Pod's status.phase
//     Pending and a Secret's type Opaque are the defaults it gives; a
//     custom resource gets its CRD's). Nor does it refuse an invalid
//     built-in object (a Deployment without a selector, a Pod without
//     containers, a change of a Pod's containers) beyond metadata
//     (Validation, above), a new finalizer on an object being deleted, a
//     container without a name or an image, and immutable ConfigMaps and
//     Secrets. A CRD's validation beyond types (enum, pattern, minimum,
//     required, CEL rules) is not checked; defaults are given when an
//     object is written, not again when it is read after its CRD changed.
//     Reason: each kind's defaults and
//     rules are thousands of lines of the real server. Test: set every
//     field the code under test reads, in the form the server answers it;
//     check validity in an integration test against a real server.
//  2. Merge rules. Field ownership and strategic merge read every built-in
//     kind's rules from the recorded schemas (recschema.go) — list types and
//     map keys (a Service's ports by port and protocol, containers and env
//     by name), atomic maps and structs (a LabelSelector; an
//     ownerReference, one item that a second manager applying it, say with
//     controller: true, conflicts on whole), patch strategies and merge
//     keys — and a custom resource's from its stored CRD. Not modelled: the
//     patch strategy "replace" of a struct (a PodDisruptionBudget's
//     selector, which a strategic merge patch merges where kube-apiserver
//     replaces it) and unions (x-kubernetes-unions: setting one member does
//     not clear the others). Reason: no kind a controller of this project
//     writes has them. Test: send such a selector whole.
//  3. No controllers, and of the built-in admission plugins only
//     NamespaceLifecycle (webhooks are called: item 9): no garbage collector
//     (owner references delete nothing; propagationPolicy is ignored), no
//     namespace controller, no kubelet, scheduler or Deployment controller.
//     The bare kube-apiserver the project tests against has none either. A
//     deleted namespace therefore stays Terminating, as there; the PUT of
//     …/finalize that its controller would make finishes it here, and does
//     the controller's work at once (its objects deleted, then it:
//     namespace.go). A CRD is established at its create (the real server's
//     controllers set its conditions a moment later), and its deletion
//     removes its objects at once. Test: create and delete the dependents
//     your controller would see created and deleted; finalize a namespace
//     your test deletes, if it must be gone.
//  4. Field selectors beyond metadata.name and metadata.namespace, and for Pods
//     spec.nodeName, spec.serviceAccountName, status.phase, status.podIP and
//     status.nominatedNodeName, are refused (400), though the real server knows
//     a few more (spec.restartPolicy, spec.schedulerName: fields whose defaults
//     apitest does not set). Test: select by those fields, or filter yourself.
//  5. Time and history. Compact forgets all history at once, where etcd and
//     the watch cache forget by a window of time and size; a continue token
//     expires only at a Compact; watches get no periodic bookmarks (only a
//     streaming list's initial-events-end). A GET or LIST that asks for a
//     version newer than the server's answers 504 at once (the real server
//     waits about three seconds first). Test: call Compact where the code under
//     test must meet 410 Expired, or ExpireWatches(res) to end the open
//     watches of res with one as well (expire.go).
//  6. Messages. A Status has the real reason, code and (for apply conflicts)
//     causes, but its message is apitest's own. UIDs are random, and names made
//     from generateName end in hex, both drawn from crypto/rand unless
//     NewHandlerWith is given a source (HandlerOptions.Rand). Test: match
//     errors with the apiclient.Is… helpers, never by message.
//  7. Versions. apitest is kube-apiserver v1.37: Pods have metadata.generation
//     (servers before 1.35 give them none); a custom resource's status write
//     owns only status in managedFields (1.32 also gives it the metadata it
//     sent); a streaming list's bookmark carries no list blueprint (1.32 adds
//     one); a LIST at a resourceVersion that is no number is 400 (1.32
//     answers 500); the faults of a built-in object's metadata in an
//     update are each one cause (1.32 repeats them: four times a label's
//     or an annotation's, twice a finalizer's). Test: against an older cluster, do not rely on these.
//  8. Not served: aggregated discovery (apidiscovery.k8s.io/v2: the legacy
//     documents are answered, which clients fall back to), authentication
//     and authorization, subresources
//     other than status and a custom resource's scale (a Deployment's
//     scale, eviction, log: 404), protobuf, YAML bodies
//     (JSON only — which is YAML — for apply too), watch of a Pod list from a
//     version kube-apiserver v1.37 still has in etcd but not in its cache
//     (apitest answers from its history; the harness does not compare it).
//  9. Webhooks, where they differ (controller/webhook's tests run the same
//     scenarios against apitest and a real server: apitest_test.go,
//     integration_test.go).
//     - Only a url clientConfig is called: a service one names a Service
//     an in-memory server cannot reach, and the call fails (refused under
//     failurePolicy Fail, skipped under Ignore). Test: give the webhook
//     Server a URL (webhook.Options.URL, or its test Addr).
//     - No reinvocation (reinvocationPolicy IfNeeded is Never), no
//     matchConditions (CEL: a webhook with them is called as if they
//     held), no audit annotations, no user (userInfo is empty), and no
//     admission policies (ValidatingAdmissionPolicy). matchPolicy is Exact:
//     a rule matches the version a write is made at — for a custom
//     resource converted by webhook, its storage version, which is what
//     the webhooks are sent, whatever version the client wrote (kube-
//     apiserver sends the version the rule names, and names the written
//     one in requestKind). Test: check reinvocation, CEL conditions and
//     rules for another version against a real server.
//     - Webhooks are called with the server's lock held, as the rest of a
//     write: a webhook that itself reads or writes this server waits
//     until its timeout, then fails. Test: keep webhooks that call the
//     API server to an integration test.
//     - A namespaceSelector is matched against the Namespace object's
//     labels, kubernetes.io/metadata.name among them.
//     - Conversion: with strategy None (or no CRD stored) a custom
//     resource has one stored copy for all its versions, served under
//     every version as it was last written (a v1 object read at v2 still
//     says apiVersion v1) — kube-apiserver changes apiVersion. A
//     converted object's managedFields name the storage version, where
//     kube-apiserver names the version each manager wrote. A conversion
//     failing in a watch ends it with an ERROR event. Test: read each
//     version of a custom resource without a conversion webhook in an
//     integration test.
//
// HoldWatch (hold.go) makes a resource's watches lag until the test releases
// them, while its writes are answered at once: a controller's cache behind its
// own write, on demand. WatchLag (lag.go) does the same from between a client
// and any server, a real one included, holding or delaying the watch's bytes.
//
// # Time
//
// The fake clock is clock.Fake (clock.NewFake), the fake of the module's one
// Clock (package apiclient/clock, where it is defined and tested), given to
// NewServer and to the client: nothing waits until the test calls Step. A test
// that has to move time waits for the code under test to start its wait first:
// BlockUntilWaiters(n) for "n waits pending", BlockUntilDue(d) for "a wait of d
// from now is pending" (the one to use when abandoned waits may linger).
//
// # TLS or plain HTTP
//
// NewServer listens on a loopback port over TLS with a fixed self-signed
// certificate, which Config gives as the CA: tests meet TLS as a controller
// meets it in a cluster. NewPlainServer is the same server over plain HTTP and
// without webhooks (it stores their configurations and calls none), for a
// program that starts one for itself and talks to it only from the same
// process, with no credential — the kubewire command's demo and its rbac and
// manifests workouts, none of which stores a webhook. A binary that calls only
// NewPlainServer links no TLS server and no webhook calls, which kept 0.27e6
// and 0.06e6 bytes out of the command (issue 42). NewHandler and
// NewHandlerWith call webhooks, as NewServer does.
//
// # Guarantees
//
//   - Server is safe for concurrent use; concurrent writes to one
//     object are serialised, and every write acknowledged is in the state the
//     next read sees (fidelity_test.go, and difftest's concurrency test).
//   - A replayed scenario is deterministic: the server does nothing the script does
//     not say, and holds any request beyond it.
//   - The server never panics on bad input; it answers with a Status, as the real
//     one does. (It aborts a response on purpose, with http.ErrAbortHandler, to play
//     "close" and "cut".)
//
// # Compared with client-go
//
// client-go's tests use fake clientsets (k8s.io/client-go/testing) that bypass HTTP
// entirely, or watch.FakeWatcher, or hand-written httptest handlers. Their object
// tracker keeps objects without the server's strategies; only its newer
// FieldManagedObjectTracker runs the real field manager, given the OpenAPI
// schemas, and controller-runtime's fake client applies through it. envtest
// runs a real kube-apiserver and etcd.
// Here every test goes over real HTTP and (with NewServer) TLS, through the
// same apiclient code a real cluster sees, against a server whose answers are
// checked against real ones (package difftest) — and where they are not the
// same, this list says so.
package apitest
