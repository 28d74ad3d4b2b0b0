package crd

import (
	"fmt"
	"strconv"
	"strings"
)

// tag is a field's kubewire struct tag, parsed: what the Go type cannot say.
//
//	`kubewire:"enum=a|b|c,min=1,max=10,default=3,pattern='^[a-z]{1,3}$',description='What it is, in a sentence.'"`
//
// Options are separated by commas; a value holding a comma is written in
// single quotes, and a quote inside it twice (”). Flags take no value.
type tag struct {
	enum                 []string // as written; typed by the field's schema
	min, max             *float64
	minLength, maxLength *int64
	minItems, maxItems   *int64
	pattern, format      string
	description          string
	dflt                 *string // as written
	nullable             bool
	preserveUnknown      bool
	intOrString          bool
	optional, required   bool
	listType             string
	listMapKeys          []string
}

// parseTag reads s, the kubewire tag's value.
func parseTag(s string) (tag, error) {
	var t tag
	for s != "" {
		var key, val string
		var hasVal bool
		i := strings.IndexAny(s, "=,")
		if i < 0 || s[i] == ',' {
			if i < 0 {
				i = len(s)
			}
			key, s = s[:i], strings.TrimPrefix(s[i:], ",")
		} else {
			key, hasVal = s[:i], true
			var err error
			if val, s, err = tagValue(s[i+1:]); err != nil {
				return t, fmt.Errorf("%s: %w", key, err)
			}
		}
		if err := t.set(strings.TrimSpace(key), val, hasVal); err != nil {
			return t, err
		}
	}
	return t, nil
}

// tagValue reads one value from the start of s, quoted or up to the next comma,
// and returns it and what follows its comma.
func tagValue(s string) (val, rest string, err error) {
	if !strings.HasPrefix(s, "'") {
		if i := strings.IndexByte(s, ','); i >= 0 {
			return s[:i], s[i+1:], nil
		}
		return s, "", nil
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' { // '' is a quote
			b.WriteByte('\'')
			i++
			continue
		}
		rest = s[i+1:]
		if rest != "" && rest[0] != ',' {
			return "", "", fmt.Errorf("want a comma after the quoted value, got %q", rest)
		}
		return b.String(), strings.TrimPrefix(rest, ","), nil
	}
	return "", "", fmt.Errorf("unterminated quote in %q", s)
}

func (t *tag) set(key, val string, hasVal bool) error {
	flag := func(p *bool) error {
		if hasVal {
			return fmt.Errorf("%s takes no value", key)
		}
		*p = true
		return nil
	}
	if !hasVal {
		switch key {
		case "nullable", "preserve-unknown-fields", "int-or-string", "optional", "required":
		default:
			return fmt.Errorf("%s needs a value (%s=...)", key, key)
		}
	}
	var err error
	switch key {
	case "enum":
		t.enum = strings.Split(val, "|")
	case "min":
		t.min, err = number(val)
	case "max":
		t.max, err = number(val)
	case "minLength":
		t.minLength, err = count(val)
	case "maxLength":
		t.maxLength, err = count(val)
	case "minItems":
		t.minItems, err = count(val)
	case "maxItems":
		t.maxItems, err = count(val)
	case "pattern":
		t.pattern = val
	case "format":
		t.format = val
	case "description":
		t.description = val
	case "default":
		t.dflt = &val
	case "listType":
		if val != "atomic" && val != "set" && val != "map" {
			return fmt.Errorf("listType=%s: want atomic, set or map", val)
		}
		t.listType = val
	case "listMapKeys":
		t.listMapKeys = strings.Split(val, "|")
	case "nullable":
		return flag(&t.nullable)
	case "preserve-unknown-fields":
		return flag(&t.preserveUnknown)
	case "int-or-string":
		return flag(&t.intOrString)
	case "optional":
		return flag(&t.optional)
	case "required":
		return flag(&t.required)
	default:
		return fmt.Errorf("unknown option %q", key)
	}
	if err != nil {
		return fmt.Errorf("%s=%s: %w", key, val, err)
	}
	return nil
}

func number(s string) (*float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("not a number")
	}
	return &f, nil
}

func count(s string) (*int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("not a count")
	}
	return &n, nil
}
