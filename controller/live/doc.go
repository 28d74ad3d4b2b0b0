// Package live shows a running pipeline in a browser: six stages side by side,
// their counts moving as objects pass, one object followed hop by hop, and a
// step mode that makes the pipeline wait at every hop until the reader asks for
// the next one. It is what `kubewire demo|run|sync --ui ADDR` serves.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ handlers ─▶ queue ─▶ controller
//	    │            │          │       │          │          │          │
//	    └────────────┴──── trace lines (--trace) ──┴──────────┴──────────┘
//	                                 │
//	                                 ▼
//	                   Hub (hub.go) ─▶ pages (server.go, web/)
//	controller.Manager.Pipeline ─────▶ the counts of every stage
//
// The page is told two things, and invents nothing. The counts come from
// controller.Manager.Pipeline, which reads each stage's own numbers through
// the walker /metrics reads too, and names each after its /metrics series
// (package pipeline: the queue's "delayed" is what AddAfter holds, every
// AddAfter, not only retries). The hops come from the trace: every stage
// already reports each object it handles as a trace.Event (stage, verb, key,
// resourceVersion, …; --trace prints it as one line, "fifo pop Updated
// demo/web-2 rv=7"), and ManagerOptions.Trace hands those Events to Hub.Trace.
// The Hub reads an Event's fields, never its text (hop.go), and explains it in
// one sentence with the file that does it — the tutorial, one hop at a time.
//
// # The whole move
//
//	var m *controller.Manager // the Hub reads its Pipeline once a page is open
//	hub := live.New(live.Options{Command: "run", Pipeline: func() pipeline.Snapshot { return m.Pipeline() }})
//	m, _ = controller.NewManager(client, controller.ManagerOptions{Trace: hub.Trace})
//	ln, err := live.Listen("127.0.0.1:8080") // fails now, not halfway through
//	go hub.Serve(ctx, ln)                    // until ctx ends
//	err = m.Run(ctx)
//
// controller/cli/ui.go wires it so for the three commands.
//
// The HTTP API (server.go), which the page's script (web/app.js) reads:
//
//	GET  /api/snapshot       the counts: Snapshot (pipeline.Snapshot and the latest keys)
//	GET  /api/events         Server-Sent Events: "snapshot" when the counts change (at
//	                         most 4 a second), "hop" for each hop of ?follow=NAMESPACE/NAME,
//	                         "step" in step mode
//	GET  /api/follow?key=K   K's remembered path
//	POST /api/step           step mode: let the paused hop go on (409 if none is paused)
//
// example_test.go follows a pod through a recorded trace.
//
// # Following one object
//
// A path is the object's own hops (its watch events, the FIFO pops, the store
// writes, the handlers told) and what they caused: a queue hop says which
// object's event queued it ("queue add demo/tools from=demo/web-2", traced by
// controller/watch.go), and from then on the reconciles of that Request and the
// writes made meanwhile are on the path too. Each hop carries the time since the
// Hub started, so the page shows how long each stage took.
//
// # Guarantees
//
//   - With no page open, a hop costs a lock and a copy of its Event into a
//     slot of a ring of 8,192: nothing formatted, nothing allocated; the line
//     and the sentence are made only when a page reads the hop. The counts are read only for an open page, at
//     most 4 times a second. Measured in README: side-by-side sync with --ui and
//     no page open.
//   - Memory is bounded: 8,192 hops remembered, 32 pages at once (the 33rd
//     replaces the oldest), 1,024 hops waiting per page (a page that falls
//     behind misses hops; the pipeline never waits for a page — except in step
//     mode, where waiting is the point), 64 connections open (the next are
//     closed as they come), 10 s for a request to arrive, its body included
//     (one that declares a body and never sends it is dropped then), an idle
//     one closed after 30 s, a stream whose reader takes nothing for 10 s
//     dropped, a stream that is read never (guard.go; the bounds are every
//     server's of the process, metrics.Limits).
//   - Step mode stops the whole pipeline at each hop, one hop at a time, until
//     POST /api/step; stopping the command (Ctrl-C) or closing the Hub lets every
//     waiting hop go on, so a stop never hangs on a page nobody clicks.
//   - The page belongs to the person who opened it. It is served only on the
//     address asked for; an address without a host (":8080") is loopback (the
//     rule of --metrics-addr too), and the command warns about any other. It
//     answers only requests whose Host is that address (or a loopback name,
//     for a loopback bind), so another website cannot rebind its DNS name to
//     read it (the Host rule of every server of the process,
//     metrics.HostsFor), and takes a step only from its own Origin
//     (guard.go). It shows
//     names, counts, resourceVersions, trace lines and errors, which carry no
//     object contents, tokens or Secret data, and nothing from the credential
//     path (an exec plugin's output, token files, kubeconfig paths:
//     kubeconfig.Error's message holds none of them). Its
//     script puts every string on the page with textContent, and the
//     Content-Security-Policy lets it load nothing from elsewhere: it works with
//     no network, and nothing on it runs what a server sent. Its API, read
//     with curl too, writes every rune that is not printable as a \u escape
//     (control characters, DEL, the C1 controls, bidi overrides): no name
//     from the cluster acts on a terminal.
//   - The trace tells cause before effect: a watch event's line comes before the
//     FIFO can pop it, a handler's line before it is handed the change, a queue
//     add before the reconcile it starts, a write's "sent" hop before the
//     server has it. Across goroutines that race (a write's "answered" hop is
//     traced when its answer comes, which may be after the watch event it
//     caused) the path shows the order the hops were traced.
//
// # Compared with client-go
//
// client-go, controller-runtime and kube-rs export metrics (workqueue depth,
// reconcile latency) for a dashboard built elsewhere; none of them shows the
// pipeline itself or follows one object through it, and none can pause it. The
// nearest things are klog at -v=6 and above (requests, not hops) and tracing
// with OpenTelemetry spans around reconciles (not the informer's stages). This
// package exists because kubewire is also read as a tutorial: the same trace that
// --trace prints is made visible, and steppable.
package live
