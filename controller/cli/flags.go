package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kubewire/kubewire/apiclient/selector"
)

// flagSpec declares one flag: its long name, its one-letter shorthand, what it
// holds, and which commands take it ("" for all).
type flagSpec struct {
	long, short string
	kind        flagKind
	usage       string
	commands    string // space-separated command names; "" means every command
}

type flagKind int

const (
	boolFlag flagKind = iota
	stringFlag
	intFlag
	durationFlag
)

// usageError is a mistake on the command line: exit 2, with a hint.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// parsed is a command line after parsing: the words that are not flags, and the
// flags by long name. Later occurrences of a flag win, as with kubectl.
type parsed struct {
	args  []string
	flags map[string]string
}

// parseArgs reads a command line the way kubectl (pflag) does: flags may stand
// anywhere, before or after the command and its arguments, as --name=value,
// --name value, -n value, -n=value or -nvalue; boolean flags take no value (but
// accept --name=false); "--" ends the flags.
func parseArgs(specs []flagSpec, argv []string) (*parsed, error) {
	p := &parsed{flags: map[string]string{}}
	byLong, byShort := map[string]flagSpec{}, map[string]flagSpec{}
	for _, s := range specs {
		byLong[s.long] = s
		if s.short != "" {
			byShort[s.short] = s
		}
	}
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			p.args = append(p.args, argv[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			p.args = append(p.args, a)
			continue
		}
		var spec flagSpec
		var value string
		hasValue := false
		if strings.HasPrefix(a, "--") {
			name := a[2:]
			name, value, hasValue = strings.Cut(name, "=")
			s, ok := byLong[name]
			if !ok {
				return nil, usagef("unknown flag: --%s", name)
			}
			spec = s
		} else {
			s, ok := byShort[a[1:2]]
			if !ok {
				return nil, usagef("unknown shorthand flag: %q in %s", a[1:2], a)
			}
			spec = s
			if rest := a[2:]; rest != "" {
				value, hasValue = strings.TrimPrefix(rest, "="), true
			}
		}
		if spec.kind == boolFlag {
			if !hasValue {
				value = "true"
			}
			if _, err := strconv.ParseBool(value); err != nil {
				return nil, usagef("invalid argument %q for --%s: want true or false", value, spec.long)
			}
			p.flags[spec.long] = value
			continue
		}
		if !hasValue {
			if i+1 >= len(argv) {
				return nil, usagef("flag needs an argument: --%s", spec.long)
			}
			i++
			value = argv[i]
		}
		if err := checkValue(spec, value); err != nil {
			return nil, err
		}
		p.flags[spec.long] = value
	}
	return p, nil
}

func checkValue(spec flagSpec, value string) error {
	switch spec.kind {
	case intFlag:
		if _, err := strconv.Atoi(value); err != nil {
			return usagef("invalid argument %q for --%s: want a whole number", value, spec.long)
		}
	case durationFlag:
		if _, err := time.ParseDuration(value); err != nil {
			return usagef("invalid argument %q for --%s: want a duration such as 30s or 5m", value, spec.long)
		}
	}
	return nil
}

// checkSelectors parses -l and --field-selector as the API server will
// (apiclient/selector), so that a mistake is a usage error naming the flag and the
// offset, found before a kubeconfig is read or a request sent. The strings are
// still sent as the user wrote them: the server stays the authority.
func (p *parsed) checkSelectors() error {
	if v, ok := p.flags["selector"]; ok {
		if _, err := selector.Parse(v); err != nil {
			return usagef("-l/--selector: %v", err)
		}
	}
	if v, ok := p.flags["field-selector"]; ok {
		if _, err := selector.ParseFields(v); err != nil {
			return usagef("--field-selector: %v", err)
		}
	}
	return nil
}

// checkCommand refuses flags that the command does not take, and a count that
// counts nothing: --until-events, --events, --workers, --replicas and the list bounds take 1
// or more (0 would end at once or never start, a negative number means nothing).
func (p *parsed) checkCommand(specs []flagSpec, command string) error {
	for _, s := range specs {
		if _, set := p.flags[s.long]; set && s.commands != "" && !contains(strings.Fields(s.commands), command) {
			return usagef("unknown flag for %q: --%s", command, s.long)
		}
	}
	for _, name := range []string{"until-events", "events", "workers", "max-list-mib", "max-list-objects", "replicas"} {
		if p.set(name) && p.integer(name, 0) < 1 {
			return usagef("--%s must be 1 or more, not %s", name, p.str(name))
		}
	}
	return nil
}

func (p *parsed) str(name string) string { return p.flags[name] }

func (p *parsed) set(name string) bool { _, ok := p.flags[name]; return ok }

func (p *parsed) boolean(name string) bool {
	b, _ := strconv.ParseBool(p.flags[name])
	return b
}

func (p *parsed) integer(name string, def int) int {
	if v, ok := p.flags[name]; ok {
		n, _ := strconv.Atoi(v)
		return n
	}
	return def
}

func (p *parsed) duration(name string) time.Duration {
	d, _ := time.ParseDuration(p.flags[name])
	return d
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
