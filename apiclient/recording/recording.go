package recording

import (
	"encoding/json"
	"strconv"
)

// Magic is the first line of every recording: the format's name and version.
const Magic = "kubewire-recording v1"

// Recording is one recorded conversation with an API server: its exchanges in the
// order they happened.
//
// The zero value is an empty recording. A Recording is plain data: safe to read from
// many goroutines, not to change while something reads it.
type Recording struct {
	// Comments are the file's opening "# " lines: how it was made.
	Comments  []string
	Exchanges []Exchange
}

// Exchange is one request and the response to it.
type Exchange struct {
	// Comments are the "# " lines written just before the request.
	Comments []string
	Method   string // "GET"
	// Target is the request's path and query, as sent:
	// "/api/v1/namespaces/demo/pods?limit=500&resourceVersion=0".
	Target string
	// Status is the HTTP status code; 0 when the server never answered (End is
	// Stall or Close).
	Status int
	// RetryAfter is the Retry-After header in seconds; 0 when there was none.
	RetryAfter int
	// Lines is the body, one line each, without the newline. The server writes a
	// LIST or a Status as one line and a watch as one event per line.
	Lines [][]byte
	// End says how the body ended.
	End End
	// CutAt, with End == Cut, is how many bytes of the last line were sent.
	CutAt int
	// EndNote is a remark on the end, written after it: "< stall # the client
	// stopped reading here".
	EndNote string
}

// End is how a response body ended.
type End int

const (
	// Finished: the server ended the body normally. For a watch this is its
	// timeoutSeconds passing: the client should watch again from where it was.
	Finished End = iota
	// Close: the connection dropped after the last line (a server restart, a proxy
	// timing out). The client sees an unexpected EOF.
	Close
	// Cut: the connection dropped in the middle of the last line, after CutAt bytes.
	Cut
	// Stall: nothing more came, yet the connection stayed open: a dead peer behind
	// a NAT, a hung server. Only an idle timeout on the client ends it.
	Stall
)

func (e End) String() string {
	switch e {
	case Finished:
		return "end"
	case Close:
		return "close"
	case Cut:
		return "cut"
	case Stall:
		return "stall"
	}
	return "End(" + strconv.Itoa(int(e)) + ")"
}

// IsJSON reports whether a body line is written as it is ("{…}", "[…]") rather
// than after "| ". Only the first byte is looked at: a line cut in half still
// starts like JSON.
func IsJSON(line []byte) bool {
	return len(line) > 0 && (line[0] == '{' || line[0] == '[')
}

// Valid reports whether every JSON-looking line of the exchange is complete, valid
// JSON, as the server sent it (a cut last line excepted).
func (e *Exchange) Valid() bool {
	for i, l := range e.Lines {
		if e.End == Cut && i == len(e.Lines)-1 {
			continue
		}
		if IsJSON(l) && !json.Valid(l) {
			return false
		}
	}
	return true
}
