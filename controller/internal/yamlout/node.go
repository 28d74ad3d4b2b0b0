package yamlout

import (
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Node writes n, a yaml.Node tree as yaml.v3's decoder reads JSON (a document
// of mappings, sequences and scalars, with their tags), as yaml.v3's Encoder
// with an indent of 2 writes it: mappings and sequences in block style, or a
// sequence in flow style where its Style says so, each scalar as String
// decides.
func Node(n *yaml.Node) (string, error) {
	var b strings.Builder
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) != 1 {
			return "", errors.New("yamlout: a document of other than one node")
		}
		n = n.Content[0]
	}
	if err := block(&b, n, 0, false); err != nil {
		return "", err
	}
	return b.String(), nil
}

// block writes n at indent. inline says the line is already begun ("- "), so
// n's first line continues it.
func block(b *strings.Builder, n *yaml.Node, indent int, inline bool) error {
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		return errors.New("yamlout: anchors and aliases are not written")
	}
	switch n.Kind {
	case yaml.MappingNode:
		if n.Style&yaml.FlowStyle != 0 {
			return errors.New("yamlout: a flow mapping is not written")
		}
		if len(n.Content) == 0 {
			b.WriteString("{}\n")
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 || !inline {
				pad(b, indent)
			}
			if err := key(b, n.Content[i]); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := value(b, n.Content[i+1], indent); err != nil {
				return err
			}
		}
		return nil
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			b.WriteString("[]\n")
			return nil
		}
		if n.Style&yaml.FlowStyle != 0 {
			return flow(b, n, indent)
		}
		for i, item := range n.Content {
			if i > 0 || !inline {
				pad(b, indent)
			}
			b.WriteString("- ")
			if err := block(b, item, indent+2, true); err != nil {
				return err
			}
		}
		return nil
	case yaml.ScalarNode:
		s, err := scalarNode(n, Block, indent)
		if err != nil {
			return err
		}
		b.WriteString(s)
		return nil
	}
	return fmt.Errorf("yamlout: a node of kind %d is not written", n.Kind)
}

// value writes what follows a key's colon at indent: a scalar or an empty or
// flow collection on the same line, a mapping or a block sequence below it,
// indented by 2.
func value(b *strings.Builder, n *yaml.Node, indent int) error {
	if (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && len(n.Content) > 0 && n.Style&yaml.FlowStyle == 0 {
		b.WriteByte('\n')
		return block(b, n, indent+2, false)
	}
	b.WriteByte(' ')
	return block(b, n, indent+2, true)
}

// flow writes a flow sequence of scalars, "[a, b]", whose items continue on
// lines at indent+2 where a value has a line break.
func flow(b *strings.Builder, n *yaml.Node, indent int) error {
	b.WriteByte('[')
	for i, item := range n.Content {
		if i > 0 {
			b.WriteString(", ")
		}
		if item.Kind != yaml.ScalarNode {
			return errors.New("yamlout: a collection in a flow sequence is not written")
		}
		s, err := scalarNode(item, Flow, indent+2)
		if err != nil {
			return err
		}
		b.WriteString(strings.TrimSuffix(s, "\n"))
	}
	b.WriteString("]\n")
	return nil
}

// key writes a mapping key: a scalar yaml.v3 writes as a simple key (on one
// line, 128 bytes at most).
func key(b *strings.Builder, n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || len(n.Value) > 128 || analyse(n.Value).multiline {
		return errors.New("yamlout: a key yaml.v3 writes in the \"? \" form is not written")
	}
	s, err := scalarNode(n, Key, 0)
	if err != nil {
		return err
	}
	b.WriteString(strings.TrimSuffix(s, "\n"))
	return nil
}

// scalarNode writes a scalar read from JSON: a !!str as String decides, the
// other tags (!!int, !!float, !!bool, !!null) plain, as yaml.v3 does when the
// plain form reads back with the same tag, which from JSON it always does.
func scalarNode(n *yaml.Node, p Place, indent int) (string, error) {
	if n.Style != 0 {
		return "", errors.New("yamlout: a scalar's style is not written (BlockStyle clears them)")
	}
	switch n.Tag {
	case "!!str":
		return String(n.Value, p, indent), nil
	case "!!int", "!!float", "!!bool", "!!null":
		a := analyse(n.Value)
		if "!!"+resolves(n.Value) != n.Tag || p == Flow && !a.flowPlain || p != Flow && !a.blockPlain {
			return "", fmt.Errorf("yamlout: %s %q is not written", n.Tag, n.Value)
		}
		return n.Value + "\n", nil
	}
	return "", fmt.Errorf("yamlout: tag %s is not written", n.Tag)
}

func pad(b *strings.Builder, n int) {
	for range n {
		b.WriteByte(' ')
	}
}
