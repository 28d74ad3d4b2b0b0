package apiclient

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseWarning(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`299 - "unknown field \"spec.replica\""`, `unknown field "spec.replica"`},
		{`299 - "text" "Tue, 24 Nov 2026 03:00:00 GMT"`, "text"},
		{`299 kube-apiserver "from an agent"`, "from an agent"},
		{`  299 -   "spaced"  `, "spaced"},
		{`not a warning at all`, "not a warning at all"},
		{`299 - "no closing quote`, `299 - "no closing quote`},
		{`299 - "ends in a backslash\`, `299 - "ends in a backslash\`},
		{``, ``},
	} {
		if got := parseWarning(tc.in); got != tc.want {
			t.Errorf("parseWarning(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzWarning: any header value gives a text no longer than the value, without a
// panic; valid UTF-8 in, valid UTF-8 out.
func FuzzWarning(f *testing.F) {
	for _, s := range []string{`299 - "a \"b\" c"`, `299 - "x" "date"`, `299`, `299 - "`, `299 - "\`, "299 - \"\xff\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		got := parseWarning(h)
		if len(got) > len(h) {
			t.Fatalf("parseWarning(%q) = %q, longer than its input", h, got)
		}
		if utf8.ValidString(h) && !utf8.ValidString(got) && !strings.Contains(h, `\`) {
			t.Fatalf("parseWarning(%q) = %q: invalid UTF-8 from valid", h, got)
		}
	})
}
