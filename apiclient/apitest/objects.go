package apitest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/clock"
)

// liveState is the live server's memory: objects by collection and key, the
// resourceVersion counter, and the history watches are served from.
type liveState struct {
	mu      sync.Mutex
	clock   apiclient.Clock
	rv      int64
	objects map[string]map[string]object // collection → "ns/name" or "name" → object
	// residue: objects (collection + "/" + key) kube-apiserver would hold
	// with an empty labels or annotations map that it does not show: a
	// custom resource's apply leaves one from its configuration, and the
	// next write to the main resource that is not an apply clears it — a
	// write even when it changes nothing else.
	residue map[string]bool
	history []change // every write, oldest first
	// compacted: changes at or below it are forgotten, and a watch from an older
	// resourceVersion gets 410 Expired, as after an etcd compaction.
	compacted int64
	changed   chan struct{}  // closed and replaced on every write: wakes the watches
	held      map[string]int // collection → holds: its watches send no changes (hold.go)
	expired   map[string]int // collection → ExpireWatches calls: a watch that sees it change ends with 410 (expire.go)
	// expireNext: ExpireWatches found no watch of the collection open, so
	// the next to start meets the 410; watching counts the open ones.
	expireNext map[string]bool
	watching   map[string]int
	stopped    chan struct{} // closed by close: ends every watch
	rand       io.Reader     // uids and generated names (HandlerOptions.Rand)
	// api is what the server serves before any CRD: the embedded record,
	// parsed by the first server of the process (catalog.go).
	api *catalog
	// anyCustom, anyNamespace: HandlerOptions.AnyCustomResource and
	// AnyNamespace.
	anyCustom, anyNamespace bool
	// caller calls the admission and conversion webhooks the stored
	// configurations and CRDs name (admission.go, conversion.go); nil in a
	// server that calls none (NewPlainServer).
	caller webhookCaller
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
	body       []byte // the object after the write (before it, at this version, for DELETED)
	// prev is the object before the write, at its own version (nil for
	// ADDED): a list at an older version rolls back to it, and a watch whose
	// selector it matched (prevLabels) learns that the object left.
	prev       []byte
	prevLabels map[string]string
	// fields and prevFields are the selectable fields' values after and
	// before (list.go's selectable), for field-selecting watches.
	fields, prevFields map[string]string
}

// init readies an empty server: the namespaces every cluster has, their
// uids drawn from rnd (nil: crypto/rand).
func (l *liveState) init(clock apiclient.Clock, rnd io.Reader) {
	l.clock = clock
	l.rv = 1
	l.objects = map[string]map[string]object{}
	l.residue = map[string]bool{}
	l.changed = make(chan struct{})
	l.stopped = make(chan struct{})
	l.rand = rnd
	if rnd == nil {
		l.rand = rand.Reader
	}
	l.api = recorded()
	l.seedNamespaces()
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
// as a create would (by field manager "apitest"; a status that goes through a
// status subresource is dropped, as by a POST), and returns what was stored.
// The namespace comes from obj.
func (s *Server) Add(res apiclient.Resource, obj any) (*apiclient.Object, error) {
	body, err := toObject(obj)
	if err != nil {
		return nil, err
	}
	t := target{group: res.Group, version: res.Version, resource: res.Name}
	t.namespace, _ = body.meta()["namespace"].(string)
	s.live.mu.Lock()
	if r, ok := s.live.customResource(t); ok {
		t.crd = r.crd
	}
	s.live.mu.Unlock()
	out, _, err := s.live.create(t, body, "apitest")
	if err != nil {
		return nil, fmt.Errorf("apitest: add: %w", err)
	}
	return apiclient.DecodeObject(out)
}

// Compact forgets the history up to now, as etcd's compaction does: a watch
// from an older resourceVersion gets a 410 Expired ERROR event, and so do a
// LIST at an older version and a continue token from before. Watches already
// open are not disturbed (the API server's watch cache serves them).
func (s *Server) Compact() {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	s.live.compacted = s.live.rv
}

// ResourceVersion is the server's current resourceVersion.
func (s *Server) ResourceVersion() string {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	return strconv.FormatInt(s.live.rv, 10)
}

// record files a write: the change from prev (nil for a create) to o (nil
// for a delete), at the next resourceVersion, which o gets. It wakes the
// watches and returns the event's object as JSON. Called with mu held.
func (l *liveState) record(typ, coll string, prev, o object) []byte {
	l.rv++
	rv := strconv.FormatInt(l.rv, 10)
	c := change{rv: l.rv, typ: typ, collection: coll}
	if prev != nil {
		c.prev, c.prevLabels, c.prevFields = marshal(prev), labelsOf(prev), selectable(coll, prev)
	}
	if o == nil {
		// A DELETED event carries the object as it was, at the version of
		// its deletion.
		o = deepCopy(prev)
	}
	o.meta()["resourceVersion"] = rv
	c.body, c.labels, c.fields = marshal(o), labelsOf(o), selectable(coll, o)
	c.namespace, _ = o.meta()["namespace"].(string)
	c.name, _ = o.meta()["name"].(string)
	l.history = append(l.history, c)
	close(l.changed)
	l.changed = make(chan struct{})
	return c.body
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

func key(ns, name string) string { return clock.ObjectKey(ns, name) }

// kindOf keeps the object's kind, else takes the built-in resource's from the
// record (catalog.go).
func kindOf(t target, o object) string {
	if k, _ := o["kind"].(string); k != "" {
		return k
	}
	if r, ok := recorded().resource(t.group, t.version, t.resource); ok {
		return r.kind
	}
	return ""
}

// kinds returns the kind of t's objects and of its lists: from the
// well-known resources, else from t's CRD if it is stored, else from a stored
// object. Called with l.mu held.
func (l *liveState) kinds(t target) (kind, listKind string) {
	kind = kindOf(t, nil)
	if crd, ok := l.objects["customresourcedefinitions.apiextensions.k8s.io"][t.resource+"."+t.group]; ok {
		spec, _ := crd["spec"].(map[string]any)
		names, _ := spec["names"].(map[string]any)
		kind, _ = names["kind"].(string)
		listKind, _ = names["listKind"].(string)
	}
	if kind == "" {
		for _, o := range l.objects[t.collection()] {
			kind, _ = o["kind"].(string)
			break
		}
	}
	if listKind == "" {
		listKind = kind + "List"
	}
	return kind, listKind
}

// randomUID draws a uid from r; called with the server's lock held.
func randomUID(r io.Reader) string {
	b := make([]byte, 16)
	io.ReadFull(r, b)
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// randomSuffix draws the end of a name made from generateName from r; called
// with the server's lock held.
func randomSuffix(r io.Reader) string {
	b := make([]byte, 3)
	io.ReadFull(r, b)
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
	if s, ok := v.(string); ok { // a test's literal JSON
		v = []byte(s)
	}
	data, err := apiclient.JSONOf(v)
	if err != nil {
		return nil, err
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
