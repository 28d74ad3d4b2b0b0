package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// kube-apiserver's strict decoding tells a member given twice in one JSON
// object of a body: the warning `duplicate field "PATH"` (the later value
// counts), nothing under fieldValidation=Ignore, a 400 under Strict.

// readBody reads a POST's or PUT's body and tells its duplicates.
func readBody(r io.Reader, t target, warnings *[]string) (object, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	o, err := toObject(data)
	if err != nil {
		return nil, err
	}
	dups := duplicates(data)
	if len(dups) == 0 {
		return o, nil
	}
	if err := tellDuplicates(t, o, dups, warnings); err != nil {
		return nil, err
	}
	if isBuiltinGroup(t.group) {
		// Decoded into its Go type, an object given twice is the two
		// merged (a member of the later over the same of the earlier);
		// a custom resource's, decoded as it is, is the later one.
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if m, ok := mergingValue(dec).(map[string]any); ok {
			o = object(m)
		}
	}
	return o, nil
}

// mergingValue decodes the next value of dec, an object given twice in
// an object merged into the first.
func mergingValue(dec *json.Decoder) any {
	tok, err := dec.Token()
	if err != nil {
		return nil
	}
	switch tok {
	case json.Delim('{'):
		m := map[string]any{}
		for dec.More() {
			k, _ := dec.Token()
			name, _ := k.(string)
			v := mergingValue(dec)
			m[name] = mergeInto(m[name], v)
		}
		dec.Token()
		return m
	case json.Delim('['):
		l := []any{}
		for dec.More() {
			l = append(l, mergingValue(dec))
		}
		dec.Token()
		return l
	}
	return tok
}

// duplicates is the paths of the members data, valid JSON, gives twice, in
// order. A scan of the bytes, not a decoding: it runs on every POST and PUT.
func duplicates(data []byte) []string {
	type level struct {
		path  string
		keys  []string // an object's members so far; nil for an array
		array bool
		item  int
	}
	var stack []level
	var out []string
	key := ""
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			j := i + 1
			for ; j < len(data) && data[j] != '"'; j++ {
				if data[j] == '\\' {
					j++
				}
			}
			k := j + 1
			for k < len(data) && (data[k] == ' ' || data[k] == '\t' || data[k] == '\n' || data[k] == '\r') {
				k++
			}
			if n := len(stack); n > 0 && !stack[n-1].array && k < len(data) && data[k] == ':' {
				key = string(data[i+1 : j])
				if strings.IndexByte(key, '\\') >= 0 {
					key, _ = strconv.Unquote(string(data[i : j+1]))
				}
				top := &stack[n-1]
				if slices.Contains(top.keys, key) {
					out = append(out, join(top.path, key))
				}
				top.keys = append(top.keys, key)
			}
			i = j
		case '{', '[':
			path := ""
			if n := len(stack); n > 0 && stack[n-1].array {
				path = stack[n-1].path + "[" + strconv.Itoa(stack[n-1].item) + "]"
			} else if n > 0 {
				path = join(stack[n-1].path, key)
			}
			stack = append(stack, level{path: path, array: data[i] == '['})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if n := len(stack); n > 0 && stack[n-1].array {
				stack[n-1].item++
			}
		}
	}
	return out
}

// tellDuplicates answers the duplicates in a POST's or PUT's body as
// fieldValidation says: warnings, nothing, or (Strict) a refusal.
func tellDuplicates(t target, body object, dups []string, warnings *[]string) error {
	if t.validation == "Ignore" {
		return nil
	}
	var quoted string
	for i, d := range dups {
		if i > 0 {
			quoted += ", "
		}
		quoted += fmt.Sprintf("duplicate field %q", d)
		if t.validation != "Strict" {
			*warnings = append(*warnings, fmt.Sprintf("duplicate field %q", d))
		}
	}
	if t.validation == "Strict" {
		kind := kindOf(t, body)
		return fail(http.StatusBadRequest, "%s in version %q cannot be handled as a %s: strict decoding error: %s", kind, t.version, kind, quoted)
	}
	return nil
}

// mergeInto is later decoded over earlier, as into a Go value: an object's
// members each over the same of the earlier object, anything else whole.
func mergeInto(earlier, later any) any {
	em, ok := earlier.(map[string]any)
	lm, isObject := later.(map[string]any)
	if !ok || !isObject {
		return later
	}
	for k, v := range lm {
		em[k] = mergeInto(em[k], v)
	}
	return em
}
