package yamlout_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/kubewire/kubewire/controller/internal/yamlout"
)

// tricky are the runes that decide a scalar's style in yaml.v3: indicators,
// spaces, breaks, what resolves to another type, escapes, runes outside the
// basic plane, a byte-order mark.
var tricky = []string{
	" ", " ", "\t", "\n", "\n", "\r", ":", "#", "-", "?", ",", "[", "]", "{", "}", "&", "*", "!", "|", ">",
	"'", "\"", "%", "@", "`", ".", "0", "1", "7", "e", "E", "x", "o", "b", "a", "y", "n", "N", "~", "+", "_",
	"T", "t", "Z", "é", "\u0085", "\u2028", "\u00a0", "\ufeff", "😀", "\x00", "\x7f", "\x1b", "\\", "\u00ad",
	"true", "null", "yes", "on", ".inf", "2006-01-02", "12:30", "0x1F", "0o17", "-0b101", "1e3", "---", "...",
}

var samples = []string{
	"", "a", "web-1", "1", "-1", "+1", "1.5", ".5", "1.", "1e3", "1E-3", "1_000", "0x1F", "0o17", "0b101", "-0b101",
	"-0o17", "0777", "09", "1__2", "0b", "0x", "0o", "-", "+", ".", "..", "...", "---", "-- -", "- a", "-a", ":a", "a:",
	"a: b", "a:b", "a #b", "a#b", "#a", "? a", "?a", "true", "True", "TRUE", "tRue", "false", "null", "Null", "~",
	"yes", "Yes", "no", "on", "off", "y", "n", "Y", "<<", ".inf", "-.Inf", "+.INF", ".NaN", ".nan", "2006-01-02",
	"2006-1-2", "2001-12-14t21:59:43.10-05:00", "2001-12-14T21:59:43Z", "2001-12-14 21:59:43.10", "20061-01-02",
	"1:20", "190:20:30.15", "1:60", "-1:20", "1:2:3", "1_0:20", "1:20.", "1:20._5", "1:120", "*", "&a", "!a", "|",
	">", "'a", "\"a", "%a", "@a", "`a", "a'b", "a\"b", "a\\b", " a", "a ", "a  b", "a\tb", "\ta", "a\n", "a\nb",
	"a\n\nb", "\na", "\n", "\n\n", "a\n\n", " a\nb", "a \nb", "a\n b", "a\r\nb", "a\rb", "a\u2028b", "a\u2029",
	"\u2028", "é", "日本語", "😀", "a😀", "\ufeffa", "a\ufeff", "\x00", "a\x00b", "\x7f", "\u00a0", "a\u00a0",
	"\u0085", "kubewire-foo", "app.kubernetes.io/name", "example.invalid/kubewire:0.1.0", "foos/status",
	"unapproved, experimental-only; sample-controller's example, not a Kubernetes API", "[a]", "{a}", "a,b",
	"a[b", "a]b", "a{b", "a}b", "a?b", "a&b", "a*b", "a!b", "a|b", "a>b", "a%b", "a@b", "a`b", "0.0.0.0:8080",
	"-- a", "--- a", "... a", "a\n\tb", "a\n b\n", "  ", "1e", "e1", ".e1", "1.e1", "+.5", "-.5e+5", "0x_1", "1_",
}

// gen draws n strings of up to max pieces of tricky.
func gen(n, max int) []string {
	r := rand.New(rand.NewPCG(42, 7))
	out := append([]string(nil), samples...)
	for range n {
		var b strings.Builder
		for range 1 + r.IntN(max) {
			b.WriteString(tricky[r.IntN(len(tricky))])
		}
		out = append(out, b.String())
	}
	return out
}

// encode is what yaml.v3's Encoder, indent 2, writes for n.
func encode(t *testing.T, n *yaml.Node) string {
	t.Helper()
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// String gives what yaml.Marshal gives for a string alone (cli's scalars).
func TestString_as_yaml_Marshal_writes_a_string(t *testing.T) {
	for _, s := range gen(30000, 6) {
		if strings.Contains(s, "\n") {
			continue // cli writes those itself
		}
		out, err := yaml.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := yamlout.String(s, yamlout.Document, 0), string(out); got != want {
			t.Fatalf("String(%q, Document) = %q, want %q", s, got, want)
		}
	}
}

// String gives what yaml.v3's Encoder writes for a !!str node as a mapping's
// value, as its key, and in a flow sequence.
func TestString_as_the_Encoder_writes_a_str_node(t *testing.T) {
	for _, s := range gen(30000, 6) {
		m := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("k"), str(s)}}
		if got, want := "k: "+yamlout.String(s, yamlout.Block, 2), encode(t, m); got != want {
			t.Fatalf("value %q:\ngot  %q\nwant %q", s, got, want)
		}
		seq := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Content: []*yaml.Node{str(s), str("b")}}
		m = &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("k"), seq}}
		if got, want := "k: ["+strings.TrimSuffix(yamlout.String(s, yamlout.Flow, 4), "\n")+", b]\n", encode(t, m); got != want {
			t.Fatalf("flow item %q:\ngot  %q\nwant %q", s, got, want)
		}
		if len(s) > 128 || strings.ContainsAny(s, "\n\r\u0085\u2028\u2029") {
			continue // not a simple key: Node refuses it
		}
		m = &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str(s), str("v")}}
		if got, want := strings.TrimSuffix(yamlout.String(s, yamlout.Key, 0), "\n")+": v\n", encode(t, m); got != want {
			t.Fatalf("key %q:\ngot  %q\nwant %q", s, got, want)
		}
	}
}
