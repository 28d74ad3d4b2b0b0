package webhook_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kubewire/kubewire/controller/webhook"
)

// Whatever the body, a review's answer is a 200 carrying a review with the
// request's uid, or a 4xx; never a panic. (The seeds are in
// testdata/fuzz/FuzzConversionReview: a good review, a failing one, and
// broken ones.)
func FuzzConversionReview(f *testing.F) {
	s := converter(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, convertPath, bytes.NewReader(body)))
		checkAnswer(t, w, body, func(out []byte) (string, bool) {
			var review webhook.ConversionReview
			if err := json.Unmarshal(out, &review); err != nil || review.Response == nil {
				return "", false
			}
			if review.Response.Result.Status == "Success" {
				var in webhook.ConversionReview
				json.Unmarshal(body, &in)
				if len(review.Response.ConvertedObjects) != len(in.Request.Objects) {
					t.Fatalf("success with %d objects of %d", len(review.Response.ConvertedObjects), len(in.Request.Objects))
				}
			}
			return review.Response.UID, true
		})
	})
}

// The same for admission, through a validator and a defaulter.
func FuzzAdmissionReview(f *testing.F) {
	s := webhook.NewServer(nil, webhook.Options{})
	webhook.Default(s, webhook.Hook{}, defaultSite)
	f.Fuzz(func(t *testing.T, body []byte) {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/default/webhook-test.kubewire.io/v1/sites", bytes.NewReader(body)))
		checkAnswer(t, w, body, func(out []byte) (string, bool) {
			var review webhook.AdmissionReview
			if err := json.Unmarshal(out, &review); err != nil || review.Response == nil {
				return "", false
			}
			return review.Response.UID, true
		})
	})
}

// checkAnswer holds w to the rule of FuzzConversionReview's comment; uid
// reads the answer's uid, ok false when it is not a review.
func checkAnswer(t *testing.T, w *httptest.ResponseRecorder, body []byte, uid func([]byte) (string, bool)) {
	t.Helper()
	switch {
	case w.Code == http.StatusOK:
		got, ok := uid(w.Body.Bytes())
		var in struct {
			Request struct {
				UID string `json:"uid"`
			} `json:"request"`
		}
		json.Unmarshal(body, &in)
		if !ok || got != in.Request.UID {
			t.Fatalf("200 without a review of uid %q: %s", in.Request.UID, w.Body)
		}
	case w.Code >= 400 && w.Code < 500:
	default:
		t.Fatalf("answered %d: %s", w.Code, w.Body)
	}
}
