package apitest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"

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
	changed   chan struct{}  // closed and replaced on every write: wakes the watches
	held      map[string]int // collection → holds: its watches send no changes (hold.go)
	stopped   chan struct{}  // closed by close: ends every watch
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
