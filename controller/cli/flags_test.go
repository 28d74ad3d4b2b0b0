package cli

import (
	"strings"
	"testing"
)

func TestParseArgs_reads_flags_anywhere_like_kubectl(t *testing.T) {
	tests := []struct {
		argv  string
		args  string
		flags string // name=value, sorted by the order below
	}{
		{"get pods -n kube-system", "get pods", "namespace=kube-system"},
		{"-n kube-system get pods", "get pods", "namespace=kube-system"},
		{"get -nkube-system pods", "get pods", "namespace=kube-system"},
		{"get pods -n=kube-system", "get pods", "namespace=kube-system"},
		{"get pods --namespace kube-system", "get pods", "namespace=kube-system"},
		{"get pods --namespace=kube-system", "get pods", "namespace=kube-system"},
		{"get pods -A -o wide", "get pods", "all-namespaces=true output=wide"},
		{"get pods -owide --all-namespaces=false", "get pods", "all-namespaces=false output=wide"},
		{"get pods -l app=nginx,tier!=db --field-selector status.phase=Running", "get pods", "selector=app=nginx,tier!=db field-selector=status.phase=Running"},
		{"get pods -n a -n b", "get pods", "namespace=b"},
		{"get -- -n", "get -n", ""},
		{"get pods -v 6", "get pods", "v=6"},
		{"get pods -v=6", "get pods", "v=6"},
	}
	order := []string{"all-namespaces", "namespace", "output", "selector", "field-selector", "v"}
	for _, tt := range tests {
		p, err := parseArgs(flags, strings.Fields(tt.argv))
		if err != nil {
			t.Fatalf("%q: %v", tt.argv, err)
		}
		var got []string
		for _, name := range order {
			if p.set(name) {
				got = append(got, name+"="+p.str(name))
			}
		}
		if strings.Join(p.args, " ") != tt.args || strings.Join(got, " ") != sortLike(tt.flags, order) {
			t.Errorf("%q: args %q flags %q, want %q and %q", tt.argv, p.args, got, tt.args, tt.flags)
		}
	}
}

// sortLike orders "name=value" words as order lists the names.
func sortLike(flags string, order []string) string {
	var out []string
	for _, name := range order {
		for _, f := range strings.Fields(flags) {
			if strings.HasPrefix(f, name+"=") {
				out = append(out, f)
			}
		}
	}
	return strings.Join(out, " ")
}

func TestParseArgs_usage_errors(t *testing.T) {
	tests := []struct{ argv, want string }{
		{"get pods --bogus", "unknown flag: --bogus"},
		{"get pods -x", `unknown shorthand flag: "x" in -x`},
		{"get pods -n", "flag needs an argument: --namespace"},
		{"get pods -v six", `invalid argument "six" for --v: want a whole number`},
		{"get pods -A=maybe", `invalid argument "maybe" for --all-namespaces: want true or false`},
	}
	for _, tt := range tests {
		_, err := parseArgs(flags, strings.Fields(tt.argv))
		if _, ok := err.(*usageError); !ok || err.Error() != tt.want {
			t.Errorf("%q: err %v, want usage error %q", tt.argv, err, tt.want)
		}
	}
}
