package apitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// commit stores o, the new version of old, with the managedFields owners: the
// last steps of every update, patch and apply, in kube-apiserver's order.
// Called with l.mu held.
//
//  1. The strategy keeps what the write may not change (status on the main
//     resource, all but status through /status), and the server keeps what
//     it owns: identity, creation, generation, a deletion under way.
//  2. An object being deleted takes no new finalizer (422).
//  3. The generation moves if the spec did (strategy.generationMoves),
//     never through a subresource.
//  4. A write that changes nothing — managedFields times aside — is no
//     write: the answer is the stored object, with its resourceVersion, and
//     no watch event. (Unless it clears a residue: objects.go.)
//  5. An object being deleted whose last finalizer went is deleted now.
func (l *liveState) commit(t target, st strategy, old, o object, owners owners, how via) ([]byte, int, error) {
	o, err := l.mutating(admissionAttrs{op: "UPDATE", t: t, obj: o, old: old})
	if err != nil {
		return nil, 0, err
	}
	o = st.prepare(t.sub, old, o)
	m, oldMeta := o.meta(), old.meta()
	for _, k := range []string{"name", "namespace", "uid", "creationTimestamp", "generation", "deletionTimestamp", "resourceVersion"} {
		setOrDelete(m, k, oldMeta)
	}
	if _, ok := m["deletionGracePeriodSeconds"]; !ok {
		setOrDelete(m, "deletionGracePeriodSeconds", oldMeta)
	}
	o["apiVersion"], o["kind"] = old["apiVersion"], old["kind"]
	if mf := owners.encode(); len(mf) > 0 {
		m["managedFields"] = mf
	} else {
		delete(m, "managedFields")
	}

	_, deleting := m["deletionTimestamp"]
	if deleting {
		for _, f := range finalizersOf(o) {
			if !slices.ContainsFunc(finalizersOf(old), func(g any) bool { return reflect.DeepEqual(f, g) }) {
				return nil, 0, invalid(kindOf(t, old), t.name, "metadata.finalizers", "FieldValueForbidden",
					"Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{%q}", f)
			}
		}
	}
	st.updating = true
	if kind, _ := o["kind"].(string); st.validate(t, kind, o) != nil {
		return nil, 0, st.validate(t, kind, o)
	}
	if err := validateImmutable(t, kindOf(t, old), old, o); err != nil {
		return nil, 0, err
	}
	warnFinalizers(t, st, old, o)
	if t.sub == "" && st.generationMoves(old, o) {
		m["generation"] = json.Number(strconv.FormatInt(generationOf(old)+1, 10))
	}
	if err := l.validating(admissionAttrs{op: "UPDATE", t: t, obj: o, old: old}); err != nil {
		return nil, 0, err
	}
	// A residue (objects.go) goes with the next write to the main resource
	// that is not an apply, which is a write however little it changes.
	rk := t.collection() + "/" + key(t.namespace, t.name)
	clears := how == viaUpdate && t.sub == ""
	if sameIgnoringTimes(old, o) && (!l.residue[rk] || !clears) && how != viaResidueApply {
		return marshal(old), http.StatusOK, nil
	}
	if t.dryRun {
		return marshal(o), http.StatusOK, nil // at the stored version
	}
	if clears {
		delete(l.residue, rk)
	}
	coll := l.objects[t.collection()]
	k := key(t.namespace, t.name)
	if deleting && len(finalizersOf(o)) == 0 {
		// The last finalizer went: the deletion that waited for it happens
		// now. The answer is the object as written, at the version it had.
		if t.collection() == crdCollection {
			l.dropCustomResources(old)
		}
		delete(coll, k)
		l.record("DELETED", t.collection(), old, nil)
		return marshal(o), http.StatusOK, nil
	}
	coll[k] = o
	return l.record("MODIFIED", t.collection(), old, o), http.StatusOK, nil
}

