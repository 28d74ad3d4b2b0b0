package difftest

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Profile is what a comparison must know of the real server: its minor
// version, for the behaviours that changed between the versions tested, and
// what its run found that apitest's run must repeat.
type Profile struct {
	Minor int
	// Unexpired holds the numbers of the expired steps that the real server
	// answered with events, not 410 Expired: it still served a watch of that
	// resource from resourceVersion 1. kube-apiserver answers such a watch
	// from its watch cache, one per resource, and a cache that has not yet
	// let go of an event since it started still serves from its first
	// version: on a new server (CI's are), and on an old one for a resource
	// that has seen few writes. Nothing is compared there; the step is told
	// as such on both servers, and apitest is not compacted. Check and Replay
	// read it from the real server's transcript (unexpired).
	Unexpired map[int]bool
}

// normalizer turns answers into transcript text that two servers can agree
// on: resourceVersions and uids become r1, r2, … and u1, u2, … in the order
// they first appear (so "the version changed" and "it did not" survive, the
// values do not), times become T, managedFields lose their times and are
// sorted, and what the real server fills in by defaulting is left out.
type normalizer struct {
	p      Profile
	ns     string            // the run's namespace, shown as "ns"
	syms   map[string]string // raw value → symbol
	counts map[byte]int      // 'r', 'u' → symbols handed out
	hidden map[string]bool   // versions made by a burst: shown as r?
	maxRV  string            // the highest resourceVersion an object showed
}

func newNormalizer(p Profile, ns string) *normalizer {
	return &normalizer{p: p, ns: ns, syms: map[string]string{}, counts: map[byte]int{}, hidden: map[string]bool{}}
}

// rv is the symbol of a resourceVersion.
func (n *normalizer) rv(v string) string {
	if v == "" {
		return ""
	}
	if n.maxRV == "" || compareRV(v, n.maxRV) > 0 {
		n.maxRV = v
	}
	if n.hidden[v] {
		return "r?"
	}
	return n.sym('r', "rv:"+v)
}

func (n *normalizer) uid(v string) string { return n.sym('u', "uid:"+v) }

func (n *normalizer) sym(prefix byte, key string) string {
	if s, ok := n.syms[key]; ok {
		return s
	}
	n.counts[prefix]++
	s := string(prefix) + strconv.Itoa(n.counts[prefix])
	n.syms[key] = s
	return s
}

// hide marks a version a burst made: which write got which version is up to
// the server, so no symbol is given to it.
func (n *normalizer) hide(v string) { n.hidden[v] = true }

// listRV describes a list's or a bookmark's resourceVersion. On a shared real
// server it moves with everyone's writes, so only how it relates to the
// versions this run saw is shown: "current" when no older than the newest.
func (n *normalizer) listRV(v any) string {
	s, _ := v.(string)
	switch {
	case s == "":
		return "none"
	case n.maxRV == "" || compareRV(s, n.maxRV) >= 0:
		return "current"
	}
	return "older"
}

// answer normalises a response body: a Status, or an object.
func (n *normalizer) answer(res string, obj map[string]any) string {
	if obj["kind"] == "Status" {
		return status(obj)
	}
	return n.object(res, obj)
}

// status shows what a client can act on in a Status: success or failure, the
// reason and code, and for a conflict of field managers, which fields; the
// message is the server's own prose and is left out.
func status(obj map[string]any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Status %v", obj["status"])
	if r, ok := obj["reason"]; ok {
		fmt.Fprintf(&b, " %v", r)
	}
	if c, ok := obj["code"]; ok {
		fmt.Fprintf(&b, " %v", c)
	}
	d, _ := obj["details"].(map[string]any)
	if obj["status"] == "Success" && d != nil {
		fmt.Fprintf(&b, " name=%v kind=%v group=%v", d["name"], d["kind"], d["group"])
	}
	causes, _ := d["causes"].([]any)
	var fields []string
	for _, c := range causes {
		cm, _ := c.(map[string]any)
		if cm["reason"] == "FieldManagerConflict" {
			fields = append(fields, fmt.Sprint(cm["field"]))
		}
	}
	sort.Strings(fields)
	if len(fields) > 0 {
		b.WriteString(" conflicts=" + strings.Join(fields, ","))
	}
	return b.String()
}

