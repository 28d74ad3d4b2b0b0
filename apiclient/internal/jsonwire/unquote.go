package jsonwire

import (
	"encoding/json"
	"fmt"
)

// Unquote turns a JSON string literal into a Go string. A plain literal (ASCII,
// no escapes: nearly every name, label and resourceVersion) costs one small
// allocation; anything else goes through encoding/json, which also replaces
// invalid UTF-8 the way the API server's decoder does.
func Unquote(lit []byte) (string, error) {
	if isPlain(lit) {
		return string(lit[1 : len(lit)-1]), nil
	}
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return "", fmt.Errorf("%w: bad string %.40q", ErrSyntax, lit)
	}
	return s, nil
}

// UnquoteBytes is Unquote for keys: a plain literal's content is returned in
// place, a slice of lit.
func UnquoteBytes(lit []byte) ([]byte, error) {
	if isPlain(lit) {
		return lit[1 : len(lit)-1], nil
	}
	s, err := Unquote(lit)
	return []byte(s), err
}

// String reads a value that should be a string; null gives "".
func String(value []byte) (string, error) {
	if string(value) == "null" {
		return "", nil
	}
	if len(value) == 0 || value[0] != '"' {
		return "", fmt.Errorf("want a string, got %.20s", value)
	}
	return Unquote(value)
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
