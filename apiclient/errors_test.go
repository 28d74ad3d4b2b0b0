package apiclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

// statusBody is a Status as the API server writes it.
func statusBody(code int, reason, message string) string {
	return fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%q,"reason":%q,"details":{"name":"web-1","kind":"pods"},"code":%d}`, message, reason, code)
}

func TestStatusErrors_answer_the_Is_helpers(t *testing.T) {
	is := map[string]func(error) bool{
		"NotFound": apiclient.IsNotFound, "AlreadyExists": apiclient.IsAlreadyExists,
		"Conflict": apiclient.IsConflict, "Gone": apiclient.IsGone, "Expired": apiclient.IsExpired,
		"Forbidden": apiclient.IsForbidden, "Unauthorized": apiclient.IsUnauthorized,
		"TooManyRequests": apiclient.IsTooManyRequests, "Invalid": apiclient.IsInvalid,
	}
	tests := []struct {
		code   int
		reason string
		want   []string // the helpers that must say yes
	}{
		{404, "NotFound", []string{"NotFound"}},
		{409, "AlreadyExists", []string{"AlreadyExists"}},
		{409, "Conflict", []string{"Conflict"}},
		{410, "Expired", []string{"Gone", "Expired"}},
		{410, "Gone", []string{"Gone", "Expired"}},
		{403, "Forbidden", []string{"Forbidden"}},
		{401, "Unauthorized", []string{"Unauthorized"}},
		{429, "TooManyRequests", []string{"TooManyRequests"}},
		{422, "Invalid", []string{"Invalid"}},
		{500, "InternalError", nil},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, tt.code, statusBody(tt.code, tt.reason, "it failed"))
			})
			_, err := c.Resource(apiclient.Pods).Namespace("default").Get(context.Background(), "web-1")
			var se *apiclient.StatusError
			if !errors.As(err, &se) || se.Status.Code != tt.code || se.Status.Reason != tt.reason || se.Status.Details.Name != "web-1" {
				t.Fatalf("err = %#v", err)
			}
			for name, f := range is {
				want := false
				for _, w := range tt.want {
					want = want || w == name
				}
				if got := f(err); got != want {
					t.Errorf("Is%s(%d %s) = %v, want %v", name, tt.code, tt.reason, got, want)
				}
				if f(fmt.Errorf("wrapped: %w", err)) != want {
					t.Errorf("Is%s does not see through wrapping", name)
				}
			}
		})
	}
}

func TestStatusError_message_names_request_code_and_reason(t *testing.T) {
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 404, statusBody(404, "NotFound", `pods "web-1" not found`))
	})
	_, err := c.Resource(apiclient.Pods).Namespace("default").Get(context.Background(), "web-1")
	msg := err.Error()
	for _, want := range []string{"GET https://127.0.0.1:", "/api/v1/namespaces/default/pods/web-1", "404 NotFound", `pods "web-1" not found`} {
		if !strings.Contains(msg, want) {
			t.Fatalf("error %q does not contain %q", msg, want)
		}
	}
}

func TestStatusError_from_an_HTML_page_keeps_the_code_and_one_trimmed_line(t *testing.T) {
	page := "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n" + strings.Repeat("x", 1000)
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(502)
		_, _ = w.Write([]byte(page))
	})
	_, err := c.Resource(apiclient.Pods).Namespace("default").Get(context.Background(), "web-1")
	if got, want := apiclient.CodeOf(err), 502; got != want {
		t.Fatalf("code = %d, want %d", got, want)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || strings.Contains(msg, "<") || len(msg) > 400 {
		t.Fatalf("error is not one trimmed line: %q", msg)
	}
	if !strings.Contains(msg, "response is not a Status: 502 Bad Gateway 502 Bad Gateway nginx") {
		t.Fatalf("error %q does not show the page's text", msg)
	}
}

func TestStatusError_without_reason_gets_one_from_the_code(t *testing.T) {
	err := apiclient.ErrorFromResponse(404, []byte("404 page not found"))
	if !apiclient.IsNotFound(err) || apiclient.ReasonOf(err) != "NotFound" {
		t.Fatalf("err = %v", err)
	}
	if apiclient.IsNotFound(errors.New("plain")) || apiclient.CodeOf(nil) != 0 {
		t.Fatal("plain errors are not Status errors")
	}
}
