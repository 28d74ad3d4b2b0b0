package builtin

import "github.com/kubewire/kubewire/apiclient"

// PodDisruptionBudget bounds how many of the pods its Selector matches a
// voluntary eviction (a node drain) may take down at once (policy/v1).
type PodDisruptionBudget struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 PodDisruptionBudgetSpec   `json:"spec,omitzero"`
	Status               PodDisruptionBudgetStatus `json:"status,omitzero"`
}

// Resource is apiclient.PodDisruptionBudgets.
func (*PodDisruptionBudget) Resource() apiclient.Resource { return apiclient.PodDisruptionBudgets }

// PodDisruptionBudgetSpec sets one of MinAvailable and MaxUnavailable (a count
// or a percentage; Int(0) is a bound too).
type PodDisruptionBudgetSpec struct {
	Selector                   *LabelSelector `json:"selector,omitempty"`
	MinAvailable               IntOrString    `json:"minAvailable,omitzero"`
	MaxUnavailable             IntOrString    `json:"maxUnavailable,omitzero"`
	UnhealthyPodEvictionPolicy string         `json:"unhealthyPodEvictionPolicy,omitempty"` // IfHealthyBudget (the default), AlwaysAllow
}

// PodDisruptionBudgetStatus is what the disruption controller last saw.
type PodDisruptionBudgetStatus struct {
	ObservedGeneration int64       `json:"observedGeneration,omitempty"`
	DisruptionsAllowed int32       `json:"disruptionsAllowed,omitempty"`
	CurrentHealthy     int32       `json:"currentHealthy,omitempty"`
	DesiredHealthy     int32       `json:"desiredHealthy,omitempty"`
	ExpectedPods       int32       `json:"expectedPods,omitempty"`
	Conditions         []Condition `json:"conditions,omitempty"`
}
