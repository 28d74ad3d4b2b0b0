package selector

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Labels is a parsed label selector: requirements that must all hold. The zero
// value selects everything. A Labels is never modified after Parse returns it, so
// it is safe for concurrent use.
type Labels struct {
	reqs []Requirement
}

// Requirement is one term of a label selector: a key, an operator and its values.
type Requirement struct {
	Key string
	Op  Operator
	// Values: one for Equals, NotEquals, GreaterThan and LessThan; one or more,
	// sorted and without duplicates, for In and NotIn; none for Exists and
	// DoesNotExist.
	Values []string
}

// Operator says how a Requirement tests a label.
type Operator string

// The operators of label selectors; field selectors have Equals and NotEquals.
// "==" parses as Equals.
const (
	Equals       Operator = "="
	NotEquals    Operator = "!="
	In           Operator = "in"
	NotIn        Operator = "notin"
	Exists       Operator = "exists"
	DoesNotExist Operator = "!"
	GreaterThan  Operator = ">"
	LessThan     Operator = "<"
)

// Parse reads a label selector as kubectl -l and the API server's labelSelector
// parameter do:
//
//	app=web, tier!=db, env in (prod, staging), track notin (canary), gpu, !legacy, replicas>2
//
// "" selects everything. Keys and values must be valid as the API server defines
// them (see checkKey and checkValue); a mistake is an *Error naming the offset.
// Cost: O(len(s)), plus sorting the requirements.
func Parse(s string) (Labels, error) {
	p := &labelParser{src: s, toks: lex(s)}
	if p.peek().kind == tEnd {
		return Labels{}, nil
	}
	var reqs []Requirement
	for {
		r, err := p.requirement()
		if err != nil {
			return Labels{}, err
		}
		reqs = append(reqs, r)
		// After a requirement, only a comma and another requirement, or the end. A
		// trailing comma is refused, as the API server refuses it.
		switch t := p.next(); t.kind {
		case tEnd:
			sortRequirements(reqs)
			return Labels{reqs: reqs}, nil
		case tComma:
		default:
			return Labels{}, p.errorf(t, "found %s, want ',' or end of selector", t.describe())
		}
	}
}

// Matches reports whether labels satisfy every requirement. A nil map is a set of
// no labels. Cost: O(requirements × values).
func (l Labels) Matches(labels map[string]string) bool {
	for _, r := range l.reqs {
		if !r.Matches(labels) {
			return false
		}
	}
	return true
}

// Empty reports whether the selector selects everything.
func (l Labels) Empty() bool { return len(l.reqs) == 0 }

// Requirements returns a copy of the requirements, in the order String prints them.
func (l Labels) Requirements() []Requirement {
	out := make([]Requirement, len(l.reqs))
	for i, r := range l.reqs {
		out[i] = Requirement{r.Key, r.Op, slices.Clone(r.Values)}
	}
	return out
}

// String is the canonical form: requirements sorted by key (then by their text),
// "=" for "==", values of in and notin sorted and deduplicated, no spaces but
// those around in and notin. Parse(l.String()) selects exactly what l selects.
func (l Labels) String() string {
	parts := make([]string, len(l.reqs))
	for i, r := range l.reqs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// Matches reports whether labels satisfy r: as the API server decides it, a label
// that is absent satisfies != and notin, and fails every other test but !key.
// GreaterThan and LessThan compare integers; a label that is not one fails them.
func (r Requirement) Matches(labels map[string]string) bool {
	v, has := labels[r.Key]
	switch r.Op {
	case Exists:
		return has
	case DoesNotExist:
		return !has
	case Equals, In:
		return has && slices.Contains(r.Values, v)
	case NotEquals, NotIn:
		return !has || !slices.Contains(r.Values, v)
	case GreaterThan, LessThan:
		if !has || len(r.Values) != 1 {
			return false
		}
		got, err1 := strconv.ParseInt(v, 10, 64)
		want, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		return r.Op == GreaterThan && got > want || r.Op == LessThan && got < want
	}
	return false
}

// String writes r as a selector term: key=v, key!=v, key in (a,b), key, !key, key>n.
func (r Requirement) String() string {
	switch r.Op {
	case Exists:
		return r.Key
	case DoesNotExist:
		return "!" + r.Key
	case In, NotIn:
		return r.Key + " " + string(r.Op) + " (" + strings.Join(r.Values, ",") + ")"
	}
	return r.Key + string(r.Op) + strings.Join(r.Values, ",")
}

// sortRequirements orders by key, then by text, so that String is canonical
// (apimachinery sorts by key alone, which leaves the order of two terms on one key
// to the sort's whim).
func sortRequirements(reqs []Requirement) {
	// sort.Slice, not slices.SortFunc: see Fields's parse.
	sort.Slice(reqs, func(i, j int) bool {
		if a, b := reqs[i], reqs[j]; a.Key != b.Key {
			return a.Key < b.Key
		}
		return reqs[i].String() < reqs[j].String()
	})
}
