package jsonwire

import (
	"errors"
	"fmt"
)

// The errors of malformed or cut JSON: a SyntaxError (errors.Is finds ErrSyntax
// in it) names the byte; ErrShort is no syntax error, only input that ended too
// soon, which a stream reader answers by reading more.

// ErrSyntax is what errors.Is finds in every error about malformed JSON.
var ErrSyntax = errors.New("invalid JSON")

// ErrShort means data ended before the value did: a stream reader should read
// more; for a complete document it means the input was cut.
var ErrShort = errors.New("unexpected end of JSON input")

// SyntaxError is invalid JSON at a byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// Is lets errors.Is(err, ErrSyntax) find a SyntaxError.
func (e *SyntaxError) Is(target error) bool { return target == ErrSyntax }

// BadByte is the SyntaxError for an unexpected data[i]; where says what was
// expected ("after an object key").
func BadByte(data []byte, i int, where string) error {
	return &SyntaxError{Offset: i, Msg: fmt.Sprintf("unexpected %q %s", data[i], where)}
}
