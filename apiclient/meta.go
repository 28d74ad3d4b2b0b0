package apiclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/kubewire/kubewire/apiclient/internal/jsonwire"
)

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

// metaDecoder decodes an object's metadata by hand, one member at a time, in the
// pass that validates it (decodeAt calls decode): every cached object passes
// through here, and encoding/json's reflection would cost about as much as
// everything else on the path together. It gives the same result as Unmarshal
// (case-sensitive keys, unknown keys ignored, the last of duplicate keys winning
// outright, null giving the zero value); FuzzDecodeMeta compares the two on
// arbitrary input. The rare, nested members (ownerReferences, managedFields,
// finalizers) are handed to Unmarshal.
//
// Strings that repeat across objects — the namespace, label keys and values,
// annotation keys — are interned (jsonwire.Intern), so ten thousand pods in one
// namespace share one copy of it.
type metaDecoder struct {
	m           *ObjectMeta
	skipManaged bool // leave managedFields out
}

// decode validates the metadata value at data[at] (a member of the object, so
// depth 2 for its own members) and decodes it into d.m in the same pass; it
// returns where the value ends. null leaves d.m as it is.
func (d *metaDecoder) decode(data []byte, at int) (int, error) {
	if at >= len(data) || data[at] != '{' {
		end, err := jsonwire.CheckValue(data, at, 1)
		if err == nil && string(data[at:end]) != "null" {
			err = fmt.Errorf("metadata: want an object, got %.20s", data[at:end])
		}
		return end, err
	}
	return jsonwire.WalkObject(data, at, 2, func(key []byte, _, vAt int) (int, error) {
		end, err := d.member(key, data, vAt)
		return end, decodeError("metadata", err)
	})
}

// member validates and decodes the member key whose value starts at data[at]
// (the metadata object is at depth 2 in the object), and returns where the value
// ends. Labels and annotations are decoded as they are walked; any other value is
// validated first, then decoded.
func (d *metaDecoder) member(key, data []byte, at int) (int, error) {
	m := d.m
	if at < len(data) && data[at] == '{' {
		switch string(key) {
		case "labels":
			end, err := stringMap(&m.Labels, data, at, true)
			return end, decodeError("labels", err)
		case "annotations":
			end, err := stringMap(&m.Annotations, data, at, false)
			return end, decodeError("annotations", err)
		}
	}
	end, err := jsonwire.CheckValue(data, at, 2)
	if err != nil {
		return end, err
	}
	value := data[at:end]
	switch string(key) {
	case "name":
		err = setString(&m.Name, value, false)
	case "generateName":
		err = setString(&m.GenerateName, value, false)
	case "namespace":
		err = setString(&m.Namespace, value, true)
	case "uid":
		err = setString(&m.UID, value, false)
	case "resourceVersion":
		err = setString(&m.ResourceVersion, value, false)
	case "selfLink":
		err = setString(&m.SelfLink, value, false)
	case "generation":
		err = setInt(&m.Generation, value)
	case "creationTimestamp":
		err = setTime(&m.CreationTimestamp, value)
	case "deletionTimestamp":
		err = setTime(&m.DeletionTimestamp, value)
	case "deletionGracePeriodSeconds":
		if string(value) == "null" {
			m.DeletionGracePeriodSeconds = nil
			break
		}
		n := new(int64)
		if err = setInt(n, value); err == nil {
			m.DeletionGracePeriodSeconds = n
		}
	case "labels", "annotations": // not an object: null, or wrong
		if string(value) != "null" {
			err = fmt.Errorf("want an object, got %.20s", value)
		} else if string(key) == "labels" {
			m.Labels = nil
		} else {
			m.Annotations = nil
		}
	case "finalizers":
		err = Unmarshal(value, &m.Finalizers)
	case "ownerReferences":
		err = Unmarshal(value, &m.OwnerReferences)
	case "managedFields":
		if !d.skipManaged {
			err = Unmarshal(value, &m.ManagedFields)
		}
	}
	if err != nil {
		return at, fmt.Errorf("%s: %w", key, err)
	}
	return end, nil
}

