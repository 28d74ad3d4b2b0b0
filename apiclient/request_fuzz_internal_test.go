package apiclient

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzRetryAfter: whatever Retry-After header a 429 or 5xx carries, the wait it asks
// for is never negative nor over maxRetryAfter, and a whole number of seconds is
// honoured exactly up to that cap.
//
//	go test ./apiclient -run '^$' -fuzz '^FuzzRetryAfter$' -fuzztime 1000000x
func FuzzRetryAfter(f *testing.F) {
	for _, h := range []string{"1", "0", "120", "-1", "", " 1", "1.5", "Wed, 21 Oct 2026 07:28:00 GMT", "9223372036", "9223372037", "99999999999999999999", "+3"} {
		f.Add(429, h)
		f.Add(503, h)
	}
	f.Add(404, "1")
	f.Fuzz(func(t *testing.T, code int, h string) {
		resp := &http.Response{StatusCode: code, Header: http.Header{}}
		if h != "" {
			resp.Header.Set("Retry-After", h)
		}
		wait, retry := retryAfter(resp)
		if !retry {
			return
		}
		if code != http.StatusTooManyRequests && code < 500 {
			t.Fatalf("code %d is retried", code)
		}
		if wait < 0 || wait > maxRetryAfter {
			t.Fatalf("Retry-After %q: wait %v", h, wait)
		}
		if secs, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && secs < 1e6 && wait != min(time.Duration(secs)*time.Second, maxRetryAfter) {
			t.Fatalf("Retry-After %q: wait %v", h, wait)
		}
	})
}
