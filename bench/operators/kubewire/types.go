package main

import (
	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/status"
)

// StaticSite is nginx serving one page; its CRD is built from this type (main.go).
type StaticSite struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 struct {
		Image         string `json:"image,omitempty" kubewire:"description='The image of the web server; the controller uses nginx:1.27 when empty.'"`
		Replicas      int32  `json:"replicas" kubewire:"min=0"`
		HTML          string `json:"html" kubewire:"description=The content served as index.html."`
		TLSSecretName string `json:"tlsSecretName,omitempty" kubewire:"description='A Secret in the same namespace; a change to it rolls the pods.'"`
	} `json:"spec,omitempty"`
	Status SiteStatus `json:"status,omitempty"`
}

// SiteStatus is what the controller writes back.
type SiteStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	AvailableReplicas  int32              `json:"availableReplicas,omitempty"`
	Conditions         []status.Condition `json:"conditions,omitempty" kubewire:"listType=map,listMapKeys=type"`
}

var StaticSites = apiclient.Resource{Group: "demo.kubewire.io", Version: "v1", Name: "staticsites", Kind: "StaticSite", Namespaced: true}

func (*StaticSite) Resource() apiclient.Resource { return StaticSites }
