package difftest

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// raw runs a raw step: one request as the step writes it, for what the
// universe's steps never ask (a path no server serves, a parameter it must
// refuse, a body that does not match its URL). Its line shows what a client
// can act on: the code, whether Retry-After came, the Warning headers (their
// text: a warning is what a user reads), and the answer — an object or
// Status normalised as Res's, a list item by item, or text.
func (r *runner) raw(s Step) (string, error) {
	path := s.Path
	if path == "" {
		k := kinds[s.Res]
		if k == nil {
			return "", fmt.Errorf("unknown resource %q", s.Res)
		}
		path = k.res.Path(r.ns, s.Name, s.Sub)
	}
	path = strings.ReplaceAll(path, "{ns}", r.ns)
	if s.Query != "" {
		path += "?" + s.Query
	}
	ct := ""
	switch {
	case s.Method == "PATCH":
		ct = map[string]string{"merge": "application/merge-patch+json", "json": "application/json-patch+json", "strategic": "application/strategic-merge-patch+json", "apply": "application/apply-patch+yaml"}[s.Type]
	case s.Body != "":
		ct = "application/json"
	}
	var body []byte
	if s.Body != "" {
		body = []byte(strings.ReplaceAll(s.Body, "{ns}", r.ns))
	}
	resp, err := r.t.send(r.ctx, s.Method, path, ct, body)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var b strings.Builder
	b.WriteString(strconv.Itoa(resp.StatusCode))
	if resp.Header.Get("Retry-After") != "" {
		b.WriteString(" retry-after")
	}
	var warns []string
	for _, w := range resp.Header.Values("Warning") {
		// 299 - "text": the text is what a user reads.
		if i := strings.Index(w, `"`); i >= 0 {
			w = strings.TrimSuffix(w[i+1:], `"`)
		}
		warns = append(warns, w)
	}
	slices.Sort(warns)
	for _, w := range warns {
		b.WriteString(" warning=" + strconv.Quote(w))
	}
	if strings.Contains(s.Query, "watch=") && resp.StatusCode == 200 {
		return b.String() + " (a watch)", nil // its events are not this step's
	}
	out, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return "", fmt.Errorf("%s %s: read: %w", s.Method, path, err)
	}
	obj, err := decodeAnswer(out)
	if err != nil {
		return b.String() + " text " + strconv.Quote(strings.TrimSpace(string(out))), nil
	}
	if items, ok := obj["items"].([]any); ok {
		meta, _ := obj["metadata"].(map[string]any)
		fmt.Fprintf(&b, " %s %s rv=%s", obj["kind"], obj["apiVersion"], r.n.listRV(meta["resourceVersion"]))
		if tok, _ := meta["continue"].(string); tok != "" {
			b.WriteString(" continue")
		}
		for _, it := range items {
			o, _ := it.(map[string]any)
			b.WriteString("\n    item " + r.n.object(s.Res, o))
		}
		return b.String(), nil
	}
	if kinds[s.Res] != nil && !strings.Contains(s.Query, "dryRun") {
		r.note(s.Res, obj)
	}
	return b.String() + " " + r.n.answer(s.Res, obj) + causes(obj), nil
}

// causes shows a failure's causes (the universe's lines show only field
// managers' conflicts, and stay as they were): type and field, sorted; their
// messages are the server's prose.
func causes(obj map[string]any) string {
	if obj["kind"] != "Status" {
		return ""
	}
	d, _ := obj["details"].(map[string]any)
	cs, _ := d["causes"].([]any)
	var out []string
	for _, c := range cs {
		cm, _ := c.(map[string]any)
		out = append(out, fmt.Sprintf("%v:%v", cm["reason"], cm["field"]))
	}
	if len(out) == 0 {
		return ""
	}
	slices.Sort(out)
	return " causes=" + strings.Join(out, ",")
}
