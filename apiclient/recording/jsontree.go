package recording

import (
	"encoding/json"
	"errors"
	"fmt"
)

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

// maxDepth bounds nesting, so that hostile input cannot exhaust the stack.
const maxDepth = 1000

var errDepth = errors.New("JSON nested too deeply")

// parseTree parses one JSON value filling the whole of data (spaces around it
// allowed). It is a plain recursive descent; validity was not checked before.
func parseTree(data []byte) (*node, error) {
	p := treeParser{data: data}
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(data) {
		return nil, fmt.Errorf("data after the JSON value at byte %d", p.i)
	}
	return n, nil
}

type treeParser struct {
	data []byte
	i    int
}

func (p *treeParser) value(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, errDepth
	}
	p.space()
	if p.i >= len(p.data) {
		return nil, errors.New("unexpected end of JSON")
	}
	start := p.i
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		if err := p.skipString(); err != nil {
			return nil, err
		}
		return &node{kind: '"', start: start, end: p.i}, nil
	default:
		for p.i < len(p.data) && isScalarByte(p.data[p.i]) {
			p.i++
		}
		if p.i == start || !json.Valid(p.data[start:p.i]) {
			return nil, fmt.Errorf("invalid value at byte %d", start)
		}
		return &node{kind: 'v', start: start, end: p.i}, nil
	}
}

func (p *treeParser) object(depth int) (*node, error) {
	n := &node{kind: '{', start: p.i}
	p.i++ // {
	p.space()
	if p.peek() == '}' {
		p.i++
		n.end = p.i
		return n, nil
	}
	for {
		p.space()
		ks := p.i
		if p.peek() != '"' {
			return nil, fmt.Errorf("want a key at byte %d", p.i)
		}
		if err := p.skipString(); err != nil {
			return nil, err
		}
		var key string
		if err := json.Unmarshal(p.data[ks:p.i], &key); err != nil {
			return nil, fmt.Errorf("key at byte %d: %w", ks, err)
		}
		p.space()
		if p.peek() != ':' {
			return nil, fmt.Errorf("want ':' at byte %d", p.i)
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{key, v})
		p.space()
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			n.end = p.i
			return n, nil
		default:
			return nil, fmt.Errorf("want ',' or '}' at byte %d", p.i)
		}
	}
}

func (p *treeParser) array(depth int) (*node, error) {
	n := &node{kind: '[', start: p.i}
	p.i++ // [
	p.space()
	if p.peek() == ']' {
		p.i++
		n.end = p.i
		return n, nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		p.space()
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			n.end = p.i
			return n, nil
		default:
			return nil, fmt.Errorf("want ',' or ']' at byte %d", p.i)
		}
	}
}

// skipString moves past a string literal, checking its escapes and that it holds no
// control characters.
func (p *treeParser) skipString() error {
	start := p.i
	p.i++ // opening quote
	for p.i < len(p.data) {
		switch c := p.data[p.i]; {
		case c == '"':
			p.i++
			return nil
		case c == '\\':
			p.i += 2
		case c < 0x20:
			return fmt.Errorf("control character in string at byte %d", p.i)
		default:
			p.i++
		}
	}
	return fmt.Errorf("unterminated string at byte %d", start)
}

func (p *treeParser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *treeParser) peek() byte {
	if p.i < len(p.data) {
		return p.data[p.i]
	}
	return 0
}

func isScalarByte(c byte) bool {
	return c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// member returns the value of key in an object node, or nil.
func (n *node) member(key string) *node {
	if n == nil || n.kind != '{' {
		return nil
	}
	for _, m := range n.members {
		if m.key == key {
			return m.value
		}
	}
	return nil
}

// str returns a string node's value ("" for anything else).
func (n *node) str(data []byte) string {
	if n == nil || n.kind != '"' {
		return ""
	}
	var s string
	_ = json.Unmarshal(data[n.start:n.end], &s)
	return s
}
