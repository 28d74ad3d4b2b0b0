package apitest

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
)

// checkParams refuses a request whose query kube-apiserver refuses before it
// reaches an object — with its codes, error types and causes:
//
//	dryRun other than All                     422 {Create,Update,Patch,Delete}Options dryRun NotSupported
//	fieldValidation other than the three      422 …Options fieldValidation NotSupported
//	fieldManager over 128 bytes               422 …Options fieldManager TooLong
//	an apply without fieldManager             422 PatchOptions fieldManager Required
//	force on a patch that is not an apply     422 PatchOptions force Forbidden
//	limit, resourceVersion, timeoutSeconds    400 when not numbers
//	resourceVersionMatch without a version    422 ListOptions resourceVersionMatch Forbidden
//	resourceVersionMatch other than the two   422 ListOptions resourceVersionMatch NotSupported
//	resourceVersionMatch on a plain watch     422 ListOptions resourceVersionMatch Forbidden
//	sendInitialEvents on a LIST               422 ListOptions sendInitialEvents Forbidden
//
// A DELETE's dryRun in its body is checked by the DELETE (live.go).
func checkParams(r *http.Request, t target, q url.Values) error {
	opts := map[string]string{http.MethodPost: "CreateOptions", http.MethodPut: "UpdateOptions", http.MethodPatch: "PatchOptions", http.MethodDelete: "DeleteOptions"}[r.Method]
	if opts != "" {
		if err := checkDryRun(opts, q["dryRun"]); err != nil {
			return err
		}
	}
	if opts != "" && opts != "DeleteOptions" {
		if v := q.Get("fieldValidation"); v != "" && v != "Ignore" && v != "Warn" && v != "Strict" {
			return optionsInvalid(opts, "fieldValidation", "FieldValueNotSupported", `Unsupported value: %q: supported values: "", "Ignore", "Strict", "Warn"`, v)
		}
		manager := q.Get("fieldManager")
		apply := r.Method == http.MethodPatch && strings.HasPrefix(r.Header.Get("Content-Type"), "application/apply-patch")
		switch {
		case len(manager) > 128:
			return optionsInvalid(opts, "fieldManager", "FieldValueTooLong", "Too long: may not be more than 128 bytes")
		case apply && manager == "":
			return optionsInvalid(opts, "fieldManager", "FieldValueRequired", "Required value: is required for apply patch")
		case r.Method == http.MethodPatch && !apply && q.Has("force") && !(strings.HasPrefix(r.Header.Get("Content-Type"), "application/strategic-merge-patch") && !isBuiltinGroup(t.group)):
			// (A strategic merge patch of a custom resource is 415 first.)
			return optionsInvalid(opts, "force", "FieldValueForbidden", "Forbidden: may not be specified for non-apply patch")
		}
	}
	if r.Method != http.MethodGet {
		return nil
	}
	for _, p := range []string{"limit", "timeoutSeconds"} {
		if v := q.Get(p); v != "" {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				return fail(http.StatusBadRequest, "%v", err)
			}
		}
	}
	if v := q.Get("resourceVersion"); v != "" {
		if _, err := strconv.ParseUint(v, 10, 64); err != nil {
			return fail(http.StatusBadRequest, "invalid resource version: resourceVersion: Invalid value: %q: %v", v, err)
		}
	}
	if t.name != "" {
		return nil
	}
	watch := q.Get("watch") == "true" || q.Get("watch") == "1"
	match := q.Get("resourceVersionMatch")
	switch {
	case match != "" && match != "Exact" && match != "NotOlderThan":
		return optionsInvalid("ListOptions", "resourceVersionMatch", "FieldValueNotSupported", `Unsupported value: %q: supported values: "Exact", "NotOlderThan", ""`, match)
	case match != "" && watch && !q.Has("sendInitialEvents"):
		return optionsInvalid("ListOptions", "resourceVersionMatch", "FieldValueForbidden", "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
	case match != "" && !watch && q.Get("resourceVersion") == "":
		return optionsInvalid("ListOptions", "resourceVersionMatch", "FieldValueForbidden", "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided")
	case !watch && q.Has("sendInitialEvents"):
		return optionsInvalid("ListOptions", "sendInitialEvents", "FieldValueForbidden", "Forbidden: sendInitialEvents is forbidden for list")
	}
	return nil
}

// checkDryRun refuses a dryRun other than All.
func checkDryRun(opts string, dry []string) error {
	for _, d := range dry {
		if d != "All" {
			quoted := make([]string, len(dry))
			for i, x := range dry {
				quoted[i] = strconv.Quote(x)
			}
			return optionsInvalid(opts, "dryRun", "FieldValueNotSupported", `Unsupported value: [%s]: supported values: "All"`, strings.Join(quoted, ","))
		}
	}
	return nil
}

// optionsInvalid is the 422 of a request's options (meta.k8s.io's
// ListOptions, CreateOptions, …) that fail validation.
func optionsInvalid(kind, field, causeType, format string, args ...any) statusError {
	msg := fmt.Sprintf(format, args...)
	return statusError{code: http.StatusUnprocessableEntity, reason: "Invalid",
		error:   fmt.Errorf("%s.meta.k8s.io %q is invalid: %s: %s", kind, "", field, msg),
		details: &apiclient.StatusDetails{Group: "meta.k8s.io", Kind: kind, Causes: []apiclient.StatusCause{{Type: causeType, Message: msg, Field: field}}}}
}

// tooLarge is the 504 of a read at a version the server has not reached: the
// real server waits for it a few seconds first (Divergences, 5), then answers
// this, with a Retry-After of a second.
func tooLarge(want, have int64) statusError {
	return statusError{code: http.StatusGatewayTimeout, reason: "Timeout",
		error: fmt.Errorf("Timeout: Too large resource version: %d, current: %d", want, have),
		details: &apiclient.StatusDetails{RetryAfterSeconds: 1,
			Causes: []apiclient.StatusCause{{Type: "ResourceVersionTooLarge", Message: "Too large resource version"}}}}
}
