package apiclient

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"
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

// Issue 29: a server sending 500 distinct warnings on every response (one
// every 100 ms, as an idle `run foo --shards` makes them) made 25,000 log lines
// in 20 s, and a 200 KB warning was one 200 KB line. Now: at most warningLines
// a minute, the rest counted, and each line cut to maxWarningBytes.
func TestWarnings_a_flood_is_rate_limited_and_each_warning_cut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		w := &warnings{log: slog.New(slog.NewTextHandler(&out, nil))}
		for response := range 200 { // 20 s
			for i := range 500 {
				w.warn(fmt.Sprintf("warning %d of response %d", i, response))
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(warningWindow) // the next window: one line, with the count of those not logged
		w.warn(strings.Repeat("x", 200<<10))
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != warningLines+1 {
			t.Fatalf("%d lines logged for 100,001 distinct warnings in 20 s, want %d:\n%s…", len(lines), warningLines+1, strings.Join(lines[:5], "\n"))
		}
		last := lines[len(lines)-1]
		if len(last) > maxWarningBytes+200 || !strings.Contains(last, "more bytes") || !strings.Contains(last, "notLogged=") {
			t.Fatalf("the 200 KB warning's line: %d bytes, %.200q…; want it cut to about %d bytes, saying what was cut and how many warnings were not logged", len(last), last, maxWarningBytes)
		}
	})
}

func TestCutWarning_cuts_on_a_character_boundary(t *testing.T) {
	got := cutWarning(strings.Repeat("é", maxWarningBytes)) // 2 bytes each
	if !utf8.ValidString(got) || len(got) > maxWarningBytes+30 {
		t.Fatalf("cutWarning: %d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
	}
	if short := "a short warning"; cutWarning(short) != short {
		t.Fatalf("cutWarning(%q) = %q", short, cutWarning(short))
	}
}
