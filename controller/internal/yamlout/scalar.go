package yamlout

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// Place is where a scalar stands, which decides the styles open to it.
type Place int

const (
	// Document is a whole document, as yaml.Marshal writes a Go string: the
	// form cli's -o yaml writes each scalar in.
	Document Place = iota
	// Block is a value in block context (after "key: " or "- ") of a tree.
	Block
	// Key is a mapping key in block context of a tree.
	Key
	// Flow is an item of a flow sequence ("[a, b]") of a tree.
	Flow
)

// style is how a scalar is written.
type style int

const (
	plain style = iota
	singleQuoted
	doubleQuoted
	literal
)

// String is s written as yaml.v3 writes a string at place p, and the line
// break that ends its line: indent is the indent of the lines a value with
// line breaks continues on (yaml.Marshal's 4 at Document).
//
// At Document, it is what yaml.Marshal(s) writes; at the other places what
// yaml.v3's Encoder writes for a yaml.Node scalar tagged !!str.
func String(s string, p Place, indent int) string {
	if p == Document {
		indent = 4
	}
	text := scalar(s, p, indent)
	if strings.HasSuffix(text, "\n") && strings.HasPrefix(text, "|") {
		return text // a literal block that ends with a line feed ends the line
	}
	if n := len(text); n >= 3 && strings.HasPrefix(text, "|") && (text[n-3:] == "\u2028" || text[n-3:] == "\u2029") {
		return text // or with LS or PS, which yaml.v3 takes for a line's end too
	}
	return text + "\n"
}

// scalar is s written at p, without what ends its line.
func scalar(s string, p Place, indent int) string {
	if !utf8.ValidString(s) {
		// Never from JSON, which replaces invalid UTF-8; yaml.v3 writes
		// such a string as base64 under a !!binary tag.
		return "!!binary " + base64.StdEncoding.EncodeToString([]byte(s))
	}
	a := analyse(s)
	st := plain
	quote := resolves(s) != "str" || p == Document && (isBase60Float(s) || isOldBool(s))
	switch {
	case strings.Contains(s, "\n"):
		st = literal
	case quote:
		st = doubleQuoted
	}
	// What the emitter allows, as yaml_emitter_select_scalar_style decides.
	if p == Key && a.multiline {
		st = doubleQuoted
	}
	if st == plain {
		if p == Flow && !a.flowPlain || p != Flow && !a.blockPlain || s == "" && (p == Flow || p == Key) {
			st = singleQuoted
		}
	}
	if st == singleQuoted && !a.singleQuoted {
		st = doubleQuoted
	}
	if st == literal && (!a.block || p == Flow || p == Key) {
		st = doubleQuoted
	}
	switch st {
	case singleQuoted:
		return singleQuote(s, indent)
	case doubleQuoted:
		return doubleQuote(s)
	case literal:
		return literalBlock(s, indent)
	}
	return s
}

// analysis is what yaml_emitter_analyze_scalar finds in a value.
type analysis struct {
	multiline    bool
	flowPlain    bool
	blockPlain   bool
	singleQuoted bool
	block        bool
}