// via is how a write came, which decides what one that changes nothing does.
type via int

const (
	viaUpdate via = iota // an update or a patch
	viaApply             // a server-side apply
	// viaResidueApply is an apply to a custom resource whose configuration
	// has an empty labels or annotations map: kube-apiserver writes it
	// whatever it changes, and it leaves a residue (objects.go).
	viaResidueApply
)

// sameIgnoringTimes reports whether a and b are the same object but for the
// times of their managedFields entries, which kube-apiserver does not count
// as a change.
func sameIgnoringTimes(a, b object) bool {
	return reflect.DeepEqual(withoutTimes(a), withoutTimes(b))
}

func withoutTimes(o object) object {
	c := withoutManaged(o)
	if mf, ok := o.meta()["managedFields"].([]any); ok {
		var entries []any
		for _, e := range mf {
			em, _ := e.(map[string]any)
			ec := make(map[string]any, len(em))
			for k, v := range em {
				if k != "time" {
					ec[k] = v
				}
			}
			entries = append(entries, ec)
		}
		c.meta()["managedFields"] = entries
	}
	return c
}

// deleteOptions is what apitest reads of a DELETE's body.
type deleteOptions struct {
	DryRun             []string `json:"dryRun"`
	GracePeriodSeconds *int64   `json:"gracePeriodSeconds"`
	Preconditions      struct {
		UID             *string `json:"uid"`
		ResourceVersion *string `json:"resourceVersion"`
	} `json:"preconditions"`
}

// delete removes an object, or only marks it (deletionTimestamp, and a
// generation more where there is one) while finalizers hold it. The answer is
// the object while it stays; once it is gone, the object for Pods and a
// Status naming it for the rest, as on the real server.
func (l *liveState) delete(t target, opts deleteOptions) ([]byte, int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.deleteLocked(t, opts)
}

// deleteLocked is delete with l.mu held.
func (l *liveState) deleteLocked(t target, opts deleteOptions) ([]byte, int, error) {
	st := l.strategyFor(t)
	if t.sub != "" {
		return nil, 0, fail(http.StatusMethodNotAllowed, "DELETE is not supported on a subresource")
	}
	o, err := l.find(t, st)
	if err != nil {
		return nil, 0, err
	}
	m := o.meta()
	if p := opts.Preconditions.UID; p != nil && *p != m["uid"] {
		return nil, 0, preconditionFailed(t, "UID", *p, m["uid"])
	}
	if p := opts.Preconditions.ResourceVersion; p != nil && *p != m["resourceVersion"] {
		return nil, 0, preconditionFailed(t, "ResourceVersion", *p, m["resourceVersion"])
	}
	del := admissionAttrs{op: "DELETE", t: t, old: o}
	if _, err := l.mutating(del); err != nil {
		return nil, 0, err
	}
	if err := l.validating(del); err != nil {
		return nil, 0, err
	}
	if st.namespace {
		return l.deleteNamespace(t, o)
	}
	coll := l.objects[t.collection()]
	k := key(t.namespace, t.name)
	grace := st.gracePeriod(o, opts)
	if t.dryRun {
		return l.dryDelete(t, st, o, grace)
	}
	if len(finalizersOf(o)) > 0 || grace > 0 {
		// Finalizers hold the object, or a kubelet must see the Pod go: it
		// is only marked, and whoever owns each finalizer cleans up and
		// removes it (commit deletes it when none is left).
		if _, marked := m["deletionTimestamp"]; marked {
			return marshal(o), http.StatusOK, nil
		}
		n := markDeleted(o, st, l.clock.Now(), grace)
		coll[k] = n
		return l.record("MODIFIED", t.collection(), o, n), http.StatusOK, nil
	}
	if st.graceful {
		// A Pod no kubelet runs goes at once, but marked first, as
		// kube-apiserver writes it: a MODIFIED event, then DELETED.
		n := markDeleted(o, st, l.clock.Now(), 0)
		l.record("MODIFIED", t.collection(), o, n)
		o = n
	}
	if t.collection() == crdCollection {
		l.dropCustomResources(o)
	}
	delete(coll, k)
	delete(l.residue, t.collection()+"/"+k)
	body := l.record("DELETED", t.collection(), o, nil)
	if st.deleteObject {
		return body, http.StatusOK, nil
	}
	uid, _ := m["uid"].(string)
	return success(t, t.name, uid), http.StatusOK, nil
}

