package apitest

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
)

// Namespaces live as on a kube-apiserver with no controller manager — the
// bare server the project tests against — less the wait:
//
//   - default, kube-system, kube-public and kube-node-lease exist from the
//     start (at resourceVersion 1, the server's first), as on any cluster;
//     the first three may not be deleted (403).
//   - A namespace is created Active, with the label kubernetes.io/metadata.name
//     and the finalizer "kubernetes" in spec.finalizers, which an update does
//     not change (only PUT …/finalize does).
//   - A write that would create an object in a namespace that does not exist
//     is 404 (namespaces "x" not found), as the NamespaceLifecycle admission
//     plugin answers; in one being deleted, 403 with the cause
//     NamespaceTerminating. Updates, patches and deletes of what is there go on.
//   - DELETE marks a namespace Terminating (deletionTimestamp, status.phase)
//     while spec.finalizers holds it. On a cluster the namespace controller
//     then deletes its contents and removes its "kubernetes" finalizer by a
//     PUT of …/finalize; here the test does that PUT (apitest has no
//     controllers), and the controller's work is done at once: every object
//     in the namespace is deleted as a DELETE of it would be (those
//     finalizers hold stay, marked), and the namespace goes when no
//     finalizer is left.

// immortal are the namespaces kube-apiserver refuses to delete.
var immortal = []string{"default", "kube-system", "kube-public"}

// seedNamespaces stores the namespaces every cluster starts with; called by
// init.
func (l *liveState) seedNamespaces() {
	l.seed("default", "kube-system", "kube-public", "kube-node-lease")
}

// seed stores the namespaces names that do not exist, at the current
// version, with no event; called with l.mu held (or by init). Their uids are
// made from their names: they draw nothing from HandlerOptions.Rand, so that
// what a seeded handler draws for the test's own objects stays the same.
func (l *liveState) seed(names ...string) {
	coll := l.collection("namespaces")
	for _, name := range names {
		if _, ok := coll[name]; ok {
			continue
		}
		coll[name] = object{"apiVersion": "v1", "kind": "Namespace",
			"metadata": map[string]any{"name": name, "uid": randomUID(sha256Reader(name)), "resourceVersion": strconv.FormatInt(l.rv, 10),
				"creationTimestamp": l.clock.Now().UTC().Format("2006-01-02T15:04:05Z"),
				"labels":            map[string]any{"kubernetes.io/metadata.name": name}},
			"spec": map[string]any{"finalizers": []any{"kubernetes"}}, "status": map[string]any{"phase": "Active"}}
	}
}

// admitNamespace refuses a create in t's namespace when it does not exist
// (404) or is being deleted (403), as NamespaceLifecycle does. Called with
// l.mu held.
func (l *liveState) admitNamespace(t target, o object) error {
	if t.namespace == "" {
		return nil
	}
	name, _ := o.meta()["name"].(string)
	ns, ok := l.objects["namespaces"][t.namespace]
	if !ok && l.anyNamespace {
		l.seed(t.namespace)
		return nil
	}
	if !ok {
		return statusError{code: http.StatusNotFound, reason: "NotFound", error: fmt.Errorf("namespaces %q not found", t.namespace),
			details: &apiclient.StatusDetails{Name: t.namespace, Kind: "namespaces"}}
	}
	if status, _ := ns["status"].(map[string]any); status["phase"] != "Terminating" {
		return nil
	}
	return statusError{code: http.StatusForbidden, reason: "Forbidden",
		error: fmt.Errorf("%s %q is forbidden: unable to create new content in namespace %s because it is being terminated", t.collection(), name, t.namespace),
		details: &apiclient.StatusDetails{Name: name, Group: t.group, Kind: t.resource, Causes: []apiclient.StatusCause{
			{Type: "NamespaceTerminating", Message: fmt.Sprintf("namespace %s is being terminated", t.namespace), Field: "metadata.namespace"}}}}
}

// createNamespace is what a new namespace gets: Active, and the finalizer
// "kubernetes" among its spec.finalizers.
func createNamespace(o object) {
	o["status"] = map[string]any{"phase": "Active"}
	spec, _ := o["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		o["spec"] = spec
	}
	f := asList(spec["finalizers"])
	if !slices.Contains(f, any("kubernetes")) {
		spec["finalizers"] = append(f, "kubernetes")
	}
}

// labelNamespace sets the label kube-apiserver's defaulting gives every
// namespace.
func labelNamespace(o object) {
	name, _ := o.meta()["name"].(string)
	if name == "" {
		return
	}
	labels, _ := o.meta()["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
		o.meta()["labels"] = labels
	}
	labels["kubernetes.io/metadata.name"] = name
}

