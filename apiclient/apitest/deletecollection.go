package apitest

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// deleteCollection answers a DELETE of a collection, as kube-apiserver's
// DeleteCollection: every object of the namespace (every one, without one)
// that the label and field selectors select is deleted as a DELETE of it
// would be — finalizers hold it, marked; a dry run changes nothing; the
// admission webhooks see each — and the answer is a list of them as they were
// before (kube-apiserver lists, then deletes), at the version of the last
// write.
func (l *liveState) deleteCollection(t target, q url.Values, opts deleteOptions) ([]byte, int, error) {
	sel, fields, err := selectorsOf(t, q)
	if err != nil {
		return nil, 0, fail(http.StatusBadRequest, "%v", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	coll := l.objects[t.collection()]
	var items [][]byte
	for _, k := range sortedKeys(coll) {
		o := coll[k]
		if !inNamespace(o, t.namespace) || !sel(labelsOf(o)) || !fields(selectable(t.collection(), o)) {
			continue
		}
		one := t
		one.namespace, _ = o.meta()["namespace"].(string)
		one.name, _ = o.meta()["name"].(string)
		if _, _, err := l.deleteLocked(one, opts); err != nil {
			return nil, 0, err
		}
		// Each as it was listed before its delete, as a list item.
		if l.strategyFor(t).custom {
			items = append(items, marshal(o))
		} else {
			items = append(items, listItem(o))
		}
	}
	_, listKind := l.kinds(t)
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"kind":%q,"apiVersion":%q,"metadata":{"resourceVersion":%q},"items":[`, listKind, t.apiVersion(), strconv.FormatInt(l.rv, 10))
	b.Write(bytes.Join(items, []byte(",")))
	b.WriteString("]}")
	return b.Bytes(), http.StatusOK, nil
}
