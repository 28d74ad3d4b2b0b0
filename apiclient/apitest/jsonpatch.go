package apitest

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// applyJSONPatch applies an RFC 6902 JSON patch — the ops add, remove, replace
// and test — to doc, which it changes in place; the first op that fails fails
// the patch, as on the real server (which answers 422 for a failed test).
// Pointers are RFC 6901's: "/metadata/finalizers/0", "~1" for '/', "~0" for
// '~', and "-" for the end of an array.
func applyJSONPatch(doc map[string]any, ops []any) error {
	for i, raw := range ops {
		op, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("json patch op %d is not an object", i)
		}
		name, _ := op["op"].(string)
		path, _ := op["path"].(string)
		parent, last, err := walk(doc, path)
		if err != nil {
			return fmt.Errorf("json patch op %d (%s %s): %w", i, name, path, err)
		}
		value := op["value"]
		switch name {
		case "test":
			cur, err := get(parent, last)
			if err != nil || !reflect.DeepEqual(cur, value) {
				return fmt.Errorf("json patch op %d: test of %s failed", i, path)
			}
		case "add", "replace":
			err = set(parent, last, value, name == "add")
		case "remove":
			err = remove(parent, last)
		default:
			err = fmt.Errorf("op %q is not supported by apitest", name)
		}
		if err != nil {
			return fmt.Errorf("json patch op %d (%s %s): %w", i, name, path, err)
		}
	}
	return nil
}

// walk follows path to the container of its last token.
func walk(doc map[string]any, path string) (parent any, last string, err error) {
	if !strings.HasPrefix(path, "/") {
		return nil, "", fmt.Errorf("path must start with /")
	}
	toks := strings.Split(path[1:], "/")
	for i := range toks {
		toks[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(toks[i])
	}
	var cur any = doc
	for _, t := range toks[:len(toks)-1] {
		if cur, err = get(cur, t); err != nil {
			return nil, "", err
		}
	}
	return cur, toks[len(toks)-1], nil
}

func get(container any, tok string) (any, error) {
	switch c := container.(type) {
	case map[string]any:
		v, ok := c[tok]
		if !ok {
			return nil, fmt.Errorf("%q not found", tok)
		}
		return v, nil
	case []any:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(c) {
			return nil, fmt.Errorf("index %q out of range", tok)
		}
		return c[i], nil
	}
	return nil, fmt.Errorf("%q: not an object or array", tok)
}

// set adds or replaces; arrays are changed where they live, in their parent, so
// an insertion needs the grandparent: apitest patches only set members of
// objects and whole arrays, which is what the toolkit sends.
func set(container any, tok string, value any, add bool) error {
	c, ok := container.(map[string]any)
	if !ok {
		return fmt.Errorf("apitest patches members of objects only")
	}
	if _, exists := c[tok]; !exists && !add {
		return fmt.Errorf("%q not found", tok)
	}
	c[tok] = value
	return nil
}

func remove(container any, tok string) error {
	c, ok := container.(map[string]any)
	if !ok {
		return fmt.Errorf("apitest patches members of objects only")
	}
	if _, exists := c[tok]; !exists {
		return fmt.Errorf("%q not found", tok)
	}
	delete(c, tok)
	return nil
}
