// Package listwatch keeps a local copy of one resource type in step with the API
// server: one LIST to learn what exists, then a ?watch=true stream to learn what
// changes, and the right recovery whenever either fails. Its Reflector writes into a
// Sink — in the pipeline, a FIFO of package fifo — and never stops quietly.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	             ^^^^^^^^^
//
// listwatch reads through an apiclient.ResourceClient and writes *apiclient.Object
// values into a Sink: Add, Update, Delete for watch events, Replace with everything
// after each list. Objects are keyed "namespace/name" (Object.Key), the key every
// later stage uses. It imports neither fifo nor store; their types satisfy Sink.
//
//	r := listwatch.New(client.Resource(apiclient.Pods).Namespace("demo"), queue, listwatch.Options{})
//	go r.Run(ctx)                       // until ctx is done
//	… r.HasSynced(), r.Health() …      // from any goroutine
//
// # States
//
// A Reflector is always in one of four states (Health().State); each arrow is one
// method in reflector.go or watch.go.
//
//	                  listed                rewatch: the server
//	Run ──▶ Listing ─────────▶ Watching ◀──┐ ended it normally
//	         ▲  │  ▲             │  │  │ ▲  │
//	         │  │  │             │  │  └─┼──┘
//	         │  │  └── relist ───┘  │    │
//	         │  │   410 Gone/Expired│    │
//	   retry │  │ backOff   backOff │    │ retry
//	         │  ▼           dropIdle▼    │
//	        BackingOff          BackingOff
//
//	(BackingOff is one state, drawn twice: it goes back to the state that failed.
//	From any state, ctx done ──▶ Stopped.)
//
// Listing: LIST — the first of the latest state, whole, where that costs the
// server no more (ListCheapest on 1.33 and later), else at resourceVersion=0
// (the server's watch cache) in pages of PageSize (Pager); a relist at the last
// version seen (list.go says which version when) — or a streaming list (Options.List; by default the cheaper of
// the two for the server, below), or a large LIST split into parts read at once
// at one resourceVersion (Options.Split, split.go); Replace the Sink with the
// result at the list's resourceVersion. A 410 on a continuation page lists
// everything at once; a 410 on the list itself lists the latest from etcd; a
// streaming list that fails before its end becomes a LIST (fallBack): at once when
// the server refuses it or sends a change before the end bookmark (it ignores
// sendInitialEvents), after a second of silence otherwise. Every list is bounded
// by the client's apiclient.ListLimits (1 GiB after decompression and 500,000
// objects by default, all pages, parts or initial events together, and no
// continue token twice): one past them fails like any other and backs off.
//
// Watching: watch from the last resourceVersion with allowWatchBookmarks and a
// timeoutSeconds drawn in [5, 10) minutes. Every event, bookmarks included, moves the
// resourceVersion on. A normal end watches again from there, without a LIST; a 410
// (ERROR event or response) lists again, and what vanished meanwhile reaches the Sink
// through Replace — at once the first time, after a backoff when it comes again
// within two minutes (relist); a watch silent for its timeout plus IdleMargin is dropped. A
// watch the server ends within a second backs off before the next, whatever it
// carried (errClosedAtOnce), so a server that hangs up at once cannot make it
// spin; a watch the server refuses with a 4xx other than 410 and 429 — a 400 for
// a resourceVersion it cannot read, a 403 — backs off and lists again, the latest
// state after a 400 (refusedWatch), since the same request would fail the same
// way.
//
// BackingOff: 0.8 s doubling to 30 s with jitter (Backoff), reset after two
// minutes without failure; a Status asking for a longer Retry-After is obeyed. Then
// the state that failed runs again. While the server does not answer at all
// (apiclient.IsUnreachable), the waits stay at 1–2 s, and its first answer
// starts the series again: after an outage every Reflector, a quiet one too, is
// listing or watching within two seconds of the server's return, told by its own
// next try.
//
// # resourceVersion in five minutes
//
// Every object, and every list, carries a resourceVersion: an opaque string that
// names a point in the history of the cluster's storage (etcd's revision, in
// practice). A Reflector never reads meaning into it; it only hands back the last
// one it saw, and that is enough for the whole protocol. What a request asks for,
// and so where the API server reads its answer, is one of four forms, each used
// by kubewire somewhere:
//
//	resourceVersion  match         the answer                       kubewire asks it for
//	""               (none)        the latest state: a consistent   get and the command's reads; a
//	                               read (from etcd, or from a       Reflector's first LIST on 1.33+
//	                               watch cache proven current,      (ListCheapest), and its list
//	                               1.31+)                           after a 410 or a version too new
//	                                                                for the server; sharding's
//	                                                                member Leases
//	"0"              (none)        any state the server has, from   a Reflector's first LIST
//	                               its watch cache: cheap, and      elsewhere (ListPaged, a release
//	                               behind etcd by an amount         it cannot read, FirstListAtZero)
//	                               nothing bounds
//	V                NotOlderThan  a state at V or later, from the  a Reflector's relist (a LIST that
//	                               watch cache once it has V        names no match is read so); a
//	                                                                streaming list ("" the first time:
//	                                                                the latest)
//	V                Exact         the state at V exactly           the parts of a split list, all at
//	                                                                the probe's V (split.go); a
//	                                                                continue token carries its own V
//
// The rest of the protocol follows from handing back the last version seen:
//
//   - "Any version will do" is the risk in the first LIST: an API server just
//     restarted, cut off from etcd, or one of several behind a load balancer
//     may answer with a state older than one this client has seen before. A
//     first list at "0" takes it, as client-go's does: cheap for the server, and
//     the watch that follows brings the copy up to date; where the latest state
//     costs the server no more (1.33 and later), the first list asks for it
//     instead, so a restarted replica starts from nothing older than the
//     cluster at its start. A relist may not go back (NotOlderThan the last
//     version seen); a reader that must see every write made before it
//     (sharding's claims) reads the latest.
//   - The watch starts at the list's resourceVersion V. The list is the state at V;
//     a watch from V sends exactly the changes after V. So every change after the
//     list arrives (no gap), and none the list already showed (no duplicate). A
//     watch from anything else would miss what changed between the two requests, or
//     begin by sending the whole state again as ADDED events.
//   - 410 Gone (a Status with code 410, as the response or as an ERROR event in
//     the stream) means the version asked for is older than the history the server
//     keeps: etcd compacts old revisions away (kube-apiserver asks it to every five
//     minutes by default) and the watch cache holds only a window of recent events.
//     The changes since that version cannot be had any more; only a new LIST can
//     say what exists, and Replace turns whatever it no longer names into deletes.
//   - A stream that is cut, or that the server ends at its timeout, resumes from
//     the last resourceVersion seen, without a LIST: every event up to that version
//     was applied, so a watch from it misses nothing and repeats nothing. Only if the
//     server no longer has that version does the answer become a 410 and a relist.
//   - A bookmark (allowWatchBookmarks=true) is an event whose object is empty but
//     for a newer resourceVersion: "you have seen everything up to here". It costs
//     nothing to apply and moves the resume point on. Without it, a watch on a quiet
//     resource in a busy cluster keeps an old version that ages out of history, and
//     its next watch gets a 410 and a full LIST; with it, the resume point stays
//     recent, and 410s are rare. kube-apiserver sends one about every minute and one
//     just before a watch's timeout (testdata/scenarios/bookmarks.rec shows both).
//
// # Choosing how to list
//
// A list costs the API server more than anything else a client asks, and every
// controller lists at every start, fail-over and relist. There are two ways:
//
//   - LIST (from the server's watch cache: at resourceVersion=0, or, 1.31+,
//     the latest state once the cache has caught up with etcd): one
//     response, or one per page. Up to Kubernetes 1.32 the server encodes the
//     whole response into one buffer before it writes a byte — 52 MB of JSON for
//     10,000 pods — and many clients listing at once is how API servers run out
//     of memory. From 1.33 it writes the items out one at a time as it encodes
//     them (KEP-5116, StreamingCollectionEncodingToJSON, beta and on by default),
//     and the buffer is gone.
//   - A streaming list (a watch with sendInitialEvents=true, KEP-3157): the
//     server sends each object from its watch cache as an ADDED event, then a
//     bookmark. It never holds the list as one buffer, but it encodes and frames
//     every object as a watch event of its own.
//
// Measured side by side on a 2-core machine (bench/sidebyside against a
// kube-apiserver of its own, so that no other client's work is counted; 10,000
// pods of 5.2 KB, medians of 5 runs, 2026-11-25), the CPU the API server spent
// on one sync:
//
//	                                   v1.37.2     v1.32.4
//	kubewire, LIST (JSON)              1.04 s      1.02 s
//	kubewire, streaming list (JSON)    2.10 s      2.41 s
//	client-go, LIST (protobuf)         0.41 s      0.33 s
//	client-go, streaming (protobuf)    0.96 s      0.78 s
//
// A streaming list in JSON costs the server twice the CPU of a LIST or more; the
// sync's wall time follows (1.61 s against 2.69 s on v1.37.2). Where LIST streams
// its encoding, a streaming list saves the server nothing, so ListCheapest, the
// default, lists with LIST from 1.33. Before 1.33 the streaming list keeps the
// server's memory flat — the price of twice the CPU, which a server survives
// where it may not survive a thousand 52 MB buffers at once — so ListCheapest
// streams there. (The server's peak RSS, sampled during each sync, moved too
// little and too unevenly at 10,000 and 50,000 pods to tell the two apart on
// either release: the buffer fits in the headroom of a warm server's heap.
// Measured again on 2026-11-28, 50,000 pods on v1.32.4: a plain LIST grew the
// server's sampled RSS by 0–954 MiB, median 424, a streaming sync by 0.1 MiB,
// at 2.9× the LIST's CPU; the server's high-water mark moved unevenly for both.
// bench/results/2026-11-28-sidebyside.md has the figures.)
// Turning gzip off costs more on both sides, not less (v1.37.2, 10,000 pods:
// server 0.99 s against 0.63 s, client 0.65 s against 0.35 s; again on
// 2026-11-28, medians of 8 alternating pairs: client 0.98 s against 0.66 s,
// server 1.92 s against 1.79 s), so responses stay compressed. Inflating is a
// quarter of the client's CPU (apiclient's readAhead); without it the client
// reads, decrypts and acknowledges (HTTP/2 window updates) five times the
// bytes, which costs it more than the inflating did. It learns the release from GET /version, once per
// Client (apiclient.Client.ServerVersion), and streams when it cannot read it.
// client-go asks for a streaming list whatever the server (its WatchListClient
// feature, on by default since v0.35), in protobuf, whose encoding costs the
// server less than JSON either way; kubewire speaks JSON only.
//
// # Using the cores
//
// A list runs on several cores at once. Each LIST body is read, and its gzip
// inflated, on a goroutine of its own while the objects already read are decoded
// (apiclient's readAhead), HTTP/2's read loop decrypting ahead of both. A large
// LIST is also split (split.go): a probe (LIST ?limit=1) gives the latest
// resourceVersion X and how many objects there are, and the list is read as up
// to Options.Split requests at once, all with resourceVersion=X and
// resourceVersionMatch=Exact — by hash range of the objects' UIDs
// (shardSelector, KEP-5866) where the server serves it, one per namespace in all
// namespaces where it does not — each decoded on its own goroutine; the parts
// together are exactly the list at X, and the watch starts from X. The parts
// are bound together by the client's ListLimits, as the list read whole is
// (apiclient.PageGuard.Part): not each by a bound of its own, nor by the count
// the server claims. The default
// splits where it helps: with 4 cores or more, on a server of 1.34 or later
// (which answers Exact from its watch cache's snapshots, where older ones read
// etcd), lists of 2,000 objects a part or more, into up to 8 parts. On 2 cores
// a split of 10,000 pods in 4 costs the server 10% more CPU and the sync no less
// time: the server's encoding, on the same two cores, is the wall.
// TestIntegration_a_split_list_equals_the_servers_list compares the cache with
// the server's list at X after each kind of split, on v1.37.2 and v1.32.4.
//
// # Synced
//
// A Reflector is synced once its first list — a LIST, or a streaming list up to its
// initial-events-end bookmark — has reached the Sink as one Replace. It says
// nothing about what the Sink did with it, and it stays true through relists,
// failures and backoffs. Health().Synced and HasSynced report it (one flag, read
// under the Reflector's lock); the Reflector itself uses it to count the lists
// after it as relists. A list that fails (a 404 for a CRD not installed yet, a
// 403, a 5xx, a body cut or malformed) neither syncs the Reflector nor touches
// the Sink: it backs off and lists again, for as long as it takes. Its other
// readers run a Reflector without an informer: the tests and the Example. The
// informer of package controller does not read it: its HasSynced means that every object of
// the first Replace has come out of the FIFO and reached the handlers, which is
// later.
//
// # Guarantees
//
//   - Run never gives up and never panics on what the server sends: a malformed or
//     oversized line, an unknown event type, a cut or stalled stream are logged,
//     reported in Health and recovered from. Only ctx stops it.
//   - A list holds at most what apiclient.ListLimits allows (with the defaults,
//     740 MB of RSS for real pods, 1.44 GB at worst: its doc has the
//     figures), and then fails with an error wrapping apiclient.ErrListLimit.
//   - A watch the server ended within a second is followed by a wait that grows
//     with each one, as every failure is.
//   - The Sink sees one Replace per completed list, then the watch's events in
//     order; nothing from a list that did not complete.
//   - A failed list never replaces the Sink's contents: whether the first list or
//     a relist, whether the server refused it (404, 403, 5xx) or its body broke
//     off, on the first page or a later one, in the unpaged LIST after an expired
//     continue token or a streaming list without its end bookmark, the Sink keeps
//     what it held and nothing is deleted. Only a LIST that read its last page, or
//     a streaming list that reached initial-events-end, is a Replace.
//   - Requests carry the selectors given, and nothing the caller did not ask for.
//   - Health, HasSynced and LastSyncResourceVersion are safe from any goroutine.
//   - With a fake Clock and a seeded Rand every wait and timeout is repeatable: the
//     scenario tests replay recordings (testdata/) against golden files of the
//     steps (Step.String).
//
// # Paging
//
// Pager reads a paged LIST object by object over apiclient's ResourceClient.Pages,
// the module's one paging loop (client-go keeps its own in tools/pager): Pages
// follows continue tokens and, after an expired token (410), lists everything at
// once; Pager hands each object on as it is decoded. The Reflector's lists, ListAll
// and `kubewire get` use it. One apiclient.PageGuard follows the whole list: its
// bytes and objects (the client's ListLimits) and every continue token it has
// seen.
//
// # Recording
//
// Record is a Reflector whose client sends its requests through a
// recording.Transport: what the server answers — its GET /version, the list
// ListCheapest sends to that release (a LIST from 1.33, a streaming list
// before), the watches, the relists — is kept verbatim, with secrets redacted,
// in the format of package recording; apiclient/apitest replays such files
// into an informer with default options.
//
// # Compared with client-go
//
// client-go's Reflector (tools/cache/reflector.go, with tools/pager for paging and
// listwatch.go for the requests) behaves the same where the protocol is concerned:
// resourceVersion=0 first (but on 1.33+, below), "not older than" relists, the
// pager's fall back to a full list on an expired continue token, random watch
// timeouts of 5–10 minutes, bookmarks, 410 → relist, the backoff numbers,
// streaming lists with the initial-events-end bookmark and a fall back to LIST.
// What differs, and why:
//
//   - A watch that breaks — a cut or dropped stream, a malformed line, an error
//     when opening it (other than 410 and a 4xx refusal) — is resumed from the last resourceVersion
//     after a backoff. client-go watches again at once after a cut (it cannot tell
//     one from a normal end), and relists after a malformed line (the default
//     MaxInternalErrorRetryDuration is 0) or an unexpected error opening the
//     watch. Nothing was lost — every event up to that resourceVersion was applied
//     — so a LIST would only cost the server, and a server that cuts streams is
//     in trouble and gets a pause.
//   - A dead connection is found by a watchdog on the reflector's clock: a watch
//     silent for its timeout plus IdleMargin is dropped (as kube-rs does), and
//     Health().LastError is ErrWatchIdle. client-go relies on HTTP/2 health pings
//     alone; kubeconfig's transport sets the same pings (a dead connection fails
//     the watch within 45 s), and the watchdog stays as the watch layer's own
//     check: it also covers HTTP/1.1 and a server that answers pings but sends
//     nothing, and it runs on a fake clock in tests.
//   - A 410 is relisted at once (client-go waits its backoff) — once in the
//     backoff's ResetAfter: a 410 with no event since the list, or a second one
//     within two minutes, waits out the backoff, whose waits grow while it goes
//     on (relist), so that a server answering the same way cannot make a LIST
//     loop, however little each watch brings (TestReflector_every_retry_loop_has_a_floor
//     drives every loop against such servers).
//   - While the server does not answer, the backoff stays at 1–2 s instead of
//     growing to 30–60 s, and the server's first answer resets it (client-go
//     resets after two minutes without failure only, so a quiet informer may
//     wait up to a minute after the server is back). Asking a server that is
//     down costs it nothing; asking one that answers with failures gets the
//     whole series still.
//   - A watch that ends within a second backs off even when it carried events;
//     client-go counts any event as progress and watches again at once.
//   - A list has a byte bound (apiclient.ListLimits) besides its objects, and a
//     continue token seen anywhere before in the list ends it; client-go's pager
//     has neither, and follows a server's tokens for as long as it sends them.
//   - Every step is a Step value with one line of text, for traces and golden
//     files, and Health is one snapshot instead of scattered metrics.
//   - A list that fails does not reach the Sink, as in client-go (its list
//     returns the error before syncWith). An earlier version of this package
//     emptied the Sink on a 404 "so that nobody waits forever"; that marked an
//     informer synced with an empty cache while a CRD was missing (issue 14).
//   - On a server of 1.33 or later (ListCheapest) the first LIST asks for the
//     latest state, unpaged, not resourceVersion=0 in pages: it costs such a
//     server no more, and a replica restarted behind a lagging API server does
//     not act on an old view (list.go has the figures; Options.FirstListAtZero
//     keeps client-go's way).
//   - client-go lists with one request (or one page after another), decoded
//     on the goroutine that reads it; a large list here is split into parts at
//     one resourceVersion, read and decoded at once (Using the cores).
//   - Streaming lists collect into a plain slice rather than a temporary store,
//     since the Sink receives them as one Replace anyway, and a server that keeps
//     the contract sends each object once, as ADDED, before the end bookmark.
//   - A server that ignores sendInitialEvents is found out within a second: at
//     the first change before the end bookmark, or after a second of silence
//     (watch.go, initialEventsIdle), and the list becomes a LIST. client-go waits
//     for a bookmark until the watch's timeout (5–10 minutes) and, meanwhile,
//     collects the changes into its temporary store as if they were the state.
package listwatch
