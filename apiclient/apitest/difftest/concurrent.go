package difftest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Concurrent has writers goroutines write the ConfigMaps c0 … c(objects-1) in
// namespace ns on t at once, each writes times, every write adding a key of
// its own: merge patches, JSON patches and server-side applies (which the
// server must apply to the latest version), and read-modify-write updates at
// the version read (which may meet a 409 Conflict). Then it checks what a
// client may count on: every key whose write was acknowledged is in the final
// object, no key whose write was refused is, and each object's watch
// delivered one MODIFIED event per acknowledged write, in increasing
// resourceVersion order. It returns what was wrong, and counts of the
// answers.
func Concurrent(ctx context.Context, t *Target, ns string, writers, writes, objects int) (map[string]int, error) {
	cm := kinds["configmaps"].res
	var watches []*watch
	r := &runner{ctx: ctx, t: t, ns: ns}
	defer r.closeWatches()
	for o := range objects {
		// Created with data, so that a JSON patch adding a key under /data
		// applies whichever write comes first: without it, one that came
		// before any other write made data was refused (422, on both
		// servers), and the test failed about 1 run in 20.
		code, out, err := t.do(ctx, "POST", cm.Path(ns, "", ""), "application/json", []byte(fmt.Sprintf(`{"metadata":{"name":"c%d"},"data":{"seed":"x"}}`, o)))
		if err != nil || code != 201 {
			return nil, fmt.Errorf("create c%d: %d %v %.200s", o, code, err, out)
		}
		var created struct {
			Metadata struct{ ResourceVersion string }
		}
		json.Unmarshal(out, &created)
		w, err := r.openWatch("configmaps", fmt.Sprintf("c%d", o), url.Values{"resourceVersion": {created.Metadata.ResourceVersion}, "fieldSelector": {fmt.Sprintf("metadata.name=c%d", o)}})
		if err != nil {
			return nil, err
		}
		r.watches = append(r.watches, w)
		watches = append(watches, w)
	}

	type result struct {
		object int
		key    string
		code   int
	}
	results := make(chan result, writers*writes)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			applied := map[string]any{} // this writer's apply configuration, per object
			for i := range writes {
				o := (g + i) % objects
				key := fmt.Sprintf("w%d-%d", g, i)
				path := cm.Path(ns, fmt.Sprintf("c%d", o), "")
				var code int
				var err error
				switch i % 4 {
				case 0:
					code, _, err = t.do(ctx, "PATCH", path, "application/merge-patch+json", []byte(`{"data":{"`+key+`":"x"}}`))
				case 1:
					code, _, err = t.do(ctx, "PATCH", path, "application/json-patch+json", []byte(`[{"op":"add","path":"/data/`+key+`","value":"x"}]`))
				case 2:
					code, err = readModifyWrite(ctx, t, path, key)
				default:
					data, _ := applied[path].(map[string]any)
					if data == nil {
						data = map[string]any{}
						applied[path] = data
					}
					data[key] = "x"
					body, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": fmt.Sprintf("c%d", o)}, "data": data})
					code, _, err = t.do(ctx, "PATCH", path+"?fieldManager="+fmt.Sprintf("m%d", g), "application/apply-patch+yaml", body)
				}
				if err != nil {
					code = -1
				}
				results <- result{o, key, code}
			}
		})
	}
	wg.Wait()
	close(results)

	counts := map[string]int{}
	acked := make([]map[string]bool, objects)
	refused := make([]map[string]bool, objects)
	for o := range objects {
		acked[o], refused[o] = map[string]bool{}, map[string]bool{}
	}
	var problems []string
	for res := range results {
		counts[fmt.Sprint(res.code)]++
		switch res.code {
		case 200:
			acked[res.object][res.key] = true
		case 409:
			refused[res.object][res.key] = true
		default:
			problems = append(problems, fmt.Sprintf("c%d: the write of %s answered %d", res.object, res.key, res.code))
		}
	}
	for o := range objects {
		code, out, err := t.do(ctx, "GET", cm.Path(ns, fmt.Sprintf("c%d", o), ""), "", nil)
		if err != nil || code != 200 {
			return counts, fmt.Errorf("get c%d: %d %v", o, code, err)
		}
		var final struct {
			Metadata struct{ ResourceVersion string }
			Data     map[string]string
		}
		if err := json.Unmarshal(out, &final); err != nil {
			return counts, err
		}
		for k := range acked[o] {
			if _, ok := final.Data[k]; !ok {
				problems = append(problems, fmt.Sprintf("c%d: %s was acknowledged and is lost", o, k))
			}
		}
		for k := range refused[o] {
			if _, ok := final.Data[k]; ok {
				problems = append(problems, fmt.Sprintf("c%d: %s was refused (409) and is there", o, k))
			}
		}
		// Every acknowledged write added a key: one MODIFIED each, in order.
		w := watches[o]
		if err := w.waitFor(ctx, func(ev map[string]any) bool { return rvOf(ev) == final.Metadata.ResourceVersion }); err != nil {
			return counts, err
		}
		w.mu.Lock()
		events := w.events
		w.mu.Unlock()
		last := ""
		for _, ev := range events {
			rv := rvOf(ev)
			if last != "" && compareRV(rv, last) <= 0 {
				problems = append(problems, fmt.Sprintf("c%d: event at version %s after %s", o, rv, last))
			}
			last = rv
		}
		if len(events) != len(acked[o]) {
			problems = append(problems, fmt.Sprintf("c%d: %d MODIFIED events for %d acknowledged writes", o, len(events), len(acked[o])))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return counts, fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return counts, nil
}

// readModifyWrite is a controller's update: GET, add the key, PUT at the
// version read. It returns the PUT's code: 200, or 409 when another write came
// in between.
func readModifyWrite(ctx context.Context, t *Target, path, key string) (int, error) {
	code, out, err := t.do(ctx, "GET", path, "", nil)
	if err != nil || code != 200 {
		return code, err
	}
	var o map[string]any
	if err := json.Unmarshal(out, &o); err != nil {
		return 0, err
	}
	data, _ := o["data"].(map[string]any)
	if data == nil {
		data = map[string]any{}
		o["data"] = data
	}
	data[key] = "x"
	body, _ := json.Marshal(o)
	code, _, err = t.do(ctx, "PUT", path, "application/json", body)
	return code, err
}

func rvOf(ev map[string]any) string {
	o, _ := ev["object"].(map[string]any)
	m, _ := o["metadata"].(map[string]any)
	rv, _ := m["resourceVersion"].(string)
	return rv
}
