package apitest

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// kube-apiserver gives each resource a "strategy" (k8s.io/apiserver's
// rest.RESTCreateStrategy and its kin): whether it has metadata.generation and
// what moves it, whether it has a status subresource and what a write through
// it may change, whether an update may leave out resourceVersion. apitest
// knows the strategies of the resources its users write, and reads a custom
// resource's from its CRD when the CRD is stored in it.

// strategy is how apitest treats one resource.
type strategy struct {
	custom bool // a custom resource: no strategic merge, list items carry kind
	// generation: objects have metadata.generation, 1 at creation, moved by
	// every change outside metadata and status — and by annotations too where
	// genAnnotations (Deployments copy them to their ReplicaSets) — and by the
	// DELETE that marks an object held by finalizers.
	generation, genAnnotations bool
	// status: there is a status subresource. The main resource then ignores
	// status, and a write through /status changes only status, and the
	// metadata that statusMeta allows.
	status bool
	// statusMeta is the metadata a write through /status may change: "" none
	// (custom resources), "all" (most built-ins), "no-labels" (Deployments),
	// "no-owners" (Pods).
	statusMeta string
	// unconditional: an update without resourceVersion is allowed (it is not
	// for custom resources: 422).
	unconditional bool
	// createOnUpdate: a PUT of an object that does not exist creates it
	// (201), as kube-apiserver's AllowCreateOnUpdate: Leases, Services,
	// Endpoints, Events, LimitRanges.
	createOnUpdate bool
	// secret: stringData is folded into data (base64), and type defaults to
	// Opaque, before the object is stored or its fields tracked, as
	// kube-apiserver's Secret strategy and defaulting.
	secret bool
	// deleteObject: an immediate DELETE answers the deleted object (Pods),
	// not a Status naming it.
	deleteObject bool
	// graceful: a DELETE first marks the object with a grace period for
	// its kubelet (Pods); one bound to no node goes at once after the mark.
	graceful bool
	// namespace: a Namespace (namespace.go): labelled with its name,
	// created Active with the finalizer "kubernetes", which only
	// …/finalize changes.
	namespace bool
	schema    *schema
	// crd is a custom resource's version in its stored CRD (nil: none
	// stored): its schema checks what is written (schema_crd.go).
	crd map[string]any
	// updating: validate checks an update, whose metadata causes
	// kube-apiserver repeats for a custom resource (schema_crd.go).
	updating bool
}

// builtinGroups are the API groups of kube-apiserver itself; a resource in any
// other group (samplecontroller.k8s.io too) is a custom resource.
var builtinGroups = map[string]bool{"": true, "apps": true, "batch": true, "autoscaling": true, "policy": true, "extensions": true,
	"admissionregistration.k8s.io": true, "apiextensions.k8s.io": true, "apiregistration.k8s.io": true, "authentication.k8s.io": true,
	"authorization.k8s.io": true, "certificates.k8s.io": true, "coordination.k8s.io": true, "discovery.k8s.io": true,
	"events.k8s.io": true, "flowcontrol.apiserver.k8s.io": true, "internal.apiserver.k8s.io": true, "networking.k8s.io": true,
	"node.k8s.io": true, "rbac.authorization.k8s.io": true, "resource.k8s.io": true, "scheduling.k8s.io": true,
	"storage.k8s.io": true, "storagemigration.k8s.io": true}

func isBuiltinGroup(g string) bool { return builtinGroups[g] }

// strategyFor returns the strategy of t's resource; called with l.mu held (it
// reads a stored CRD).
func (l *liveState) strategyFor(t target) strategy {
	coll := t.collection()
	if !isBuiltinGroup(t.group) {
		return l.customStrategy(t)
	}
	st := strategy{unconditional: true, statusMeta: "all", schema: builtinSchema(t)}
	switch coll {
	case "pods":
		st.generation, st.status, st.statusMeta, st.deleteObject, st.graceful = true, true, "no-owners", true, true
	case "deployments.apps":
		st.generation, st.genAnnotations, st.status, st.statusMeta = true, true, true, "no-labels"
	case "replicasets.apps", "statefulsets.apps", "daemonsets.apps", "jobs.batch", "cronjobs.batch",
		"poddisruptionbudgets.policy", "ingresses.networking.k8s.io", "horizontalpodautoscalers.autoscaling",
		"replicationcontrollers", "customresourcedefinitions.apiextensions.k8s.io":
		st.generation, st.status = true, true
	case "networkpolicies.networking.k8s.io", "validatingadmissionpolicies.admissionregistration.k8s.io":
		st.generation = true
	case "leases.coordination.k8s.io":
		st.unconditional = false // a lock: an update must name the version it read
		st.createOnUpdate = true
	case "secrets":
		st.secret = true
	case "endpoints", "events", "limitranges":
		st.createOnUpdate = true
	case "services":
		st.status, st.createOnUpdate = true, true
	case "namespaces":
		st.status, st.namespace = true, true
	case "nodes", "persistentvolumes", "persistentvolumeclaims", "resourcequotas",
		"certificatesigningrequests.certificates.k8s.io", "apiservices.apiregistration.k8s.io":
		st.status = true
	}
	return st
}

