package apitest

// mergeApplied merges a server-side apply configuration into the live object,
// as structured-merge-diff's Merge does: a map merges member by member, a
// leaf (scalar, atomic list or map) takes the configuration's value, and a set
// or map list merges item by item (keyed items merge recursively), the items
// ordered as mergeItems says.
func mergeApplied(live, config any, s *schema) any {
	if config == nil {
		return live
	}
	lm, lIsMap := live.(map[string]any)
	cm, cIsMap := config.(map[string]any)
	if (lIsMap || live == nil) && cIsMap && !(s != nil && s.atomic) && !(len(lm) == 0 && len(cm) == 0) {
		out := make(map[string]any, len(lm)+len(cm))
		for k, v := range lm {
			out[k] = v
		}
		for k, v := range cm {
			if lv, ok := lm[k]; ok {
				out[k] = mergeApplied(lv, v, s.child(k))
			} else {
				out[k] = v
			}
		}
		return out
	}
	ll, lIsList := live.([]any)
	cl, cIsList := config.([]any)
	if (lIsList || live == nil) && cIsList && s != nil && s.list != "" {
		return mergeItems(ll, cl, s, func(l, c any) any {
			if s.list == "set" {
				return c
			}
			return mergeApplied(l, c, s.elem)
		})
	}
	return config
}

// mergeItems merges two keyed lists, as structured-merge-diff orders them: the
// live items that the configuration does not name keep their places, and the
// configuration's items come in its order, each shared one where the live
// list had the next shared one, new ones after the shared one before them.
func mergeItems(live, config []any, s *schema, merge func(l, c any) any) []any {
	lkeys, lby := indexItems(live, s)
	ckeys, cby := indexItems(config, s)
	// Repeats of a live item the configuration does not name all stay (each
	// as it was); one it names becomes the one merged item.
	var shared []string
	for _, k := range ckeys {
		if _, ok := lby[k]; ok {
			shared = append(shared, k)
		}
	}
	next := func() string {
		if len(shared) == 0 {
			return ""
		}
		n := shared[0]
		shared = shared[1:]
		return n
	}
	nextShared := next()
	var out []any
	merged := map[string]bool{}
	for li, ci := 0, 0; li < len(lkeys) || ci < len(ckeys); {
		if li < len(lkeys) && ci < len(ckeys) {
			k := lkeys[li]
			if k == ckeys[ci] {
				out = append(out, merge(lby[k], cby[k]))
				merged[k] = true
				li++
				ci++
				nextShared = next()
				continue
			}
			if _, inConfig := cby[k]; inConfig && nextShared != "" && nextShared != k {
				li++ // shared, but not the one due now
				continue
			}
		}
		if li < len(lkeys) {
			k := lkeys[li]
			if _, inConfig := cby[k]; !inConfig {
				out = append(out, live[li])
				li++
				continue
			} else if merged[k] {
				li++
				continue
			}
		}
		if ci < len(ckeys) {
			k := ckeys[ci]
			if l, ok := lby[k]; ok {
				out = append(out, merge(l, cby[k]))
			} else {
				out = append(out, cby[k])
			}
			merged[k] = true
			ci++
			if nextShared != "" && nextShared == k {
				nextShared = next()
			}
		}
	}
	return out
}

// indexItems returns the path elements of a list's items in order, repeats
// included, and the items by element (the first of repeats).
func indexItems(l []any, s *schema) ([]string, map[string]any) {
	keys := make([]string, 0, len(l))
	by := map[string]any{}
	for _, it := range l {
		k := itemElem(s, it)
		if _, dup := by[k]; !dup {
			by[k] = it
		}
		keys = append(keys, k)
	}
	return keys, by
}
