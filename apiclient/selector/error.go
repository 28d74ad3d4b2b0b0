package selector

import "fmt"

// Error is a selector that does not parse: which kind, the selector as given, the
// byte offset where the fault starts, and what is wrong there. Its message is one
// line, whatever the selector holds (it is quoted).
type Error struct {
	Kind     string // "label" or "field"
	Selector string
	Offset   int
	Reason   string
}

func (e *Error) Error() string {
	return fmt.Sprintf("invalid %s selector %q: at offset %d: %s", e.Kind, e.Selector, e.Offset, e.Reason)
}

func newError(kind, selector string, offset int, format string, args ...any) *Error {
	return &Error{Kind: kind, Selector: selector, Offset: offset, Reason: fmt.Sprintf(format, args...)}
}
