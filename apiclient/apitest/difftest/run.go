package difftest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Run plays seq on t in namespace ns and returns its transcript: one line per
// step (what was asked, the status code, the object or Status answered, all
// normalised), then the events every watch delivered. Two servers that agree
// give the same transcript. An error is the harness failing (a server that
// cannot be reached, a watch that never delivers its marker), not a divergence.
//
// The namespace must be empty; Run leaves it empty (Clean).
func Run(ctx context.Context, t *Target, ns string, seq Sequence, p Profile) ([]string, error) {
	r := &runner{ctx: ctx, t: t, ns: ns, p: p, objs: map[string]*seen{}, cont: map[string]string{}, n: newNormalizer(p, ns)}
	defer r.closeWatches()
	defer Clean(context.WithoutCancel(ctx), t, ns, seq.cleanups())
	for _, res := range seq.resources() {
		if err := r.startWatches(res); err != nil {
			return nil, err
		}
	}
	for i, s := range seq.Steps {
		r.stepNo = i + 1
		line, err := r.step(s)
		if err != nil {
			return nil, fmt.Errorf("step %d (%s): %w", i+1, s, err)
		}
		r.out = append(r.out, fmt.Sprintf("%d %s → %s", i+1, s, line))
	}
	if err := r.finishWatches(seq.resources()); err != nil {
		return nil, err
	}
	return r.out, nil
}

// runner is one run's state: what it learned of each object (to fill in RV and
// UID references), the continue tokens, the open watches.
type runner struct {
	ctx     context.Context
	t       *Target
	ns      string
	p       Profile
	stepNo  int // the step being run, from 1
	n       *normalizer
	out     []string
	objs    map[string]*seen  // "configmaps/a" → what responses showed of it
	cont    map[string]string // resource → continue token of its last list
	watches []*watch
	bursts  int // how many burst steps ran
	// floor is the newest version seen when an expired step compacted
	// apitest: no later step reads at or before it (run.go's watch, next).
	floor string
}

// seen is what the runs's responses showed of one object.
type seen struct {
	rv, prev, uid string
}

// step runs one step and returns the rest of its transcript line.
func (r *runner) step(s Step) (string, error) {
	if s.Do == "raw" {
		return r.raw(s)
	}
	k := kinds[s.Res]
	if k == nil {
		return "", fmt.Errorf("unknown resource %q", s.Res)
	}
	path := k.res.Path(r.ns, s.Name, s.Sub)
	dry := ""
	if s.Dry {
		dry = "?dryRun=All"
	}
	switch s.Do {
	case "create":
		return r.write(s, "POST", k.res.Path(r.ns, "", "")+dry, "application/json", s.Body)
	case "update":
		body, err := r.withRV(s)
		if err != nil {
			return "", err
		}
		return r.write(s, "PUT", path+dry, "application/json", body)
	case "patch":
		ct := map[string]string{"merge": "application/merge-patch+json", "json": "application/json-patch+json", "strategic": "application/strategic-merge-patch+json"}[s.Type]
		return r.write(s, "PATCH", path+dry, ct, s.Body)
	case "apply":
		q := url.Values{"fieldManager": {s.Mgr}}
		if s.Force {
			q.Set("force", "true")
		}
		if s.Dry {
			q.Set("dryRun", "All")
		}
		body, err := r.withRV(s)
		if err != nil {
			return "", err
		}
		return r.write(s, "PATCH", path+"?"+q.Encode(), "application/apply-patch+yaml", body)
	case "delete":
		return r.write(s, "DELETE", path, "application/json", r.deleteOptions(s))
	case "get":
		return r.write(s, "GET", path, "", "")
	case "list":
		if s.RV == "" {
			return r.list(s, s.Query)
		}
		rv, ok := r.readableRV(s)
		if !ok {
			return "no resourceVersion to list at", nil
		}
		return r.list(s, url.Values{"resourceVersion": {rv}, "resourceVersionMatch": {"Exact"}}.Encode())
	case "next":
		tok := r.cont[s.Res]
		if tok == "" {
			return "no continue token", nil
		}
		q := url.Values{"continue": {tok}}
		return r.list(s, q.Encode())
	case "watch":
		rv, ok := r.readableRV(s)
		if !ok {
			return "no resourceVersion to watch from", nil
		}
		w, err := r.openWatch(s.Res, "from "+r.n.rv(rv), url.Values{"resourceVersion": {rv}})
		if err != nil {
			return "", err
		}
		r.watches = append(r.watches, w)
		return "opened", nil
	case "stream":
		return r.stream(s)
	case "expired":
		return r.expired(s)
	case "burst":
		return r.burst(s)
	}
	return "", fmt.Errorf("unknown step %q", s.Do)
}

