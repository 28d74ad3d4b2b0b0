package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
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
	if err := tellDuplicates(t, o, data, warnings); err != nil {
		return nil, err
	}
	if isBuiltinGroup(t.group) && len(duplicates(data)) > 0 {
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

// duplicates is the paths of the members data gives twice, in order.
func duplicates(data []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(data))
	var out []string
	var walk func(path string) bool
	walk = func(path string) bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return false
				}
				name, _ := k.(string)
				if seen[name] {
					out = append(out, join(path, name))
				}
				seen[name] = true
				if !walk(join(path, name)) {
					return false
				}
			}
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if !walk(path + "[" + strconv.Itoa(i) + "]") {
					return false
				}
			}
		default:
			return true
		}
		_, err = dec.Token() // the closing delimiter
		return err == nil
	}
	walk("")
	return out
}

// tellDuplicates answers the duplicates in a POST's or PUT's body as
// fieldValidation says: warnings, nothing, or (Strict) a refusal.
func tellDuplicates(t target, body object, data []byte, warnings *[]string) error {
	dups := duplicates(data)
	if len(dups) == 0 || t.validation == "Ignore" {
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
