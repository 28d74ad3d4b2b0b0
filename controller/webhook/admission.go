package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/builtin"
)

// Review is one admission request, the object decoded into the user's Go
// type T. A Validator reads it; a Defaulter changes Object in place.
type Review[T any] struct {
	// Operation is CREATE, UPDATE or DELETE (CONNECT, where a rule asks).
	Operation Operation
	// Object is the object as it will be stored: nil on DELETE. OldObject is
	// the one stored before: nil on CREATE.
	Object, OldObject *T
	// Request is the whole request: who asks (UserInfo), dryRun, the
	// subresource, the raw JSON.
	Request *AdmissionRequest

	warnings []string
}

// Warn adds a warning to the answer: the client that wrote the object sees
// it (kubectl prints "Warning: …", apiclient hands it to OnWarning), and the
// write goes on unless the hook also refuses it.
func (r *Review[T]) Warn(format string, args ...any) {
	r.warnings = append(r.warnings, fmt.Sprintf(format, args...))
}

// Validator decides whether a write is allowed: nil allows it, an error
// refuses it with the error's message, code 403 Forbidden unless the error
// is a Refusal that says another (Refuse).
type Validator[T any] func(ctx context.Context, r *Review[T]) error

// Defaulter sets what the object lacks, by changing r.Object; the webhook
// answers with a JSON patch of what changed. An error refuses the write, as
// a Validator's does.
type Defaulter[T any] func(ctx context.Context, r *Review[T]) error

// Refusal is an error that refuses a write with its own HTTP code and
// reason: what the writer's client sees, as a Status.
type Refusal struct {
	Code    int    // 400 to 599; 403 when 0
	Reason  string // a StatusReason: "Forbidden", "Invalid", …; from Code when ""
	Message string
}

func (e *Refusal) Error() string { return e.Message }

