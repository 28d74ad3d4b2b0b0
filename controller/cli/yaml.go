package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kubewire/kubewire/controller/internal/yamlout"
)

// writeYAML prints a generic JSON tree as YAML in kubectl's layout: keys sorted, two
// spaces of indent, and sequence items at the same indent as their key ("compact"),
// which yaml.v3's encoder does not offer. Each scalar is quoted as yaml.Marshal
// quotes it (yamlout.String, which writes what yaml.Marshal writes without
// linking yaml.v3's encoder), so the output is valid YAML that reads back to the
// same tree.
func writeYAML(w io.Writer, tree any) error {
	var b strings.Builder
	if err := yamlNode(&b, tree, 0, false); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// yamlNode writes v at indent. inline says the caller already wrote "- " or
// "key: " on the current line, so a map's first key continues that line.
func yamlNode(b *strings.Builder, v any, indent int, inline bool) error {
	pad := strings.Repeat(" ", indent)
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			b.WriteString("{}\n")
			return nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			if i > 0 || !inline {
				b.WriteString(pad)
			}
			key, err := yamlScalar(k, indent)
			if err != nil {
				return err
			}
			b.WriteString(key + ":")
			if err := yamlValue(b, v[k], indent); err != nil {
				return err
			}
		}
	case []any:
		if len(v) == 0 {
			b.WriteString("[]\n")
			return nil
		}
		for i, x := range v {
			if i > 0 || !inline {
				b.WriteString(pad)
			}
			b.WriteString("- ")
			if err := yamlNode(b, x, indent+2, true); err != nil {
				return err
			}
		}
	default:
		s, err := yamlScalar(v, indent)
		if err != nil {
			return err
		}
		b.WriteString(s + "\n")
	}
	return nil
}

// yamlValue writes what follows "key:": a scalar or empty collection on the same
// line, a map below it indented, a sequence below it at the key's own indent.
func yamlValue(b *strings.Builder, v any, indent int) error {
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 0 {
			b.WriteString("\n")
			return yamlNode(b, x, indent+2, false)
		}
	case []any:
		if len(x) > 0 {
			b.WriteString("\n")
			return yamlNode(b, x, indent, false)
		}
	}
	b.WriteString(" ")
	return yamlNode(b, v, indent+2, true)
}

// yamlScalar renders one scalar as yaml.v3 would, multi-line strings as literal
// blocks indented under their key.
func yamlScalar(v any, indent int) (string, error) {
	switch x := v.(type) {
	case json.Number:
		return string(x), nil
	case string:
		if strings.Contains(x, "\n") {
			return literalBlock(x, indent), nil
		}
		return strings.TrimSuffix(yamlout.String(x, yamlout.Document, 0), "\n"), nil
	case bool:
		if x {
			return "true", nil
		}
		return "false", nil
	case nil:
		return "null", nil
	}
	return "", fmt.Errorf("yaml: a %T is not written", v) // not in a tree decoded from JSON
}

func literalBlock(s string, indent int) string {
	head := "|"
	if !strings.HasSuffix(s, "\n") {
		head = "|-"
	}
	pad := strings.Repeat(" ", indent)
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pad + l
		}
	}
	return head + "\n" + strings.Join(lines, "\n")
}
