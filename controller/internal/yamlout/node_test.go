package yamlout_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/kubewire/kubewire/controller/internal/yamlout"
)

// plainStyle clears the styles yaml.v3 read from JSON (rbac.BlockStyle).
func plainStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		plainStyle(c)
	}
}

// tree draws a JSON value: objects and arrays (some arrays of strings marked
// flow, as rbac marks a rule's lists), strings from gen, numbers, booleans, null.
func tree(r *rand.Rand, keys, strs []string, depth int) any {
	switch k := r.IntN(10); {
	case k < 3 && depth > 0:
		m := map[string]any{}
		for range r.IntN(4) {
			m[keys[r.IntN(len(keys))]] = tree(r, keys, strs, depth-1)
		}
		return m
	case k < 5 && depth > 0:
		var a []any
		for range r.IntN(4) {
			a = append(a, tree(r, keys, strs, depth-1))
		}
		if a == nil {
			a = []any{}
		}
		return a
	case k == 5:
		return []any{r.IntN(1000) - 500, 1.5e-3, true, nil}[r.IntN(4)]
	}
	return strs[r.IntN(len(strs))]
}

// markFlow puts arrays of scalars under the key "flow" in flow style.
func markFlow(n *yaml.Node) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if v := n.Content[i+1]; n.Content[i].Value == "flow" && v.Kind == yaml.SequenceNode {
				scalars := true
				for _, c := range v.Content {
					scalars = scalars && c.Kind == yaml.ScalarNode
				}
				if scalars {
					v.Style = yaml.FlowStyle
				}
			}
		}
	}
	for _, c := range n.Content {
		markFlow(c)
	}
}

// Node writes what yaml.v3's Encoder (indent 2) writes for trees read from
// JSON: thousands of them, nested, with every kind of string in every place.
func TestNode_as_the_Encoder_writes_a_tree_read_from_JSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var keys, values []string
	for _, s := range gen(3000, 5) {
		values = append(values, s)
		if len(s) <= 128 && !containsBreak(s) {
			keys = append(keys, s)
		}
	}
	keys = append(keys, "flow", "flow", "flow", "metadata", "rules")
	for i := range 5000 {
		var v any
		if i%2 == 0 {
			v = map[string]any{"flow": tree(r, keys, values, 1), "a": tree(r, keys, values, 3), "b": tree(r, keys, values, 3)}
		} else {
			v = tree(r, keys, keys, 4)
			if m, ok := v.(map[string]any); ok {
				for k := range m {
					m[k] = tree(r, keys, values, 3)
				}
			}
		}
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var n yaml.Node
		if err := yaml.Unmarshal(data, &n); err != nil {
			continue // a rune yaml.v3 does not read (DEL): WriteYAML fails before writing
		}
		plainStyle(&n)
		markFlow(&n)
		got, err := yamlout.Node(&n)
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if want := encode(t, &n); got != want {
			t.Fatalf("%s:\ngot\n%s\nwant\n%s", data, got, want)
		}
	}
}

func containsBreak(s string) bool {
	for _, c := range s {
		switch c {
		case '\n', '\r', '\u0085', '\u2028', '\u2029':
			return true
		}
	}
	return false
}
