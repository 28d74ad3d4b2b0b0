package apiclient

import (
	"encoding/json"
	"errors"
	"fmt"
)

// A tiny JSON scanner that finds where values start and end without decoding them.
//
// The decode path uses it to pick "type" and "object" out of a watch event, "metadata"
// out of an object, and to cut managedFields out of the bytes it keeps — all without
// building a map for the parts it does not need. It expects input that encoding/json
// has already validated (the stream decoder does that as it reads), but it is written
// so that any input, valid or not, ends in a value or an error, never a panic or a
// loop: it is fuzzed with arbitrary bytes.

// maxDepth bounds nesting, as encoding/json does, so hostile input cannot exhaust
// the stack.
const maxDepth = 10000

var errSyntax = errors.New("invalid JSON")

// eachField calls fn with each member of the JSON object in data, in order: the
// member's key (unquoted) and the exact bytes of its value. begin and end are the
// offsets of the whole member in data, from the key's opening quote to the end of
// its value, for callers that cut members out. It stops at the first error fn
// returns.
func eachField(data []byte, fn func(key string, value []byte, begin, end int) error) error {
	return eachMember(data, func(key, value []byte, begin, end int) error {
		return fn(string(key), value, begin, end)
	})
}

// eachMember is eachField with the key as bytes, for hot paths: a plain key (no
// escapes, ASCII) is a slice of data, so `switch string(key)` costs no allocation.
// The key slice is only valid during the call.
func eachMember(data []byte, fn func(key, value []byte, begin, end int) error) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return fmt.Errorf("%w: not an object", errSyntax)
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for {
		begin := i
		keyEnd, err := skipString(data, i)
		if err != nil {
			return err
		}
		key, err := unquoteBytes(data[i:keyEnd])
		if err != nil {
			return err
		}
		i = skipSpace(data, keyEnd)
		if i >= len(data) || data[i] != ':' {
			return fmt.Errorf("%w: missing ':' after key %q", errSyntax, key)
		}
		vStart := skipSpace(data, i+1)
		vEnd, err := skipValue(data, vStart, 0)
		if err != nil {
			return err
		}
		if err := fn(key, data[vStart:vEnd], begin, vEnd); err != nil {
			return err
		}
		i = skipSpace(data, vEnd)
		if i >= len(data) {
			return fmt.Errorf("%w: unexpected end of object", errSyntax)
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return nil
		default:
			return fmt.Errorf("%w: unexpected %q in object", errSyntax, data[i])
		}
	}
}

// eachElement calls fn with the exact bytes of each element of the JSON array in data.
func eachElement(data []byte, fn func(value []byte) error) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return fmt.Errorf("%w: not an array", errSyntax)
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return nil
	}
	for {
		end, err := skipValue(data, i, 0)
		if err != nil {
			return err
		}
		if err := fn(data[i:end]); err != nil {
			return err
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return fmt.Errorf("%w: unexpected end of array", errSyntax)
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return nil
		default:
			return fmt.Errorf("%w: unexpected %q in array", errSyntax, data[i])
		}
	}
}

// skipValue returns the offset just past the JSON value that starts at data[i].
func skipValue(data []byte, i, depth int) (int, error) {
	if i >= len(data) {
		return 0, fmt.Errorf("%w: unexpected end of input", errSyntax)
	}
	if depth > maxDepth {
		return 0, fmt.Errorf("%w: nested too deeply", errSyntax)
	}
	switch c := data[i]; {
	case c == '"':
		return skipString(data, i)
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == closer {
			return i + 1, nil
		}
		for {
			if c == '{' {
				end, err := skipString(data, i)
				if err != nil {
					return 0, err
				}
				i = skipSpace(data, end)
				if i >= len(data) || data[i] != ':' {
					return 0, fmt.Errorf("%w: missing ':'", errSyntax)
				}
				i = skipSpace(data, i+1)
			}
			end, err := skipValue(data, i, depth+1)
			if err != nil {
				return 0, err
			}
			i = skipSpace(data, end)
			if i >= len(data) {
				return 0, fmt.Errorf("%w: unexpected end of input", errSyntax)
			}
			if data[i] == closer {
				return i + 1, nil
			}
			if data[i] != ',' {
				return 0, fmt.Errorf("%w: unexpected %q", errSyntax, data[i])
			}
			i = skipSpace(data, i+1)
		}
	case c == 't' || c == 'f' || c == 'n' || c == '-' || (c >= '0' && c <= '9'):
		// Literals and numbers run until a delimiter; encoding/json checked their form.
		j := i + 1
		for j < len(data) && !isDelimiter(data[j]) {
			j++
		}
		return j, nil
	default:
		return 0, fmt.Errorf("%w: unexpected %q", errSyntax, c)
	}
}

// skipString returns the offset just past the JSON string whose quote is at data[i].
func skipString(data []byte, i int) (int, error) {
	if i >= len(data) || data[i] != '"' {
		return 0, fmt.Errorf("%w: expected a string", errSyntax)
	}
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++ // the escaped character cannot end the string
		case '"':
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("%w: unterminated string", errSyntax)
}

// unquote turns a JSON string literal into a Go string. A plain literal (ASCII,
// no escapes: nearly every name, label and resourceVersion) costs one small
// allocation; anything else goes through encoding/json, which also replaces
// invalid UTF-8 the way the API server's decoder does.
func unquote(lit []byte) (string, error) {
	if isPlain(lit) {
		return string(lit[1 : len(lit)-1]), nil
	}
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return "", fmt.Errorf("%w: bad string %.40q", errSyntax, lit)
	}
	return s, nil
}

// unquoteBytes is unquote for keys: a plain literal's content is returned in place.
func unquoteBytes(lit []byte) ([]byte, error) {
	if isPlain(lit) {
		return lit[1 : len(lit)-1], nil
	}
	s, err := unquote(lit)
	return []byte(s), err
}

// isPlain reports whether a string literal is quoted ASCII without escapes, so that
// its content is its value.
func isPlain(lit []byte) bool {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return false
	}
	for _, c := range lit[1 : len(lit)-1] {
		if c == '\\' || c >= 0x80 || c < 0x20 || c == '"' {
			return false
		}
	}
	return true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	return i
}

func isDelimiter(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == ':' || c == '"' || c == '{' || c == '['
}