// write sends a request whose answer is one object or a Status, notes the
// object's resourceVersion and uid, and normalises the answer.
func (r *runner) write(s Step, method, path, ct, body string) (string, error) {
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	code, out, err := r.t.do(r.ctx, method, path, ct, b)
	if err != nil {
		return "", err
	}
	obj, err := decodeAnswer(out)
	if err != nil {
		return "", fmt.Errorf("%s %s: %d %w: %.200s", method, path, code, err, out)
	}
	if !s.Dry {
		r.note(s.Res, obj) // a dry run's answer has no version of its own
	}
	return strconv.Itoa(code) + " " + r.n.answer(s.Res, obj), nil
}

// note records the resourceVersion and uid of an object an answer showed.
func (r *runner) note(res string, obj map[string]any) {
	if obj["kind"] == "Status" {
		return
	}
	m, _ := obj["metadata"].(map[string]any)
	name, _ := m["name"].(string)
	rv, _ := m["resourceVersion"].(string)
	uid, _ := m["uid"].(string)
	if name == "" || rv == "" {
		return
	}
	o := r.objs[res+"/"+name]
	if o == nil {
		o = &seen{}
		r.objs[res+"/"+name] = o
	}
	if o.rv != rv {
		o.prev, o.rv = o.rv, rv
	}
	o.uid = uid
}

// ref resolves an RV or UID reference ("latest", "stale", "bogus") of an object.
func (r *runner) ref(key, which string) string {
	o := r.objs[key]
	switch which {
	case "latest":
		if o != nil {
			return o.rv
		}
	case "stale":
		if o != nil && o.prev != "" {
			return o.prev
		}
		return "1"
	case "bogus":
		return "424242424242"
	case "uid":
		if o != nil {
			return o.uid
		}
	case "bogus-uid":
		return "00000000-0000-4000-8000-000000000000"
	}
	return ""
}

// readableRV resolves s.RV for a read at a version (a watch from it, a list
// at it): only a version this run saw, and none an expired step compacted
// away on apitest (the real server forgets by a window of its own), so that
// both servers still have it.
func (r *runner) readableRV(s Step) (string, bool) {
	o := r.objs[s.Res+"/"+s.Name]
	if o == nil || (s.RV == "stale" && o.prev == "") {
		return "", false // "1" is expired on one server and not the other
	}
	rv := r.ref(s.Res+"/"+s.Name, s.RV)
	if rv == "" || (r.floor != "" && compareRV(rv, r.floor) <= 0) {
		return "", false
	}
	return rv, true
}

// withRV returns an update's or apply's body with metadata.resourceVersion
// set as s.RV says.
func (r *runner) withRV(s Step) (string, error) {
	var obj map[string]any
	if err := json.Unmarshal([]byte(s.Body), &obj); err != nil {
		return "", fmt.Errorf("the body: %w", err)
	}
	if rv := r.ref(s.Res+"/"+s.Name, s.RV); rv != "" {
		m, _ := obj["metadata"].(map[string]any)
		if m == nil {
			m = map[string]any{}
			obj["metadata"] = m
		}
		m["resourceVersion"] = rv
	}
	b, err := json.Marshal(obj)
	return string(b), err
}

// deleteOptions is a DELETE's body: its preconditions, as s.RV and s.UID
// say, and dryRun.
func (r *runner) deleteOptions(s Step) string {
	pre := map[string]string{}
	if rv := r.ref(s.Res+"/"+s.Name, s.RV); rv != "" {
		pre["resourceVersion"] = rv
	}
	switch s.UID {
	case "latest":
		if uid := r.ref(s.Res+"/"+s.Name, "uid"); uid != "" {
			pre["uid"] = uid
		}
	case "bogus":
		pre["uid"] = r.ref("", "bogus-uid")
	}
	opts := map[string]any{"kind": "DeleteOptions", "apiVersion": "v1"}
	if len(pre) > 0 {
		opts["preconditions"] = pre
	}
	if s.Dry {
		opts["dryRun"] = []string{"All"} // in the body: with one, the query is not read
	}
	b, _ := json.Marshal(opts)
	return string(b)
}

// decodeAnswer decodes a response body: an object, a list or a Status.
func decodeAnswer(out []byte) (map[string]any, error) {
	var obj map[string]any
	dec := json.NewDecoder(strings.NewReader(string(out)))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("the answer is not a JSON object: %w", err)
	}
	return obj, nil
}

// compareRV orders resourceVersions as numbers (the harness may: it compares
// two etcd-backed or apitest servers, whose versions are counters).
func compareRV(a, b string) int {
	x, _ := strconv.ParseInt(a, 10, 64)
	y, _ := strconv.ParseInt(b, 10, 64)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func mapsKeys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// watchDeadline bounds how long a run waits for a watch to deliver its marker.
const watchDeadline = 30 * time.Second
