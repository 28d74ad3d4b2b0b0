package apitest

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// applyJSONPatch applies an RFC 6902 JSON patch — add, remove, replace, move,
// copy and test — to doc, which it changes; the first op that fails fails the
// patch, as on the real server (which answers 422 for a failed test).
// Pointers are RFC 6901's: "/metadata/finalizers/0", "~1" for '/', "~0" for
// '~', and "-" for the end of an array.
func applyJSONPatch(doc map[string]any, ops []any) error {
	var root any = doc
	for i, raw := range ops {
		op, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("json patch op %d is not an object", i)
		}
		name, _ := op["op"].(string)
		path, _ := op["path"].(string)
		from, _ := op["from"].(string)
		value, hasValue := op["value"]
		var err error
		switch name {
		case "add", "replace":
			if !hasValue {
				err = fmt.Errorf("missing value")
				break
			}
			root, err = edit(root, path, func(parent any, tok string) (any, error) {
				return put(parent, tok, deepCopyValue(value), name == "add")
			})
		case "remove":
			root, err = edit(root, path, func(parent any, tok string) (any, error) { return take(parent, tok) })
		case "move", "copy":
			var v any
			if v, err = get(root, from); err != nil {
				break
			}
			if name == "move" {
				if root, err = edit(root, from, func(parent any, tok string) (any, error) { return take(parent, tok) }); err != nil {
					break
				}
			}
			root, err = edit(root, path, func(parent any, tok string) (any, error) { return put(parent, tok, deepCopyValue(v), true) })
		case "test":
			var cur any
			if cur, err = get(root, path); err == nil && !reflect.DeepEqual(cur, value) {
				err = fmt.Errorf("testing value %s failed", path)
			}
		default:
			err = fmt.Errorf("unexpected kind: %q", name)
		}
		if err != nil {
			return fmt.Errorf("json patch op %d (%s %s): %w", i, name, path, err)
		}
	}
	// The root is doc itself: an object's members change in place.
	return nil
}

// tokens splits a JSON pointer.
func tokens(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("path %q must start with /", path)
	}
	toks := strings.Split(path[1:], "/")
	for i, t := range toks {
		toks[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
	}
	return toks, nil
}

// edit finds the container of path's last token and replaces it with what fn
// makes of it, rebuilding the containers above (an array changes length, so
// it is replaced in its parent). It returns the new root.
func edit(root any, path string, fn func(parent any, tok string) (any, error)) (any, error) {
	toks, err := tokens(path)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("the whole document cannot be changed")
	}
	var walk func(node any, toks []string) (any, error)
	walk = func(node any, toks []string) (any, error) {
		if len(toks) == 1 {
			return fn(node, toks[0])
		}
		child, err := member(node, toks[0])
		if err != nil {
			return nil, err
		}
		newChild, err := walk(child, toks[1:])
		if err != nil {
			return nil, err
		}
		return put(node, toks[0], newChild, false)
	}
	return walk(root, toks)
}

// get is the value at path.
func get(root any, path string) (any, error) {
	toks, err := tokens(path)
	if err != nil {
		return nil, err
	}
	cur := root
	for _, t := range toks {
		if cur, err = member(cur, t); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

func member(container any, tok string) (any, error) {
	switch c := container.(type) {
	case map[string]any:
		v, ok := c[tok]
		if !ok {
			return nil, fmt.Errorf("missing value %q", tok)
		}
		return v, nil
	case []any:
		i, err := index(tok, len(c)-1)
		if err != nil {
			return nil, err
		}
		return c[i], nil
	}
	return nil, fmt.Errorf("%q: not an object or array", tok)
}

// put sets member tok of container to v (add inserts into an array; replace,
// and add of a member that exists, overwrite) and returns the container. A
// replace of an object's member that is missing sets it, as the JSON patch
// library kube-apiserver uses (evanphx/json-patch v4) does.
func put(container any, tok string, v any, add bool) (any, error) {
	switch c := container.(type) {
	case map[string]any:
		c[tok] = v
		return c, nil
	case []any:
		if add {
			i := len(c)
			if tok != "-" {
				var err error
				if i, err = index(tok, len(c)); err != nil {
					return nil, err
				}
			}
			out := append(append(append([]any{}, c[:i]...), v), c[i:]...)
			return out, nil
		}
		i, err := index(tok, len(c)-1)
		if err != nil {
			return nil, err
		}
		c[i] = v
		return c, nil
	}
	return nil, fmt.Errorf("%q: not an object or array", tok)
}

// take removes member tok and returns the container.
func take(container any, tok string) (any, error) {
	switch c := container.(type) {
	case map[string]any:
		if _, ok := c[tok]; !ok {
			return nil, fmt.Errorf("missing value %q", tok)
		}
		delete(c, tok)
		return c, nil
	case []any:
		i, err := index(tok, len(c)-1)
		if err != nil {
			return nil, err
		}
		return append(append([]any{}, c[:i]...), c[i+1:]...), nil
	}
	return nil, fmt.Errorf("%q: not an object or array", tok)
}

// index reads an array index no greater than top.
func index(tok string, top int) (int, error) {
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 || i > top || (len(tok) > 1 && tok[0] == '0') {
		return 0, fmt.Errorf("index %q out of range", tok)
	}
	return i, nil
}
