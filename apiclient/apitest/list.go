package apitest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/kubewire/kubewire/apiclient/selector"
)

// list answers a LIST: the objects of the collection in the namespace (all of them
// without one) that the selectors select, sorted by key. Without
// resourceVersion it reads the current state; with resourceVersionMatch=Exact
// the state at that version, as etcd keeps it until a Compact. With limit it
// pages, and every page is read at the first page's version, as kube-apiserver
// does: a continue token holds that version and the key to start after, and
// is 410 Expired once a Compact forgot it. A full page has a continue token
// whenever an object follows it, even if the selectors will not pick it (the
// API server's pages are read from storage before they are filtered).
func (l *liveState) list(t target, q url.Values, metadataOnly bool) ([]byte, int, error) {
	sel, fields, err := selectorsOf(t, q)
	if err != nil {
		return nil, 0, fail(http.StatusBadRequest, "%v", err)
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	if q.Get("resourceVersion") == "0" {
		// Any version will do: kube-apiserver answers from its watch cache,
		// all of it, whatever the limit.
		limit = 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	at, after, err := l.listVersion(q)
	if err != nil {
		return nil, 0, err
	}
	st := l.strategyFor(t)
	coll := l.stateAt(t.collection(), at)
	var items [][]byte
	next, remaining := "", 0
	for _, k := range sortedKeys(coll) {
		o := coll[k]
		if (after != "" && k <= after) || !inNamespace(o, t.namespace) {
			continue
		}
		if limit > 0 && len(items) == limit {
			// A page is full: there is a next one if any object follows,
			// selected or not, as the API server pages through storage.
			if next == "" {
				next = continueToken(at, lastKey(items))
			}
			if sel(labelsOf(o)) && fields(selectable(t.collection(), o)) {
				remaining++
			}
			continue
		}
		if !sel(labelsOf(o)) || !fields(selectable(t.collection(), o)) {
			continue
		}
		switch {
		case metadataOnly:
			items = append(items, marshal(partial(o)))
		case st.custom:
			items = append(items, marshal(o))
		default:
			items = append(items, listItem(o))
		}
	}
	meta := map[string]any{"resourceVersion": strconv.FormatInt(at, 10)}
	if next != "" {
		meta["continue"] = next
		if q.Get("labelSelector") == "" && q.Get("fieldSelector") == "" {
			meta["remainingItemCount"] = remaining
		}
	}
	var b bytes.Buffer
	kind, listKind := l.kinds(t)
	kind, apiVersion := listKind, t.apiVersion()
	if metadataOnly {
		kind, apiVersion = "PartialObjectMetadataList", "meta.k8s.io/v1"
	}
	_ = kind
	fmt.Fprintf(&b, `{"kind":%q,"apiVersion":%q,"metadata":%s,"items":[`, kind, apiVersion, marshal(meta))
	b.Write(bytes.Join(items, []byte(",")))
	b.WriteString("]}")
	return b.Bytes(), http.StatusOK, nil
}

// listVersion is the version a LIST reads at, and the key a continued one
// starts after; called with l.mu held.
func (l *liveState) listVersion(q url.Values) (at int64, after string, err error) {
	rv, match := q.Get("resourceVersion"), q.Get("resourceVersionMatch")
	if c := q.Get("continue"); c != "" {
		if rv != "" || match != "" {
			return 0, "", fail(http.StatusBadRequest, "specifying resource version is not allowed when using continue")
		}
		var tok struct {
			RV    int64  `json:"rv"`
			Start string `json:"start"`
		}
		b, err := base64.RawURLEncoding.DecodeString(c)
		if err != nil || json.Unmarshal(b, &tok) != nil || tok.RV <= 0 {
			return 0, "", fail(http.StatusBadRequest, "continue key is not valid: invalid continue token")
		}
		if tok.RV < l.compacted {
			return 0, "", fail(http.StatusGone, "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.")
		}
		return tok.RV, tok.Start, nil
	}
	if rv == "" || rv == "0" {
		return l.rv, "", nil
	}
	n, perr := strconv.ParseInt(rv, 10, 64)
	switch {
	case perr != nil:
		return 0, "", fail(http.StatusBadRequest, "invalid resourceVersion %q", rv)
	case n > l.rv:
		return 0, "", tooLarge(n, l.rv)
	case match == "Exact" && n < l.compacted:
		return 0, "", fail(http.StatusGone, "The resourceVersion for the provided list is too old.")
	case match == "Exact":
		return n, "", nil
	}
	return l.rv, "", nil
}

// stateAt is a collection as it was at version at: the current objects, with
// every later change in the history undone. Called with l.mu held.
func (l *liveState) stateAt(coll string, at int64) map[string]object {
	cur := l.objects[coll]
	if at >= l.rv {
		return cur
	}
	state := make(map[string]object, len(cur))
	for k, o := range cur {
		state[k] = o
	}
	for i := len(l.history) - 1; i >= 0 && l.history[i].rv > at; i-- {
		c := l.history[i]
		if c.collection != coll {
			continue
		}
		k := key(c.namespace, c.name)
		if c.prev == nil {
			delete(state, k)
			continue
		}
		var o object
		if decodeJSON(c.prev, &o) == nil {
			state[k] = o
		}
	}
	return state
}

func continueToken(rv int64, after string) string {
	return base64.RawURLEncoding.EncodeToString(marshal(map[string]any{"rv": rv, "start": after}))
}

// listItem is an object as a LIST carries it: the API server leaves kind and
// apiVersion out of the items of a built-in kind's list (the list's kind says
// it), so the fake does too, and code that wrongly relies on them fails here as
// it would there. (A custom resource's items keep them.)
func listItem(o object) []byte {
	c := make(object, len(o))
	for k, v := range o {
		if k != "kind" && k != "apiVersion" {
			c[k] = v
		}
	}
	return marshal(c)
}

// lastKey returns the key of the last marshalled item.
func lastKey(items [][]byte) string {
	var o struct {
		Metadata struct{ Name, Namespace string } `json:"metadata"`
	}
	json.Unmarshal(items[len(items)-1], &o)
	return key(o.Metadata.Namespace, o.Metadata.Name)
}

func inNamespace(o object, ns string) bool {
	if ns == "" {
		return true
	}
	got, _ := o.meta()["namespace"].(string)
	return got == ns
}

func labelsOf(o object) map[string]string {
	m, _ := o.meta()["labels"].(map[string]any)
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k], _ = v.(string)
	}
	return out
}

