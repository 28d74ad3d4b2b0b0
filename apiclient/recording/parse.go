package recording

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxLine bounds one line of a recording. A LIST of 10,000 pods is one line of about
// 52 MB; anything much longer is not a recording.
const MaxLine = 256 << 20

// Parse reads a recording. It checks the grammar described in the package doc and
// nothing about the JSON inside body lines: a fault script may hold a malformed line
// on purpose. Errors name the line: "recording:12: …".
//
// Cost: one pass; each line is copied once, out of the read buffer.
func Parse(r io.Reader) (*Recording, error) {
	p := parser{in: bufio.NewReaderSize(r, 64<<10)}
	return p.parse()
}

type parser struct {
	in   *bufio.Reader
	n    int // line number of the line just read
	rec  Recording
	cur  *Exchange
	hold []string // comments waiting for the next exchange
	// state of cur: 0 request read, 1 status read (body may follow), 2 ended
	state int
}

func (p *parser) parse() (*Recording, error) {
	first, err := p.line()
	if err == io.EOF {
		return nil, fmt.Errorf("recording: empty input, want %q", Magic)
	}
	if err != nil {
		return nil, err
	}
	if string(first) != Magic {
		return nil, p.errorf("want %q, got %.40q", Magic, first)
	}
	for {
		line, err := p.line()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := p.take(line); err != nil {
			return nil, err
		}
	}
	if p.cur != nil && p.state == 0 {
		return nil, p.errorf("request %s %s has no response line", p.cur.Method, p.cur.Target)
	}
	p.finish()
	p.rec.Comments = append(p.rec.Comments, p.hold...)
	return &p.rec, nil
}

// take handles one non-blank line.
func (p *parser) take(line []byte) error {
	switch {
	case line[0] == '#':
		text := strings.TrimPrefix(string(line[1:]), " ")
		if len(p.rec.Exchanges) == 0 && p.cur == nil {
			p.rec.Comments = append(p.rec.Comments, text)
		} else {
			p.hold = append(p.hold, text)
		}
		return nil
	case bytes.HasPrefix(line, []byte("> ")):
		return p.request(string(line[2:]))
	case bytes.HasPrefix(line, []byte("< ")):
		return p.response(string(line[2:]))
	case IsJSON(line):
		return p.body(line)
	case bytes.HasPrefix(line, []byte("| ")):
		return p.body(line[2:])
	}
	return p.errorf("unknown line %.40q (want >, <, #, | or a JSON body line)", line)
}

func (p *parser) request(s string) error {
	method, target, ok := strings.Cut(s, " ")
	if !ok || method == "" || !strings.HasPrefix(target, "/") || strings.ContainsAny(target, " \t") {
		return p.errorf("want \"> METHOD /path?query\", got %.60q", s)
	}
	if p.cur != nil && p.state == 0 {
		return p.errorf("request %s %s has no response line", p.cur.Method, p.cur.Target)
	}
	p.finish()
	p.cur = &Exchange{Comments: p.hold, Method: method, Target: target}
	p.hold = nil
	p.state = 0
	return nil
}

func (p *parser) response(s string) error {
	if p.cur == nil {
		return p.errorf("%q before any request", "< "+s)
	}
	if p.state == 2 {
		return p.errorf("%q after the response ended", "< "+s)
	}
	word, rest, _ := strings.Cut(s, " ")
	note := ""
	if i := strings.Index(rest, "#"); i >= 0 && (word == "end" || word == "close" || word == "stall" || word == "cut") {
		rest, note = strings.TrimSpace(rest[:i]), strings.TrimSpace(rest[i+1:])
	}
	switch word {
	case "end", "close", "stall":
		if rest != "" {
			return p.errorf("%q takes no argument", word)
		}
		if p.state == 0 && word == "end" {
			return p.errorf("\"end\" before a status line")
		}
		p.cur.End = map[string]End{"end": Finished, "close": Close, "stall": Stall}[word]
		p.cur.EndNote = note
		p.state = 2
		return nil
	case "cut":
		n, err := strconv.Atoi(rest)
		if p.state != 1 || len(p.cur.Lines) == 0 {
			return p.errorf("\"cut\" needs a body line before it")
		}
		last := p.cur.Lines[len(p.cur.Lines)-1]
		if err != nil || n < 0 || n > len(last) {
			return p.errorf("\"cut %s\": want a byte count from 0 to %d", rest, len(last))
		}
		p.cur.End, p.cur.CutAt, p.cur.EndNote, p.state = Cut, n, note, 2
		return nil
	}
	if p.state != 0 {
		return p.errorf("second status line %q", s)
	}
	code, err := strconv.Atoi(word)
	if err != nil || code < 100 || code > 999 {
		return p.errorf("want \"< CODE\", \"< end\", \"< close\", \"< cut N\" or \"< stall\", got %.40q", s)
	}
	p.cur.Status = code
	if rest != "" {
		v, ok := strings.CutPrefix(rest, "retry-after=")
		secs, err := strconv.Atoi(v)
		if !ok || err != nil || secs < 0 {
			return p.errorf("after the status code want \"retry-after=SECONDS\", got %.40q", rest)
		}
		p.cur.RetryAfter = secs
	}
	p.state = 1
	return nil
}

func (p *parser) body(line []byte) error {
	if p.cur == nil || p.state != 1 {
		return p.errorf("body line outside a response (it must follow a \"< CODE\" line)")
	}
	p.cur.Lines = append(p.cur.Lines, line)
	return nil
}

// finish files the exchange being read.
func (p *parser) finish() {
	if p.cur != nil {
		p.rec.Exchanges = append(p.rec.Exchanges, *p.cur)
		p.cur = nil
	}
}

// line returns the next non-blank line without its line ending.
func (p *parser) line() ([]byte, error) {
	for {
		var buf []byte
		for {
			chunk, err := p.in.ReadSlice('\n')
			if len(buf)+len(chunk) > MaxLine {
				return nil, fmt.Errorf("recording:%d: line longer than %d bytes", p.n+1, MaxLine)
			}
			buf = append(buf, chunk...)
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err != nil && err != io.EOF {
				return nil, fmt.Errorf("recording:%d: %w", p.n+1, err)
			}
			if err == io.EOF && len(buf) == 0 {
				return nil, io.EOF
			}
			break
		}
		p.n++
		buf = bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r"))
		if len(bytes.TrimSpace(buf)) > 0 {
			return buf, nil
		}
	}
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("recording:%d: %s", p.n, fmt.Sprintf(format, args...))
}
