package builtin

import "github.com/kubewire/kubewire/apiclient"

// Service gives the pods its Selector matches one name and address (v1).
type Service struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 ServiceSpec   `json:"spec,omitzero"`
	Status               ServiceStatus `json:"status,omitzero"`
}

// Resource is apiclient.Services.
func (*Service) Resource() apiclient.Resource { return apiclient.Services }

// ServiceSpec is what a Service asks for.
type ServiceSpec struct {
	Type                     string            `json:"type,omitempty"` // ClusterIP (the default), NodePort, LoadBalancer, ExternalName
	Selector                 map[string]string `json:"selector,omitempty"`
	Ports                    []ServicePort     `json:"ports,omitempty"`
	ClusterIP                string            `json:"clusterIP,omitempty"` // "None": headless
	ExternalName             string            `json:"externalName,omitempty"`
	ExternalTrafficPolicy    string            `json:"externalTrafficPolicy,omitempty"`
	SessionAffinity          string            `json:"sessionAffinity,omitempty"`
	PublishNotReadyAddresses bool              `json:"publishNotReadyAddresses,omitempty"`
}

// ServicePort is one port of a Service, sent on to TargetPort of the pods (a
// number or a ContainerPort's name; Port when unset).
type ServicePort struct {
	Name        string      `json:"name,omitempty"`
	Protocol    string      `json:"protocol,omitempty"` // TCP (the default), UDP, SCTP
	AppProtocol *string     `json:"appProtocol,omitempty"`
	Port        int32       `json:"port,omitempty"`
	TargetPort  IntOrString `json:"targetPort,omitzero"`
	NodePort    int32       `json:"nodePort,omitempty"`
}

// ServiceStatus holds a LoadBalancer Service's addresses, once the cloud gave
// them.
type ServiceStatus struct {
	LoadBalancer LoadBalancerStatus `json:"loadBalancer,omitzero"`
}

// LoadBalancerStatus is the addresses of a Service's or an Ingress's load
// balancer.
type LoadBalancerStatus struct {
	Ingress []LoadBalancerIngress `json:"ingress,omitempty"`
}

// LoadBalancerIngress is one address: an IP, or a host name.
type LoadBalancerIngress struct {
	IP       string `json:"ip,omitempty"`
	Hostname string `json:"hostname,omitempty"`
}

// Ingress routes HTTP by host and path to Services (networking.k8s.io/v1).
type Ingress struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 IngressSpec   `json:"spec,omitzero"`
	Status               IngressStatus `json:"status,omitzero"`
}

// Resource is apiclient.Ingresses.
func (*Ingress) Resource() apiclient.Resource { return apiclient.Ingresses }

// IngressSpec is what an Ingress asks for.
type IngressSpec struct {
	IngressClassName *string         `json:"ingressClassName,omitempty"`
	DefaultBackend   *IngressBackend `json:"defaultBackend,omitempty"`
	TLS              []IngressTLS    `json:"tls,omitempty"`
	Rules            []IngressRule   `json:"rules,omitempty"`
}

// IngressTLS terminates TLS for Hosts with the certificate in Secret SecretName.
type IngressTLS struct {
	Hosts      []string `json:"hosts,omitempty"`
	SecretName string   `json:"secretName,omitempty"`
}

// IngressRule routes one host (every host when empty).
type IngressRule struct {
	Host string                `json:"host,omitempty"`
	HTTP *HTTPIngressRuleValue `json:"http,omitempty"`
}

// HTTPIngressRuleValue is a host's paths.
type HTTPIngressRuleValue struct {
	Paths []HTTPIngressPath `json:"paths,omitempty"`
}

// HTTPIngressPath sends requests under Path to Backend.
type HTTPIngressPath struct {
	Path     string         `json:"path,omitempty"`
	PathType string         `json:"pathType,omitempty"` // Prefix, Exact, ImplementationSpecific
	Backend  IngressBackend `json:"backend,omitzero"`
}

// IngressBackend is where traffic goes: a Service's port.
type IngressBackend struct {
	Service *IngressServiceBackend `json:"service,omitempty"`
}

// IngressServiceBackend is a Service and one of its ports.
type IngressServiceBackend struct {
	Name string             `json:"name,omitempty"`
	Port ServiceBackendPort `json:"port,omitzero"`
}

// ServiceBackendPort is a Service's port by name or by number: set one.
type ServiceBackendPort struct {
	Name   string `json:"name,omitempty"`
	Number int32  `json:"number,omitempty"`
}

// IngressStatus holds the Ingress's load balancer addresses, once a
// controller gave them.
type IngressStatus struct {
	LoadBalancer LoadBalancerStatus `json:"loadBalancer,omitzero"`
}
