package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/kubewire/kubewire/apiclient/clock"
)

// Status is the API's answer when something is not an object: the body of every
// error response, and of a watch ERROR event (meta.k8s.io/v1 Status).
type Status struct {
	Status  string         `json:"status,omitempty"` // "Success" or "Failure"
	Message string         `json:"message,omitempty"`
	Reason  string         `json:"reason,omitempty"` // NotFound, AlreadyExists, Conflict, Expired, …
	Details *StatusDetails `json:"details,omitempty"`
	Code    int            `json:"code,omitempty"`
}

// StatusDetails names the object a Status is about, and for Invalid, the fields.
type StatusDetails struct {
	Name              string        `json:"name,omitempty"`
	Group             string        `json:"group,omitempty"`
	Kind              string        `json:"kind,omitempty"`
	UID               string        `json:"uid,omitempty"`
	Causes            []StatusCause `json:"causes,omitempty"`
	RetryAfterSeconds int           `json:"retryAfterSeconds,omitempty"`
}

// StatusCause is one reason behind a failure, e.g. one invalid field.
type StatusCause struct {
	Type    string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	Field   string `json:"field,omitempty"`
}

// StatusError is the error for any non-2xx response and any watch ERROR event.
// When the body was not a Status (a proxy's HTML page, say), Status is made up from
// the HTTP code and Body holds the start of what came back.
type StatusError struct {
	Status Status
	// Verb and URL say which request failed ("GET", "/api/v1/namespaces/x/pods").
	Verb, URL string
	// Body is a trimmed, single-line copy of a body that was not a Status.
	Body string
}

func (e *StatusError) Error() string {
	var b strings.Builder
	if e.Verb != "" {
		fmt.Fprintf(&b, "%s %s: ", e.Verb, e.URL)
	}
	fmt.Fprintf(&b, "%d", e.Status.Code)
	if e.Status.Reason != "" {
		fmt.Fprintf(&b, " %s", e.Status.Reason)
	}
	switch {
	case e.Status.Message != "":
		// The server's words, on one line and at most maxMessage long: a
		// message is text from the network, as a body is (issue 16).
		fmt.Fprintf(&b, ": %s", oneLine(e.Status.Message, maxMessage, false))
	case e.Body != "":
		fmt.Fprintf(&b, ": response is not a Status: %s", e.Body)
	}
	return b.String()
}

// reasonForCode fills in a Reason when the server gave none, as client-go does.
var reasonForCode = map[int]string{
	http.StatusBadRequest:          "BadRequest",
	http.StatusUnauthorized:        "Unauthorized",
	http.StatusForbidden:           "Forbidden",
	http.StatusNotFound:            "NotFound",
	http.StatusMethodNotAllowed:    "MethodNotAllowed",
	http.StatusConflict:            "Conflict",
	http.StatusGone:                "Gone",
	http.StatusUnprocessableEntity: "Invalid",
	http.StatusTooManyRequests:     "TooManyRequests",
	http.StatusInternalServerError: "InternalError",
	http.StatusServiceUnavailable:  "ServiceUnavailable",
	http.StatusGatewayTimeout:      "Timeout",
}

// errorFromResponse builds the StatusError for a failed response body.
func errorFromResponse(verb, url string, code int, body []byte) *StatusError {
	e := &StatusError{Verb: verb, URL: url}
	var st Status
	if err := json.Unmarshal(body, &st); err == nil && (st.Status != "" || st.Reason != "" || st.Message != "") {
		e.Status = st
	} else {
		e.Body = trimBody(body)
	}
	if e.Status.Code == 0 {
		e.Status.Code = code
	}
	if e.Status.Reason == "" {
		e.Status.Reason = reasonForCode[code]
	}
	return e
}

// How much of what a server sent an error message shows: a body that is not a
// Status (an HTML page, say) is cut shorter than a Status message, which can
// list a validation failure per field.
const (
	maxBody    = 200
	maxMessage = 1000
)

// trimBody makes a body fit on one line of an error message: HTML tags and runs
// of white space fold away, and it stops after maxBody characters.
func trimBody(body []byte) string {
	if s := oneLine(string(body), maxBody, true); s != "" {
		return s
	}
	return "(empty body)"
}

// oneLine folds runs of white space and control characters into one space, drops
// HTML tags when html is set, and stops after max bytes with "…".
func oneLine(s string, max int, html bool) string {
	var b strings.Builder
	inTag, space := false, false
	for _, r := range s {
		switch {
		case html && r == '<':
			inTag = true
		case html && r == '>' && inTag:
			inTag, space = false, true
		case inTag:
		case unicode.IsSpace(r) || !unicode.IsPrint(r):
			space = true
		default:
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		}
		if b.Len() >= max {
			b.WriteString("…")
			break
		}
	}
	return b.String()
}

