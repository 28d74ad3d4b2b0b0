package apitest

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
)

// PATCH, the verb of four kinds of patch: JSON merge, JSON, strategic merge,
// and server-side apply, which has a function of its own.

// patch changes an object by a JSON merge, JSON, strategic merge or apply
// patch. It holds l.mu from the read to the write, so that concurrent patches
// each apply to the latest version.
func (l *liveState) patch(t target, contentType string, patch []byte, manager string, named, force bool) ([]byte, int, error) {
	pt := strings.TrimSpace(strings.Split(contentType, ";")[0])
	switch pt {
	case string(apiclient.MergePatch), string(apiclient.StrategicMergePatch), string(apiclient.ApplyPatch), string(apiclient.JSONPatch):
	default:
		return nil, 0, fail(http.StatusUnsupportedMediaType, "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")
	}
	var p any
	if err := decodeJSON(patch, &p); err != nil {
		return nil, 0, fail(http.StatusBadRequest, "error decoding patch: %v", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.strategyFor(t)
	if pt == string(apiclient.ApplyPatch) {
		if !named {
			return nil, 0, fail(http.StatusBadRequest, "PATCH, application/apply-patch+yaml: fieldManager must be set")
		}
		return l.apply(t, st, p, manager, force)
	}
	if pt == string(apiclient.StrategicMergePatch) && st.custom {
		return nil, 0, fail(http.StatusUnsupportedMediaType, "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")
	}
	stored, err := l.find(t, st)
	if err != nil {
		return nil, 0, err
	}
	// At another version than the storage's, the patch applies to the
	// object converted there (conversion.go).
	old := stored
	if t.conv != nil {
		if old, err = t.conv.convert(stored, t.apiVersion()); err != nil {
			return nil, 0, err
		}
	}
	merged, err := patched(pt, old, p, st)
	if err != nil {
		return nil, 0, err
	}
	if err := samePlace(t, old, merged); err != nil {
		return nil, 0, err
	}
	if merged, err = decoded(t, merged, decodePatch); err != nil {
		return nil, 0, err
	}
	merged = st.roundTrip(merged)
	// A patch that names a resourceVersion applies only to that version.
	if rv := merged.meta()["resourceVersion"]; rv != old.meta()["resourceVersion"] {
		return nil, 0, conflict(t)
	}
	owners := trackUpdate(st, t, old, merged, manager, l.clock.Now())
	if t, merged, err = t.toStorage(merged); err != nil {
		return nil, 0, err
	}
	return l.commit(t, st, stored, merged, owners, viaUpdate)
}

// toStorage is o, written at t's version, converted to the storage
// version, and t at that version; o and t themselves where t.conv is nil.
func (t target) toStorage(o object) (target, object, error) {
	if t.conv == nil {
		return t, o, nil
	}
	o, err := t.conv.convert(o, t.conv.storage)
	t.version, t.conv = t.conv.storageVersion(), nil
	return t, o, err
}

// patched is old with patch p of type pt applied.
func patched(pt string, old object, p any, st strategy) (object, error) {
	merged := deepCopy(old)
	switch pt {
	case string(apiclient.JSONPatch):
		ops, isList := p.([]any)
		if !isList {
			return nil, fail(http.StatusBadRequest, "json patch: the body is not a list of operations")
		}
		if err := applyJSONPatch(merged, ops); err != nil {
			return nil, fail(http.StatusUnprocessableEntity, "%v", err)
		}
		return merged, nil
	case string(apiclient.StrategicMergePatch):
		pm, ok := p.(map[string]any)
		if !ok {
			return nil, fail(http.StatusBadRequest, "strategic merge patch: the body is not an object")
		}
		out, err := strategicMerge(merged, pm, st.schema)
		if err != nil {
			return nil, fail(http.StatusBadRequest, "%v", err)
		}
		return object(out), nil
	}
	out, ok := mergePatch(map[string]any(merged), p).(map[string]any)
	if !ok {
		return nil, fail(http.StatusUnprocessableEntity, "patch: the result is not an object")
	}
	return object(out), nil
}

// apply is server-side apply: the configuration p, merged into the object as
// manager's, or creating it.
func (l *liveState) apply(t target, st strategy, p any, manager string, force bool) ([]byte, int, error) {
	config, ok := p.(map[string]any)
	if !ok {
		return nil, 0, fail(http.StatusBadRequest, "apply: the body is not an object")
	}
	cfg := object(config)
	if cfg["apiVersion"] != t.apiVersion() || cfg["kind"] == nil || cfg["kind"] == "" {
		return nil, 0, fail(http.StatusBadRequest, "apply: the configuration must name apiVersion %s and its kind", t.apiVersion())
	}
	if name, _ := cfg.meta()["name"].(string); name != t.name {
		return nil, 0, fail(http.StatusBadRequest, "the name of the object (%s) does not match the name on the URL (%s)", name, t.name)
	}
	if _, err := decoded(t, deepCopy(cfg), decodeApply); err != nil {
		return nil, 0, err // a field no schema has: kube-apiserver cannot type the configuration
	}
	old, err := l.find(t, st)
	if err != nil && (t.sub != "" || err.(statusError).code != http.StatusNotFound) {
		return nil, 0, err
	}
	stored := old
	if old != nil && t.conv != nil {
		if old, err = t.conv.convert(stored, t.apiVersion()); err != nil {
			return nil, 0, err
		}
	}
	merged, owners, err := applyConfig(st, t, old, cfg, manager, force, l.clock.Now())
	if err != nil {
		return nil, 0, err
	}
	if merged, err = decoded(t, merged, decodeApplied); err != nil {
		return nil, 0, err
	}
	// A configuration that names a resourceVersion applies only to it (a
	// check the write makes, after the merge found no conflict of owners).
	if rv, _ := cfg.meta()["resourceVersion"].(string); rv != "" && old != nil && rv != old.meta()["resourceVersion"] {
		return nil, 0, conflict(t)
	}
	// An empty labels or annotations map that a custom resource's apply
	// leaves is kept by kube-apiserver though never shown (objects.go,
	// residue), and makes the apply a write.
	residue := st.custom && t.sub == "" && (isEmptyMap(merged.meta()["labels"]) || isEmptyMap(merged.meta()["annotations"]))
	merged = st.roundTrip(merged)
	if t, merged, err = t.toStorage(merged); err != nil {
		return nil, 0, err
	}
	old = stored
	k := t.collection() + "/" + key(t.namespace, t.name)
	if old == nil {
		merged.meta()["managedFields"] = owners.encode()
		out, code, err := l.insert(t, st, merged, false)
		if err == nil && residue && !t.dryRun {
			l.residue[k] = true
		}
		return out, code, err
	}
	how := viaApply
	if residue {
		how = viaResidueApply
	}
	out, code, err := l.commit(t, st, old, merged, owners, how)
	if err == nil && residue && !t.dryRun {
		l.residue[k] = true
	}
	return out, code, err
}

// samePlace refuses a patch whose result is another object than its URL's:
// another name or namespace (400, as for a PUT), another kind or apiVersion
// (422 on the patch: kube-apiserver cannot convert the result).
func samePlace(t target, old, merged object) error {
	m := merged.meta()
	if name, _ := m["name"].(string); name != t.name {
		return fail(http.StatusBadRequest, "the name of the object (%s) does not match the name on the URL (%s)", name, t.name)
	}
	if ns, _ := m["namespace"].(string); ns != t.namespace {
		return fail(http.StatusBadRequest, "the namespace of the provided object does not match the namespace sent on the request")
	}
	if t.crd != nil {
		// A custom resource is decoded as it is and validated: the kind,
		// or else the apiVersion, is the field at fault (schema_crd.go).
		for _, k := range []string{"kind", "apiVersion"} {
			if merged[k] != old[k] {
				name, _ := m["name"].(string)
				kind, _ := merged["kind"].(string)
				return invalidAll(kind+"."+t.group, name, []apiclient.StatusCause{{Type: "FieldValueInvalid", Field: k,
					Message: fmt.Sprintf("Invalid value: %q: must be %v", merged[k], old[k])}}, t.group, kind)
			}
		}
	}
	if merged["kind"] != old["kind"] || merged["apiVersion"] != old["apiVersion"] {
		msg := fmt.Sprintf("Invalid value: the patched object is a %v %v, not a %v %v", merged["apiVersion"], merged["kind"], old["apiVersion"], old["kind"])
		return statusError{code: http.StatusUnprocessableEntity, reason: "Invalid", error: fmt.Errorf(`%q is invalid: patch: %s`, "", msg),
			details: &apiclient.StatusDetails{Causes: []apiclient.StatusCause{{Type: "FieldValueInvalid", Message: msg, Field: "patch"}}}}
	}
	return nil
}
