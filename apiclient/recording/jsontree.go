package recording

import "github.com/kubewire/kubewire/apiclient/internal/jsonwire"

// node is one JSON value inside a document, located by byte offsets, so that a
// change can be spliced into the original bytes without re-encoding the rest (which
// would reorder keys and change escapes: no longer the server's bytes).
type node struct {
	kind       byte // '{', '[', '"', or 'v' for numbers, true, false, null
	start, end int  // data[start:end] is the value
	members    []member
	elems      []*node
}

type member struct {
	key   string
	value *node
}

// parseTree parses one JSON value filling the whole of data (spaces around it
// allowed), validating it with apiclient's one JSON walker (jsonwire) and noting
// where each member and element is.
func parseTree(data []byte) (*node, error) {
	n, end, err := build(data, jsonwire.SkipSpace(data, 0), 0)
	if err = jsonwire.Whole(data, end, err); err != nil {
		return nil, err
	}
	return n, nil
}

// build validates the value at data[at] (inside depth containers) and returns its
// node and where it ends.
func build(data []byte, at, depth int) (*node, int, error) {
	if at >= len(data) {
		return nil, at, jsonwire.ErrShort
	}
	n := &node{kind: data[at], start: at}
	var err error
	switch n.kind {
	case '{':
		n.end, err = jsonwire.WalkObject(data, at, depth+1, func(key []byte, _, vAt int) (int, error) {
			v, end, err := build(data, vAt, depth+1)
			n.members = append(n.members, member{string(key), v})
			return end, err
		})
	case '[':
		n.end, err = jsonwire.WalkArray(data, at, depth+1, func(eAt int) (int, error) {
			v, end, err := build(data, eAt, depth+1)
			n.elems = append(n.elems, v)
			return end, err
		})
	case '"':
		n.end, err = jsonwire.CheckValue(data, at, depth)
	default:
		n.kind = 'v'
		n.end, err = jsonwire.CheckValue(data, at, depth)
	}
	return n, n.end, err
}

// str returns a string node's value ("" for anything else).
func (n *node) str(data []byte) string {
	if n == nil || n.kind != '"' {
		return ""
	}
	s, _ := jsonwire.Unquote(data[n.start:n.end])
	return s
}

// all returns the values of every member named key in an object node (a
// document may repeat a key; a decoder keeps the last), none for anything else.
func (n *node) all(key string) []*node {
	if n == nil || n.kind != '{' {
		return nil
	}
	var vs []*node
	for _, m := range n.members {
		if m.key == key {
			vs = append(vs, m.value)
		}
	}
	return vs
}

// isKind reports whether any "kind" member of an object node is the string kind.
func (n *node) isKind(data []byte, kind string) bool {
	for _, v := range n.all("kind") {
		if v.str(data) == kind {
			return true
		}
	}
	return false
}