// analyse looks at s as yaml.v3's emitter does, character by character.
func analyse(s string) analysis {
	if s == "" {
		return analysis{blockPlain: true, singleQuoted: true}
	}
	var (
		blockIndicators, flowIndicators, lineBreaks, special, tabs bool
		leadingSpace, leadingBreak, trailingSpace, trailingBreak   bool
		breakSpace, spaceBreak, previousSpace, previousBreak       bool
	)
	if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		blockIndicators, flowIndicators = true, true
	}
	precededByWhitespace := true
	for i := 0; i < len(s); {
		w := charWidth(s[i])
		followedByWhitespace := i+w >= len(s) || s[i+w] == ' ' || s[i+w] == '\t'
		c := s[i]
		if i == 0 {
			switch c {
			case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
				flowIndicators, blockIndicators = true, true
			case '?', ':':
				flowIndicators = true
				if followedByWhitespace {
					blockIndicators = true
				}
			case '-':
				if followedByWhitespace {
					flowIndicators, blockIndicators = true, true
				}
			}
		} else {
			switch c {
			case ',', '?', '[', ']', '{', '}':
				flowIndicators = true
			case ':':
				flowIndicators = true
				if followedByWhitespace {
					blockIndicators = true
				}
			case '#':
				if precededByWhitespace {
					flowIndicators, blockIndicators = true, true
				}
			}
		}
		if c == '\t' {
			tabs = true
		} else if !printable(s, i) {
			special = true
		}
		switch {
		case c == ' ':
			if i == 0 {
				leadingSpace = true
			}
			if i+w == len(s) {
				trailingSpace = true
			}
			if previousBreak {
				breakSpace = true
			}
			previousSpace, previousBreak = true, false
		case isBreak(s, i):
			lineBreaks = true
			if i == 0 {
				leadingBreak = true
			}
			if i+w == len(s) {
				trailingBreak = true
			}
			if previousSpace {
				spaceBreak = true
			}
			previousSpace, previousBreak = false, true
		default:
			previousSpace, previousBreak = false, false
		}
		precededByWhitespace = c == ' ' || c == '\t' || c == 0 || isBreak(s, i)
		i += w
	}
	a := analysis{multiline: lineBreaks, flowPlain: true, blockPlain: true, singleQuoted: true, block: true}
	if leadingSpace || leadingBreak || trailingSpace || trailingBreak || lineBreaks {
		a.flowPlain, a.blockPlain = false, false
	}
	if trailingSpace {
		a.block = false
	}
	if breakSpace || spaceBreak || tabs || special {
		a.flowPlain, a.blockPlain, a.singleQuoted = false, false, false
	}
	if spaceBreak || special {
		a.block = false
	}
	if flowIndicators {
		a.flowPlain = false
	}
	if blockIndicators {
		a.blockPlain = false
	}
	return a
}

// charWidth is the length of the UTF-8 sequence that begins with b (0 for a
// continuation byte, as yaml.v3 counts; s is valid UTF-8, so never met).
func charWidth(b byte) int {
	switch {
	case b&0x80 == 0:
		return 1
	case b&0xE0 == 0xC0:
		return 2
	case b&0xF0 == 0xE0:
		return 3
	case b&0xF8 == 0xF0:
		return 4
	}
	return 0
}

// at is s[i], or 0 past its end (yaml.v3 reads a NUL there).
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// printable is yaml.v3's is_printable: line feed, printable ASCII, and the
// runes of two and three bytes from U+00A0 but surrogates, U+FEFF, U+FFFE and
// U+FFFF. (Runes of four bytes are not: yaml.v3 escapes them.)
func printable(s string, i int) bool {
	b, b1, b2 := s[i], at(s, i+1), at(s, i+2)
	return b == 0x0A || b >= 0x20 && b <= 0x7E ||
		b == 0xC2 && b1 >= 0xA0 || b > 0xC2 && b < 0xED ||
		b == 0xED && b1 < 0xA0 || b == 0xEE ||
		b == 0xEF && !(b1 == 0xBB && b2 == 0xBF) && !(b1 == 0xBF && (b2 == 0xBE || b2 == 0xBF))
}

// isBreak: CR, LF, NEL, LS or PS at s[i].
func isBreak(s string, i int) bool {
	b, b1, b2 := s[i], at(s, i+1), at(s, i+2)
	return b == '\r' || b == '\n' || b == 0xC2 && b1 == 0x85 || b == 0xE2 && b1 == 0x80 && (b2 == 0xA8 || b2 == 0xA9)
}

