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
// selectors as the server does (the command checks -l with it before connecting).
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
//	token bucket ─▶ headers (User-Agent, Accept, Content-Type) ─▶ auth (kubeconfig)
//	   ─▶ HTTP ─▶ 2xx: the body to the verb
//	            ─▶ 429/5xx with Retry-After: wait as told, send again (10 times at most)
//	            ─▶ anything else: *StatusError (the server's Status, or code + trimmed body)
//
// # Objects without generated types
//
// An Object (object.go) is metadata decoded into typed fields, and the rest of the
// JSON kept as bytes. Field reads one value out of the bytes; Decode fills a struct
// of your own; Typed[T] wraps a resource so that Get and List return *T.
//
// # The decode path, and why it is hand-written
//
// A controller's cost is its cache, and every cached object comes through here,
// tens of thousands at startup and thousands a second under churn. So this one path
// does not use encoding/json, whose Decoder scans each byte through a general state
// machine, copies every value it returns, and decodes metadata by reflection:
//
//	wire ─▶ frame.go      cut the stream into values (track only strings and brackets),
//	                      in a reused buffer, reading more as needed: no copy
//	     ─▶ jsonvalid.go  validate the value and find its members in the same pass
//	                      (walkObject); it agrees with json.Valid on every input
//	     ─▶ meta.go       decode metadata by hand; intern namespace, label keys and
//	                      values, annotation keys (intern.go)
//	     ─▶ decode.go     keep one copy of the object without managedFields, and
//	                      without metadata too when Metadata holds it losslessly
//
// Measured on the recorded 5.2 KB pod of testdata (go test -bench Decode
// -benchmem ./apiclient, 2 cores, quiet, 2026-11-22), before → after:
//
//	DecodeObject            31 µs, 61 allocs, 5.0 KB  →  6–7 µs, 13 allocs, 3.4 KB
//	LIST of 10,000 pods     51 µs a pod               →  12–14 µs a pod
//	heap a cached pod holds 3.9 KB                    →  3.4 KB
//
// The figures against client-go on the same server are in README's Benchmarks.
//
// Each shortcut is pinned by a differential fuzz target (fuzz_internal_test.go):
// the validator against json.Valid, the metadata decoder against Unmarshal, the
// framing against the same stream read one byte at a time. Everything off the hot
// path (Status, lists' metadata, ownerReferences, Typed) still uses encoding/json.
//
// Two things the standard library's encoding/json gets wrong for Kubernetes are
// handled in strict.go: keys match case-sensitively ("Replicas" is not
// "replicas"), and numbers decoded into `any` stay exact (json.Number, not a
// float64 that rounds past 2^53).
//
// # Guarantees
//   - Client and ResourceClient are safe for concurrent use; a Watcher is read by one
//     goroutine (Close may come from another).
//   - Every failure is an error, never a panic: malformed JSON, a cut stream, an HTML
//     error page, an unknown resource. Messages are one line and name the request
//     ("GET https://host/api/v1/namespaces/x/pods/y: 404 NotFound: …"); no message
//     holds a credential.
//   - A LIST is decoded item by item as it arrives (ListEach), a watch event by
//     event (Watcher.Next): memory holds one item, not the response.
//   - A watch that receives nothing for WatchOptions.IdleTimeout is closed and
//     reported as ErrWatchIdle; one event over 16 MiB closes the stream with an error.
//   - Discovery is cached per Client until Invalidate.
//   - Watches are not rate limited; everything else waits on the token bucket
//     (5 QPS, burst 10 by default).
//
// # Compared with client-go
//
// client-go spreads this over rest (RESTClient, Config, request.go's retry and
// error mapping), kubernetes (the generated Clientset), dynamic (unstructured
// objects), discovery, apimachinery/pkg/api/errors, and util/retry. The behaviour
// kept: the same query parameters, the same Status-based errors and Is helpers,
// the same retry of Retry-After responses (at most 10), the same token bucket
// defaults, RetryOnConflict with retry.DefaultRetry's numbers, aggregated discovery
// with a legacy fallback, kubectl's resource-name resolution.
//
// What differs, and why:
//   - The decode path is hand-written (above); client-go uses its generated
//     deepcopy/json code, or protobuf, and keeps every string of every object.
//   - One Object type instead of generated structs or map[string]any
//     (unstructured.Unstructured): typed metadata, raw bytes for the rest. It is
//     smaller to cache than either, and any resource works the day its CRD does.
//     Typed[T] gives back the typed experience for structs the user declares.
//   - Watch is pull-based (Next) instead of a ResultChan fed by a goroutine: no
//     goroutine to leak, and the caller's loop reads like the protocol.
//   - client-go notices a dead connection under a watch through HTTP/2 pings; the
//     standard library's HTTP/2 client sends none, so a watch that has been silent
//     too long is dropped instead: WatchOptions.IdleTimeout here, and the
//     Reflector's own watchdog (its watch timeout plus a margin, on its clock).
//   - No protobuf: JSON only, which is what every resource (CRDs included) speaks.
package apiclient
