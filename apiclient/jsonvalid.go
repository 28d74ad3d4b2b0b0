package apiclient

import (
	"errors"
	"fmt"
)

// A validating JSON scanner: checkValue reads one value, checks it against the JSON
// grammar exactly as encoding/json does (json.Valid and checkValue agree on every
// input; a fuzz target holds them to it), and returns where it ends.
//
// Why not encoding/json: its scanner is a general state machine that costs a
// function call per byte, and a json.Decoder copies every value it returns. The
// cache's hot path reads 50 MB LIST bodies and tens of thousands of watch events a
// second, and needs only two answers from the scan: "is this valid?" and "where
// does it end?". A direct recursive check answers both in one pass at several times
// the speed, and lets the stream readers (frame.go) work in their own buffer with
// no copy. Decoding is then done by hand where it matters (meta.go) and by
// encoding/json everywhere else.

// errShort means data ended before the value did: a stream reader should read more;
// for a complete document it means the input was cut.
var errShort = errors.New("unexpected end of JSON input")

// syntaxError is invalid JSON at an offset.
type syntaxError struct {
	offset int
	msg    string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.offset, e.msg)
}

// Is lets errors.Is(err, errSyntax) find a syntaxError, as it finds the scanner's.
func (e *syntaxError) Is(target error) bool { return target == errSyntax }

func badByte(data []byte, i int, where string) error {
	return &syntaxError{offset: i, msg: fmt.Sprintf("unexpected %q %s", data[i], where)}
}

// checkValue validates the value starting at data[i] and returns the offset just
// past it; errShort if data ends first.
func checkValue(data []byte, i, depth int) (int, error) {
	if i >= len(data) {
		return i, errShort
	}
	switch c := data[i]; {
	case c == '{':
		return checkObject(data, i, depth+1)
	case c == '[':
		return checkArray(data, i, depth+1)
	case c == '"':
		return checkString(data, i)
	case c == 't':
		return checkLiteral(data, i, "true")
	case c == 'f':
		return checkLiteral(data, i, "false")
	case c == 'n':
		return checkLiteral(data, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return checkNumber(data, i)
	}
	return i, badByte(data, i, "looking for the beginning of a value")
}

// walkObject validates the object at data[i] as checkObject does, calling fn with
// each member's key (unquoted, only valid during the call), the offset of the
// member (its key's quote) and the offset where its value starts. fn must return
// where the value ends: it may decode the value itself, or hand it to checkValue —
// either way each byte is looked at once. This is how an object is validated and
// taken apart in the same pass. With fn nil, values are checked with checkValue
// (depth counts the containers around them) and keys are not unquoted: that is
// checkObject.
func walkObject(data []byte, i, depth int, fn func(key []byte, begin, at int) (int, error)) (int, error) {
	if i >= len(data) {
		return i, errShort
	}
	if data[i] != '{' {
		return i, badByte(data, i, "looking for the beginning of an object")
	}
	if depth > maxDepth {
		return i, &syntaxError{offset: i, msg: "nested too deeply"}
	}
	i = skipSpace(data, i+1)
	if i >= len(data) {
		return i, errShort
	}
	if data[i] == '}' {
		return i + 1, nil
	}
	for {
		if data[i] != '"' {
			return i, badByte(data, i, "looking for the beginning of an object key")
		}
		begin := i
		end, err := checkString(data, i)
		if err != nil {
			return end, err
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return i, errShort
		}
		if data[i] != ':' {
			return i, badByte(data, i, "after an object key")
		}
		at := skipSpace(data, i+1)
		if fn == nil {
			i, err = checkValue(data, at, depth)
		} else {
			var key []byte
			if key, err = unquoteBytes(data[begin:end]); err != nil {
				return begin, err
			}
			i, err = fn(key, begin, at)
		}
		if err != nil {
			return i, err
		}
		i = skipSpace(data, i)
		if i >= len(data) {
			return i, errShort
		}
		switch data[i] {
		case '}':
			return i + 1, nil
		case ',':
			if i = skipSpace(data, i+1); i >= len(data) {
				return i, errShort
			}
		default:
			return i, badByte(data, i, "after an object member")
		}
	}
}

func checkObject(data []byte, i, depth int) (int, error) {
	return walkObject(data, i, depth, nil)
}

func checkArray(data []byte, i, depth int) (int, error) {
	if depth > maxDepth {
		return i, &syntaxError{offset: i, msg: "nested too deeply"}
	}
	i = skipSpace(data, i+1)
	if i >= len(data) {
		return i, errShort
	}
	if data[i] == ']' {
		return i + 1, nil
	}
	for {
		var err error
		if i, err = checkValue(data, i, depth); err != nil {
			return i, err
		}
		i = skipSpace(data, i)
		if i >= len(data) {
			return i, errShort
		}
		switch data[i] {
		case ']':
			return i + 1, nil
		case ',':
			i = skipSpace(data, i+1)
		default:
			return i, badByte(data, i, "after an array element")
		}
	}
}

// plain marks the bytes a string may hold as they are: everything but the quote,
// the backslash and control characters. (Invalid UTF-8 is accepted, as
// encoding/json accepts it, and replaced when decoded.)
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func checkString(data []byte, i int) (int, error) {
	for j := i + 1; j < len(data); j++ {
		if plain[data[j]] {
			continue
		}
		switch data[j] {
		case '"':
			return j + 1, nil
		case '\\':
			if j+1 >= len(data) {
				return j, errShort
			}
			switch data[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				for k := j + 2; k < j+6; k++ {
					if k >= len(data) {
						return k, errShort
					}
					if !isHex(data[k]) {
						return k, badByte(data, k, "in a \\u escape")
					}
				}
				j += 5
			default:
				return j + 1, badByte(data, j+1, "in a string escape")
			}
		default:
			return j, &syntaxError{offset: j, msg: fmt.Sprintf("control character %#02x in a string", data[j])}
		}
	}
	return len(data), errShort
}

func checkLiteral(data []byte, i int, lit string) (int, error) {
	for k := 0; k < len(lit); k++ {
		if i+k >= len(data) {
			return i + k, errShort
		}
		if data[i+k] != lit[k] {
			return i + k, badByte(data, i+k, "in literal "+lit)
		}
	}
	return i + len(lit), nil
}

// checkNumber follows the grammar -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
// A number may end at the end of data (containers then find their closer missing,
// and the stream readers only frame objects and arrays); errShort means it stopped
// half-way, as in "1." or "-".
func checkNumber(data []byte, i int) (int, error) {
	if data[i] == '-' {
		i++
	}
	if i >= len(data) {
		return i, errShort
	}
	switch {
	case data[i] == '0':
		i++
	case data[i] >= '1' && data[i] <= '9':
		i = digits(data, i)
	default:
		return i, badByte(data, i, "in a number")
	}
	if i < len(data) && data[i] == '.' {
		if i++; i >= len(data) {
			return i, errShort
		}
		if !isDigit(data[i]) {
			return i, badByte(data, i, "after a decimal point")
		}
		i = digits(data, i)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		if i++; i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) {
			return i, errShort
		}
		if !isDigit(data[i]) {
			return i, badByte(data, i, "in an exponent")
		}
		i = digits(data, i)
	}
	return i, nil
}

func digits(data []byte, i int) int {
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
