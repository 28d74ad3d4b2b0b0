package recording

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Writer writes a recording line by line, as it happens: the recorder calls Request
// when a request goes out, Status when its answer arrives, Line for each body line
// and End when the body is over. Nothing is held back but what bufio holds, so a
// recording of a long watch costs no memory; Flush (or End) pushes it to the file.
//
// Each method writes whole lines under a lock, so a Writer is safe for concurrent
// use; the exchanges still have to come one after the other to read as a recording.
// The first write error sticks and is returned by every later call. The zero value
// is not usable: make one with NewWriter.
type Writer struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

// NewWriter starts a recording on w with its magic line and the comments.
func NewWriter(w io.Writer, comments ...string) *Writer {
	rw := &Writer{w: bufio.NewWriterSize(w, 64<<10)}
	rw.mu.Lock()
	defer rw.mu.Unlock()
	rw.put(Magic, "\n")
	for _, c := range comments {
		rw.comment(c)
	}
	return rw
}

// Comment writes "# text" (one line per line of text).
func (w *Writer) Comment(text string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.comment(text)
	return w.err
}

// Request starts an exchange: "> METHOD TARGET".
func (w *Writer) Request(method, target string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.put("> ", method, " ", target, "\n")
	return w.err
}

// Status writes the status line, "< CODE" with "retry-after=N" when retryAfter > 0.
func (w *Writer) Status(code, retryAfter int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if retryAfter > 0 {
		w.put(fmt.Sprintf("< %d retry-after=%d\n", code, retryAfter))
	} else {
		w.put(fmt.Sprintf("< %d\n", code))
	}
	return w.err
}

// Line writes one body line: as it is when it looks like JSON, else after "| ". A
// line must not hold a newline; one that does is split, which no server output
// needs (JSON escapes newlines inside strings).
func (w *Writer) Line(line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range strings.Split(string(line), "\n") {
		if IsJSON([]byte(l)) {
			w.put(l, "\n")
		} else {
			w.put("| ", l, "\n")
		}
	}
	return w.err
}

// End writes how the body ended (cutAt only counts for Cut), with an optional note
// after it, and flushes.
func (w *Writer) End(e End, cutAt int, note string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e == Cut {
		w.put(fmt.Sprintf("< cut %d", cutAt))
	} else {
		w.put("< ", e.String())
	}
	if note = strings.Join(strings.Fields(note), " "); note != "" {
		w.put(" # ", note)
	}
	w.put("\n")
	if w.err == nil {
		w.err = w.w.Flush()
	}
	return w.err
}

// Flush writes what is buffered.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = w.w.Flush()
	}
	return w.err
}

// WriteTo writes the whole recording to w in the format Parse reads.
func (r *Recording) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	rw := NewWriter(cw, r.Comments...)
	for i := range r.Exchanges {
		e := &r.Exchanges[i]
		for _, c := range e.Comments {
			rw.Comment(c)
		}
		rw.Request(e.Method, e.Target)
		if e.Status != 0 {
			rw.Status(e.Status, e.RetryAfter)
		}
		for _, l := range e.Lines {
			rw.Line(l)
		}
		rw.End(e.End, e.CutAt, e.EndNote)
	}
	err := rw.Flush()
	return cw.n, err
}

func (w *Writer) comment(text string) {
	for _, l := range strings.Split(text, "\n") {
		w.put("# ", l, "\n")
	}
}

// put writes strings unless an earlier write failed; called with mu held.
func (w *Writer) put(parts ...string) {
	for _, s := range parts {
		if w.err != nil {
			return
		}
		_, w.err = w.w.WriteString(s)
	}
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
