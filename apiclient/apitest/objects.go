package apitest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// liveState is the live server's memory: objects by collection and key, the
// resourceVersion counter, and the history watches are served from.
type liveState struct {
	mu      sync.Mutex
	clock   apiclient.Clock
	rv      int64
	objects map[string]map[string]object // collection → "ns/name" or "name" → object
	history []change                     // every write, oldest first
	// compacted: changes at or below it are forgotten, and a watch from an older
	// resourceVersion gets 410 Expired, as after an etcd compaction.
	compacted int64
	changed   chan struct{} // closed and replaced on every write: wakes the watches
	stopped   chan struct{} // closed by close: ends every watch
}

// object is one stored object, decoded (numbers kept exact) so that metadata can be
// set and patches applied.
type object map[string]any

// change is one write, as a watch event will carry it.
type change struct {
	rv         int64
	typ        string // ADDED, MODIFIED, DELETED
	collection string
	namespace  string
	name       string
	labels     map[string]string
	body       []byte // the object after the write (before it, for DELETED)
}

func (l *liveState) init(clock apiclient.Clock) {
	l.clock = clock
	l.rv = 1
	l.objects = map[string]map[string]object{}
	l.changed = make(chan struct{})
	l.stopped = make(chan struct{})
}

func (l *liveState) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.stopped:
	default:
		close(l.stopped)
	}
}

// Add stores obj — JSON as []byte or string, or anything json.Marshal takes — in res's collection,
// as a create would, and returns what was stored. The namespace comes from obj.
func (s *Server) Add(res apiclient.Resource, obj any) (*apiclient.Object, error) {
	body, err := toObject(obj)
	if err != nil {
		return nil, err
	}
	t := target{group: res.Group, version: res.Version, resource: res.Name}
	t.namespace, _ = body.meta()["namespace"].(string)
	out, code, err := s.live.create(t, body)
	if err != nil {
		return nil, fmt.Errorf("apitest: add: %d %w", code, err)
	}
	return apiclient.DecodeObject(out)
}

// Compact forgets the history up to now: a watch from an older resourceVersion gets
// a 410 Expired ERROR event, as after etcd compacted it away.
func (s *Server) Compact() {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	s.live.compacted = s.live.rv
	s.live.history = nil
}

// ResourceVersion is the server's current resourceVersion.
func (s *Server) ResourceVersion() string {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	return strconv.FormatInt(s.live.rv, 10)
}

func (s *Server) serveLive(w http.ResponseWriter, r *http.Request) {
	t, ok := parsePath(r.URL.Path)
	if !ok {
		writeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
		return
	}
	q := r.URL.Query()
	l := &s.live
	var out []byte
	var code int
	var err error
	switch {
	case r.Method == http.MethodGet && t.name == "" && (q.Get("watch") == "true" || q.Get("watch") == "1"):
		l.watch(w, r, t, q)
		return
	case r.Method == http.MethodGet && t.name == "":
		out, code, err = l.list(t, q)
	case r.Method == http.MethodGet:
		out, code, err = l.get(t)
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
		writeStatus(w, code, reasonFor(code), "%v", err)
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
		return nil, http.StatusConflict, fmt.Errorf("%s %q already exists", t.collection(), name)
	}
	m["uid"] = randomUID()
	m["creationTimestamp"] = l.clock.Now().UTC().Format(time.RFC3339)
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
	for _, k := range []string{"name", "namespace", "uid", "creationTimestamp"} {
		m[k] = oldMeta[k]
	}
	o["apiVersion"], o["kind"] = old["apiVersion"], old["kind"]
	l.objects[t.collection()][key(t.namespace, t.name)] = o
	return l.record("MODIFIED", t.collection(), o), http.StatusOK, nil
}

func (l *liveState) patch(t target, contentType string, patch []byte) ([]byte, int, error) {
	l.mu.Lock()
	old, ok := l.objects[t.collection()][key(t.namespace, t.name)]
	l.mu.Unlock()
	if !ok {
		return nil, http.StatusNotFound, fmt.Errorf("%s %q not found", t.collection(), t.name)
	}
	switch strings.TrimSpace(strings.Split(contentType, ";")[0]) {
	case string(apiclient.MergePatch), string(apiclient.StrategicMergePatch):
	default:
		return nil, http.StatusUnsupportedMediaType, fmt.Errorf("apitest: patch type %q is not supported (merge and strategic-merge are)", contentType)
	}
	var p any
	if err := decodeJSON(patch, &p); err != nil {
		return nil, http.StatusBadRequest, fmt.Errorf("patch: %w", err)
	}
	merged, ok := mergePatch(map[string]any(deepCopy(old)), p).(map[string]any)
	if !ok {
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
	delete(coll, key(t.namespace, t.name))
	return l.record("DELETED", t.collection(), o), http.StatusOK, nil
}

// record gives o the next resourceVersion, files the change and wakes the watches;
// called with mu held. It returns o as JSON.
func (l *liveState) record(typ, coll string, o object) []byte {
	l.rv++
	o.meta()["resourceVersion"] = strconv.FormatInt(l.rv, 10)
	m := o.meta()
	ns, _ := m["namespace"].(string)
	name, _ := m["name"].(string)
	body := marshal(o)
	l.history = append(l.history, change{rv: l.rv, typ: typ, collection: coll, namespace: ns, name: name, labels: labelsOf(o), body: body})
	close(l.changed)
	l.changed = make(chan struct{})
	return body
}

func (l *liveState) collection(name string) map[string]object {
	c := l.objects[name]
	if c == nil {
		c = map[string]object{}
		l.objects[name] = c
	}
	return c
}

// meta returns the object's metadata map, making one if needed.
func (o object) meta() map[string]any {
	m, ok := o["metadata"].(map[string]any)
	if !ok {
		m = map[string]any{}
		o["metadata"] = m
	}
	return m
}

func key(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// kindOf keeps the object's kind, else derives it from well-known resources.
func kindOf(t target, o object) string {
	if k, _ := o["kind"].(string); k != "" {
		return k
	}
	for _, r := range []apiclient.Resource{apiclient.Pods, apiclient.Namespaces, apiclient.Secrets, apiclient.ConfigMaps, apiclient.Deployments, apiclient.Leases, apiclient.CRDs} {
		if r.Name == t.resource && r.Group == t.group {
			return r.Kind
		}
	}
	return ""
}

func reasonFor(code int) string {
	return map[int]string{400: "BadRequest", 404: "NotFound", 409: "Conflict", 410: "Expired", 415: "UnsupportedMediaType", 422: "Invalid"}[code]
}

func randomUID() string {
	b := make([]byte, 16)
	rand.Read(b)
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func randomSuffix() string {
	b := make([]byte, 3)
	rand.Read(b)
	return hex.EncodeToString(b)[:5]
}

// sortedKeys returns a collection's keys in order, so lists are deterministic.
func sortedKeys(c map[string]object) []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func readObject(r io.Reader) (object, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return toObject(data)
}

func toObject(v any) (object, error) {
	var data []byte
	switch v := v.(type) {
	case []byte:
		data = v
	case json.RawMessage:
		data = v
	case string:
		data = []byte(v)
	default:
		var err error
		if data, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	var o map[string]any
	if err := decodeJSON(data, &o); err != nil {
		return nil, fmt.Errorf("apitest: the object is not a JSON object: %w", err)
	}
	if o == nil {
		return nil, fmt.Errorf("apitest: the object is null")
	}
	return object(o), nil
}