// customStrategy is a custom resource's: a generation always, a status
// subresource when its CRD says so (or when apitest has no CRD for it: most
// have one), its schema from the CRD.
func (l *liveState) customStrategy(t target) strategy {
	st := strategy{custom: true, generation: true, status: true, schema: customRoot()}
	crds := l.objects["customresourcedefinitions.apiextensions.k8s.io"]
	crd, ok := crds[t.resource+"."+t.group]
	if !ok {
		return st
	}
	spec, _ := crd["spec"].(map[string]any)
	for _, v := range asList(spec["versions"]) {
		vm, _ := v.(map[string]any)
		if vm["name"] != t.version {
			continue
		}
		st.crd = vm
		sub, _ := vm["subresources"].(map[string]any)
		_, st.status = sub["status"]
		if sch, ok := vm["schema"].(map[string]any); ok {
			if root, ok := sch["openAPIV3Schema"].(map[string]any); ok {
				st.schema = withMeta(crdSchema(root))
			}
		}
	}
	return st
}

// resetFields are the fields a write through sub cannot set, which therefore
// nobody owns by writing them there: status on the main resource, spec (and
// what statusMeta keeps) through /status.
func (st strategy) resetFields(sub string) *fieldSet {
	if !st.status {
		return &fieldSet{}
	}
	if sub != "status" {
		return fieldsPath("f:status")
	}
	reset := fieldsPath("f:spec")
	switch st.statusMeta {
	case "":
		reset = reset.union(fieldsPath("f:metadata"))
	case "no-labels":
		reset = reset.union(fieldsPath("f:metadata", "f:labels"))
	case "no-owners":
		reset = reset.union(fieldsPath("f:metadata", "f:ownerReferences")).union(fieldsPath("f:metadata", "f:deletionTimestamp"))
	}
	return reset
}

// prepare makes of a write's object what the strategy lets through, from the
// stored object old: a write to the main resource keeps old's status, one to
// /status keeps everything but status (and the metadata statusMeta allows).
func (st strategy) prepare(sub string, old, o object) object {
	if !st.status {
		return o
	}
	if st.namespace {
		spec, _ := o["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
			o["spec"] = spec
		}
		oldSpec, _ := old["spec"].(map[string]any)
		setOrDelete(spec, "finalizers", oldSpec)
		if len(spec) == 0 {
			delete(o, "spec")
		}
	}
	if sub != "status" {
		setOrDelete(o, "status", old)
		return o
	}
	status, hasStatus := o["status"]
	meta := o.meta()
	n := deepCopy(old)
	if hasStatus {
		n["status"] = status
	} else {
		delete(n, "status")
	}
	nm := n.meta()
	switch st.statusMeta {
	case "all", "no-labels", "no-owners":
		for k, v := range meta {
			nm[k] = v
		}
		for k := range nm {
			if _, ok := meta[k]; !ok {
				delete(nm, k)
			}
		}
		switch st.statusMeta {
		case "no-labels":
			setOrDelete(nm, "labels", old.meta())
		case "no-owners":
			setOrDelete(nm, "ownerReferences", old.meta())
		}
	default:
		// Custom resources: only status changes, but the managedFields the
		// write earned are kept.
		setOrDelete(nm, "managedFields", meta)
	}
	return n
}

// setOrDelete sets m[k] to from[k], or deletes it when from has none.
func setOrDelete(m map[string]any, k string, from map[string]any) {
	if v, ok := from[k]; ok {
		m[k] = v
	} else {
		delete(m, k)
	}
}

// generationMoves reports whether the change from old to o moves the
// generation: anything outside metadata and status changed (and annotations,
// where genAnnotations).
func (st strategy) generationMoves(old, o object) bool {
	if !st.generation {
		return false
	}
	if specChanged(old, o) {
		return true
	}
	if !st.status && !deepEqualMember(old, o, "status") {
		// Without a status subresource, status is part of what the
		// generation counts (custom resources).
		return st.custom
	}
	return st.genAnnotations && !deepEqualMember(old.meta(), o.meta(), "annotations")
}

