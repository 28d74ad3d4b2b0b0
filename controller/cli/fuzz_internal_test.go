package cli

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseArgs: whatever the command line (arguments separated by NUL, which no
// argument can hold), the flag parser and the checks that follow it never panic; a
// refusal is a usage error that prints as one line and the hint; what parses
// survives being written back as --name=value ... -- args and parsed again.
//
//	go test ./controller/cli -run '^$' -fuzz '^FuzzParseArgs$' -fuzztime 1000000x
func FuzzParseArgs(f *testing.F) {
	for _, line := range []string{
		"get pods -A -o wide",
		"sync pods -n demo --watch --dump --until-events=10 --trace -v 6",
		"-nkube-system get deploy -l app.kubernetes.io/name=web,tier!=db --field-selector=status.phase=Running",
		"record pods -o pods.rec --events 10 --duration=30s -- -weird-name",
		"run --leader-elect=false --workers 4 --metrics-addr :8080 --restart-deployment tools -l env in (prod, qa)",
		"get pods --bogus",
		"get pods -l",
		"watch pods -o json --kubeconfig /tmp/kw-cluster/kubeconfig --context=kind-kind",
		"get pods --watch",
		"--help",
		"get pods -l app=web\x00-l\x00tier in (fe",
		"get pods --unknown\nflag",
	} {
		f.Add(strings.ReplaceAll(line, " ", "\x00"))
	}
	f.Fuzz(func(t *testing.T, line string) {
		argv := strings.Split(line, "\x00")
		p, err := parseArgs(flags, argv)
		if err == nil && len(p.args) > 0 {
			if _, ok := lookup(p.args[0]); ok {
				err = p.checkCommand(flags, p.args[0])
			}
		}
		if err == nil {
			err = p.checkSelectors()
		}
		if err != nil {
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Fatalf("%q: %v is a %T, want a usage error", argv, err, err)
			}
			var out strings.Builder
			if code := fail(Env{Stderr: &out}, err); code != 2 || strings.Count(out.String(), "\n") != 2 {
				t.Fatalf("%q: exit %d, stderr %q: want 2 and one line plus the hint", argv, code, out.String())
			}
			return
		}
		var again []string
		for _, s := range flags {
			if v, ok := p.flags[s.long]; ok {
				again = append(again, "--"+s.long+"="+v)
			}
		}
		again = append(append(again, "--"), p.args...)
		q, err := parseArgs(flags, again)
		if err != nil {
			t.Fatalf("%q parsed; written back as %q it does not: %v", argv, again, err)
		}
		if !reflect.DeepEqual(p.flags, q.flags) || strings.Join(p.args, "\x00") != strings.Join(q.args, "\x00") {
			t.Fatalf("%q parsed to %v %q; written back, to %v %q", argv, p.flags, p.args, q.flags, q.args)
		}
	})
}
