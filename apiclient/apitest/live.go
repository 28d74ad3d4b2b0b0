package apitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// serveLive answers a request from the live objects: the verbs, each a method of
// liveState that returns the body and the status code.
func (s *Server) serveLive(w http.ResponseWriter, r *http.Request) {
	t, ok := parsePath(r.URL.Path)
	if !ok {
		writeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
		return
	}
	q := r.URL.Query()
	l := &s.live
	metadataOnly := wantsMetadataOnly(r)
	var out []byte
	var code int
	var err error
	switch {
	case r.Method == http.MethodGet && t.name == "" && (q.Get("watch") == "true" || q.Get("watch") == "1"):
		l.watch(w, r, t, q, metadataOnly)
		return
	case r.Method == http.MethodGet && t.name == "":
		out, code, err = l.list(t, q, metadataOnly)
	case r.Method == http.MethodGet:
		if out, code, err = l.get(t); err == nil && metadataOnly {
			out = partialJSON(out)
		}
	case r.Method == http.MethodPost && t.name == "":
		var body object
		if body, err = readObject(r.Body); err == nil {
			out, code, err = l.create(t, body)
		} else {
			code = http.StatusBadRequest
		}
	case r.Method == http.MethodPut && t.name != "":
		var body object
		if body, err = readObject(r.Body); err == nil {
			out, code, err = l.update(t, body)
		} else {
			code = http.StatusBadRequest
		}
	case r.Method == http.MethodPatch && t.name != "":
		var patch []byte
		if patch, err = io.ReadAll(r.Body); err == nil {
			out, code, err = l.patch(t, r.Header.Get("Content-Type"), patch)
		}
	case r.Method == http.MethodDelete && t.name != "":
		out, code, err = l.delete(t)
	default:
		writeStatus(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "%s is not supported on %s", r.Method, r.URL.Path)
		return
	}
	if err != nil {
		reason := reasonFor(code)
		if e, ok := err.(reasonError); ok {
			reason = e.reason
		}
		writeStatus(w, code, reason, "%v", err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(out, '\n'))
}

func (l *liveState) get(t target) ([]byte, int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	o, ok := l.objects[t.collection()][key(t.namespace, t.name)]
	if !ok {
		return nil, http.StatusNotFound, fmt.Errorf("%s %q not found", t.collection(), t.name)
	}
	return marshal(o), http.StatusOK, nil
}

func (l *liveState) create(t target, o object) ([]byte, int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := o.meta()
	name, _ := m["name"].(string)
	if name == "" {
		if gen, _ := m["generateName"].(string); gen != "" {
			name = gen + randomSuffix()
			m["name"] = name
		}
	}
	if name == "" {
		return nil, http.StatusUnprocessableEntity, fmt.Errorf("metadata.name: Required value")
	}
	if t.namespace != "" {
		m["namespace"] = t.namespace
	}
	ns, _ := m["namespace"].(string)
	coll := l.collection(t.collection())
	if _, ok := coll[key(ns, name)]; ok {
		return nil, http.StatusConflict, reasonError{"AlreadyExists", fmt.Errorf("%s %q already exists", t.collection(), name)}
	}
	m["uid"] = randomUID()
	m["creationTimestamp"] = l.clock.Now().UTC().Format(time.RFC3339)
	m["generation"] = json.Number("1")
	o["apiVersion"], o["kind"] = t.apiVersion(), kindOf(t, o)
	coll[key(ns, name)] = o
	return l.record("ADDED", t.collection(), o), http.StatusCreated, nil
}

func (l *liveState) update(t target, o object) ([]byte, int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	old, ok := l.objects[t.collection()][key(t.namespace, t.name)]
	if !ok {
		return nil, http.StatusNotFound, fmt.Errorf("%s %q not found", t.collection(), t.name)
	}
	m, oldMeta := o.meta(), old.meta()
	if rv, _ := m["resourceVersion"].(string); rv != "" && rv != oldMeta["resourceVersion"] {
		return nil, http.StatusConflict, fmt.Errorf("Operation cannot be fulfilled on %s %q: the object has been modified; please apply your changes to the latest version and try again", t.collection(), t.name)
	}
	if t.sub == "status" { // only the status changes through the status subresource
		status := o["status"]
		o = deepCopy(old)
		o["status"] = status
		m = o.meta()
	}
	// What the server owns, a write cannot change: identity, creation, the
	// generation (moved below) and a deletion already under way.
	for _, k := range []string{"name", "namespace", "uid", "creationTimestamp", "generation", "deletionTimestamp"} {
		if v, ok := oldMeta[k]; ok {
			m[k] = v
		} else {
			delete(m, k)
		}
	}
	o["apiVersion"], o["kind"] = old["apiVersion"], old["kind"]
	if specChanged(old, o) {
		m["generation"] = json.Number(strconv.FormatInt(generationOf(old)+1, 10))
	}
	if _, deleting := m["deletionTimestamp"]; deleting && len(finalizersOf(o)) == 0 {
		// The last finalizer went: the deletion that waited for it happens now.
		delete(l.objects[t.collection()], key(t.namespace, t.name))
		return l.record("DELETED", t.collection(), o), http.StatusOK, nil
	}
	l.objects[t.collection()][key(t.namespace, t.name)] = o
	return l.record("MODIFIED", t.collection(), o), http.StatusOK, nil
}

func (l *liveState) patch(t target, contentType string, patch []byte) ([]byte, int, error) {
	pt := strings.TrimSpace(strings.Split(contentType, ";")[0])
	switch pt {
	case string(apiclient.MergePatch), string(apiclient.StrategicMergePatch), string(apiclient.ApplyPatch), string(apiclient.JSONPatch):
	default:
		return nil, http.StatusUnsupportedMediaType, fmt.Errorf("apitest: patch type %q is not supported", contentType)
	}
	var p any
	if err := decodeJSON(patch, &p); err != nil {
		return nil, http.StatusBadRequest, fmt.Errorf("patch: %w", err)
	}
	l.mu.Lock()
	old, ok := l.objects[t.collection()][key(t.namespace, t.name)]
	l.mu.Unlock()
	if !ok && pt == string(apiclient.ApplyPatch) && t.sub == "" {
		// Server-side apply creates what does not exist yet.
		applied, isObject := p.(map[string]any)
		if !isObject {
			return nil, http.StatusBadRequest, fmt.Errorf("apply: the body is not an object")
		}
		o := object(applied)
		o.meta()["name"] = t.name
		return l.create(t, o)
	}
	if !ok {
		return nil, http.StatusNotFound, fmt.Errorf("%s %q not found", t.collection(), t.name)
	}
	var merged map[string]any
	if pt == string(apiclient.JSONPatch) {
		ops, isList := p.([]any)
		merged = deepCopy(old)
		if !isList {
			return nil, http.StatusBadRequest, fmt.Errorf("json patch: the body is not a list of operations")
		}
		if err := applyJSONPatch(merged, ops); err != nil {
			return nil, http.StatusUnprocessableEntity, err
		}
	} else if merged, ok = mergePatch(map[string]any(deepCopy(old)), p).(map[string]any); !ok {
		return nil, http.StatusUnprocessableEntity, fmt.Errorf("patch: the result is not an object")
	}
	delete(object(merged).meta(), "resourceVersion") // a patch applies to the latest version
	return l.update(t, object(merged))
}

func (l *liveState) delete(t target) ([]byte, int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	coll := l.objects[t.collection()]
	o, ok := coll[key(t.namespace, t.name)]
	if !ok {
		return nil, http.StatusNotFound, fmt.Errorf("%s %q not found", t.collection(), t.name)
	}
	if len(finalizersOf(o)) > 0 {
		// Finalizers hold the object: it is only marked, and whoever owns each
		// finalizer cleans up and removes it (update deletes it when none is left).
		m := o.meta()
		if _, marked := m["deletionTimestamp"]; marked {
			return marshal(o), http.StatusOK, nil
		}
		o = deepCopy(o)
		o.meta()["deletionTimestamp"] = l.clock.Now().UTC().Format(time.RFC3339)
		o.meta()["deletionGracePeriodSeconds"] = json.Number("0")
		coll[key(t.namespace, t.name)] = o
		return l.record("MODIFIED", t.collection(), o), http.StatusOK, nil
	}
	delete(coll, key(t.namespace, t.name))
	return l.record("DELETED", t.collection(), o), http.StatusOK, nil
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

func generationOf(o object) int64 {
	n, _ := o.meta()["generation"].(json.Number)
	g, _ := n.Int64()
	return g
}

func finalizersOf(o object) []any {
	f, _ := o.meta()["finalizers"].([]any)
	return f
}

// reasonError is an error whose Status reason is not its code's usual one: a
// real API server answers a Create of a name taken with 409 AlreadyExists, not
// 409 Conflict, and clients tell the two apart.
type reasonError struct {
	reason string
	error
}