// selectorsOf parses a request's labelSelector and fieldSelector, for the
// LIST, the watch and the DELETE of a collection: what each matches, or the
// first one's error (a 400 in each).
func selectorsOf(t target, q url.Values) (labels, fields func(map[string]string) bool, err error) {
	if labels, err = parseSelector(q.Get("labelSelector")); err != nil {
		return nil, nil, err
	}
	if fields, err = parseFieldSelector(t.collection(), q.Get("fieldSelector")); err != nil {
		return nil, nil, err
	}
	return labels, fields, nil
}

// parseSelector parses a labelSelector as the API server does (apiclient/selector):
// equality and set-based requirements, keys and values validated.
func parseSelector(s string) (func(map[string]string) bool, error) {
	sel, err := selector.Parse(s)
	if err != nil {
		return nil, err
	}
	return sel.Matches, nil
}

// parseFieldSelector parses a fieldSelector as the API server does, for the
// fields collection coll can be selected by (selectable): metadata.name and
// metadata.namespace everywhere, and for Pods the ones a kubelet or a
// scheduler select by, where apitest holds what the real server would.
// Another field is refused, 400, as the real server refuses one it does not
// know (it knows a few more than apitest: spec.restartPolicy, whose default
// apitest does not fill in, and the like).
func parseFieldSelector(coll, s string) (func(map[string]string) bool, error) {
	sel, err := selector.ParseFields(s)
	if err != nil {
		return nil, err
	}
	known := selectable(coll, object{})
	for _, t := range sel.Terms() {
		if _, ok := known[t.Field]; !ok {
			return nil, fmt.Errorf("field label not supported: %s", t.Field)
		}
	}
	return sel.Matches, nil
}

// podFields are the fields apitest lets Pods be selected by, and where each is.
var podFields = map[string][]string{
	"spec.nodeName":            {"spec", "nodeName"},
	"spec.serviceAccountName":  {"spec", "serviceAccountName"},
	"status.phase":             {"status", "phase"},
	"status.podIP":             {"status", "podIP"},
	"status.nominatedNodeName": {"status", "nominatedNodeName"},
}

// selectable is o's values of the fields its collection can be selected by.
func selectable(coll string, o object) map[string]string {
	m := o.meta()
	name, _ := m["name"].(string)
	ns, _ := m["namespace"].(string)
	out := map[string]string{"metadata.name": name, "metadata.namespace": ns}
	if coll == "pods" {
		for f, path := range podFields {
			var v any = map[string]any(o)
			for _, p := range path {
				vm, _ := v.(map[string]any)
				v = vm[p]
			}
			out[f], _ = v.(string)
		}
	}
	return out
}