// doubleQuote writes s double-quoted with yaml.v3's escapes: for what is not
// printable, a byte-order mark, a line break, '"' and '\\'.
func doubleQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	// yaml.v3 tests for a byte-order mark at the start of the value, not at
	// each character: a value that begins with one has every character escaped.
	bom := strings.HasPrefix(s, "\uFEFF")
	for i := 0; i < len(s); {
		c := s[i]
		if printable(s, i) && !bom && !isBreak(s, i) && c != '"' && c != '\\' {
			w := charWidth(c)
			b.WriteString(s[i : i+w])
			i += w
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		b.WriteByte('\\')
		switch r {
		case 0:
			b.WriteByte('0')
		case 0x07:
			b.WriteByte('a')
		case 0x08:
			b.WriteByte('b')
		case 0x09:
			b.WriteByte('t')
		case 0x0A:
			b.WriteByte('n')
		case 0x0B:
			b.WriteByte('v')
		case 0x0C:
			b.WriteByte('f')
		case 0x0D:
			b.WriteByte('r')
		case 0x1B:
			b.WriteByte('e')
		case '"':
			b.WriteByte('"')
		case '\\':
			b.WriteByte('\\')
		case 0x85:
			b.WriteByte('N')
		case 0xA0:
			b.WriteByte('_')
		case 0x2028:
			b.WriteByte('L')
		case 0x2029:
			b.WriteByte('P')
		default:
			n := 8
			switch {
			case r <= 0xFF:
				b.WriteByte('x')
				n = 2
			case r <= 0xFFFF:
				b.WriteByte('u')
				n = 4
			default:
				b.WriteByte('U')
			}
			for k := (n - 1) * 4; k >= 0; k -= 4 {
				b.WriteByte("0123456789ABCDEF"[(r>>uint(k))&0xF])
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// lines writes a scalar's text the way yaml.v3's emitter does where a value
// has line breaks: it keeps the column, and whether the line holds only
// indentation or ends in whitespace, which decide where a new line begins.
type lines struct {
	b          strings.Builder
	indent     int
	column     int
	indention  bool
	whitespace bool
}

// lineBreak ends the line at s[i] (a line feed, or LS/PS written as they are).
func (l *lines) lineBreak(s string, i int) int {
	w := charWidth(s[i])
	if s[i] == '\n' {
		l.b.WriteByte('\n')
	} else {
		l.b.WriteString(s[i : i+w])
	}
	l.column, l.indention = 0, true
	return w
}

// toIndent starts a line at the indent unless the current one is still blank.
func (l *lines) toIndent() {
	if !l.indention || l.column > l.indent || l.column == l.indent && !l.whitespace {
		l.b.WriteByte('\n')
		l.column = 0
	}
	for ; l.column < l.indent; l.column++ {
		l.b.WriteByte(' ')
	}
	l.whitespace = true
}

// char writes the rune at s[i].
func (l *lines) char(s string, i int) int {
	w := charWidth(s[i])
	l.b.WriteString(s[i : i+w])
	l.column++
	return w
}

// singleQuote writes s single-quoted, a quote doubled; a line break in it
// (only LS or PS get here) continues the value on a line at indent.
func singleQuote(s string, indent int) string {
	l := &lines{indent: indent, column: 1}
	l.b.WriteByte('\'')
	breaks := false
	for i := 0; i < len(s); {
		switch {
		case s[i] == ' ':
			i += l.char(s, i)
		case isBreak(s, i):
			if !breaks && s[i] == '\n' {
				l.b.WriteByte('\n')
				l.column, l.indention = 0, true
			}
			i += l.lineBreak(s, i)
			breaks = true
		default:
			if breaks {
				l.toIndent()
			}
			if s[i] == '\'' {
				l.b.WriteByte('\'')
			}
			i += l.char(s, i)
			l.indention, breaks = false, false
		}
	}
	l.b.WriteByte('\'')
	return l.b.String()
}

// literalBlock writes s as a literal block ("|"), its lines indented by
// indent: an indentation indicator when s begins with a space or a break, "-"
// when it does not end with a break, "+" when it ends with two (or is one).
func literalBlock(s string, indent int) string {
	l := &lines{indent: indent, column: 1}
	l.b.WriteByte('|')
	if s[0] == ' ' || isBreak(s, 0) {
		l.b.WriteByte('2')
	}
	last := len(s) - 1
	for s[last]&0xC0 == 0x80 {
		last--
	}
	switch {
	case !isBreak(s, last):
		l.b.WriteByte('-')
	case last == 0:
		l.b.WriteByte('+')
	default:
		prev := last - 1
		for s[prev]&0xC0 == 0x80 {
			prev--
		}
		if isBreak(s, prev) {
			l.b.WriteByte('+')
		}
	}
	l.whitespace = true
	breaks := true
	for i := 0; i < len(s); {
		if isBreak(s, i) {
			i += l.lineBreak(s, i)
			breaks = true
			continue
		}
		if breaks {
			l.toIndent()
		}
		i += l.char(s, i)
		l.indention, breaks = false, false
	}
	return l.b.String()
}
