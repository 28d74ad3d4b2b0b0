package apitest

import (
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// Field ownership, as kube-apiserver records it in metadata.managedFields: for
// each manager (fieldManager, else the User-Agent's product) and operation
// (Update for create, update and patch; Apply for server-side apply) and
// subresource, the set of fields it set. A write takes over the fields it
// changes; an apply owns what its configuration names, removes what it named
// last time and no longer does (unless another applier names it), and fails
// with 409 when it would change a field another manager owns, unless forced.
// This is k8s.io/apiserver's fieldmanager on structured-merge-diff, cut down:
// one version per resource, the schemas of schema.go.

// entry is one managedFields entry.
type entry struct {
	manager, operation, apiVersion, subresource string
	time                                        string
	fields                                      *fieldSet
}

// owners is an object's managedFields, decoded.
type owners []*entry

// ownersOf reads o's managedFields; ok is false when there are none or they
// cannot be read.
func ownersOf(o object) (owners, bool) {
	if o == nil {
		return nil, false
	}
	list, ok := o.meta()["managedFields"].([]any)
	if !ok || len(list) == 0 {
		return nil, false
	}
	var out owners
	for _, raw := range list {
		m, _ := raw.(map[string]any)
		e := &entry{}
		e.manager, _ = m["manager"].(string)
		e.operation, _ = m["operation"].(string)
		e.apiVersion, _ = m["apiVersion"].(string)
		e.subresource, _ = m["subresource"].(string)
		e.time, _ = m["time"].(string)
		f, _ := m["fieldsV1"].(map[string]any)
		e.fields = decodeFields(f)
		if e.manager == "" && e.operation == "" && len(f) == 0 {
			return owners{}, true // [{}]: the client resets managedFields
		}
		out = append(out, e)
	}
	return out, true
}

// startingOwners is what a write's ownership starts from, as kube-apiserver
// decides it: the managedFields the client sent, if it sent any (an empty
// entry, [{}], clears them), else the live object's; through a subresource,
// always the live object's.
func startingOwners(live, sent object, sub string) owners {
	if sub == "" {
		if o, ok := ownersOf(sent); ok {
			return o
		}
	}
	if live == nil {
		return nil
	}
	o, _ := ownersOf(live)
	return o
}

// find returns the entry of manager for operation op through sub, or nil.
// Appliers are one entry whatever the apiVersion; updaters one per apiVersion.
func (os owners) find(manager, op, apiVersion, sub string) *entry {
	for _, e := range os {
		if e.manager == manager && e.operation == op && e.subresource == sub && (op == "Apply" || e.apiVersion == apiVersion) {
			return e
		}
	}
	return nil
}

// without removes set from every entry but self, and drops the entries left
// empty.
func (os owners) without(set *fieldSet, self *entry) owners {
	var out owners
	for _, e := range os {
		if e != self {
			e.fields = e.fields.minus(set)
		}
		if e == self || !e.fields.empty() {
			out = append(out, e)
		}
	}
	return out
}

// encode writes the entries as managedFields, ordered as kube-apiserver orders
// them: by operation, time, manager, apiVersion, subresource.
func (os owners) encode() []any {
	sorted := append(owners{}, os...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.operation != b.operation {
			return a.operation < b.operation
		}
		if a.time != b.time {
			return a.time < b.time
		}
		if a.manager != b.manager {
			return a.manager < b.manager
		}
		if a.apiVersion != b.apiVersion {
			return a.apiVersion < b.apiVersion
		}
		return a.subresource < b.subresource
	})
	out := make([]any, 0, len(sorted))
	for _, e := range sorted {
		if e.fields.empty() {
			continue
		}
		m := map[string]any{"manager": e.manager, "operation": e.operation, "apiVersion": e.apiVersion, "time": e.time, "fieldsType": "FieldsV1", "fieldsV1": e.fields.encode()}
		if e.subresource != "" {
			m["subresource"] = e.subresource
		}
		out = append(out, m)
	}
	return out
}

// stripped are the fields nobody owns: identity, versioning, and what the
// server sets.
var stripped = func() *fieldSet {
	f := &fieldSet{}
	f.child("f:apiVersion").member = true
	f.child("f:kind").member = true
	m := f.child("f:metadata")
	m.member = true
	for _, k := range []string{"name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation", "managedFields", "resourceVersion"} {
		m.child("f:" + k).member = true
	}
	return f
}()

// withoutManaged is o without metadata.managedFields, for comparing contents.
func withoutManaged(o object) object {
	if o == nil {
		return object{}
	}
	c := make(object, len(o))
	for k, v := range o {
		c[k] = v
	}
	if m, ok := o["metadata"].(map[string]any); ok {
		mc := make(map[string]any, len(m))
		for k, v := range m {
			if k != "managedFields" {
				mc[k] = v
			}
		}
		c["metadata"] = mc
	}
	return c
}

