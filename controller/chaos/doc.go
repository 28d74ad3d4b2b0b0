// Package chaos holds no code, only a test: the whole pipeline, run against a real
// kube-apiserver while the faults that real clusters produce are thrown at it, must
// end with a cache that equals the server and a reconciler that saw every final
// state.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^   all of it, at once
//
// # The run
//
// chaos_test.go is the story; each other file is one actor in it:
//
//	cluster_test.go   an etcd and a kube-apiserver of the test's own, on free ports,
//	                  started with --watch-cache=false and a short
//	                  --etcd-compaction-interval, so that history goes quickly
//	proxy_test.go     a TLS-terminating TCP proxy between the pipeline and the server
//	                  that cuts watch streams in the middle of an event, and can pause
//	                  (drop every connection, refuse new ones)
//	churn_test.go     2,000 creates, updates and deletes of pods, retried through
//	                  every outage
//	schedule_test.go  the faults, each begun before a fixed op of the churn
//	compare_test.go   what "converged" means, and a test that it can tell when not
//
// The faults, in one run: the API server is stopped and started again 10 times
// (SIGKILL, and SIGTERM with 3 s to go, in turn) while the churn retries through
// each outage; twice the proxy pauses, for two compaction intervals and until the
// server has compacted away the reflector's resourceVersion, so that the watch
// resumes into a 410 and must relist; and all along the proxy cuts watch streams mid-object. The Reflector's
// backoff is shortened (at most 0.5 s, doubled by jitter), or the last outage
// would be followed by up to a minute of waiting.
//
// # Guarantees it checks
//
//   - Within 5 s of the last fault the informer's cache holds exactly the pods the
//     server lists, at the same resourceVersions.
//   - The reconciler's last read of every key is its final state: the server's
//     resourceVersion, or absent for a pod that is gone.
//   - After shutdown the process has no more goroutines than before the pipeline
//     started.
//   - The counts it reports (410s, relists, broken streams) come from the pipeline's
//     own steps (listwatch.Step) and Health, the cuts from the proxy.
//
// It runs when KUBEWIRE_TEST_KUBECONFIG and KUBEWIRE_TEST_CLUSTER_DIR are set (.ci/run
// sets both): the cluster directory's apiserver.sh and pki/ say how to start a server
// and which credentials it accepts. Without KUBEWIRE_TEST_CLUSTER_DIR it skips; with
// it, anything missing (the kubeconfig, apiserver.sh or a flag in it, the etcd
// binary, pki/) fails the run rather than switching it off. The shared server is never touched, so the other
// packages' integration tests run beside it undisturbed.
package chaos
