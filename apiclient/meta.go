package apiclient

import (
	"fmt"
	"strconv"
	"time"
)

// decodeMeta fills m from a metadata object that has been validated already.
//
// This is the one place kubewire decodes JSON by hand: every cached object passes
// through here, and encoding/json's reflection costs about as much as everything
// else on the path together. It gives the same result as Unmarshal (case-sensitive
// keys, the last of duplicate keys winning outright, null giving the zero value)
// — a fuzz target compares the two on arbitrary input.
// The rare, nested members (ownerReferences, managedFields) are still handed to
// Unmarshal.
//
// Strings that repeat across objects — the namespace, label keys and values,
// annotation keys — are interned (intern.go), so ten thousand pods in one
// namespace share one copy of it.
//
// It reports whether the decode was lossless: every member known and not null,
// timestamps in the server's form, so that encoding m gives the same object back
// (decode.go then need not keep the bytes). skipManaged leaves managedFields out.
func decodeMeta(data []byte, m *ObjectMeta, skipManaged bool) (lossless bool, err error) {
	if string(data[skipSpace(data, 0):]) == "null" {
		return false, nil
	}
	d := metaDecoder{m: m, skipManaged: skipManaged, lossless: true}
	err = eachMember(data, func(key, value []byte, _, _ int) error { return d.member(key, value) })
	return d.lossless && err == nil, err
}

// metaDecoder decodes metadata one member at a time, so that decodeAt can do it in
// the same pass that validates the object (metaSpan.scan).
type metaDecoder struct {
	m           *ObjectMeta
	skipManaged bool
	lossless    bool // so far
}

// member decodes one member of the metadata object; value is valid JSON.
func (d *metaDecoder) member(key, value []byte) error {
	m := d.m
	if string(value) == "null" {
		d.lossless = false // written back, it would be left out, not null
	}
	var err error
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
		err = setTime(&m.CreationTimestamp, value, &d.lossless)
	case "deletionTimestamp":
		err = setTime(&m.DeletionTimestamp, value, &d.lossless)
	case "deletionGracePeriodSeconds":
		if string(value) == "null" {
			m.DeletionGracePeriodSeconds = nil
			break
		}
		n := new(int64)
		if err = setInt(n, value); err == nil {
			m.DeletionGracePeriodSeconds = n
		}
	case "labels":
		err = setStringMap(&m.Labels, value, true)
	case "annotations":
		err = setStringMap(&m.Annotations, value, false)
	case "finalizers":
		err = Unmarshal(value, &m.Finalizers)
	case "ownerReferences":
		err = Unmarshal(value, &m.OwnerReferences)
	case "managedFields":
		if !d.skipManaged {
			err = Unmarshal(value, &m.ManagedFields)
		}
	default:
		d.lossless = false
	}
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

// setString reads a string; null gives "".
func setString(dst *string, value []byte, shared bool) error {
	switch {
	case string(value) == "null":
		*dst = ""
		return nil
	case len(value) == 0 || value[0] != '"':
		return fmt.Errorf("want a string, got %.20s", value)
	case shared:
		s, err := internLiteral(value)
		*dst = s
		return err
	}
	s, err := unquote(value)
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

// setTime reads an RFC 3339 timestamp; null clears it. A timestamp in any other
// form than the server's own ("2026-11-22T09:54:22Z") clears *lossless: Time would
// write it back differently.
func setTime(dst **Time, value []byte, lossless *bool) error {
	if string(value) == "null" {
		*dst = nil
		return nil
	}
	if len(value) == 0 || value[0] != '"' {
		return fmt.Errorf("time: want a string, got %.20s", value)
	}
	s, err := unquote(value)
	if err != nil {
		return err
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return fmt.Errorf("time: %w", err)
	}
	if len(s) != len("2006-01-02T15:04:05Z") || s[len(s)-1] != 'Z' {
		*lossless = false
	}
	*dst = &Time{t}
	return nil
}

// setStringMap reads an object of strings into a new map; null gives nil. Keys are always
// interned, values when shared is set (labels: few distinct values; annotations:
// often long and unique).
func setStringMap(dst *map[string]string, value []byte, shared bool) error {
	if string(value) == "null" {
		*dst = nil
		return nil
	}
	if len(value) == 0 || value[0] != '{' {
		return fmt.Errorf("want an object, got %.20s", value)
	}
	m := make(map[string]string)
	*dst = m
	return eachMember(value, func(key, v []byte, _, _ int) error {
		k := internBytes(key)
		var s string
		var err error
		switch {
		case string(v) == "null":
		case len(v) == 0 || v[0] != '"':
			return fmt.Errorf("%q: want a string, got %.20s", k, v)
		case shared:
			s, err = internLiteral(v)
		default:
			s, err = unquote(v)
		}
		if err != nil {
			return err
		}
		m[k] = s
		return nil
	})
}
