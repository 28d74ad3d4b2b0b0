// Package apiclient talks to the Kubernetes API server over plain HTTP: the REST
// verbs, watch streams, discovery, and objects of any resource with no generated
// code.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	^^^^^^^^^
//
// Everything else in kubewire reaches the server through here. Sub-package
// kubeconfig finds the server and the credentials; recording is the file format of
// recorded exchanges; apitest is an in-memory API server (live, or replaying a
// recording) for tests and the demo; selector parses and matches label and field
// selectors as the server does (the command checks -l with it before connecting);
// builtin has apply-ready Go types for the built-in kinds operators create.
//
// Learning the pipeline? Treat apiclient as a black box at first: it lists,
// watches and writes objects, and every failure comes back as an error. Read fifo,
// store, queue and controller first, and come back here for what happens on the
// wire.
//
// # The files
//
//	client.go                   Client: one per cluster (New, Options); clock.go its clock
//	request.go                  the one request path, and the token bucket
//	verbs.go, options.go        Get, Create, Update, Patch, Delete and their options;
//	write.go                    Observer.Write: each write of one object and its answer
//	list.go, table.go, typed.go LIST (streamed item by item), Table, Typed[T];
//	readahead.go                a LIST body read on a goroutine of its own
//	paging.go                   ListLimits and PageGuard: what one list may bring in
//	errors.go                   Status, StatusError, the Is helpers, RetryOnConflict
//	object.go, meta.go          Object and ObjectMeta;
//	decode.go, strict.go        how their JSON is read (DecodeOptions, Unmarshal)
//	watch.go                    Watch and Watcher
//	resource.go, discovery.go,  Resource, discovery (cached), and kubectl's
//	resolve.go                  resource-name resolution
//
// # The whole move
//
//	cfg, _ := kubeconfig.Load(kubeconfig.Options{})           // where, and who we are
//	c, _ := apiclient.New(cfg, apiclient.Options{})           // one per cluster, shared
//	pods := c.Resource(apiclient.Pods).Namespace("default")   // or c.Resolve(ctx, "po")
//	list, _ := pods.List(ctx, apiclient.ListOptions{LabelSelector: "app=nginx"})
//	w, _ := pods.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{ResourceVersion: list.ResourceVersion}})
//	for ev, err := w.Next(); err == nil; ev, err = w.Next() { … }
//
// example_test.go runs these against a test server; integration_test.go runs the
// classic client-go Deployment walk against a real kube-apiserver.
//
// # One request path
//
// Every call, whatever its verb, becomes a request value and goes through
// Client.do (request.go):
//
//	token bucket (with QPS set) ─▶ headers (User-Agent, Accept, Content-Type) ─▶ auth (kubeconfig)
//	   ─▶ HTTP ─▶ 2xx: the body to the verb
//	            ─▶ 429/5xx with Retry-After: wait as told, send again (10 times at most)
//	            ─▶ anything else: *StatusError (the server's Status, or code + trimmed body)
//
// # Objects without generated types
//
// An Object (object.go) is metadata decoded into typed fields, and the rest of the
// JSON kept as bytes. Field reads one value out of the bytes; Decode fills a struct
// of your own (keys match exactly: give every field a json tag); Typed[T] wraps a
// resource so that Get and List return *T. Raw is the object as it is now. A
// cache may keep the bytes packed against those of an object like it (Pack,
// pack.go: a pod in 135 bytes instead of 2,223); every reader unpacks them
// first, so nothing reads differently.
//
// The bytes are read by a JSON engine of its own, internal/jsonwire (framing, one
// validating walker, interning), because every cached object passes through it;
// meta.go decodes metadata with it by hand, decode.go keeps one copy of each
// object. Its design and its figures are in jsonwire's package doc. Everything off
// that path (Status, lists' metadata, ownerReferences, Decode) uses encoding/json,
// through Unmarshal (strict.go) where Kubernetes reads JSON differently: keys match
// case-sensitively ("Replicas" is not "replicas"), and numbers decoded into `any`
// stay exact (json.Number, not a float64 that rounds past 2^53).
//
// # Guarantees
//   - Client and ResourceClient are safe for concurrent use; a Watcher is read by one
//     goroutine (Close may come from another).
//   - Every failure is an error, never a panic: malformed JSON, a cut stream, an HTML
//     error page, an unknown resource. Messages are one line and name the request
//     ("GET https://host/api/v1/namespaces/x/pods/y: 404 NotFound: …"); no message
//     holds a credential.
//   - A LIST is decoded item by item as it arrives (ListEach), a watch event by
//     event (Watcher.Next): memory holds one buffer of the body (256 KiB for a
//     LIST, four 64 KiB chunks read ahead), not the response.
//   - Every body is bounded after decompression: a list by ListLimits (1 GiB and
//     500,000 objects, all its pages together, each page read through
//     PageGuard.Body; no continue token twice in one list), a document read
//     whole (discovery, a Table page) at 64 MiB, one object or watch event at
//     16 MiB. A list stopped at its bounds is an error wrapping ErrListLimit.
//   - One watch event over 16 MiB closes the stream with an error. A watch is not
//     timed here: the Reflector's watchdog (listwatch) notices a silent one.
//   - A request that got no answer at all (refused, reset, timed out) is told
//     apart from one the server answered: IsUnreachable.
//   - What a Client is told to do with its requests — its Observer, Clock and
//     logger — is fixed when it is made (New, or Derive, which leaves the
//     client it derives from unchanged), and changed at most once after, by
//     Adopt (a controller.Manager adopts the client it is given, so that no
//     request made through it escapes the Manager; a second Adopt is an
//     error). A request reads them once, as it starts: nothing changes under
//     a request in flight. An Observer is told what the caller asked (verb, resource,
//     namespace, name, subresource) with the caller's context, never a URL to
//     parse back.
//   - Discovery is cached per Client (and the clients Derived from it) until
//     Invalidate. The group, version and resource names it learns are checked
//     before they become paths: a name that is not one is never asked for
//     (discoverynames.go).
//   - The server's warnings are logged once each, cut to 1 KiB, at most 20
//     lines a minute (warning.go).
//   - Watches are not rate limited; with Options.QPS set, everything else waits
//     on the token bucket (off by default: Options.QPS says why).
//
// # Compared with client-go
//
// client-go spreads this over rest (RESTClient, Config, request.go's retry and
// error mapping), kubernetes (the generated Clientset), dynamic (unstructured
// objects), discovery, apimachinery/pkg/api/errors, and util/retry. The behaviour
// kept: the same query parameters, the same Status-based errors and Is helpers,
// the same retry of Retry-After responses (at most 10), the same token bucket
// (burst 10 by default), RetryOnConflict with retry.DefaultRetry's numbers,
// aggregated discovery with a legacy fallback, kubectl's resource-name
// resolution.
//
// What differs, and why:
//   - No client-side rate limit unless Options.QPS is set; client-go's is on,
//     at 5 QPS. The server's Priority and Fairness protects it (Options.QPS
//     says why, with figures).
//   - The decode path is hand-written (internal/jsonwire); client-go uses its
//     generated deepcopy/json code, or protobuf, and keeps every string of every
//     object.
//   - One Object type instead of generated structs or map[string]any
//     (unstructured.Unstructured): typed metadata, raw bytes for the rest. It is
//     smaller to cache than either, and any resource works the day its CRD does;
//     packed (Pack), smaller than the JSON it came in.
//     Typed[T] gives back the typed experience for structs the user declares.
//   - Watch is pull-based (Next) instead of a ResultChan fed by a goroutine: no
//     goroutine to leak, and the caller's loop reads like the protocol.
//   - A dead connection under a watch is noticed twice over. kubeconfig's
//     transport sends HTTP/2 health pings as client-go's does (its 30 s and
//     15 s, through http.HTTP2Config, Go 1.24); beside them the Reflector's
//     watchdog (its watch timeout plus a margin, on its clock) drops a watch
//     silent too long, which pings miss over HTTP/1.1 or from a server that
//     answers pings and sends nothing.
//   - No protobuf: JSON only, which is what every resource (CRDs included) speaks.
//   - A list has bounds of its own (ListLimits); client-go reads whatever a LIST
//     response holds, and its pager follows continue tokens for as long as the
//     server sends them.
package apiclient
