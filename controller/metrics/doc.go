// Package metrics is how a controller process shows what it is doing: a small
// registry of Prometheus metrics, rendered as the text format, and the one HTTP
// listener that serves it at /metrics next to the /healthz and /readyz probes.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^
//	                                                    metrics: what every stage counts
//
// Every stage keeps its own numbers as plain values (queue.Metrics, an informer's
// counts, the reflector's relists); the controller's manager registers them here,
// mostly as funcs read at scrape time, so nothing is counted twice. The pipeline's
// leaves (apiclient, listwatch, fifo, store, queue) do not import this package;
// under controller/ the informer, the sharder and the reconcile loop use its
// Histogram for what they time (main_test.go's table says who may). Three adapters are ready-made: RESTClient for an
// apiclient.Observer's Answered, Workqueue for package queue's snapshot, and LeaderElection for an
// elector's IsLeader.
//
// # The whole move
//
//	reg := new(metrics.Registry)
//	obs := apiclient.Observer{Answered: metrics.RESTClient(reg)} // requests by code, latency
//	metrics.Workqueue(reg, "pods", q.Metrics)                   // one queue per controller
//	metrics.LeaderElection(reg, "kubewire", elector.IsLeader)   // 1 on the leader, 0 elsewhere
//	reg.GaugeFunc("informer_cache_size", "Objects in the cache.",
//		metrics.Labels{"resource": "pods"}, func() float64 { return float64(cache.Len()) })
//	reconciles := reg.CounterVec("controller_runtime_reconcile_total",
//		"Reconciles, by result.", "controller", "result")
//	reconciles.With("pods", "success").Inc()
//
//	srv := metrics.Server{Addr: "127.0.0.1:8080", Registry: reg, Ready: ready}
//	err := srv.Run(ctx)                                         // until ctx is done
//
// example_test.go renders a page; testdata/page.golden is a whole one.
//
// # Every server of the process, one rule
//
// listen.go holds what every HTTP server of a kubewire process follows, this
// package's Server and the live page (controller/live) alike, so that it is
// stated once:
//
//   - Listen: an address without a host (":8080") is loopback; every
//     interface must be asked for ("0.0.0.0:8080").
//   - HostsFor: which Host headers a server answers, its own address and the
//     loopback names. This is what stops DNS rebinding (a website pointing its
//     own name at 127.0.0.1, so that the user's browser reads the server for
//     the website). The page applies it wherever it listens; Server applies
//     it on loopback, since beyond loopback a Prometheus scrape comes by a pod
//     IP or a Service's name, which the process cannot know.
//   - Limits: 10 s for a request's headers, 10 s for the whole request (its
//     body included: a request that declares a body and never sends it is
//     dropped then), 10 s to write a response (a stream sets its own deadline
//     before each write), 30 s for an idle keep-alive connection, 64
//     connections open at once (the next are closed as they come).
//
// Beyond loopback, then, anybody who reaches the address may read what
// Server answers. /metrics is what a scraper must read. /readyz's detail
// (what the ReadyFunc says: the namespaces and selectors waited on, the shard
// ranges served, other replicas' identities, a server's errors) is not needed
// by a kubelet, which reads the status code: beyond loopback /readyz answers
// "ok" or "not ready" alone unless Server.ReadyDetail (kubewire run
// --readyz-detail) asks for the detail. On loopback it always gives it: only
// this machine, not a website, can ask there. kube-apiserver's /readyz
// withholds a failed check's reason from its answer in the same way ("reason
// withheld") and logs it.
//
// # The text format
//
// Version 0.0.4 of the Prometheus exposition format, the one every scraper reads:
//
//	# HELP rest_client_requests_total HTTP requests made to the API server, …
//	# TYPE rest_client_requests_total counter
//	rest_client_requests_total{code="200",host="127.0.0.1:6443",method="GET"} 12
//	rest_client_requests_total{code="409",host="127.0.0.1:6443",method="PUT"} 1
//
// A histogram is a family of lines: one _bucket per upper bound (cumulative, with
// the bound in the label le, ending with le="+Inf"), then _sum and _count.
//
// # Guarantees
//
//   - The page is deterministic: families sorted by name, series by label values
//     (label by label), numbers in the shortest form that reads back exactly. Two
//     scrapes of an idle process are byte-identical.
//   - Label values are escaped as the format requires (\\, \", \n), and so is help
//     text (\\, \n); names are checked when registered.
//   - Registering a name twice the same way returns the same metric; registering
//     it differently, or a func series twice, panics: the page would be invalid
//     and Prometheus would reject every scrape, so it is caught at wiring time.
//   - Counter, Gauge and Histogram updates take no lock (atomics), and With on an
//     existing series allocates nothing; everything is safe for concurrent use.
//   - Funcs are called at scrape time with no registry lock held.
//   - Server.Run returns nil once ctx is done and requests in flight have finished.
//   - /readyz writes what the ReadyFunc says with every rune a terminal would
//     act on (C0 and C1 controls, DEL, format characters, bytes that are not
//     UTF-8) as its Go escape (\x1b, \n, \u009b): identities, Lease names and
//     a server's errors come from the cluster, and are read by people with
//     curl.
//
// # Compared with client-go
//
// client-go declares metric interfaces (tools/metrics, util/workqueue's
// MetricsProvider) and leaves the implementation to the program, which usually
// brings in prometheus/client_golang through component-base/metrics (or, with
// controller-runtime, pkg/metrics and its global registry). This package is the
// part of client_golang a controller uses: counters, gauges, histograms, funcs,
// labels, the text format. It keeps client-go's metric names and labels
// (rest_client_requests_total{code,host,method}, workqueue_*{name}), so existing
// dashboards read it. The controller's own families are kubewire_*, shaped as
// controller-runtime's controller_runtime_*: kubewire_reconcile_time_seconds on
// its buckets (ReconcileBuckets), kubewire_reconcile_total (also labelled
// {result}: success, requeue_after, requeue, error, terminal, and stale_skip,
// a turn the staleness guard held back), _errors_total, _terminal_errors_total,
// _panics_total, _dropped_total, kubewire_reconcile_backoff_requests (Requests
// waiting out a backoff), kubewire_active_workers and
// kubewire_max_concurrent_reconciles, each labelled {controller}; and
// kubewire_own_writes_abandoned_total{controller,resource}, the process's own
// writes no cache showed in time, which the staleness guard and
// read-your-own-writes reads stopped waiting for.
//
// What differs, and why:
//   - No global registry and no init(): the manager makes one and hands it on, so a
//     test can build two managers in one process without their metrics colliding.
//   - Funcs rather than push: a stage's numbers are read when scraped, so a stage
//     never depends on this package and a metric can never drift from the state it
//     describes. client-go's workqueue instead pushes every change into its
//     provider, and runs a goroutine to update the in-flight gauges.
//   - No summaries, no exemplars, no protobuf or OpenMetrics negotiation, no gzip:
//     plain text is what a controller's few hundred lines need.
//   - Label values are held in a fixed array, so looking up a series allocates
//     nothing; at most eight labels per family (client_golang has no limit).
package metrics
