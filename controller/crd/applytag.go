package crd

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// applyTag adds what t says to s, a field's schema. Constraints on values
// (enum, min, max, pattern, minLength, maxLength, format) go to the values:
// through a list to its items and through a map to its values, so
// `kubewire:"enum=a|b"` on a []string limits each string. The rest
// (description, default, nullable, minItems, maxItems, listType) stay on the
// field's own node.
func applyTag(s *Schema, t tag) error {
	s.Description = t.description
	s.Nullable = t.nullable
	v := s
	for (v.Type == "array" && v.Items != nil) || (v.Type == "object" && v.AdditionalProperties != nil && v.Properties == nil) {
		if v.Items != nil {
			v = v.Items
		} else {
			v = v.AdditionalProperties
		}
	}
	if err := valueRules(v, t); err != nil {
		return err
	}
	if err := listRules(s, t); err != nil {
		return err
	}
	if t.dflt != nil {
		d, err := literal(s, *t.dflt)
		if err != nil {
			return fmt.Errorf("default=%s: %w", *t.dflt, err)
		}
		s.Default = d
	}
	return nil
}

// valueRules sets the constraints on a scalar value, refusing those its type
// has no use for: the server would ignore a pattern on an integer, and a
// mistyped rule is better caught where it is written.
func valueRules(v *Schema, t tag) error {
	str, num := v.Type == "string" || v.IntOrString, v.Type == "integer" || v.Type == "number" || v.IntOrString
	if (t.pattern != "" || t.minLength != nil || t.maxLength != nil) && !str {
		return fmt.Errorf("pattern, minLength and maxLength are for strings, not %s", v.kind())
	}
	if (t.min != nil || t.max != nil) && !num {
		return fmt.Errorf("min and max are for numbers, not %s", v.kind())
	}
	if t.min != nil && t.max != nil && *t.min > *t.max {
		return fmt.Errorf("min=%v is above max=%v", *t.min, *t.max)
	}
	if t.min != nil {
		v.Minimum = t.min
	}
	v.Maximum, v.Pattern, v.MinLength, v.MaxLength = t.max, t.pattern, t.minLength, t.maxLength
	if t.format != "" {
		v.Format = t.format
	}
	for _, e := range t.enum {
		j, err := literal(v, e)
		if err != nil {
			return fmt.Errorf("enum value %q: %w", e, err)
		}
		v.Enum = append(v.Enum, j)
	}
	return nil
}

// listRules sets minItems, maxItems and the list type of a list.
func listRules(s *Schema, t tag) error {
	if t.minItems == nil && t.maxItems == nil && t.listType == "" && t.listMapKeys == nil {
		return nil
	}
	if s.Type != "array" {
		return fmt.Errorf("minItems, maxItems, listType and listMapKeys are for lists, not %s", s.kind())
	}
	s.MinItems, s.MaxItems, s.ListType, s.ListMapKeys = t.minItems, t.maxItems, t.listType, t.listMapKeys
	switch {
	case t.listType == "map":
		if s.Items.Type != "object" || s.Items.Properties == nil {
			return fmt.Errorf("listType=map needs a list of structs, not of %s", s.Items.kind())
		}
		if len(t.listMapKeys) == 0 {
			return fmt.Errorf("listType=map needs listMapKeys=key|key")
		}
		for _, k := range t.listMapKeys {
			p, ok := s.Items.Properties[k]
			if !ok {
				return fmt.Errorf("listMapKeys: the items have no field %q", k)
			}
			// The server refuses a map key that an item may lack.
			if !slices.Contains(s.Items.Required, k) && p.Default == nil {
				return fmt.Errorf("listMapKeys: key %q must be required (no omitempty) or have a default", k)
			}
		}
	case t.listMapKeys != nil:
		return fmt.Errorf("listMapKeys needs listType=map")
	case t.listType == "set" && (s.Items.Type == "object" || s.Items.Type == "array" || s.Items.Type == ""):
		return fmt.Errorf("listType=set needs a list of scalars, not of %s", s.Items.kind())
	}
	return nil
}

// literal is the JSON of a value written in a tag, for a node of schema s: a
// string node takes the text as it is, an int-or-string node a number when
// it reads as one, anything else JSON ("3", "true", '{"a":1}').
func literal(s *Schema, text string) (json.RawMessage, error) {
	switch {
	case s.Type == "string":
		return json.Marshal(text)
	case s.IntOrString:
		if _, err := strconv.ParseInt(text, 10, 64); err == nil {
			return json.RawMessage(text), nil
		}
		return json.Marshal(text)
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil, fmt.Errorf("not JSON")
	}
	ok := true
	switch v.(type) {
	case float64:
		ok = s.Type == "number" || (s.Type == "integer" && !strings.ContainsAny(text, ".eE"))
	case bool:
		ok = s.Type == "boolean"
	case map[string]any:
		ok = s.Type == "object" || s.PreserveUnknown
	case []any:
		ok = s.Type == "array" || s.PreserveUnknown
	case nil:
		ok = s.Nullable
	}
	if !ok {
		return nil, fmt.Errorf("not a value of %s", s.kind())
	}
	return json.RawMessage(text), nil
}

// kind names s's type for errors.
func (s *Schema) kind() string {
	switch {
	case s.IntOrString:
		return "int-or-string"
	case s.Type == "":
		return "any value"
	case s.Type == "object" && s.Properties != nil:
		return "a struct"
	case s.Type == "object":
		return "a map"
	}
	return "type " + s.Type
}