// trackUpdate works out the managedFields after an Update-operation write of
// sent over live (nil for a create): manager takes every field sent changed,
// from whoever owned it, and nobody owns what it removed. An object that has
// no managedFields does not start having some by an update (only by a create
// or an apply), as kube-apiserver skips tracking it.
func trackUpdate(st strategy, t target, live, sent object, manager string, now time.Time) owners {
	os := startingOwners(live, sent, t.sub)
	if live != nil && len(os) == 0 {
		return nil
	}
	reset := st.resetFields(t.sub)
	c := compareFields(withoutManaged(live), withoutManaged(sent), st.schema)
	changed := c.added.union(c.modified).minus(stripped).minusTree(reset)
	removed := c.removed.minusTree(reset)
	self := os.find(manager, "Update", t.apiVersion(), t.sub)
	os = os.without(changed.union(removed), self)
	if changed.empty() {
		if self != nil {
			self.fields = self.fields.minus(removed)
		}
		return os.without(&fieldSet{}, nil)
	}
	if self == nil {
		self = &entry{manager: manager, operation: "Update", apiVersion: t.apiVersion(), subresource: t.sub, fields: &fieldSet{}}
		os = append(os, self)
	}
	self.fields = self.fields.minus(removed).union(changed)
	self.time = now.UTC().Format(time.RFC3339)
	return os
}

// applyConfig merges a server-side apply configuration into live (nil: the
// object is created) as manager, and returns the object and its owners; or a
// 409 naming the fields other managers own that it would change, unless force.
func applyConfig(st strategy, t target, live, config object, manager string, force bool, now time.Time) (object, owners, error) {
	os, _ := ownersOf(live)
	reset := st.resetFields(t.sub)
	if live != nil && len(os) == 0 {
		// The first apply to an object no manager owns anything of: what
		// is there is put down to "before-first-apply", as kube-apiserver
		// does, so that the apply can conflict with it.
		if before := compareFields(object{}, withoutManaged(live), st.schema).added.minus(stripped).minusTree(st.resetFields("")); !before.empty() {
			os = owners{{manager: "before-first-apply", operation: "Update", apiVersion: t.apiVersion(), fields: before, time: now.UTC().Format(time.RFC3339)}}
		}
	}
	configSet := toFieldSet(config, st.schema).minus(stripped).minusTree(reset)
	base := withoutManaged(live)
	merged, _ := mergeApplied(map[string]any(base), map[string]any(config), st.schema).(map[string]any)
	last := os.find(manager, "Apply", "", t.sub)
	self := &entry{manager: manager, operation: "Apply", apiVersion: t.apiVersion(), subresource: t.sub, fields: configSet}
	if last != nil {
		self.time = last.time
		// Prune what this manager applied last time and no longer does,
		// unless another manager (or this configuration) owns it too. What
		// is pruned is counted as the merged object's fields are: a struct
		// field that now has members stays.
		owned := configSet
		for _, e := range os {
			if e != last {
				owned = owned.union(e.fields)
			}
		}
		gone := toFieldSet(merged, st.schema).intersect(last.fields).minus(owned)
		if !gone.empty() {
			pruned, keep := removeFields(merged, gone, owned, st.schema)
			merged, _ = pruned.(map[string]any)
			if !keep || merged == nil {
				merged = map[string]any{}
			}
		}
	}
	c := compareFields(base, merged, st.schema)
	changed := c.added.union(c.modified).minus(stripped).minusTree(reset)
	var conflicts []string
	for _, e := range os {
		if e == last {
			continue
		}
		for _, p := range e.fields.intersect(changed).paths() {
			who := fmt.Sprintf("conflict with %q", e.manager)
			if e.subresource != "" {
				who += fmt.Sprintf(" with subresource %q", e.subresource)
			}
			conflicts = append(conflicts, who+": "+p)
		}
	}
	if len(conflicts) > 0 && !force {
		return nil, nil, applyConflict(conflicts)
	}
	var rest owners
	for _, e := range os {
		if e != last {
			rest = append(rest, e)
		}
	}
	rest = rest.without(changed.union(c.removed.minusTree(reset)), nil)
	if !reflect.DeepEqual(base, object(merged)) || last == nil || self.time == "" {
		self.time = now.UTC().Format(time.RFC3339)
	}
	if !configSet.empty() {
		rest = append(rest, self)
	}
	return object(merged), rest, nil
}

// applyConflict is the 409 of an apply that would take fields others own: one
// cause per field, as kube-apiserver sends them.
func applyConflict(conflicts []string) error {
	sort.Strings(conflicts)
	causes := make([]apiclient.StatusCause, len(conflicts))
	for i, c := range conflicts {
		who, field, _ := strings.Cut(c, ": ")
		causes[i] = apiclient.StatusCause{Type: "FieldManagerConflict", Message: who, Field: field}
	}
	n := "conflict"
	if len(conflicts) > 1 {
		n = "conflicts"
	}
	msg := fmt.Sprintf("Apply failed with %d %s: %s", len(conflicts), n, strings.Join(conflicts, "\n"))
	return statusError{code: http.StatusConflict, reason: "Conflict", error: fmt.Errorf("%s", msg), details: &apiclient.StatusDetails{Causes: causes}}
}
