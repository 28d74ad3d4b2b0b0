package apitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/kubewire/kubewire/apiclient"
)

// statusError is a failure the server answers with a Status: its code, its
// reason (when not the code's usual one: a taken name is 409 AlreadyExists,
// not 409 Conflict, and clients tell the two apart) and its details.
type statusError struct {
	code    int
	reason  string
	error   // the message
	details *apiclient.StatusDetails
}

// fail makes a statusError of code with the code's usual reason.
func fail(code int, format string, args ...any) statusError {
	return statusError{code: code, reason: reasonFor(code), error: fmt.Errorf(format, args...)}
}

// invalid is a 422 Invalid naming the field at fault, as kube-apiserver's
// validation answers.
func invalid(kind, name, field, causeType, format string, args ...any) statusError {
	msg := fmt.Sprintf(format, args...)
	return statusError{code: http.StatusUnprocessableEntity, reason: "Invalid",
		error:   fmt.Errorf("%s %q is invalid: %s: %s", kind, name, field, msg),
		details: &apiclient.StatusDetails{Name: name, Kind: kind, Causes: []apiclient.StatusCause{{Type: causeType, Message: msg, Field: field}}}}
}

func reasonFor(code int) string {
	return map[int]string{400: "BadRequest", 404: "NotFound", 405: "MethodNotAllowed", 409: "Conflict", 410: "Expired", 415: "UnsupportedMediaType", 422: "Invalid", 504: "Timeout"}[code]
}

// writeStatus answers with a meta.k8s.io/v1 Status, the way the API server reports
// every failure.
func writeStatus(w http.ResponseWriter, code int, reason, format string, args ...any) {
	writeError(w, statusError{code: code, reason: reason, error: fmt.Errorf(format, args...)})
}

// writeError answers err as a Status; an error that is no statusError is a 500.
func writeError(w http.ResponseWriter, err error) {
	body, code := statusOf(err), http.StatusInternalServerError
	if se, ok := err.(statusError); ok {
		code = se.code
	}
	if se, ok := err.(statusError); ok && se.details != nil && se.details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(se.details.RetryAfterSeconds))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(body, '\n'))
}

// statusOf is err as the Status kube-apiserver answers.
func statusOf(err error) []byte {
	se, ok := err.(statusError)
	if !ok {
		se = statusError{code: http.StatusInternalServerError, reason: "InternalError", error: err}
	}
	st := apiclient.Status{Status: "Failure", Message: se.Error(), Reason: se.reason, Code: se.code, Details: se.details}
	if st.Details == nil {
		st.Details = &apiclient.StatusDetails{}
	}
	body, _ := json.Marshal(struct {
		Kind       string   `json:"kind"`
		APIVersion string   `json:"apiVersion"`
		Metadata   struct{} `json:"metadata"`
		apiclient.Status
	}{Kind: "Status", APIVersion: "v1", Status: st})
	return body
}

// success is the Status a DELETE answers when the object is gone at once
// (for all but Pods, which answer the object).
func success(t target, name, uid string) []byte {
	details := map[string]any{"name": name, "kind": t.resource, "uid": uid}
	if t.group != "" {
		details["group"] = t.group
	}
	return marshal(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{}, "status": "Success", "details": details})
}
