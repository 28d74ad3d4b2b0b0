package status

import (
	"slices"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// Condition is one condition of an object's status, as every API since 1.19
// writes it (metav1.Condition): "is it Ready? True, since when, and why". A
// CRD built from a type that holds Conditions (package crd) checks them as
// the API checks metav1.Condition's: the status one of three, the lengths
// bounded; tag the list kubewire:"listType=map,listMapKeys=type".
type Condition struct {
	// Type is CamelCase: "Ready", "Available", "Progressing".
	Type string `json:"type" kubewire:"maxLength=316"`
	// Status is "True", "False" or "Unknown".
	Status string `json:"status" kubewire:"enum=True|False|Unknown"`
	// ObservedGeneration is the metadata.generation the condition was set for.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// LastTransitionTime is when Status last changed — not when it was last
	// checked: a reader asks "how long has it been Ready?".
	LastTransitionTime apiclient.Time `json:"lastTransitionTime"`
	// Reason is a CamelCase word for machines; Message a sentence for humans.
	Reason  string `json:"reason" kubewire:"maxLength=1024"`
	Message string `json:"message" kubewire:"maxLength=32768"`
}

// SetCondition sets *conds to the conditions with c in place of the condition
// of its Type. Its LastTransitionTime is now (to the second) when the condition
// is new or its Status changed, and the old time otherwise; c's own
// LastTransitionTime is ignored. It reports whether the conditions changed at
// all — a status to write.
//
// The slice *conds held is never written to: a change makes a new slice. A
// status copied from a cached object (st := foo.Status) shares its conditions
// with it, and an edit in place would change the object it was copied from,
// which would then look like the status just set, and Update would skip the
// write.
func SetCondition(conds *[]Condition, c Condition, now time.Time) (changed bool) {
	c.LastTransitionTime = apiclient.Time{Time: now.UTC().Truncate(time.Second)}
	old := FindCondition(*conds, c.Type)
	if old == nil {
		*conds = append(slices.Clip(*conds), c) // a new array: clipped, append cannot write into the old one
		return true
	}
	if old.Status == c.Status {
		c.LastTransitionTime = old.LastTransitionTime
	}
	if *old == c {
		return false
	}
	next := slices.Clone(*conds)
	*FindCondition(next, c.Type) = c
	*conds = next
	return true
}

// FindCondition returns the condition of this type in conds, or nil.
func FindCondition(conds []Condition, conditionType string) *Condition {
	for i := range conds {
		if conds[i].Type == conditionType {
			return &conds[i]
		}
	}
	return nil
}

// IsTrue reports whether conds has a condition of this type with Status "True".
func IsTrue(conds []Condition, conditionType string) bool {
	c := FindCondition(conds, conditionType)
	return c != nil && c.Status == "True"
}
