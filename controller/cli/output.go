package cli

import (
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// The command's two streams. Every command writes from several goroutines (the
// logger, the tracer, a summary line while a watch still traces), and a test's
// Env may hand both streams one bytes.Buffer, so Main wraps them in lockedWriters
// sharing one lock; stdout's also remembers a failed write, which Main turns into
// exit 1.

// lockedWriter serialises writes to w under mu, which may be shared with other
// lockedWriters. Safe for concurrent use; the zero value is not (mu is nil).
type lockedWriter struct {
	mu  *sync.Mutex
	w   io.Writer
	err error // the first failed write, under mu: Main turns it into exit 1
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if err != nil && l.err == nil {
		l.err = err
	}
	return n, err
}

// failed returns the first write that failed, if any.
func (l *lockedWriter) failed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// printable is s as it may be printed on a line of output: as it is, unless it
// holds a control or unprintable character — a newline in a name from a hostile
// server would forge a line of `watch` output for whoever reads it — and then
// quoted, Go style ("a\nb"). Every string the server sends that a command prints
// in text goes through it: keys, resourceVersions, table cells.
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 {
		return s
	}
	return strconv.Quote(s)
}
