package builtin

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/kubewire/kubewire/apiclient"
)

// Ptr returns a pointer to a copy of v, for the fields whose zero value means
// something and which are pointers so that it can be sent: Replicas:
// builtin.Ptr[int32](0), AutomountServiceAccountToken: builtin.Ptr(false).
func Ptr[T any](v T) *T { return &v }

// IntOrString is a value the API takes as a number or as a string: a port (8080
// or "http"), a share of pods (1 or "25%"). Make one with Int or String; the
// zero value is unset, and the fields of this type (tagged omitzero) leave it
// out, so that Int(0) — no pod may be unavailable — is sent and the zero value
// is not. Its schema is the API's IntOrString (format int-or-string).
type IntOrString struct {
	str   string
	num   int32
	isStr bool
	set   bool
}

// Int is the number n.
func Int(n int32) IntOrString { return IntOrString{num: n, set: true} }

// String is the string s ("http", "25%").
func String(s string) IntOrString { return IntOrString{str: s, isStr: true, set: true} }

// IsZero reports whether v is unset; encoding/json's omitzero asks it.
func (v IntOrString) IsZero() bool { return !v.set }

// IntValue is the number and true, or 0 and false when v is a string or unset.
func (v IntOrString) IntValue() (int32, bool) { return v.num, v.set && !v.isStr }

// String is v as the API writes it, unquoted: "8080", "http", "" when unset.
func (v IntOrString) String() string {
	switch {
	case !v.set:
		return ""
	case v.isStr:
		return v.str
	}
	return strconv.FormatInt(int64(v.num), 10)
}

// MarshalJSON writes a number or a string. An unset value, which a field of
// this type leaves out, writes null.
func (v IntOrString) MarshalJSON() ([]byte, error) {
	switch {
	case !v.set:
		return []byte("null"), nil
	case v.isStr:
		return json.Marshal(v.str)
	}
	return strconv.AppendInt(nil, int64(v.num), 10), nil
}

// UnmarshalJSON reads a number that fits an int32 or a string; null leaves v
// unset.
func (v *IntOrString) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = IntOrString{}
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("int-or-string: %w", err)
		}
		*v = String(s)
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 32)
	if err != nil {
		return fmt.Errorf("int-or-string: want an int32 or a string, got %.20s", b)
	}
	*v = Int(int32(n))
	return nil
}

// ResourceList maps a resource name ("cpu", "memory", "nvidia.com/gpu") to a
// quantity as the API writes it: "250m", "128Mi", "1". The server parses it;
// nothing here does.
type ResourceList map[string]string

// LabelSelector selects objects by their labels: every MatchLabels pair and
// every MatchExpressions requirement must hold.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is Key Operator Values: "tier In (web, api)".
type LabelSelectorRequirement struct {
	Key      string   `json:"key,omitempty"`
	Operator string   `json:"operator,omitempty"` // In, NotIn, Exists, DoesNotExist
	Values   []string `json:"values,omitempty"`
}

// LocalObjectReference names an object in the same namespace.
type LocalObjectReference struct {
	Name string `json:"name,omitempty"`
}

// Condition is the part every kind's status conditions share (Deployment's,
// Job's, the metav1.Condition of PodDisruptionBudget): a read, as the
// controllers of those kinds write them.
type Condition struct {
	Type               string          `json:"type,omitempty"`
	Status             string          `json:"status,omitempty"` // "True", "False", "Unknown"
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
	LastTransitionTime *apiclient.Time `json:"lastTransitionTime,omitempty"`
}