// decodeError names what could not be decoded, leaving syntax errors as they are:
// the stream readers place those at a stream offset, and ErrShort must stay itself.
func decodeError(what string, err error) error {
	if err == nil || err == jsonwire.ErrShort || errors.Is(err, jsonwire.ErrSyntax) {
		return err
	}
	return fmt.Errorf("%s: %w", what, err)
}

// setString reads a string; null gives "". shared interns it.
func setString(dst *string, value []byte, shared bool) error {
	if !shared || len(value) == 0 || value[0] != '"' {
		s, err := jsonwire.String(value)
		*dst = s
		return err
	}
	s, err := jsonwire.InternLiteral(value)
	*dst = s
	return err
}

// setInt reads an integer (no fraction, no exponent, within int64).
func setInt(dst *int64, value []byte) error {
	if string(value) == "null" {
		*dst = 0
		return nil
	}
	n, err := strconv.ParseInt(string(value), 10, 64)
	if err != nil {
		return fmt.Errorf("want an integer, got %.20s", value)
	}
	*dst = n
	return nil
}

// setTime reads an RFC 3339 timestamp; null clears it.
func setTime(dst **Time, value []byte) error {
	if string(value) == "null" {
		*dst = nil
		return nil
	}
	if len(value) == 0 || value[0] != '"' {
		return fmt.Errorf("time: want a string, got %.20s", value)
	}
	s, err := jsonwire.Unquote(value)
	if err != nil {
		return err
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return fmt.Errorf("time: %w", err)
	}
	*dst = &Time{t}
	return nil
}

// stringMap validates the object of strings at data[at] (depth 3: inside
// metadata) and decodes it into a new map as it goes. Keys are always interned,
// values when shared is set (labels: few distinct values; annotations: often long
// and unique). A null value gives "".
func stringMap(dst *map[string]string, data []byte, at int, shared bool) (int, error) {
	m := make(map[string]string)
	*dst = m
	return jsonwire.WalkObject(data, at, 3, func(key []byte, _, vAt int) (int, error) {
		end, err := jsonwire.CheckValue(data, vAt, 3)
		if err != nil {
			return end, err
		}
		k := jsonwire.Intern(key)
		var s string
		if err := setString(&s, data[vAt:end], shared); err != nil {
			return vAt, fmt.Errorf("%q: %w", k, err)
		}
		m[k] = s
		return end, nil
	})
}

// DeepCopy returns a copy of m that shares nothing with it that can be changed:
// its maps, slices and pointers are new.
func (m ObjectMeta) DeepCopy() ObjectMeta {
	c := m
	c.CreationTimestamp = clonePtr(m.CreationTimestamp)
	c.DeletionTimestamp = clonePtr(m.DeletionTimestamp)
	c.DeletionGracePeriodSeconds = clonePtr(m.DeletionGracePeriodSeconds)
	c.Labels = maps.Clone(m.Labels)
	c.Annotations = maps.Clone(m.Annotations)
	c.Finalizers = slices.Clone(m.Finalizers)
	if m.OwnerReferences != nil {
		c.OwnerReferences = make([]OwnerReference, len(m.OwnerReferences))
		for i, r := range m.OwnerReferences {
			r.Controller, r.BlockOwnerDeletion = clonePtr(r.Controller), clonePtr(r.BlockOwnerDeletion)
			c.OwnerReferences[i] = r
		}
	}
	if m.ManagedFields != nil {
		c.ManagedFields = make([]ManagedFieldsEntry, len(m.ManagedFields))
		for i, f := range m.ManagedFields {
			f.Time, f.FieldsV1 = clonePtr(f.Time), slices.Clone(f.FieldsV1)
			c.ManagedFields[i] = f
		}
	}
	return c
}

// clonePtr returns a pointer to a copy of *p, or nil.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
