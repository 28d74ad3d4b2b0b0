package jsonwire

import "fmt"

// The validator: CheckValue reads one value, checks it against the JSON grammar
// exactly as encoding/json does (json.Valid and CheckValue agree on every input;
// FuzzCheckValue holds them to it), and returns where it ends. WalkObject and
// WalkArray are the same check with a hook per member or element, so that a
// caller can take a value apart in the pass that validates it: there is no second
// walker that trusts its input.

// MaxDepth bounds nesting, as encoding/json does, so that hostile input cannot
// exhaust the stack.
const MaxDepth = 10000

// Whole finishes the check of a complete document: given where the value that
// starts it ended (end, err from CheckValue or a walker), it turns ErrShort into a
// SyntaxError at the end of data and refuses anything but spaces after the value.
func Whole(data []byte, end int, err error) error {
	if err == ErrShort {
		return &SyntaxError{Offset: len(data), Msg: "unexpected end of input"}
	}
	if err != nil {
		return err
	}
	if j := SkipSpace(data, end); j < len(data) {
		return BadByte(data, j, "after the top-level value")
	}
	return nil
}

// Valid reports why data is not exactly one JSON value with only spaces around
// it, or nil.
func Valid(data []byte) error {
	end, err := CheckValue(data, SkipSpace(data, 0), 0)
	return Whole(data, end, err)
}

// CheckValue validates the value starting at data[i] and returns the offset just
// past it; ErrShort if data ends first. depth counts the containers around it.
func CheckValue(data []byte, i, depth int) (int, error) {
	if i >= len(data) {
		return i, ErrShort
	}
	switch c := data[i]; {
	case c == '{':
		return WalkObject(data, i, depth+1, nil)
	case c == '[':
		return WalkArray(data, i, depth+1, nil)
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
	return i, BadByte(data, i, "looking for the beginning of a value")
}

// WalkObject validates the object at data[i] (depth is its own nesting level,
// counting itself), calling fn with each member's key (unquoted, only valid during
// the call: a plain key is a slice of data, so `switch string(key)` allocates
// nothing), the offset of the member (its key's quote) and the offset where its
// value starts. fn must return where the value ends: it may decode the value
// itself, or hand it to CheckValue(data, at, depth) — either way each byte is
// looked at once. An error from fn stops the walk and is returned as it is. With
// fn nil, values are checked with CheckValue and keys are not unquoted.
//
// WalkObject and WalkArray run for every container on the hot path, and their
// two loops are written out in full, alike as they are. Both ways of sharing
// them were measured (2 cores, 2026-11-27, medians of 7 alternating runs):
// helpers for the brackets and the commas, which the compiler does not inline,
// made BenchmarkValid 17% and BenchmarkDecodeList10k 11% slower; one loop for
// both kinds of container, 10% and 7%.
func WalkObject(data []byte, i, depth int, fn func(key []byte, begin, at int) (int, error)) (int, error) {
	if i >= len(data) {
		return i, ErrShort
	}
	if data[i] != '{' {
		return i, BadByte(data, i, "looking for the beginning of an object")
	}
	if depth > MaxDepth {
		return i, &SyntaxError{Offset: i, Msg: "nested too deeply"}
	}
	i = SkipSpace(data, i+1)
	if i >= len(data) {
		return i, ErrShort
	}
	if data[i] == '}' {
		return i + 1, nil
	}
	for {
		if data[i] != '"' {
			return i, BadByte(data, i, "looking for the beginning of an object key")
		}
		begin := i
		end, err := checkString(data, i)
		if err != nil {
			return end, err
		}
		i = SkipSpace(data, end)
		if i >= len(data) {
			return i, ErrShort
		}
		if data[i] != ':' {
			return i, BadByte(data, i, "after an object key")
		}
		at := SkipSpace(data, i+1)
		if fn == nil {
			i, err = CheckValue(data, at, depth)
		} else {
			var key []byte
			if key, err = UnquoteBytes(data[begin:end]); err != nil {
				return begin, err
			}
			i, err = fn(key, begin, at)
		}
		if err != nil {
			return i, err
		}
		i = SkipSpace(data, i)
		if i >= len(data) {
			return i, ErrShort
		}
		switch data[i] {
		case '}':
			return i + 1, nil
		case ',':
			if i = SkipSpace(data, i+1); i >= len(data) {
				return i, ErrShort
			}
		default:
			return i, BadByte(data, i, "after an object member")
		}
	}
}

// WalkArray validates the array whose '[' is at data[i] (the caller has looked),
// as WalkObject does an object, calling fn with the offset where each element
// starts; fn returns where it ends. With fn nil, elements are checked with
// CheckValue.
func WalkArray(data []byte, i, depth int, fn func(at int) (int, error)) (int, error) {
	if depth > MaxDepth {
		return i, &SyntaxError{Offset: i, Msg: "nested too deeply"}
	}
	i = SkipSpace(data, i+1)
	if i >= len(data) {
		return i, ErrShort
	}
	if data[i] == ']' {
		return i + 1, nil
	}
	for {
		var err error
		if fn == nil {
			i, err = CheckValue(data, i, depth)
		} else {
			i, err = fn(i)
		}
		if err != nil {
			return i, err
		}
		i = SkipSpace(data, i)
		if i >= len(data) {
			return i, ErrShort
		}
		switch data[i] {
		case ']':
			return i + 1, nil
		case ',':
			i = SkipSpace(data, i+1)
		default:
			return i, BadByte(data, i, "after an array element")
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
				return j, ErrShort
			}
			switch data[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				for k := j + 2; k < j+6; k++ {
					if k >= len(data) {
						return k, ErrShort
					}
					if !isHex(data[k]) {
						return k, BadByte(data, k, "in a \\u escape")
					}
				}
				j += 5
			default:
				return j + 1, BadByte(data, j+1, "in a string escape")
			}
		default:
			return j, &SyntaxError{Offset: j, Msg: fmt.Sprintf("control character %#02x in a string", data[j])}
		}
	}
	return len(data), ErrShort
}

func checkLiteral(data []byte, i int, lit string) (int, error) {
	for k := 0; k < len(lit); k++ {
		if i+k >= len(data) {
			return i + k, ErrShort
		}
		if data[i+k] != lit[k] {
			return i + k, BadByte(data, i+k, "in literal "+lit)
		}
	}
	return i + len(lit), nil
}

// checkNumber follows the grammar -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
// A number may end at the end of data (containers then find their closer missing,
// and the stream readers only frame objects and arrays); ErrShort means it stopped
// half-way, as in "1." or "-".
func checkNumber(data []byte, i int) (int, error) {
	if data[i] == '-' {
		i++
	}
	if i >= len(data) {
		return i, ErrShort
	}
	switch {
	case data[i] == '0':
		i++
	case data[i] >= '1' && data[i] <= '9':
		i = digits(data, i)
	default:
		return i, BadByte(data, i, "in a number")
	}
	if i < len(data) && data[i] == '.' {
		if i++; i >= len(data) {
			return i, ErrShort
		}
		if !isDigit(data[i]) {
			return i, BadByte(data, i, "after a decimal point")
		}
		i = digits(data, i)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		if i++; i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) {
			return i, ErrShort
		}
		if !isDigit(data[i]) {
			return i, BadByte(data, i, "in an exponent")
		}
		i = digits(data, i)
	}
	return i, nil
}

// SkipSpace returns the offset of the first byte at or after i that is not JSON
// whitespace.
func SkipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	return i
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
