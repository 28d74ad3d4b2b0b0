package kubeconfig

import (
	"regexp"
	"testing"
)

// withoutBackquoted replaces what the regular expression `[^`]*` matches, as
// ReplaceAllString would: every string of up to seven characters drawn from a
// backquote and two letters, and yaml.v3's own messages, give the same.
func TestWithoutBackquoted_is_the_regexp_replacement(t *testing.T) {
	re := regexp.MustCompile("`[^`]*`")
	check := func(s string) {
		t.Helper()
		if got, want := withoutBackquoted(s), re.ReplaceAllString(s, "(value)"); got != want {
			t.Fatalf("withoutBackquoted(%q) = %q, want %q", s, got, want)
		}
	}
	var all func(prefix string, n int)
	all = func(prefix string, n int) {
		check(prefix)
		if n == 0 {
			return
		}
		for _, c := range "`ab" {
			all(prefix+string(c), n-1)
		}
	}
	all("", 7)
	check("yaml: unmarshal errors:\n  line 3: cannot unmarshal !!str `s3cr3t` into int\n  line 4: cannot unmarshal !!seq into string")
	check("yaml: line 2: found character that cannot start any token `é`, and ``")
}