// Refuse is a Refusal with code and a message from format.
func Refuse(code int, format string, args ...any) error {
	return &Refusal{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Hook says which writes the API server sends to a webhook, and what it does
// when the webhook cannot answer. The zero value is CREATE and UPDATE of the
// type's resource in every namespace, failurePolicy Fail, 10 seconds.
type Hook struct {
	// Name is the webhook's name in its configuration, a qualified name
	// (at least three segments): "validate.sites.demo.example.com" when "".
	Name string
	// Operations are the operations sent; CREATE and UPDATE when empty.
	Operations []Operation
	// FailurePolicy is what the server does when the webhook cannot be
	// reached or answers nonsense: Fail refuses the write (the default),
	// Ignore admits it.
	FailurePolicy FailurePolicy
	// TimeoutSeconds is how long the server waits for the answer, 1 to 30;
	// 10 when 0. The webhook itself gives up at this bound as well.
	TimeoutSeconds int32
	// NamespaceSelector and ObjectSelector narrow what is sent to objects
	// in namespaces carrying, and objects carrying, the labels selected.
	NamespaceSelector, ObjectSelector *builtin.LabelSelector
}

// FailurePolicy is a webhook's failurePolicy.
type FailurePolicy string

// The two failure policies.
const (
	Fail   FailurePolicy = "Fail"
	Ignore FailurePolicy = "Ignore"
)

// admission is one registered admission webhook, with T erased.
type admission struct {
	res      apiclient.Resource
	mutating bool
	hook     Hook
	path     string
	// review answers one request; the Server has bounded it and recovers
	// its panics.
	review func(ctx context.Context, req *AdmissionRequest) *AdmissionResponse
}

// Validate registers fn as the validating webhook of T's resource, and
// hook as its configuration: the Server serves it at
// /validate/GROUP/VERSION/PLURAL and its ValidatingWebhookConfiguration
// sends it the writes hook names.
func Validate[T any, PT interface {
	*T
	apiclient.TypedObject
}](s *Server, hook Hook, fn Validator[T]) {
	s.addAdmission(newAdmission[T, PT](false, hook, func(ctx context.Context, r *Review[T]) (*AdmissionResponse, error) {
		return nil, fn(ctx, r)
	}))
}

// Default registers fn as the mutating webhook of T's resource, served at
// /default/GROUP/VERSION/PLURAL: the answer patches what fn changed of
// Object (on CREATE and UPDATE; there is nothing to change on DELETE).
func Default[T any, PT interface {
	*T
	apiclient.TypedObject
}](s *Server, hook Hook, fn Defaulter[T]) {
	s.addAdmission(newAdmission[T, PT](true, hook, func(ctx context.Context, r *Review[T]) (*AdmissionResponse, error) {
		if r.Object == nil {
			return nil, fn(ctx, r)
		}
		before, err := json.Marshal(r.Object)
		if err != nil {
			return nil, err
		}
		if err := fn(ctx, r); err != nil {
			return nil, err
		}
		after, err := json.Marshal(r.Object)
		if err != nil {
			return nil, err
		}
		patch, err := jsonPatch(r.Request.Object, before, after)
		if err != nil || patch == nil {
			return nil, err
		}
		return &AdmissionResponse{Patch: patch, PatchType: "JSONPatch"}, nil
	}))
}

// newAdmission builds the webhook of T: decode, call, answer.
func newAdmission[T any, PT interface {
	*T
	apiclient.TypedObject
}](mutating bool, hook Hook, call func(context.Context, *Review[T]) (*AdmissionResponse, error)) admission {
	res := PT(new(T)).Resource()
	verb := "validate"
	if mutating {
		verb = "default"
	}
	if hook.Name == "" {
		hook.Name = verb + "." + res.Name + "." + res.Group
	}
	if len(hook.Operations) == 0 {
		hook.Operations = []Operation{Create, Update}
	}
	if hook.FailurePolicy == "" {
		hook.FailurePolicy = Fail
	}
	if hook.TimeoutSeconds == 0 {
		hook.TimeoutSeconds = 10
	}
	path := "/" + verb + "/" + res.Group + "/" + res.Version + "/" + res.Name
	if res.Group == "" {
		path = "/" + verb + "/core/" + res.Version + "/" + res.Name
	}
	return admission{res: res, mutating: mutating, hook: hook, path: path,
		review: func(ctx context.Context, req *AdmissionRequest) *AdmissionResponse {
			r := &Review[T]{Operation: req.Operation, Request: req}
			var err error
			if r.Object, err = decodeAs[T](req.Object); err != nil {
				return refused(http.StatusBadRequest, "BadRequest", fmt.Sprintf("the object does not decode as %s: %v", res.Kind, err))
			}
			if r.OldObject, err = decodeAs[T](req.OldObject); err != nil {
				return refused(http.StatusBadRequest, "BadRequest", fmt.Sprintf("the old object does not decode as %s: %v", res.Kind, err))
			}
			resp, err := call(ctx, r)
			if resp == nil {
				resp = &AdmissionResponse{}
			}
			if err != nil {
				resp = refusedBy(err)
			} else {
				resp.Allowed = true
			}
			resp.Warnings = r.warnings
			return resp
		}}
}

// decodeAs decodes an object of the review: nil for null or nothing. It
// decodes as the typed client does (apiclient.Unmarshal): integers exact,
// keys matched exactly.
func decodeAs[T any](data json.RawMessage) (*T, error) {
	if len(data) == 0 || string(data) == "null" {
		return nil, nil
	}
	v := new(T)
	if err := apiclient.Unmarshal(data, v); err != nil {
		return nil, err
	}
	return v, nil
}

// refusedBy is the answer to a hook's error.
func refusedBy(err error) *AdmissionResponse {
	var r *Refusal
	if errors.As(err, &r) {
		code := r.Code
		if code < 400 || code > 599 {
			code = http.StatusForbidden
		}
		reason := r.Reason
		if reason == "" {
			reason = reasonFor(code)
		}
		return refused(code, reason, r.Message)
	}
	return refused(http.StatusForbidden, "Forbidden", err.Error())
}

// refused is an answer that refuses the write.
func refused(code int, reason, message string) *AdmissionResponse {
	return &AdmissionResponse{Result: &apiclient.Status{Status: "Failure", Code: code, Reason: reason, Message: message}}
}

// reasonFor is the StatusReason the API uses for code.
func reasonFor(code int) string {
	switch code {
	case http.StatusBadRequest:
		return "BadRequest"
	case http.StatusUnauthorized:
		return "Unauthorized"
	case http.StatusForbidden:
		return "Forbidden"
	case http.StatusNotFound:
		return "NotFound"
	case http.StatusConflict:
		return "Conflict"
	case http.StatusUnprocessableEntity:
		return "Invalid"
	case http.StatusTooManyRequests:
		return "TooManyRequests"
	case http.StatusGatewayTimeout:
		return "Timeout"
	}
	return "InternalError"
}
