package apiclient

import (
	"encoding/json"
	"fmt"
	"time"
)

// Object is one Kubernetes object of any resource — a Pod, a Deployment, a custom
// resource — with no generated type behind it.
//
// What every object shares is typed: TypeMeta (apiVersion, kind) and ObjectMeta
// (name, namespace, uid, resourceVersion, labels, …). Everything else (spec, status,
// data) stays as the JSON the server sent, reachable with Field, or decoded into a
// struct of your own with Decode.
//
// Why this shape: a controller's cost is its cache, and a cached object is read far
// less often than it is stored. Keeping the body as one []byte costs its length plus
// one allocation, where a map[string]any of the same pod costs several times that in
// small allocations. The metadata that the pipeline reads on every event (keys,
// resourceVersion, labels for indexes) is decoded once.
//
// An Object taken from a cache is shared: treat it as read-only, and Copy it before
// changing it. The zero value is an empty object (Raw returns "{}").
type Object struct {
	TypeMeta
	Metadata ObjectMeta

	// raw is the object's JSON as the server sent it, with metadata.managedFields
	// left out unless the decoder was asked to keep them — or, when metaCut is set,
	// with the whole metadata member left out, because Metadata holds all of it
	// (see decodeAt). Never modified after decoding.
	raw     []byte
	metaCut bool
}

// TypeMeta names an object's schema: apiVersion ("v1", "apps/v1") and kind ("Pod").
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// ObjectMeta is the metadata every persisted object has (the API's
// meta.k8s.io/v1 ObjectMeta), the fields a controller reads.
type ObjectMeta struct {
	// The fields are in the order the API server writes them, so that Raw, which
	// writes Metadata back, gives the server's bytes.
	Name         string `json:"name,omitempty"`
	GenerateName string `json:"generateName,omitempty"`
	Namespace    string `json:"namespace,omitempty"`
	// SelfLink is deprecated and no longer set by servers since 1.20; kept so that
	// an object from an older server round-trips.
	SelfLink          string `json:"selfLink,omitempty"`
	UID               string `json:"uid,omitempty"`
	ResourceVersion   string `json:"resourceVersion,omitempty"`
	Generation        int64  `json:"generation,omitempty"`
	CreationTimestamp *Time  `json:"creationTimestamp,omitempty"`
	DeletionTimestamp *Time  `json:"deletionTimestamp,omitempty"`
	// DeletionGracePeriodSeconds is set with DeletionTimestamp: how long the
	// object has to go away gracefully.
	DeletionGracePeriodSeconds *int64            `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string `json:"labels,omitempty"`
	Annotations                map[string]string `json:"annotations,omitempty"`
	OwnerReferences            []OwnerReference  `json:"ownerReferences,omitempty"`
	Finalizers                 []string          `json:"finalizers,omitempty"`
	// ManagedFields is the server-side-apply bookkeeping. It is usually half of an
	// object's bytes and rarely read, so decoding drops it unless asked to keep it
	// (DecodeOptions.KeepManagedFields).
	ManagedFields []ManagedFieldsEntry `json:"managedFields,omitempty"`
}

// OwnerReference points from a dependent object to its owner, for garbage collection
// and for controllers that map a child's event to its parent's key.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// ManagedFieldsEntry records which field manager owns which fields. FieldsV1 is kept
// as raw JSON: only server-side apply tooling reads it.
type ManagedFieldsEntry struct {
	Manager     string          `json:"manager,omitempty"`
	Operation   string          `json:"operation,omitempty"`
	APIVersion  string          `json:"apiVersion,omitempty"`
	Time        *Time           `json:"time,omitempty"`
	FieldsType  string          `json:"fieldsType,omitempty"`
	FieldsV1    json.RawMessage `json:"fieldsV1,omitempty"`
	Subresource string          `json:"subresource,omitempty"`
}

// Time is a timestamp as the API writes it: RFC 3339, in seconds, UTC.
type Time struct{ time.Time }

// MarshalJSON writes the time the way the API server does ("2026-11-22T09:13:14Z").
func (t Time) MarshalJSON() ([]byte, error) {
	return json.Marshal(t.UTC().Format(time.RFC3339))
}

// UnmarshalJSON reads an RFC 3339 time; null leaves the zero time.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*t = Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("time: %w", err)
	}
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return fmt.Errorf("time: %w", err)
	}
	*t = Time{v}
	return nil
}

// The Get methods let the leaf packages (store, fifo), which may not import
// apiclient, key and index an Object through small interfaces of their own.

// GetName returns metadata.name.
func (o *Object) GetName() string { return o.Metadata.Name }

// GetNamespace returns metadata.namespace ("" for cluster-scoped objects).
func (o *Object) GetNamespace() string { return o.Metadata.Namespace }

// GetResourceVersion returns metadata.resourceVersion.
func (o *Object) GetResourceVersion() string { return o.Metadata.ResourceVersion }

// GetLabels returns metadata.labels; the map is shared, do not modify it.
func (o *Object) GetLabels() map[string]string { return o.Metadata.Labels }

// Key returns "namespace/name", or "name" for a cluster-scoped object: the key the
// store files the object under.
func (o *Object) Key() string {
	if o.Metadata.Namespace == "" {
		return o.Metadata.Name
	}
	return o.Metadata.Namespace + "/" + o.Metadata.Name
}

// Raw returns the object's JSON as received (without managedFields unless they were
// kept). The slice may be shared: do not modify it.
//
// For most objects the cache holds the metadata decoded only, not as bytes too (see
// decodeAt), and Raw writes it back from Metadata: the same members and values,
// byte for byte what the server sends, at the cost of an encoding per call. Keep
// what Raw returns rather than calling it in a loop.
func (o *Object) Raw() []byte {
	if o.metaCut {
		b, err := o.MarshalJSON()
		if err == nil {
			return b
		}
	}
	if len(o.raw) == 0 {
		return []byte("{}")
	}
	return o.raw
}

// String returns "Kind namespace/name rv=N", for logs.
func (o *Object) String() string {
	return fmt.Sprintf("%s %s rv=%s", o.Kind, o.Key(), o.Metadata.ResourceVersion)
}
