package apiclient_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
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

// IsUnreachable tells a request that got no answer (the Reflector asks again
// within two seconds) from everything else: an answer, however bad, and a failure
// on this side, such as an exec plugin that could not make credentials (asked
// again every second or two, it would run the plugin as often).
func TestIsUnreachable_only_when_no_answer_came(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String()
	l.Close()
	answers, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 503, `{"kind":"Status","code":503}`) })
	failing := roundTripFunc(func(*http.Request) (*http.Response, error) {
		return nil, errors.New(`getting credentials: plugin "aws" failed (exit status 1)`)
	})
	for _, tt := range []struct {
		name   string
		client *apiclient.Client
		want   bool
	}{
		{"connection refused", clientFor(t, refused, nil), true},
		{"a 503", answers, false},
		{"an exec plugin that failed", clientFor(t, "https://127.0.0.1:1", failing), false},
	} {
		_, err := tt.client.Resource(apiclient.Pods).Namespace("default").Get(context.Background(), "x")
		if err == nil || apiclient.IsUnreachable(err) != tt.want {
			t.Errorf("%s: IsUnreachable(%v) is %v, want %v", tt.name, err, !tt.want, tt.want)
		}
	}
}

func clientFor(t *testing.T, url string, rt http.RoundTripper) *apiclient.Client {
	t.Helper()
	c, err := apiclient.New(&kubeconfig.Config{Server: url, Source: "test"}, apiclient.Options{Transport: rt})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
