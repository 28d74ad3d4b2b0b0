// Package manifests makes the objects that run a controller in a cluster:
// its ServiceAccount, the least-privilege RBAC its Manager needs (package
// rbac), its CRDs, a Deployment of its container with probes on the metrics
// server, and a Service in front of that server — with Options.Webhooks, the
// webhook server's port, its Service and its Secret and configurations too —
// and writes them as one YAML stream that kubectl apply -f (or a server-side
// apply of each document) takes. The objects are apiclient/builtin's kinds.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^ (beside rbac: what to deploy, not a pipeline stage)
//
// # What the Deployment is
//
//   - The metrics server listens on 0.0.0.0:PORT: kubewire takes ":8080" as
//     loopback (metrics.Listen), where the kubelet's probes and a scrape, which
//     come from outside the pod, could not reach it. Beyond loopback the server
//     answers any Host header (metrics.Server): the kubelet's probe says the
//     pod's IP, a scrape through the Service its name. /readyz says ok or not
//     ready and no more there (--readyz-detail would say why).
//   - Liveness on /healthz, readiness on /readyz, by the port's name.
//   - Hardened as the restricted Pod Security Standard asks: runAsNonRoot
//     (user 65532), no privilege escalation, every capability dropped, the
//     RuntimeDefault seccomp profile, and a read-only root filesystem (the
//     process writes no file).
//   - Requests of 10m CPU and 64 MiB, a limit of 256 MiB; no CPU limit (a
//     throttled controller falls behind its watches; the request is its share).
//   - With more than one replica, the container runs with --leader-elect
//     unless it shards: two replicas reconciling the same objects at once fight.
//
// No Namespace object is made: a manifest that holds its namespace deletes
// everything in it when deleted (kubectl delete -f), and an operator is often
// installed into a namespace that exists. Create it first if it does not.
//
// # Guarantees
//   - The same Options give the same bytes (objects, fields and keys in a
//     fixed order).
//   - Every object names its namespace, so the stream applies the same
//     whatever kubectl's context says.
package manifests
