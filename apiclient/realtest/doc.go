// Package realtest is the setup of every integration test: the real kube-apiserver
// named by KUBEWIRE_TEST_KUBECONFIG (.ci/run starts one with .ci/cluster/up.sh), a
// client for it, and a namespace of the test's own.
//
//	func TestIntegration_something(t *testing.T) {
//		c, _ := realtest.Client(t, apiclient.Options{QPS: 50, Burst: 100}) // skips without a server
//		ns := realtest.Namespace(t, c, "kubewire-something")               // deleted when the test ends
//		…
//	}
//
// A test that starts a kube-apiserver of its own (to kill it) takes its script and
// certificates from ClusterDir (KUBEWIRE_TEST_CLUSTER_DIR) and its port from FreePort.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	^^^^^^^^^ (a real server, for the integration tests of every stage)
//
// Tests only: it imports package testing, so a non-test file that imported it would
// link testing into the kubewire binary. main_test.go refuses that. The internal
// tests of package apiclient cannot use it either (an import cycle).
//
// # Guarantees
//
//   - Without KUBEWIRE_TEST_KUBECONFIG every function that needs the server skips
//     the test, always with the same reason ([SkipReason]); with it, any failure to
//     load the kubeconfig, build the client or create a namespace fails the test.
//     ClusterDir skips, with its own reason, without KUBEWIRE_TEST_CLUSTER_DIR.
//   - A namespace is fresh: its name is the prefix and random hex, because the test
//     server has no namespace controller and a deleted namespace stays Terminating
//     for good, so a name cannot be used twice, nor by two runs at once.
//   - Nothing here waits or retries: each call makes one request at most.
//   - Nothing is shared between calls: parallel tests may use it freely.
package realtest
