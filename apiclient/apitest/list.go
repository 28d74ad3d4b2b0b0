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
// without one) that the selectors select, sorted by key, at the current
// resourceVersion. With limit it pages: the continue token is the key to start
// after. Unlike etcd, later pages show the objects as they are then, not as of the
// first page: good enough for a test server.
func (l *liveState) list(t target, q url.Values, metadataOnly bool) ([]byte, int, error) {
	sel, err := parseSelector(q.Get("labelSelector"))
	if err != nil {
		return nil, http.StatusBadRequest, err
	}
	fields, err := parseFieldSelector(q.Get("fieldSelector"))
	if err != nil {
		return nil, http.StatusBadRequest, err
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	after := ""
	if c := q.Get("continue"); c != "" {
		b, err := base64.RawURLEncoding.DecodeString(c)
		if err != nil {
			return nil, http.StatusBadRequest, fmt.Errorf("invalid continue token")
		}
		after = string(b)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	coll := l.objects[t.collection()]
	var items [][]byte
	next := ""
	for _, k := range sortedKeys(coll) {
		o := coll[k]
		if (after != "" && k <= after) || !inNamespace(o, t.namespace) || !sel(labelsOf(o)) || !fields(o) {
			continue
		}
		if limit > 0 && len(items) == limit {
			next = base64.RawURLEncoding.EncodeToString([]byte(lastKey(items)))
			break
		}
		if metadataOnly {
			items = append(items, marshal(partial(o)))
		} else {
			items = append(items, listItem(o))
		}
	}
	var b bytes.Buffer
	kind := kindOf(t, nil)
	if kind == "" {
		for _, o := range coll {
			kind, _ = o["kind"].(string)
			break
		}
	}
	meta, _ := json.Marshal(map[string]any{"resourceVersion": strconv.FormatInt(l.rv, 10), "continue": next})
	if next == "" {
		meta, _ = json.Marshal(map[string]any{"resourceVersion": strconv.FormatInt(l.rv, 10)})
	}
	kind, apiVersion := kind+"List", t.apiVersion()
	if metadataOnly {
		kind, apiVersion = "PartialObjectMetadataList", "meta.k8s.io/v1"
	}
	fmt.Fprintf(&b, `{"kind":%q,"apiVersion":%q,"metadata":%s,"items":[`, kind, apiVersion, meta)
	b.Write(bytes.Join(items, []byte(",")))
	b.WriteString("]}")
	return b.Bytes(), http.StatusOK, nil
}

// listItem is an object as a LIST carries it: the API server leaves kind and
// apiVersion out of items (the list's kind says it), so the fake does too, and code
// that wrongly relies on them fails here as it would there.
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

// parseSelector parses a labelSelector as the API server does (apiclient/selector):
// equality and set-based requirements, keys and values validated.
func parseSelector(s string) (func(map[string]string) bool, error) {
	sel, err := selector.Parse(s)
	if err != nil {
		return nil, err
	}
	return sel.Matches, nil
}

// parseFieldSelector parses a fieldSelector as the API server does, and supports the
// two fields every resource has: metadata.name and metadata.namespace.
func parseFieldSelector(s string) (func(object) bool, error) {
	sel, err := selector.ParseFields(s)
	if err != nil {
		return nil, err
	}
	for _, t := range sel.Terms() {
		if t.Field != "metadata.name" && t.Field != "metadata.namespace" {
			return nil, fmt.Errorf("apitest: field selector %q is not supported (metadata.name, metadata.namespace are)", t.String())
		}
	}
	return func(o object) bool {
		name, _ := o.meta()["name"].(string)
		ns, _ := o.meta()["namespace"].(string)
		return sel.Matches(map[string]string{"metadata.name": name, "metadata.namespace": ns})
	}, nil
}
