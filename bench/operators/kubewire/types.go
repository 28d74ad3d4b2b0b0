package main

import (
	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/status"
)

// StaticSite is nginx serving one page (crd.yaml).
type StaticSite struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 struct {
		Image         string `json:"image,omitempty"`
		Replicas      int32  `json:"replicas"`
		HTML          string `json:"html"`
		TLSSecretName string `json:"tlsSecretName,omitempty"`
	} `json:"spec"`
	Status SiteStatus `json:"status,omitempty"`
}

// SiteStatus is what the controller writes back.
type SiteStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	AvailableReplicas  int32              `json:"availableReplicas,omitempty"`
	Conditions         []status.Condition `json:"conditions,omitempty"`
}

var StaticSites = apiclient.Resource{Group: "demo.kubewire.io", Version: "v1", Name: "staticsites", Kind: "StaticSite", Namespaced: true}

func (*StaticSite) Resource() apiclient.Resource { return StaticSites }