// dryDelete answers a DELETE with dryRun=All as delete would, changing
// nothing.
func (l *liveState) dryDelete(t target, st strategy, o object, grace int64) ([]byte, int, error) {
	if _, marked := o.meta()["deletionTimestamp"]; marked || (len(finalizersOf(o)) == 0 && grace == 0 && !st.deleteObject) {
		if !marked {
			uid, _ := o.meta()["uid"].(string)
			return success(t, t.name, uid), http.StatusOK, nil
		}
		return marshal(o), http.StatusOK, nil
	}
	return marshal(markDeleted(o, st, l.clock.Now(), grace)), http.StatusOK, nil
}

// markDeleted is o marked for deletion grace seconds from now, with a
// generation more where there is one.
func markDeleted(o object, st strategy, now time.Time, grace int64) object {
	n := deepCopy(o)
	nm := n.meta()
	nm["deletionTimestamp"] = now.Add(time.Duration(grace) * time.Second).UTC().Format(time.RFC3339)
	nm["deletionGracePeriodSeconds"] = json.Number(strconv.FormatInt(grace, 10))
	if st.generation {
		nm["generation"] = json.Number(strconv.FormatInt(generationOf(o)+1, 10))
	}
	return n
}

// gracePeriod is how long a deleted object waits for its kubelet: 0 but for
// a Pod bound to a node (spec.nodeName), which waits the DeleteOptions'
// gracePeriodSeconds, else its own terminationGracePeriodSeconds, else 30.
func (st strategy) gracePeriod(o object, opts deleteOptions) int64 {
	spec, _ := o["spec"].(map[string]any)
	if !st.graceful || spec["nodeName"] == nil || spec["nodeName"] == "" {
		return 0
	}
	if opts.GracePeriodSeconds != nil {
		return *opts.GracePeriodSeconds
	}
	if n, ok := spec["terminationGracePeriodSeconds"].(json.Number); ok {
		g, _ := n.Int64()
		return g
	}
	return 30
}

func preconditionFailed(t target, what string, want, have any) error {
	return statusError{code: http.StatusConflict, reason: "Conflict",
		error:   fmt.Errorf("Operation cannot be fulfilled on %s %q: Precondition failed: %s in precondition: %v, %s in object meta: %v", t.collection(), t.name, what, want, what, have),
		details: &apiclient.StatusDetails{Name: t.name, Group: t.group, Kind: t.resource}}
}

// specChanged reports whether a write changed anything but metadata and status:
// what moves metadata.generation on the real server (for custom resources with a
// status subresource and for most built-in kinds).
func specChanged(old, new object) bool {
	strip := func(o object) object {
		c := make(object, len(o))
		for k, v := range o {
			if k != "metadata" && k != "status" {
				c[k] = v
			}
		}
		return c
	}
	return !reflect.DeepEqual(strip(old), strip(new))
}

// deepEqualMember reports whether a and b have the same member k (or both none).
func deepEqualMember(a, b map[string]any, k string) bool {
	av, aok := a[k]
	bv, bok := b[k]
	return aok == bok && reflect.DeepEqual(av, bv)
}

func generationOf(o object) int64 {
	n, _ := o.meta()["generation"].(json.Number)
	g, _ := n.Int64()
	return g
}

func finalizersOf(o object) []any {
	f, _ := o.meta()["finalizers"].([]any)
	return f
}
