package kubeconfig

import (
	"errors"
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"
)

// The kubeconfig is read from yaml.Node trees rather than decoded into structs, for
// two reasons: an error can then name the exact field at fault, and no error ever
// quotes a value (yaml.v3's type errors do, and the value could be a token).

// field is one key of an entry we understand, and what to do with its value. Built in
// a literal list by each reader; decode writes into that reader's local variables.
type field struct {
	key    string
	decode func(*yaml.Node) error
}

// decodeFields walks one entry's mapping and hands each known key's value to its
// decoder; unknown keys are ignored, as kubectl ignores them. It returns the key whose
// value was bad, with the reason.
func decodeFields(body *yaml.Node, fields []field) (badKey string, err error) {
	if body == nil || isNull(body) {
		return "", nil
	}
	if body.Kind != yaml.MappingNode {
		return "", fmt.Errorf("want a mapping, found %s", kindName(body))
	}
	for i := 0; i+1 < len(body.Content); i += 2 {
		key, value := body.Content[i].Value, deref(body.Content[i+1])
		for _, f := range fields {
			if f.key == key {
				if err := f.decode(value); err != nil {
					return key, err
				}
			}
		}
	}
	return "", nil
}

// keyed prefixes err with the key it is about, if any.
func keyed(key string, err error) error {
	if key == "" {
		return err
	}
	return fmt.Errorf("%s: %w", key, err)
}

// str, boolean, strs and strMap build the decoders for the shapes a kubeconfig uses.
func str(p *string) func(*yaml.Node) error {
	return func(n *yaml.Node) (err error) { *p, err = scalar(n); return err }
}

func boolean(p *bool) func(*yaml.Node) error {
	return func(n *yaml.Node) error {
		s, err := scalar(n)
		if err != nil || s == "" {
			return err
		}
		if *p, err = strconv.ParseBool(s); err != nil {
			return errors.New("want true or false")
		}
		return nil
	}
}

func strs(p *[]string) func(*yaml.Node) error {
	return func(n *yaml.Node) error {
		if isNull(n) {
			return nil
		}
		if n.Kind != yaml.SequenceNode {
			return fmt.Errorf("want a list of strings, found %s", kindName(n))
		}
		for i, item := range n.Content {
			s, err := scalar(deref(item))
			if err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
			*p = append(*p, s)
		}
		return nil
	}
}

func strMap(p *map[string][]string) func(*yaml.Node) error {
	return func(n *yaml.Node) error {
		if isNull(n) {
			return nil
		}
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("want a mapping of lists, found %s", kindName(n))
		}
		*p = make(map[string][]string)
		for i := 0; i+1 < len(n.Content); i += 2 {
			var values []string
			if err := strs(&values)(deref(n.Content[i+1])); err != nil {
				return fmt.Errorf("%s: %w", n.Content[i].Value, err)
			}
			(*p)[n.Content[i].Value] = values
		}
		return nil
	}
}

func node(p **yaml.Node) func(*yaml.Node) error {
	return func(n *yaml.Node) error { *p = n; return nil }
}

// scalar reads a string; a null is "". Numbers and booleans are read as written.
func scalar(n *yaml.Node) (string, error) {
	if isNull(n) {
		return "", nil
	}
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("want a string, found %s", kindName(n))
	}
	return n.Value, nil
}

// deref follows an alias (*anchor) to the node it names. yaml.v3 rejects an anchor
// that contains itself, so one step is enough and nothing here can loop.
func deref(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		return "a scalar"
	case yaml.AliasNode:
		return "an alias"
	}
	return "nothing"
}
