package webhook

import (
	"encoding/json"

	"github.com/kubewire/kubewire/apiclient"
)

// The wire types of the two reviews the API server sends: what
// admission.k8s.io/v1 and apiextensions.k8s.io/v1 define, the fields a
// webhook reads and writes.

// AdmissionReview is an admission.k8s.io/v1 AdmissionReview: the API server
// sends Request, the webhook answers Response in a review of the same
// apiVersion and kind.
type AdmissionReview struct {
	apiclient.TypeMeta
	Request  *AdmissionRequest  `json:"request,omitempty"`
	Response *AdmissionResponse `json:"response,omitempty"`
}

// AdmissionRequest is one object's write, as the API server asks about it.
type AdmissionRequest struct {
	// UID identifies this review; the response must carry it back.
	UID string `json:"uid"`
	// Kind and Resource are the object's, in the version the webhook asked
	// for (its rule's); RequestKind and RequestResource the version the
	// client wrote, which differ when the server converted it.
	Kind            GroupVersionKind      `json:"kind"`
	Resource        GroupVersionResource  `json:"resource"`
	SubResource     string                `json:"subResource,omitempty"`
	RequestKind     *GroupVersionKind     `json:"requestKind,omitempty"`
	RequestResource *GroupVersionResource `json:"requestResource,omitempty"`
	Name            string                `json:"name,omitempty"`
	Namespace       string                `json:"namespace,omitempty"`
	Operation       Operation             `json:"operation"`
	UserInfo        UserInfo              `json:"userInfo"`
	// Object is the object after the write (null on DELETE); OldObject the
	// one stored before it (null on CREATE).
	Object    json.RawMessage `json:"object,omitempty"`
	OldObject json.RawMessage `json:"oldObject,omitempty"`
	DryRun    *bool           `json:"dryRun,omitempty"`
	// Options are the write's options: CreateOptions, UpdateOptions,
	// DeleteOptions.
	Options json.RawMessage `json:"options,omitempty"`
}

// AdmissionResponse is the webhook's answer.
type AdmissionResponse struct {
	UID     string `json:"uid"`
	Allowed bool   `json:"allowed"`
	// Result says why a request is refused: its message and code are what
	// the client that wrote the object reads. (Its JSON name is "status",
	// as admission/v1 spells it.)
	Result *apiclient.Status `json:"status,omitempty"`
	// Patch is an RFC 6902 JSON patch to the object (a mutating webhook's),
	// PatchType "JSONPatch" beside it.
	Patch            []byte            `json:"patch,omitempty"`
	PatchType        string            `json:"patchType,omitempty"`
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty"`
	// Warnings reach the client as Warning headers (kubectl prints them).
	Warnings []string `json:"warnings,omitempty"`
}

// Operation is what the write does.
type Operation string

// The operations a webhook's rule may name.
const (
	Create  Operation = "CREATE"
	Update  Operation = "UPDATE"
	Delete  Operation = "DELETE"
	Connect Operation = "CONNECT"
)

// GroupVersionKind names a kind in a version.
type GroupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// GroupVersionResource names a resource in a version.
type GroupVersionResource struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
}

// UserInfo is who made the request.
type UserInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

// ConversionReview is an apiextensions.k8s.io/v1 ConversionReview: objects
// of one custom resource to convert to DesiredAPIVersion.
type ConversionReview struct {
	apiclient.TypeMeta
	Request  *ConversionRequest  `json:"request,omitempty"`
	Response *ConversionResponse `json:"response,omitempty"`
}

// ConversionRequest asks for objects in another version.
type ConversionRequest struct {
	UID               string            `json:"uid"`
	DesiredAPIVersion string            `json:"desiredAPIVersion"`
	Objects           []json.RawMessage `json:"objects"`
}

// ConversionResponse carries the objects converted, in the order asked, or
// a Result whose Status is "Failure" and whose message says why.
type ConversionResponse struct {
	UID              string            `json:"uid"`
	ConvertedObjects []json.RawMessage `json:"convertedObjects"`
	Result           apiclient.Status  `json:"result"`
}
