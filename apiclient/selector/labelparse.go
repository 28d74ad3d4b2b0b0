package selector

import (
	"slices"
	"strconv"
)

// labelParser walks the tokens of one label selector. Its grammar, apimachinery's:
//
//	selector    = [ requirement { "," requirement } ]
//	requirement = [ "!" ] key
//	            | key ( "=" | "==" | "!=" | ">" | "<" ) [ value ]
//	            | key ( "in" | "notin" ) "(" values ")"
//	values      = the values separated by commas; an empty value is written as
//	              nothing: "()" is {""}, "(,a)" is {"", a}
type labelParser struct {
	src  string
	toks []token
	i    int
}

// requirement reads one term.
func (p *labelParser) requirement() (Requirement, error) {
	op := Exists
	t := p.next()
	if t.kind == tNot {
		op = DoesNotExist
		t = p.next()
	}
	if t.kind != tIdent {
		return Requirement{}, p.errorf(t, "found %s, want a label key", t.describe())
	}
	if msg := checkKey(t.text); msg != "" {
		return Requirement{}, p.errorf(t, "key %q: %s", t.text, msg)
	}
	key := t.text
	// "!key" ends here whatever follows (a following "=" is then refused by Parse,
	// as apimachinery refuses "!a=b"); "key" alone is Exists.
	if next := p.peek().kind; op == DoesNotExist || next == tEnd || next == tComma {
		return Requirement{Key: key, Op: op}, nil
	}
	t = p.next()
	switch {
	case t.kind == tEq, t.kind == tEqEq:
		op = Equals
	case t.kind == tNotEq:
		op = NotEquals
	case t.kind == tGt:
		op = GreaterThan
	case t.kind == tLt:
		op = LessThan
	case t.kind == tIdent && t.text == "in":
		op = In
	case t.kind == tIdent && t.text == "notin":
		op = NotIn
	default:
		return Requirement{}, p.errorf(t, "found %s after key %q, want =, ==, !=, in, notin, > or <", t.describe(), key)
	}
	var values []token
	var err error
	if op == In || op == NotIn {
		values, err = p.valueSet()
	} else {
		values, err = p.exactValue()
	}
	if err != nil {
		return Requirement{}, err
	}
	r := Requirement{Key: key, Op: op}
	for _, v := range values {
		if msg := checkValue(v.text); msg != "" {
			return Requirement{}, p.errorf(v, "value %q for key %q: %s", v.text, key, msg)
		}
		if op == GreaterThan || op == LessThan {
			if _, err := strconv.ParseInt(v.text, 10, 64); err != nil {
				return Requirement{}, p.errorf(v, "value %q for key %q: %s needs an integer", v.text, key, op)
			}
		}
		r.Values = append(r.Values, v.text)
	}
	slices.Sort(r.Values)
	r.Values = slices.Compact(r.Values)
	return r, nil
}

// exactValue reads the value after =, ==, !=, > or <: an identifier, or nothing
// (the empty value) when the term ends there.
func (p *labelParser) exactValue() ([]token, error) {
	t := p.peek()
	switch t.kind {
	case tEnd, tComma:
		return []token{{kind: tIdent, pos: t.pos}}, nil
	case tIdent:
		return []token{p.next()}, nil
	}
	return nil, p.errorf(t, "found %s, want a value", t.describe())
}

// valueSet reads "(" values ")". A comma with no value on one side of it stands
// for the empty value: "()", "(,)" and "(,,)" are {""}, "(a,,b)" and "(a,)" are
// {"", a, b} and {"", a}. That is the grammar of Kubernetes 1.35 and later
// (apimachinery's parseIdentifiersList after kubernetes#133419). Servers before
// 1.35 skipped a token after ",,", so they refuse "(,,)" and "(a,,)" yet accept
// "(,,,)": an accident, not a rule, so kubewire follows the newer servers, and an
// older one answers such a selector with its own 400.
func (p *labelParser) valueSet() ([]token, error) {
	if t := p.next(); t.kind != tOpen {
		return nil, p.errorf(t, "found %s, want '('", t.describe())
	}
	switch t := p.peek(); t.kind {
	case tClose:
		p.next()
		return []token{{kind: tIdent, pos: t.pos}}, nil
	case tIdent, tComma:
	default:
		return nil, p.errorf(t, "found %s, want a value, ',' or ')'", t.describe())
	}
	var vals []token
	empty := func(at token) { vals = append(vals, token{kind: tIdent, pos: at.pos}) }
	for {
		t := p.next()
		switch t.kind {
		case tIdent:
			vals = append(vals, t)
			switch next := p.peek(); next.kind {
			case tComma:
			case tClose:
				p.next()
				return vals, nil
			default:
				return nil, p.errorf(next, "found %s, want ',' or ')'", next.describe())
			}
		case tComma:
			if len(vals) == 0 {
				empty(t) // "(," begins with an empty value
			}
			switch next := p.peek(); next.kind {
			case tClose: // ",)" ends with one
				p.next()
				empty(next)
				return vals, nil
			case tComma: // ",," holds one; the second comma is read by the next turn
				empty(next)
			}
		default:
			return nil, p.errorf(t, "found %s, want a value or ','", t.describe())
		}
	}
}

func (p *labelParser) peek() token { return p.toks[p.i] }

// next returns the current token and moves on; at the end it stays on tEnd.
func (p *labelParser) next() token {
	t := p.toks[p.i]
	if t.kind != tEnd {
		p.i++
	}
	return t
}

func (p *labelParser) errorf(at token, format string, args ...any) error {
	return newError("label", p.src, at.pos, format, args...)
}
