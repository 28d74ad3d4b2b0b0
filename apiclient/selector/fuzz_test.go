package selector_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/selector"
)

// The fuzz targets hold the parsers to three promises whatever the input: no
// panic; an error is a *selector.Error on one line; what parses, prints (String)
// to a selector that parses back to the same thing and selects the same sets.
// Seeds are in testdata/fuzz/<Target>; run one longer with
//
//	go test ./apiclient/selector -run '^$' -fuzz '^FuzzParseLabelSelector$' -fuzztime 1000000x

// labelSets are the label sets both selectors of a round trip must agree on.
var labelSets = []map[string]string{
	nil,
	{"app": "web"},
	{"app": "web", "tier": "fe", "env": "prod", "replicas": "3"},
	{"app": "", "in": "notin", "a": "b", "x": "1"},
	{"app.kubernetes.io/name": "web", "example.com/k": "V_1", "replicas": "-7"},
}

func FuzzParseLabelSelector(f *testing.F) {
	f.Add("app=web")
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := selector.Parse(s)
		if err != nil {
			checkError(t, s, err, "label")
			return
		}
		back, err := selector.Parse(sel.String())
		if err != nil {
			t.Fatalf("Parse(%q) printed %q, which does not parse: %v", s, sel.String(), err)
		}
		if !reflect.DeepEqual(sel.Requirements(), back.Requirements()) || back.String() != sel.String() {
			t.Fatalf("Parse(%q) = %q, which parses to %q", s, sel, back)
		}
		for _, labels := range labelSets {
			if sel.Matches(labels) != back.Matches(labels) {
				t.Fatalf("%q and its String %q disagree on %v", s, sel, labels)
			}
		}
	})
}

// fieldSets are the field sets both selectors of a round trip must agree on.
var fieldSets = []map[string]string{
	nil,
	{"metadata.name": "web-0", "metadata.namespace": "demo"},
	{"status.phase": "Running", "spec.note": `a,b=c\d`, "a": ""},
}

func FuzzParseFieldSelector(f *testing.F) {
	f.Add("metadata.name=web")
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := selector.ParseFields(s)
		if err != nil {
			checkError(t, s, err, "field")
			return
		}
		back, err := selector.ParseFields(sel.String())
		if err != nil {
			t.Fatalf("ParseFields(%q) printed %q, which does not parse: %v", s, sel.String(), err)
		}
		if !reflect.DeepEqual(sel.Terms(), back.Terms()) || back.String() != sel.String() {
			t.Fatalf("ParseFields(%q) = %q, which parses to %q", s, sel, back)
		}
		for _, fields := range fieldSets {
			if sel.Matches(fields) != back.Matches(fields) {
				t.Fatalf("%q and its String %q disagree on %v", s, sel, fields)
			}
		}
	})
}

func checkError(t *testing.T, s string, err error, kind string) {
	t.Helper()
	se, ok := err.(*selector.Error)
	if !ok {
		t.Fatalf("error %v is a %T, want *selector.Error", err, err)
	}
	if se.Kind != kind || se.Selector != s || se.Offset < 0 || se.Offset > len(s) {
		t.Fatalf("error %+v does not describe %q", se, s)
	}
	if strings.ContainsAny(err.Error(), "\n\r") {
		t.Fatalf("error is not one line: %q", err)
	}
}
