package crd

import (
	"encoding/json"

	"github.com/kubewire/kubewire/apiclient"
)

// CustomResourceDefinition is an apiextensions.k8s.io/v1 CustomResourceDefinition,
// the fields a CRD built from Go types sets. It is a TypedObject, so
// apiclient.Typed and ResourceClient.Apply send it as it is; change any field
// before installing it (a version's printer columns, say) like any struct.
type CustomResourceDefinition struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 Spec `json:"spec"`
}

// Resource links CustomResourceDefinition to apiclient.CRDs (apiclient.TypedObject).
func (*CustomResourceDefinition) Resource() apiclient.Resource { return apiclient.CRDs }

// Spec is the CRD's spec: its group, names, scope and versions.
type Spec struct {
	Group    string    `json:"group"`
	Names    Names     `json:"names"`
	Scope    string    `json:"scope"` // "Namespaced" or "Cluster"
	Versions []Version `json:"versions"`
	// Conversion says how the server converts an object between versions:
	// nil or strategy None changes only apiVersion; strategy Webhook calls a
	// conversion webhook (package controller/webhook sets it).
	Conversion *Conversion `json:"conversion,omitempty"`
}

// Conversion is a CRD's spec.conversion.
type Conversion struct {
	Strategy string             `json:"strategy"` // "None" or "Webhook"
	Webhook  *WebhookConversion `json:"webhook,omitempty"`
}

// WebhookConversion is where the server sends a ConversionReview, and the
// versions of ConversionReview the webhook reads ("v1").
type WebhookConversion struct {
	ClientConfig             *ClientConfig `json:"clientConfig,omitempty"`
	ConversionReviewVersions []string      `json:"conversionReviewVersions"`
}

// ClientConfig reaches a webhook: by URL, or by a Service in the cluster, and
// trusts the certificate authorities in CABundle (PEM).
type ClientConfig struct {
	URL      string            `json:"url,omitempty"`
	Service  *ServiceReference `json:"service,omitempty"`
	CABundle []byte            `json:"caBundle,omitempty"`
}

// ServiceReference names a Service, its port (443 when nil) and the path.
type ServiceReference struct {
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Path      *string `json:"path,omitempty"`
	Port      *int32  `json:"port,omitempty"`
}

// Names are the names the resource is known by, all from its apiclient.Resource.
type Names struct {
	Plural     string   `json:"plural"`
	Singular   string   `json:"singular,omitempty"`
	ShortNames []string `json:"shortNames,omitempty"`
	Kind       string   `json:"kind"`
	ListKind   string   `json:"listKind,omitempty"`
	Categories []string `json:"categories,omitempty"`
}

// Version is one version the CRD serves, its schema from one Go type.
type Version struct {
	Name                     string        `json:"name"`
	Served                   bool          `json:"served"`
	Storage                  bool          `json:"storage"`
	Schema                   Validation    `json:"schema"`
	Subresources             *Subresources `json:"subresources,omitempty"`
	AdditionalPrinterColumns []Column      `json:"additionalPrinterColumns,omitempty"`
}

// Validation holds a version's schema, as the API nests it.
type Validation struct {
	OpenAPIV3Schema *Schema `json:"openAPIV3Schema"`
}

// Subresources are the status and scale subresources; a nil member is off.
type Subresources struct {
	Status *struct{} `json:"status,omitempty"`
	Scale  *Scale    `json:"scale,omitempty"`
}

// Scale turns on the scale subresource (what kubectl scale and a
// HorizontalPodAutoscaler use). The paths are JSON paths into the object:
// ".spec.replicas", ".status.replicas", ".status.selector".
type Scale struct {
	SpecReplicasPath   string `json:"specReplicasPath"`
	StatusReplicasPath string `json:"statusReplicasPath"`
	LabelSelectorPath  string `json:"labelSelectorPath,omitempty"` // optional: a string field holding the selector
}

// Column is one additional printer column: what kubectl get shows besides the
// name and age. An empty Type is read from the schema at JSONPath when the path
// is plain dotted (".status.availableReplicas"), else it is "string".
type Column struct {
	Name        string `json:"name"`
	Type        string `json:"type"` // integer, number, string, boolean or date
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty"`
	Priority    int32  `json:"priority,omitempty"`
	JSONPath    string `json:"jsonPath"`
}

// Schema is an OpenAPI v3 schema, the structural subset a CRD accepts (every
// node has a type, or x-kubernetes-int-or-string, or
// x-kubernetes-preserve-unknown-fields), with the Kubernetes extensions.
type Schema struct {
	Type                 string             `json:"type,omitempty"`
	Format               string             `json:"format,omitempty"`
	Description          string             `json:"description,omitempty"`
	Nullable             bool               `json:"nullable,omitempty"`
	Default              json.RawMessage    `json:"default,omitempty"`
	Enum                 []json.RawMessage  `json:"enum,omitempty"`
	Minimum              *float64           `json:"minimum,omitempty"`
	Maximum              *float64           `json:"maximum,omitempty"`
	Pattern              string             `json:"pattern,omitempty"`
	MinLength            *int64             `json:"minLength,omitempty"`
	MaxLength            *int64             `json:"maxLength,omitempty"`
	MinItems             *int64             `json:"minItems,omitempty"`
	MaxItems             *int64             `json:"maxItems,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties *Schema            `json:"additionalProperties,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	AnyOf                []*Schema          `json:"anyOf,omitempty"`
	PreserveUnknown      bool               `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	IntOrString          bool               `json:"x-kubernetes-int-or-string,omitempty"`
	ListType             string             `json:"x-kubernetes-list-type,omitempty"`
	ListMapKeys          []string           `json:"x-kubernetes-list-map-keys,omitempty"`
}
