package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StaticSiteSpec is the desired state of a StaticSite: nginx serving one page.
type StaticSiteSpec struct {
	// Image is the web server's image; the controller uses nginx:1.27 when it is empty.
	// +optional
	Image string `json:"image,omitempty"`

	// Replicas is the number of web server pods.
	// +kubebuilder:validation:Minimum=0
	Replicas int32 `json:"replicas"`

	// HTML is the content served as index.html.
	HTML string `json:"html"`

	// TLSSecretName names a Secret in the same namespace; a change to it rolls the pods.
	// +optional
	TLSSecretName string `json:"tlsSecretName,omitempty"`
}

// StaticSiteStatus is the observed state of a StaticSite.
type StaticSiteStatus struct {
	// ObservedGeneration is the generation this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// AvailableReplicas is copied from the site's Deployment.
	// +optional
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`

	// Conditions holds the Ready condition.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Available",type=integer,JSONPath=`.status.availableReplicas`

// StaticSite is the Schema for the staticsites API.
type StaticSite struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   StaticSiteSpec   `json:"spec,omitempty"`
	Status StaticSiteStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// StaticSiteList contains a list of StaticSite.
type StaticSiteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StaticSite `json:"items"`
}

func init() {
	SchemeBuilder.Register(&StaticSite{}, &StaticSiteList{})
}
