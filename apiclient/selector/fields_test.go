package selector_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/selector"
)

func TestParseFields_writes_the_canonical_form(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{",", ""},
		{"metadata.name=web", "metadata.name=web"},
		{"metadata.name==web", "metadata.name=web"},
		{"status.phase!=Running,metadata.name=web", "metadata.name=web,status.phase!=Running"},
		{"metadata.name=web,,", "metadata.name=web"},
		{`spec.note=a\,b\=c\\d`, `spec.note=a\,b\=c\\d`},
		{"spec.note=a!b", "spec.note=a!b"},
		{"spec.note= x ", "spec.note= x "},
		{"spec.nodeName=", "spec.nodeName="},
		{"involvedObject.kind=Pod,involvedObject.name=web-0", "involvedObject.kind=Pod,involvedObject.name=web-0"},
	} {
		f, err := selector.ParseFields(tc.in)
		if err != nil {
			t.Errorf("ParseFields(%q): %v", tc.in, err)
			continue
		}
		if got := f.String(); got != tc.want {
			t.Errorf("ParseFields(%q).String() = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseFields_unescapes_values(t *testing.T) {
	f, err := selector.ParseFields(`spec.note=a\,b\=c\\d`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.Terms()[0].Value, `a,b=c\d`; got != want {
		t.Fatalf("value = %q, want %q", got, want)
	}
}

func TestParseFields_refuses_with_the_offset(t *testing.T) {
	for _, tc := range []struct {
		in     string
		offset int
		reason string
	}{
		{"metadata.name", 0, "no operator"},
		{"a=b,metadata.name", 4, "no operator"},
		{"=web", 0, "field name is empty"},
		{"status.phase = Running", 0, "field name is"},
		{"a!b=c", 0, "field name is"},
		{"metadata.name=a=b", 15, `'=' in a value must be escaped`},
		{"metadata.name!==b", 15, `'=' in a value must be escaped`},
		{`metadata.name=a\!b`, 15, `escapes only`},
		{`metadata.name=ab\`, 16, `trailing`},
		{`x=1,metadata.name=a\nb`, 19, `escapes only`},
	} {
		_, err := selector.ParseFields(tc.in)
		var se *selector.Error
		if !errors.As(err, &se) {
			t.Errorf("ParseFields(%q) = %v, want a *selector.Error", tc.in, err)
			continue
		}
		if se.Offset != tc.offset || !strings.Contains(se.Reason, tc.reason) || se.Kind != "field" {
			t.Errorf("ParseFields(%q): %v; want offset %d and a reason holding %q", tc.in, err, tc.offset, tc.reason)
		}
	}
}

func TestFields_Matches_as_the_API_server(t *testing.T) {
	pod := map[string]string{"metadata.name": "web-0", "metadata.namespace": "demo", "status.phase": "Running"}
	for _, tc := range []struct {
		sel  string
		want bool
	}{
		{"", true},
		{"metadata.name=web-0", true},
		{"metadata.name==web-0", true},
		{"metadata.name=web-1", false},
		{"metadata.name!=web-1", true},
		{"status.phase!=Running", false},
		{"metadata.name=web-0,metadata.namespace=other", false},
		{"spec.nodeName=", true}, // an absent field is ""
		{"spec.nodeName!=", false},
		{"spec.nodeName!=node-1", true},
	} {
		f, err := selector.ParseFields(tc.sel)
		if err != nil {
			t.Fatalf("ParseFields(%q): %v", tc.sel, err)
		}
		if got := f.Matches(pod); got != tc.want {
			t.Errorf("ParseFields(%q).Matches = %v, want %v", tc.sel, got, tc.want)
		}
	}
}

func TestEscapeValue_round_trips(t *testing.T) {
	for _, v := range []string{"", "plain", `a,b`, `a=b`, `a\b`, `\,=\\`, "a!=b"} {
		f, err := selector.ParseFields("spec.x=" + selector.EscapeValue(v))
		if err != nil {
			t.Fatalf("EscapeValue(%q): %v", v, err)
		}
		if got := f.Terms()[0].Value; got != v {
			t.Fatalf("round trip of %q gave %q", v, got)
		}
	}
}