// event normalises a watch event.
func (n *normalizer) event(res string, ev map[string]any) string {
	typ, _ := ev["type"].(string)
	obj, _ := ev["object"].(map[string]any)
	if typ == "ERROR" {
		return "ERROR " + status(obj)
	}
	if typ == "BOOKMARK" {
		m, _ := obj["metadata"].(map[string]any)
		a, _ := m["annotations"].(map[string]any)
		// kube-apiserver 1.32 also annotates the bookmark with an empty list
		// of the kind (initial-events-list-blueprint); 1.37, and apitest,
		// do not.
		delete(a, "kubernetes.io/initial-events-list-blueprint")
		return fmt.Sprintf("BOOKMARK %v %v rv=%s annotations=%v", obj["kind"], obj["apiVersion"], n.listRV(m["resourceVersion"]), a)
	}
	m, _ := obj["metadata"].(map[string]any)
	if rv, _ := m["resourceVersion"].(string); n.hidden[rv] {
		return typ + " " + nameOf(obj) + " (a burst's write)"
	}
	return typ + " " + n.object(res, obj)
}

// object normalises one object: its kind's projection, then its metadata.
func (n *normalizer) object(res string, obj map[string]any) string {
	obj = copyJSON(obj)
	if k := kinds[res]; k != nil && k.shape != nil {
		projectJSON(obj, k.shape)
	}
	if k := kinds[res]; k != nil && k.defaults != nil {
		k.defaults(obj)
	}
	if res == "pods" && n.p.Minor < 35 {
		// Pods have had metadata.generation since 1.35 (apitest models it);
		// older servers leave it out.
		if m, ok := obj["metadata"].(map[string]any); ok {
			delete(m, "generation")
		}
	}
	if m, ok := obj["metadata"].(map[string]any); ok {
		n.metadata(res, m)
	}
	b, _ := json.Marshal(obj)
	return string(b)
}

func (n *normalizer) metadata(res string, m map[string]any) {
	// The run's namespace, and those named after it (the namespaces
	// class's "{ns}-x"), are shown as "ns…".
	for _, k := range []string{"namespace", "name"} {
		if v, _ := m[k].(string); v == n.ns || (res == "namespaces" || k == "namespace") && strings.HasPrefix(v, n.ns+"-") {
			m[k] = "ns" + strings.TrimPrefix(v, n.ns)
		}
	}
	if l, _ := m["labels"].(map[string]any); res == "namespaces" && l != nil {
		if v, _ := l["kubernetes.io/metadata.name"].(string); strings.HasPrefix(v, n.ns) {
			l["kubernetes.io/metadata.name"] = "ns" + strings.TrimPrefix(v, n.ns)
		}
	}
	if v, ok := m["resourceVersion"].(string); ok {
		m["resourceVersion"] = n.rv(v)
	}
	if v, ok := m["uid"].(string); ok {
		m["uid"] = n.uid(v)
	}
	for _, k := range []string{"creationTimestamp", "deletionTimestamp"} {
		if _, ok := m[k]; ok {
			m[k] = "T"
		}
	}
	if g, _ := m["generateName"].(string); g != "" {
		// The drawn suffix is five characters; a longer generateName is
		// cut first so that the name stays within 63: the cut shows.
		name, _ := m["name"].(string)
		if cut := len(name) - 5; cut >= 0 && cut < len(g) {
			g = g[:cut]
		}
		m["name"] = g + "*"
	}
	mf, _ := m["managedFields"].([]any)
	for _, e := range mf {
		em, _ := e.(map[string]any)
		delete(em, "time")
		if f, ok := em["fieldsV1"].(map[string]any); ok && kinds[res] != nil && kinds[res].shape != nil {
			projectFields(f, kinds[res].shape)
		}
	}
	sort.SliceStable(mf, func(i, j int) bool { return entryKey(mf[i]) < entryKey(mf[j]) })
}

// entryKey orders managedFields entries without their times: the real server
// orders them by operation, then time, then manager, and times differ.
func entryKey(e any) string {
	m, _ := e.(map[string]any)
	return fmt.Sprint(m["operation"], "\x00", m["manager"], "\x00", m["subresource"], "\x00", m["apiVersion"])
}

func copyJSON(v map[string]any) map[string]any {
	b, _ := json.Marshal(v)
	var out map[string]any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	dec.Decode(&out)
	return out
}