// deleteNamespace marks the namespace ns Terminating, or deletes it when
// no finalizer holds it. Called by deleteLocked with l.mu held, after the
// preconditions and webhooks.
func (l *liveState) deleteNamespace(t target, ns object) ([]byte, int, error) {
	if slices.Contains(immortal, t.name) {
		return nil, 0, statusError{code: http.StatusForbidden, reason: "Forbidden",
			error:   fmt.Errorf("namespaces %q is forbidden: this namespace may not be deleted", t.name),
			details: &apiclient.StatusDetails{Name: t.name, Kind: "namespaces"}}
	}
	spec, _ := ns["spec"].(map[string]any)
	if len(asList(spec["finalizers"])) == 0 && len(finalizersOf(ns)) == 0 {
		return l.dropNamespace(t, ns, false)
	}
	if _, marked := ns.meta()["deletionTimestamp"]; marked {
		return marshal(ns), http.StatusOK, nil
	}
	n := deepCopy(ns)
	n.meta()["deletionTimestamp"] = l.clock.Now().UTC().Format("2006-01-02T15:04:05Z")
	n["status"] = map[string]any{"phase": "Terminating"}
	if t.dryRun {
		return marshal(n), http.StatusOK, nil
	}
	l.objects["namespaces"][t.name] = n
	return l.record("MODIFIED", "namespaces", ns, n), http.StatusOK, nil
}

// finalizeNamespace answers PUT namespaces/NAME/finalize: the body's
// spec.finalizers replace the namespace's. A namespace being deleted that no
// finalizer holds any longer goes, its contents first (the namespace
// controller's work, done at once).
func (l *liveState) finalizeNamespace(t target, body object) ([]byte, int, error) {
	ns, ok := l.objects["namespaces"][t.name]
	if !ok {
		return nil, 0, fail(http.StatusNotFound, "namespaces %q not found", t.name)
	}
	if rv, _ := body.meta()["resourceVersion"].(string); rv != "" && rv != ns.meta()["resourceVersion"] {
		return nil, 0, conflict(t)
	}
	spec, _ := body["spec"].(map[string]any)
	n := deepCopy(ns)
	n["spec"] = map[string]any{"finalizers": asList(spec["finalizers"])}
	if len(asList(spec["finalizers"])) == 0 {
		delete(n, "spec")
	}
	_, marked := n.meta()["deletionTimestamp"]
	if marked && len(asList(spec["finalizers"])) == 0 && len(finalizersOf(n)) == 0 {
		return l.dropNamespace(t, n, true)
	}
	if t.dryRun || sameIgnoringTimes(ns, n) {
		return marshal(n), http.StatusOK, nil
	}
	l.objects["namespaces"][t.name] = n
	return l.record("MODIFIED", "namespaces", ns, n), http.StatusOK, nil
}

// dropNamespace deletes the namespace ns, and first, when contents, every
// object in it as a DELETE would; it answers ns as it was.
func (l *liveState) dropNamespace(t target, ns object, contents bool) ([]byte, int, error) {
	if t.dryRun {
		return marshal(ns), http.StatusOK, nil
	}
	colls := make([]string, 0, len(l.objects))
	for c := range l.objects {
		colls = append(colls, c)
	}
	slices.Sort(colls)
	for _, coll := range colls {
		for _, k := range sortedKeys(l.objects[coll]) {
			o := l.objects[coll][k]
			if !contents || o.meta()["namespace"] != t.name {
				continue
			}
			// The collection is "plural" or "plural.group"; the version
			// is the stored object's.
			one := target{namespace: t.name}
			one.name, _ = o.meta()["name"].(string)
			one.resource, one.group, _ = strings.Cut(coll, ".")
			gv, _ := o["apiVersion"].(string)
			if _, v, ok := strings.Cut(gv, "/"); ok {
				gv = v
			}
			one.version = gv
			if _, _, err := l.deleteLocked(one, deleteOptions{}); err != nil {
				return nil, 0, err
			}
		}
	}
	delete(l.objects["namespaces"], t.name)
	return l.record("DELETED", "namespaces", ns, nil), http.StatusOK, nil
}

// CreateNamespaces adds each of names that does not exist yet, as the
// namespaces every cluster starts with: Active, at the server's current
// resourceVersion, with no watch event — a test's fixture for the namespaces
// its objects live in (they must exist, as on a cluster), there before
// anything the test does, so it moves no version the test sees. A test that
// watches namespaces POSTs its own.
func (s *Server) CreateNamespaces(names ...string) {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	s.live.seed(names...)
}

// sha256Reader reads the SHA-256 of name, the bytes of a fixture's uid.
func sha256Reader(name string) io.Reader {
	sum := sha256.Sum256([]byte("namespace/" + name))
	return bytes.NewReader(sum[:])
}