// ReasonOf returns the Status reason of err, or "" when err is not a StatusError.
func ReasonOf(err error) string {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status.Reason
	}
	return ""
}

// CodeOf returns the HTTP code of err, or 0 when err is not a StatusError.
func CodeOf(err error) int {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status.Code
	}
	return 0
}

// IsUnreachable: the request got no answer from the server — the connection was
// refused, reset, closed or timed out before a response came. Every other
// failure is not: a Status or a body that broke off (the server is there), or a
// failure on this side (credentials an exec plugin could not make, a
// certificate that does not verify). The Reflector retries sooner after the
// first kind (listwatch's Backoff).
func IsUnreachable(err error) bool {
	var na *noAnswerError
	return errors.As(err, &na)
}

// noAnswerError marks a transport failure of Client.do; its text is the failure's.
type noAnswerError struct{ err error }

func (e *noAnswerError) Error() string { return e.err.Error() }
func (e *noAnswerError) Unwrap() error { return e.err }

// The Is helpers answer the questions a controller asks of an error. Each looks at
// the reason first and falls back to the HTTP code, as the reasons are what the
// API promises.

// IsNotFound: the object (or the resource) does not exist.
func IsNotFound(err error) bool { return is(err, "NotFound", http.StatusNotFound) }

// IgnoreNotFound is err, or nil when err is a NotFound: for a Reconciler whose
// object is gone, or a delete of what is already gone.
func IgnoreNotFound(err error) error {
	if IsNotFound(err) {
		return nil
	}
	return err
}

// IsAlreadyExists: a create found the name taken.
func IsAlreadyExists(err error) bool { return ReasonOf(err) == "AlreadyExists" }

// IsConflict: the write was based on an old resourceVersion; read again and retry
// (see RetryOnConflict).
func IsConflict(err error) bool { return is(err, "Conflict", http.StatusConflict) }

// IsGone: 410, the resourceVersion asked for is older than the server keeps. A
// watch or continue token that gets it must start over with a fresh LIST.
func IsGone(err error) bool {
	r := ReasonOf(err)
	return r == "Gone" || r == "Expired" || CodeOf(err) == http.StatusGone
}

// IsExpired is IsGone; the API says "Expired" for a continue token and "Gone" (or
// "Expired") for a watch.
func IsExpired(err error) bool { return IsGone(err) }

// IsForbidden: authenticated, but RBAC says no.
func IsForbidden(err error) bool { return is(err, "Forbidden", http.StatusForbidden) }

// IsUnauthorized: the credentials were not accepted.
func IsUnauthorized(err error) bool { return is(err, "Unauthorized", http.StatusUnauthorized) }

// IsTooManyRequests: the server is throttling (429); the client already retried.
func IsTooManyRequests(err error) bool {
	return is(err, "TooManyRequests", http.StatusTooManyRequests)
}

// IsInvalid: the object failed validation (422); Status.Details.Causes lists fields.
func IsInvalid(err error) bool { return is(err, "Invalid", http.StatusUnprocessableEntity) }

func is(err error, reason string, code int) bool {
	r := ReasonOf(err)
	return r == reason || (CodeOf(err) == code && (r == "" || r == reasonForCode[code]))
}

// Backoff describes a series of waits: Initial, then each wait Factor times the
// last (up to Max, when set), each stretched by up to Jitter of itself, for at
// most Steps tries. It is the module's one Backoff, clock.Backoff.
type Backoff = clock.Backoff

// DefaultRetry is client-go's retry.DefaultRetry: five tries, 10 ms apart, with 10%
// jitter. Conflicts come from another writer that was a moment faster; a short,
// flat wait is enough for a fresh read to see its write.
var DefaultRetry = Backoff{Steps: 5, Initial: 10 * time.Millisecond, Factor: 1.0, Jitter: 0.1}

// RetryOnConflict runs fn until it returns an error that is not a Conflict (nil
// included), at most DefaultRetry.Steps times. fn must read the object afresh each
// time — retrying a write of the same stale object can never succeed:
//
//	err := apiclient.RetryOnConflict(ctx, func() error {
//		d, err := deployments.Get(ctx, "web")
//		if err != nil {
//			return err
//		}
//		// change d …
//		_, err = deployments.Update(ctx, d, apiclient.WriteOptions{})
//		return err
//	})
func RetryOnConflict(ctx context.Context, fn func() error) error {
	return Retry(ctx, DefaultRetry, RealClock{}, IsConflict, fn)
}

// Retry runs fn while retriable(err) holds, waiting as b says between tries, at most
// b.Steps times in all; it returns fn's last error (or ctx's, if ctx ends first).
func Retry(ctx context.Context, b Backoff, clock Clock, retriable func(error) bool, fn func() error) error {
	for step := 1; ; step++ {
		err := fn()
		if err == nil || !retriable(err) || step >= b.Steps {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-clock.After(b.Wait(step-1, rand.Float64())):
		}
	}
}
