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

// The built-in kinds, as much of them as the controller writes and reads.
type ConfigMap struct {
	apiclient.ObjectMeta `json:"metadata"`
	Data                 map[string]string `json:"data"`
}

func (*ConfigMap) Resource() apiclient.Resource { return apiclient.ConfigMaps }

type Secret struct {
	apiclient.ObjectMeta `json:"metadata"`
}

func (*Secret) Resource() apiclient.Resource { return apiclient.Secrets }

type Deployment struct {
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 map[string]any `json:"spec"`
	Status               struct {
		AvailableReplicas int32 `json:"availableReplicas"`
	} `json:"status"`
}

func (*Deployment) Resource() apiclient.Resource { return apiclient.Deployments }
