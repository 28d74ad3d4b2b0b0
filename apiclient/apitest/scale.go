package apitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// A custom resource whose CRD has a scale subresource answers /scale as
// kube-apiserver does: an autoscaling/v1 Scale made from the object — its
// identity, spec.replicas read at specReplicasPath (left out when 0),
// status.replicas at statusReplicasPath (0 when unset) and status.selector
// at labelSelectorPath. A PUT or a merge or JSON patch of the Scale writes
// its spec.replicas back at specReplicasPath, as an update of the main
// resource (a new resourceVersion, the generation moved): a resourceVersion
// it names must be the object's (409), a negative count is 422, and the
// writer owns the replicas afterwards, through the subresource scale (unless
// they are 0, which a Scale leaves out), and no one else does. An apply of a Scale conflicts (409, at .spec.replicas)
// with any other manager that owns them, unless forced.

// scaleOf is the scale subresource of a CRD's version vm, or nil.
func scaleOf(vm map[string]any) map[string]any {
	sub, _ := vm["subresources"].(map[string]any)
	s, _ := sub["scale"].(map[string]any)
	return s
}

// scale answers a request to t, a custom resource's /scale.
func (l *liveState) scale(method, contentType string, t target, body io.Reader, force bool) ([]byte, int, error) {
	sc := scaleOf(t.crd)
	l.mu.Lock()
	defer l.mu.Unlock()
	main := t
	main.sub = ""
	st := l.strategyFor(main)
	old, err := l.find(main, st)
	if err != nil {
		return nil, 0, err
	}
	cur := scaleObject(old, sc)
	var want object
	op := "Update"
	path, _ := sc["specReplicasPath"].(string)
	set := fieldsPath(fieldPath(path)...)
	os, _ := ownersOf(old)
	switch method {
	case http.MethodGet:
		return marshal(cur), http.StatusOK, nil
	case http.MethodPut:
		if want, err = readObject(body); err != nil {
			return nil, 0, fail(http.StatusBadRequest, "%v", err)
		}
	case http.MethodPatch:
		pt := strings.TrimSpace(strings.Split(contentType, ";")[0])
		var p any
		data, _ := io.ReadAll(body)
		if err := decodeJSON(data, &p); err != nil {
			return nil, 0, fail(http.StatusBadRequest, "error decoding patch: %v", err)
		}
		if pt == string(apiclient.ApplyPatch) {
			op, want = "Apply", object(asMap(p))
			for _, e := range os {
				if !force && !(e.manager == t.manager && e.operation == op) && !e.fields.intersect(set).empty() {
					return nil, 0, applyConflict([]string{fmt.Sprintf("conflict with %q using %s: .spec.replicas", e.manager, e.apiVersion)})
				}
			}
		} else if want, err = patched(pt, cur, p, strategy{}); err != nil {
			return nil, 0, err
		}
	default:
		return nil, 0, fail(http.StatusMethodNotAllowed, "%s is not supported on the scale subresource", method)
	}
	if rv, _ := want.meta()["resourceVersion"].(string); rv != "" && rv != old.meta()["resourceVersion"] {
		return nil, 0, conflict(main)
	}
	spec, _ := want["spec"].(map[string]any)
	n, _ := spec["replicas"].(json.Number)
	replicas, _ := n.Int64()
	kind, _ := old["kind"].(string)
	if replicas < 0 {
		name, _ := old.meta()["name"].(string)
		return nil, 0, invalidAll(kind+"."+t.group, name, []apiclient.StatusCause{{Type: "FieldValueInvalid", Field: path,
			Message: fmt.Sprintf("Invalid value: %d: should be a non-negative integer", replicas)}}, t.group, kind)
	}
	o := deepCopy(old)
	setAt(o, path, json.Number(strconv.FormatInt(replicas, 10)))
	// A Scale of 0 replicas leaves them out (omitempty): the writer then
	// owns nothing, though the others lose them all the same.
	var self *entry
	if replicas != 0 {
		if self = os.find(t.manager, op, t.apiVersion(), "scale"); self == nil {
			self = &entry{manager: t.manager, operation: op, apiVersion: t.apiVersion(), subresource: "scale", fields: &fieldSet{}}
			os = append(os, self)
		}
		self.fields, self.time = self.fields.union(set), l.clock.Now().UTC().Format(time.RFC3339)
	}
	out, code, err := l.commit(main, st, old, o, os.without(set, self), viaUpdate)
	if err != nil {
		return nil, 0, err
	}
	stored, err := toObject(out)
	if err != nil {
		return nil, 0, err
	}
	return marshal(scaleObject(stored, sc)), code, nil
}

// scaleObject is the Scale of custom resource o by its scale subresource sc.
func scaleObject(o object, sc map[string]any) object {
	m := o.meta()
	meta := map[string]any{}
	for _, k := range []string{"name", "namespace", "uid", "resourceVersion", "creationTimestamp"} {
		if v, ok := m[k]; ok {
			meta[k] = v
		}
	}
	spec, status := map[string]any{}, map[string]any{"replicas": json.Number("0")}
	read := func(pathKey string, into map[string]any, as string) {
		path, _ := sc[pathKey].(string)
		if v, ok := at(o, path); ok && path != "" && v != nil && v != json.Number("0") {
			into[as] = v
		}
	}
	read("specReplicasPath", spec, "replicas")
	read("statusReplicasPath", status, "replicas")
	read("labelSelectorPath", status, "selector")
	return object{"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": meta, "spec": spec, "status": status}
}

// setAt sets the value at a JSON path of the scale subresource's, making the
// objects on the way.
func setAt(o object, path string, v any) {
	keys := strings.Split(strings.TrimPrefix(path, "."), ".")
	m := map[string]any(o)
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[keys[len(keys)-1]] = v
}

// fieldPath is a JSON path's elements as managedFields names them.
func fieldPath(path string) []string {
	var out []string
	for _, k := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		out = append(out, "f:"+k)
	}
	return out
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}
