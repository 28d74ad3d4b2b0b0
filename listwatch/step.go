package listwatch

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// Op names what a Reflector just did. Every Op has a Step, and every Step one line
// of text, so that a trace (kubewire --trace) and a golden file read the same.
type Op string

// The Ops, in the order a reflector usually goes through them.
const (
	OpSplit    Op = "SPLIT"    // a large LIST is read as several requests at one resourceVersion
	OpList     Op = "LIST"     // a LIST request (one per page) is sent
	OpItem     Op = "ITEM"     // one object of a LIST or of a streaming list's initial events
	OpListed   Op = "LISTED"   // the list is complete; the Sink is replaced with it next
	OpWatch    Op = "WATCH"    // a watch request is sent
	OpAdd      Op = "ADD"      // a watch event, handed to the Sink next: Add (ERROR if it refuses)
	OpUpdate   Op = "UPDATE"   // … Update
	OpDelete   Op = "DELETE"   // … Delete
	OpBookmark Op = "BOOKMARK" // a bookmark: a newer resourceVersion, nothing else
	OpSkip     Op = "SKIP"     // an event of a type this reflector does not know, skipped
	OpClosed   Op = "CLOSED"   // the server ended the watch normally (its timeout passed)
	OpError    Op = "ERROR"    // a request or a stream failed; Next says what follows
	OpIdle     Op = "IDLE"     // the watch sent nothing for too long and was dropped
	OpFallback Op = "FALLBACK" // the streaming list did not work: a LIST instead
	OpBackoff  Op = "BACKOFF"  // waiting before trying again
)

// Step is one thing a Reflector did, handed to Options.OnStep. Only the fields that
// make sense for its Op are set. A Step is a plain value: keep it, copy it, print it.
type Step struct {
	Op              Op
	Key             string        // ITEM, ADD, UPDATE, DELETE: the object's "namespace/name"
	ResourceVersion string        // where a request starts, or the version of what arrived
	Page            int           // LIST: 1 for the first page
	Limit           int64         // LIST: the page size asked for (0: everything at once)
	Items           int           // LISTED: objects listed; CLOSED: events the watch delivered
	Parts           int           // SPLIT: how many requests
	By              string        // SPLIT: how the list is cut: "uid hash", "namespace"
	Initial         bool          // WATCH: a streaming list; BOOKMARK: the initial-events-end one
	Timeout         time.Duration // WATCH: the server's timeout; IDLE: how long nothing came
	Wait            time.Duration // BACKOFF
	Err             error         // ERROR, FALLBACK, SKIP
	Next            string        // ERROR: what the reflector does next ("relist", "back off", …)
}

// String is the step as one line, the op padded to six columns:
//
//	LIST   rv=0 limit=500
//	ITEM   default/web-1 rv=1101
//	LISTED rv=1200 items=3
//	WATCH  rv=1200 timeout=7m3s
//	UPDATE default/web-1 rv=1201
//	ERROR  410 Expired: too old resource version: 1200 (1300) → relist
//	BACKOFF 1.394s
//	SPLIT  rv=1200 into 4 parts by uid hash
func (s Step) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-6s", s.Op)
	switch s.Op {
	case OpSplit:
		fmt.Fprintf(&b, " rv=%s into %d parts by %s", s.ResourceVersion, s.Parts, s.By)
	case OpList:
		if s.Page > 1 {
			fmt.Fprintf(&b, " page=%d", s.Page)
		} else {
			fmt.Fprintf(&b, " rv=%s", quoteEmpty(s.ResourceVersion))
		}
		if s.Limit > 0 {
			fmt.Fprintf(&b, " limit=%d", s.Limit)
		}
	case OpItem, OpAdd, OpUpdate, OpDelete:
		fmt.Fprintf(&b, " %s rv=%s", s.Key, s.ResourceVersion)
	case OpListed:
		fmt.Fprintf(&b, " rv=%s items=%d", s.ResourceVersion, s.Items)
	case OpWatch:
		fmt.Fprintf(&b, " rv=%s timeout=%s", quoteEmpty(s.ResourceVersion), s.Timeout)
		if s.Initial {
			b.WriteString(" sendInitialEvents")
		}
	case OpBookmark:
		fmt.Fprintf(&b, " rv=%s", s.ResourceVersion)
		if s.Initial {
			b.WriteString(" initial-events-end")
		}
	case OpClosed:
		fmt.Fprintf(&b, " rv=%s events=%d", s.ResourceVersion, s.Items)
	case OpError:
		if s.Key != "" {
			fmt.Fprintf(&b, " %s:", s.Key)
		}
		fmt.Fprintf(&b, " %s → %s", describe(s.Err), s.Next)
	case OpIdle:
		fmt.Fprintf(&b, " nothing for %s: connection presumed dead", s.Timeout)
	case OpFallback:
		fmt.Fprintf(&b, " streaming list failed (%s) → LIST", describe(s.Err))
	case OpBackoff:
		fmt.Fprintf(&b, " %s", s.Wait.Round(time.Millisecond))
	case OpSkip:
		fmt.Fprintf(&b, " %s", describe(s.Err))
	}
	return b.String()
}

// quoteEmpty shows an empty resourceVersion (the latest, read from etcd) as "".
func quoteEmpty(rv string) string {
	if rv == "" {
		return `""`
	}
	return rv
}

// describe is an error in a few words for a step line. A Status error loses its
// request URL, which names a host and port: the line must not change from one test
// server to the next, and the request is in the lines before it anyway.
func describe(err error) string {
	var se *apiclient.StatusError
	if errors.As(err, &se) {
		s := fmt.Sprintf("%d %s", se.Status.Code, se.Status.Reason)
		if se.Status.Message != "" {
			s += ": " + se.Status.Message
		}
		return s
	}
	if err == nil {
		return "no error"
	}
	return err.Error()
}
