package lease

import (
	"bytes"
	"fmt"
	"time"
)

// MicroTime is a timestamp with microseconds, as the API writes a Lease's times
// (metav1.MicroTime): "2026-01-01T00:00:15.000000Z". apiclient.Time has whole
// seconds only, too coarse for renewals two seconds apart.
//
// The zero value is the zero time, written as null.
type MicroTime struct{ time.Time }

// microLayout is RFC 3339 with exactly six fractional digits, always in UTC.
const microLayout = "2006-01-02T15:04:05.000000Z07:00"

// NewMicroTime returns t as a MicroTime, truncated to the microsecond as the API
// server stores it, so that what is written compares equal to what is read back.
func NewMicroTime(t time.Time) *MicroTime {
	return &MicroTime{t.UTC().Truncate(time.Microsecond)}
}

// MarshalJSON writes the time in UTC with six fractional digits, or null.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + t.UTC().Format(microLayout) + `"`), nil
}

// UnmarshalJSON reads an RFC 3339 time with any number of fractional digits (the
// server writes six; a hand-made Lease may have none), or null.
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		t.Time = time.Time{}
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("MicroTime: not a JSON string: %.40s", b)
	}
	parsed, err := time.Parse(time.RFC3339Nano, string(b[1:len(b)-1]))
	if err != nil {
		return fmt.Errorf("MicroTime: %w", err)
	}
	// A time whose year in UTC leaves 0000–9999 (year 0000 east of Greenwich) reads
	// in, but MarshalJSON would write it in a form that reads back as an error, so
	// the Lease could not be renewed or released: refuse it here (found by FuzzLease).
	if y := parsed.UTC().Year(); y < 0 || y > 9999 {
		return fmt.Errorf("MicroTime: %.40s is in year %d in UTC, outside 0000-9999", b, y)
	}
	t.Time = parsed.UTC()
	return nil
}
