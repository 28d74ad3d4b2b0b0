package leaderelection

import (
	"bytes"
	"fmt"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// Lease is a coordination.k8s.io/v1 Lease, the object the replicas of a controller
// compete for. Only spec matters to the election; metadata is kept whole so that an
// Update sends back the labels and annotations others may have set.
//
// The zero value is an empty Lease. A Lease is a plain value, not safe for
// concurrent modification.
type Lease struct {
	apiclient.TypeMeta
	Metadata apiclient.ObjectMeta `json:"metadata"`
	Spec     LeaseSpec            `json:"spec"`
}

// Resource is coordination.k8s.io/v1 leases: a Lease is an apiclient.TypedObject.
func (*Lease) Resource() apiclient.Resource { return apiclient.Leases }

// GetObjectMeta returns the Lease's metadata.
func (l *Lease) GetObjectMeta() *apiclient.ObjectMeta { return &l.Metadata }

// LeaseSpec is what a Lease says about its holder. The election reads holder,
// duration and transitions; the two times are for people (kubectl get lease -o
// yaml) and are not trusted by other replicas, whose clocks may disagree.
type LeaseSpec struct {
	// HolderIdentity is the replica that holds the lease; empty when nobody does,
	// as after a release.
	HolderIdentity string `json:"holderIdentity,omitempty"`
	// LeaseDurationSeconds is how long others must see the lease unchanged before
	// they may take it: the holder's promise to renew before then.
	LeaseDurationSeconds int32 `json:"leaseDurationSeconds,omitempty"`
	// AcquireTime is when the holder took the lease; RenewTime, when it last renewed.
	AcquireTime *MicroTime `json:"acquireTime,omitempty"`
	RenewTime   *MicroTime `json:"renewTime,omitempty"`
	// LeaseTransitions counts changes of holder.
	LeaseTransitions int32 `json:"leaseTransitions,omitempty"`
	// Strategy and PreferredHolder belong to coordinated leader election (alpha
	// since Kubernetes 1.31), which this package does not take part in. They are
	// declared only so that an Update carries them back unchanged.
	Strategy        string `json:"strategy,omitempty"`
	PreferredHolder string `json:"preferredHolder,omitempty"`
}

// leaseAPIVersion and leaseKind name the type on the wire, for Create.
const (
	leaseAPIVersion = "coordination.k8s.io/v1"
	leaseKind       = "Lease"
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

// sameRecord reports whether two specs say the same thing about the election.
// A candidate restarts its expiry countdown only when the record changes: a write
// that touches nothing the election reads (a label added by hand) must not extend
// a dead leader's lease. Comparing resourceVersions would count such writes.
func sameRecord(a, b LeaseSpec) bool {
	return a.HolderIdentity == b.HolderIdentity &&
		a.LeaseDurationSeconds == b.LeaseDurationSeconds &&
		a.LeaseTransitions == b.LeaseTransitions &&
		sameTime(a.AcquireTime, b.AcquireTime) &&
		sameTime(a.RenewTime, b.RenewTime)
}

func sameTime(a, b *MicroTime) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b.Time)
}
