package selector_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/selector"
)

func TestParse_writes_the_canonical_form(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"   ", ""},
		{"app=web", "app=web"},
		{"app==web", "app=web"},
		{" app = web , tier != db ", "app=web,tier!=db"},
		{"tier!=db,app=web", "app=web,tier!=db"},
		{"env in (prod, staging)", "env in (prod,staging)"},
		{"env in (staging,prod,prod)", "env in (prod,staging)"},
		{"env notin(canary)", "env notin (canary)"},
		{"gpu", "gpu"},
		{"!legacy", "!legacy"},
		{"! legacy", "!legacy"},
		{"replicas>2,replicas<10", "replicas<10,replicas>2"},
		{"app=", "app="},
		{"app=,x", "app=,x"},
		{"env in ()", "env in ()"},
		{"env in (,a)", "env in (,a)"},
		{"env in (a,)", "env in (,a)"},
		{"env in (a,,b)", "env in (,a,b)"},
		{"env in (,,)", "env in ()"}, // refused by servers before 1.35; see valueSet
		{"env in (a,,)", "env in (,a)"},
		{"env in (,,,,)", "env in ()"},
		{"env notin (a,b,,)", "env notin (,a,b)"},
		{"in in (in,notin)", "in in (in,notin)"},
		{"app.kubernetes.io/name=web", "app.kubernetes.io/name=web"},
		{"example.com/My_Key-1.x=V.1_a-b", "example.com/My_Key-1.x=V.1_a-b"},
		{"a=b,a=b", "a=b,a=b"},
		{"\tapp\n=\rweb", "app=web"},
		{strings.Repeat("k", 63) + "=" + strings.Repeat("v", 63), strings.Repeat("k", 63) + "=" + strings.Repeat("v", 63)},
	} {
		sel, err := selector.Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if got := sel.String(); got != tc.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParse_refuses_with_the_offset(t *testing.T) {
	for _, tc := range []struct {
		in     string
		offset int
		reason string
	}{
		{"app=web,", 8, "want a label key"},
		{",app=web", 0, "want a label key"},
		{"app=web,,x", 8, "want a label key"},
		{"app web", 4, "want =, ==, !=, in, notin, > or <"},
		{"app=web tier", 8, "want ',' or end of selector"},
		{"!app=web", 4, "want ',' or end of selector"},
		{"!", 1, "want a label key"},
		{"=web", 0, "want a label key"},
		{"app=(web)", 4, "want a value"},
		{"env in prod", 7, "want '('"},
		{"env in (prod", 12, "want ',' or ')'"},
		{"env in (prod staging)", 13, "want ',' or ')'"},
		{"env in (,=)", 9, "want a value or ','"},
		{"env in (=)", 8, "want a value, ',' or ')'"},
		{"Example.com/app=x", 0, "prefix"},
		{"/app=x", 0, "prefix before '/' is empty"},
		{"a/b/c=x", 0, "at most one '/'"},
		{"example.com/=x", 0, "name part is empty"},
		{"-app=x", 0, "name part must be"},
		{"app_=x", 0, "name part must be"},
		{strings.Repeat("k", 64) + "=x", 0, "64 characters"},
		{strings.Repeat("a.", 127) + "io/k=x", 0, "a DNS subdomain has at most 253"},
		{"app=-web", 4, "value"},
		{"app=" + strings.Repeat("v", 64), 4, "64 characters"},
		{"app=we/b", 4, "value"},
		{"env in (ok,b@d)", 11, "value \"b@d\""},
		{"replicas>two", 9, "needs an integer"},
		{"replicas>-1", 9, "value"},
		{"replicas>99999999999999999999", 9, "needs an integer"},
		{"app=a\x00b", 4, "value"},
		{"app>=1", 4, "want a value"},
	} {
		_, err := selector.Parse(tc.in)
		var se *selector.Error
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) = %v, want a *selector.Error", tc.in, err)
			continue
		}
		if se.Offset != tc.offset || !strings.Contains(se.Reason, tc.reason) || se.Kind != "label" || se.Selector != tc.in {
			t.Errorf("Parse(%q): %v; want offset %d and a reason holding %q", tc.in, err, tc.offset, tc.reason)
		}
		if strings.ContainsAny(err.Error(), "\n\r") {
			t.Errorf("Parse(%q): error is not one line: %q", tc.in, err)
		}
	}
}

func TestLabels_Matches_as_the_API_server(t *testing.T) {
	web := map[string]string{"app": "web", "tier": "fe", "replicas": "3", "legacy": ""}
	for _, tc := range []struct {
		sel  string
		want bool
	}{
		{"", true},
		{"app=web", true},
		{"app==web", true},
		{"app=db", false},
		{"app!=db", true},
		{"missing!=x", true}, // absent satisfies !=
		{"missing=x", false},
		{"missing=", false}, // absent is not the empty value for labels
		{"legacy=", true},
		{"legacy", true},
		{"!legacy", false},
		{"!missing", true},
		{"tier in (fe,be)", true},
		{"tier in (be)", false},
		{"missing in (x)", false},
		{"tier notin (be)", true},
		{"tier notin (fe)", false},
		{"missing notin (x)", true}, // absent satisfies notin
		{"replicas>2", true},
		{"replicas>3", false},
		{"replicas<4", true},
		{"app>1", false}, // not an integer
		{"missing<1", false},
		{"app=web,tier=be", false},
		{"app=web,tier=fe,!gone", true},
	} {
		sel, err := selector.Parse(tc.sel)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.sel, err)
		}
		if got := sel.Matches(web); got != tc.want {
			t.Errorf("Parse(%q).Matches(%v) = %v, want %v", tc.sel, web, got, tc.want)
		}
	}
	var zero selector.Labels
	if !zero.Matches(nil) || !zero.Empty() || zero.String() != "" {
		t.Error("the zero Labels does not select everything")
	}
}

func TestLabels_Requirements_is_a_copy(t *testing.T) {
	sel, _ := selector.Parse("env in (a,b)")
	sel.Requirements()[0].Values[0] = "z"
	if got, want := sel.String(), "env in (a,b)"; got != want {
		t.Fatalf("after changing the copy, String() = %q, want %q", got, want)
	}
}
