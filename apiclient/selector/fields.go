package selector

import (
	"slices"
	"sort"
	"strings"
)

// Fields is a parsed field selector: terms that must all hold. The zero value
// selects everything. Safe for concurrent use (never modified after ParseFields).
type Fields struct {
	terms []Term
}

// Term is one term of a field selector: a field, Equals or NotEquals, and a value
// (unescaped).
type Term struct {
	Field string
	Op    Operator
	Value string
}

// ParseFields reads a field selector as kubectl --field-selector and the API
// server's fieldSelector parameter do:
//
//	metadata.name=web-0,status.phase!=Running,metadata.namespace==demo
//
// Terms are separated by commas; empty terms are skipped. A term is a field name,
// then = (or ==) or !=, then a value, in which a backslash escapes ',' '=' and
// itself ("a\,b" is the value "a,b") and nothing else. Nothing is trimmed: the
// value is every byte after the operator.
//
// The field name is checked more strictly than the API server does (it refuses
// unknown fields later, with a 400): letters, digits, '.', '-' and '_', which
// covers every field the server supports. Which fields a resource supports is the
// server's to say; ParseFields does not know. Cost: O(len(s)).
func ParseFields(s string) (Fields, error) {
	var terms []Term
	for _, part := range splitTerms(s) {
		if part.text == "" {
			continue
		}
		t, err := parseTerm(s, part)
		if err != nil {
			return Fields{}, err
		}
		terms = append(terms, t)
	}
	// sort.Slice, not slices.SortFunc: each struct type given to the generic sort
	// compiles a pdqsort of its own into the binary (issue 42); both sort alike.
	sort.Slice(terms, func(i, j int) bool { return terms[i].String() < terms[j].String() })
	return Fields{terms: terms}, nil
}

// Matches reports whether fields satisfy every term. As in apimachinery, a field
// that is absent has the value "": it satisfies field= and field!=x.
func (f Fields) Matches(fields map[string]string) bool {
	for _, t := range f.terms {
		if (fields[t.Field] == t.Value) != (t.Op == Equals) {
			return false
		}
	}
	return true
}

// Empty reports whether the selector selects everything.
func (f Fields) Empty() bool { return len(f.terms) == 0 }

// Terms returns a copy of the terms, in the order String prints them.
func (f Fields) Terms() []Term { return slices.Clone(f.terms) }

// String is the canonical form: terms sorted, "=" for "==", values escaped.
// ParseFields(f.String()) selects exactly what f selects.
func (f Fields) String() string {
	parts := make([]string, len(f.terms))
	for i, t := range f.terms {
		parts[i] = t.String()
	}
	return strings.Join(parts, ",")
}

// String writes t as a selector term, its value escaped.
func (t Term) String() string {
	return t.Field + string(t.Op) + EscapeValue(t.Value)
}

// EscapeValue escapes a field selector value: '\' ',' and '=' get a backslash.
func EscapeValue(v string) string {
	return valueEscaper.Replace(v)
}

var valueEscaper = strings.NewReplacer(`\`, `\\`, `,`, `\,`, `=`, `\=`)

// part is one comma-separated piece of a field selector and where it starts.
type part struct {
	text string
	pos  int
}

// splitTerms cuts at commas that no backslash escapes.
func splitTerms(s string) []part {
	var parts []part
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++ // the next byte is escaped, whatever it is
		case ',':
			parts = append(parts, part{s[start:i], start})
			start = i + 1
		}
	}
	return append(parts, part{s[start:], start})
}

// parseTerm splits a term at its first operator (the field name cannot hold one,
// so the first is the one) and unescapes the value.
func parseTerm(src string, p part) (Term, error) {
	i := -1
	for j := 0; j < len(p.text) && i < 0; j++ {
		if p.text[j] == '=' || strings.HasPrefix(p.text[j:], "!=") {
			i = j
		}
	}
	if i < 0 {
		return Term{}, newError("field", src, p.pos, "term %q has no operator (=, == or !=)", p.text)
	}
	field := p.text[:i]
	if msg := checkField(field); msg != "" {
		return Term{}, newError("field", src, p.pos, "field %q: %s", field, msg)
	}
	op, n := Equals, 1
	switch {
	case strings.HasPrefix(p.text[i:], "!="):
		op, n = NotEquals, 2
	case strings.HasPrefix(p.text[i:], "=="):
		n = 2
	}
	value, bad, msg := unescape(p.text[i+n:])
	if msg != "" {
		return Term{}, newError("field", src, p.pos+i+n+bad, "value of %q: %s", field, msg)
	}
	return Term{Field: field, Op: op, Value: value}, nil
}

// checkField returns why name is not a plausible field name, or "".
func checkField(name string) string {
	if name == "" {
		return "the field name is empty"
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isAlnum(c) && c != '.' && c != '-' && c != '_' {
			return "a field name is letters, digits, '.', '-' and '_' (e.g. metadata.name, status.phase)"
		}
	}
	return ""
}

// unescape undoes EscapeValue. It refuses a backslash before anything but '\' ','
// '=', a trailing backslash, and an unescaped '=' (which would make the term
// ambiguous), returning the offset of the fault within v.
func unescape(v string) (out string, bad int, msg string) {
	if !strings.ContainsAny(v, `\=`) {
		return v, 0, ""
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			if i+1 == len(v) {
				return "", i, `a trailing '\' escapes nothing (write \\ for a backslash)`
			}
			switch v[i+1] {
			case '\\', ',', '=':
				b.WriteByte(v[i+1])
				i++
			default:
				return "", i, `'\' escapes only '\', ',' and '='`
			}
		case '=':
			return "", i, `'=' in a value must be escaped as \=`
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), 0, ""
}