// roundTrip is o as kube-apiserver keeps a built-in kind: decoded into its Go
// type and encoded again, which drops nulls, empty lists and empty maps
// (omitempty) — though not an empty struct behind a pointer ("status": {} in
// a CRD's subresources), so only the places the schema knows to be maps lose
// {}. A custom resource is kept as sent, but for its metadata, which is an
// ObjectMeta on every resource. A Secret's stringData is folded into its
// data, and its type defaults to Opaque.
func (st strategy) roundTrip(o object) object {
	if st.custom {
		dropEmpties(o.meta(), metaSchema())
		return o
	}
	dropEmpties(map[string]any(o), st.schema)
	if st.namespace {
		labelNamespace(o)
	}
	if st.secret && (o["type"] == nil || o["type"] == "") {
		o["type"] = "Opaque" // core/v1's default
	}
	if sd, ok := o["stringData"].(map[string]any); ok && st.secret {
		data, _ := o["data"].(map[string]any)
		if data == nil {
			data = map[string]any{}
		}
		for k, v := range sd {
			text, _ := v.(string)
			data[k] = base64.StdEncoding.EncodeToString([]byte(text))
		}
		o["data"] = data
		delete(o, "stringData")
	}
	return o
}

// validate refuses what kube-apiserver's validation would that apitest
// models: for a custom resource, a null where its CRD's schema wants a value;
// for a Pod or a Deployment, a container without a name or an image (an apply
// that prunes a container's image leaves one).
func (st strategy) validate(t target, kind string, o object) error {
	if !st.custom {
		if err := validateContainers(t, kind, o); err != nil {
			return err
		}
		if causes := validateBuiltinMeta(t.collection(), o); len(causes) > 0 {
			name, _ := o.meta()["name"].(string)
			qualified := kind
			if t.group != "" {
				qualified += "." + t.group
			}
			return invalidAll(qualified, name, causes, t.group, kind)
		}
		return nil
	}
	f := nullField(map[string]any(o), st.schema, "")
	if f == "" {
		return validateCustom(t, st, kind, o)
	}
	field, typ, _ := strings.Cut(f, ":")
	name, _ := o.meta()["name"].(string)
	e := invalid(kind+"."+t.group, name, field, "FieldValueTypeInvalid", "Invalid value: \"null\": %s in body must be of type %s: \"null\"", field, typ)
	e.details.Group, e.details.Kind = t.group, kind
	return e
}

// validateContainers is the one validation of built-in kinds apitest makes:
// every container there is has a name and an image.
func validateContainers(t target, kind string, o object) error {
	var spec any = map[string]any(o)
	var field string
	switch t.collection() {
	case "pods":
		field = "spec"
	case "deployments.apps":
		field = "spec.template.spec"
	default:
		return nil
	}
	for _, p := range strings.Split(field, ".") {
		m, _ := spec.(map[string]any)
		spec = m[p]
	}
	m, _ := spec.(map[string]any)
	if m == nil {
		return nil // a status write: the spec is the stored one
	}
	// (No containers at all is let through: tests make Pods of metadata
	// alone, and divergence 1 of doc.go says so.)
	name, _ := o.meta()["name"].(string)
	for i, c := range asList(m["containers"]) {
		cm, _ := c.(map[string]any)
		for _, k := range []string{"name", "image"} {
			if v, _ := cm[k].(string); v == "" {
				return invalid(kind, name, fmt.Sprintf("%s.containers[%d].%s", field, i, k), "FieldValueRequired", "Required value")
			}
		}
	}
	return nil
}

func dropEmpties(m map[string]any, s *schema) {
	isMap := s != nil && s.fields == nil && !s.closed && s.elem != nil
	for k, v := range m {
		if k == "managedFields" {
			continue // fieldsV1 is raw JSON in the Go type, its {} kept
		}
		cs := s.child(k)
		switch v := v.(type) {
		case nil:
			if isMap {
				m[k] = "" // a null in a map[string]string is its zero value
			} else {
				delete(m, k)
			}
		case map[string]any:
			dropEmpties(v, cs)
			if len(v) == 0 && cs != nil && cs.fields == nil && !cs.closed && cs.elem != nil && !isMap {
				delete(m, k)
			}
		case []any:
			if len(v) == 0 {
				delete(m, k)
			}
			for _, it := range v {
				if im, ok := it.(map[string]any); ok {
					dropEmpties(im, cs.item())
				}
			}
		}
	}
}
