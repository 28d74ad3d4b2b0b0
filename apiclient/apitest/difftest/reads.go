package difftest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The two steps whose transcript lines take more than one answer: a LIST
// (items, continue token, remainingItemCount) and a burst of patches.

// list runs a LIST and shows each item, the continue token's presence and
// remainingItemCount.
func (r *runner) list(s Step, query string) (string, error) {
	path := kinds[s.Res].res.Path(r.ns, "", "")
	if query != "" {
		path += "?" + query
	}
	code, out, err := r.t.do(r.ctx, "GET", path, "", nil)
	if err != nil {
		return "", err
	}
	obj, err := decodeAnswer(out)
	if err != nil {
		return "", fmt.Errorf("GET %s: %d %w", path, code, err)
	}
	if obj["kind"] == "Status" {
		return strconv.Itoa(code) + " " + r.n.answer(s.Res, obj), nil
	}
	meta, _ := obj["metadata"].(map[string]any)
	tok, _ := meta["continue"].(string)
	r.cont[s.Res] = tok
	items, _ := obj["items"].([]any)
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s %s rv=%s", code, obj["kind"], obj["apiVersion"], r.n.listRV(meta["resourceVersion"]))
	if tok != "" {
		b.WriteString(" continue")
	}
	if n, ok := meta["remainingItemCount"]; ok {
		fmt.Fprintf(&b, " remaining=%v", n)
	}
	// Items with generated names (gen-*) come in the order of names the
	// server drew at random: they are shown sorted among themselves.
	lines := make([]string, len(items))
	var gen []int
	for i, it := range items {
		o, _ := it.(map[string]any)
		r.note(s.Res, o)
		lines[i] = r.n.object(s.Res, o)
		if m, _ := o["metadata"].(map[string]any); m["generateName"] != nil {
			gen = append(gen, i)
		}
	}
	sorted := make([]string, len(gen))
	for j, i := range gen {
		sorted[j] = lines[i]
	}
	slices.Sort(sorted)
	for j, i := range gen {
		lines[i] = sorted[j]
	}
	for _, l := range lines {
		b.WriteString("\n    item " + l)
	}
	return b.String(), nil
}

// burst sends s.N merge patches of one object at once, each setting a key of
// its own, and waits for all. Which one the server took first is up to it, so
// the answers are shown as counts, and the versions they made are not named.
func (r *runner) burst(s Step) (string, error) {
	path := kinds[s.Res].res.Path(r.ns, s.Name, "")
	codes := make([]int, s.N)
	rvs := make([]string, s.N)
	errs := make([]error, s.N)
	var wg sync.WaitGroup
	r.bursts++
	for i := range s.N {
		wg.Go(func() {
			body := burstPatch(s.Res, r.bursts, i)
			code, out, err := r.t.do(r.ctx, "PATCH", path, "application/merge-patch+json", []byte(body))
			codes[i], errs[i] = code, err
			if obj, err := decodeAnswer(out); err == nil {
				if m, ok := obj["metadata"].(map[string]any); ok {
					rvs[i], _ = m["resourceVersion"].(string)
				}
			}
		})
	}
	wg.Wait()
	counts := map[int]int{}
	for i := range s.N {
		if errs[i] != nil {
			return "", errs[i]
		}
		counts[codes[i]]++
		if rvs[i] != "" {
			r.n.hide(rvs[i])
		}
	}
	// The latest version is the highest one answered.
	slices.SortFunc(rvs, func(a, b string) int { return compareRV(a, b) })
	if top := rvs[len(rvs)-1]; top != "" {
		o := r.objs[s.Res+"/"+s.Name]
		if o == nil {
			o = &seen{}
			r.objs[s.Res+"/"+s.Name] = o
		}
		o.prev, o.rv = o.rv, top
	}
	var parts []string
	codes2 := mapsKeys(counts)
	slices.Sort(codes2)
	for _, c := range codes2 {
		parts = append(parts, fmt.Sprintf("%d×%d", counts[c], c))
	}
	return strings.Join(parts, " "), nil
}

// burstPatch is the i-th patch of the run's n-th burst: a key of its own in
// data (a ConfigMap) or in the labels (anything else), so that every patch
// changes the object (a patch that changed nothing would answer whichever
// version was current, and which that is depends on the others' timing).
func burstPatch(res string, n, i int) string {
	if res == "configmaps" {
		return fmt.Sprintf(`{"data":{"burst-%d-%d":"x"}}`, n, i)
	}
	return fmt.Sprintf(`{"metadata":{"labels":{"burst-%d-%d":"x"}}}`, n, i)
}
