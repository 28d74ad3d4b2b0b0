package manifests

import (
	"github.com/kubewire/kubewire/controller/rbac"
)

// The objects Objects makes besides RBAC: as much of each kind as is set,
// fields in the order kubectl prints them. (Package apiclient/builtin's kinds
// may replace these.)

// ServiceAccount is the account the pods run as.
type ServiceAccount struct {
	rbac.TypeMeta `json:",inline" yaml:",inline"`
	Metadata      rbac.ObjectMeta `json:"metadata" yaml:"metadata"`
}

// Deployment runs the controller's pods.
type Deployment struct {
	rbac.TypeMeta `json:",inline" yaml:",inline"`
	Metadata      rbac.ObjectMeta `json:"metadata" yaml:"metadata"`
	Spec          DeploymentSpec  `json:"spec" yaml:"spec"`
}

type DeploymentSpec struct {
	Replicas int             `json:"replicas" yaml:"replicas"`
	Selector LabelSelector   `json:"selector" yaml:"selector"`
	Template PodTemplateSpec `json:"template" yaml:"template"`
}

type LabelSelector struct {
	MatchLabels map[string]string `json:"matchLabels" yaml:"matchLabels"`
}

type PodTemplateSpec struct {
	Metadata TemplateMeta `json:"metadata" yaml:"metadata"`
	Spec     PodSpec      `json:"spec" yaml:"spec"`
}

type TemplateMeta struct {
	Labels map[string]string `json:"labels" yaml:"labels"`
}

type PodSpec struct {
	ServiceAccountName string             `json:"serviceAccountName" yaml:"serviceAccountName"`
	SecurityContext    PodSecurityContext `json:"securityContext" yaml:"securityContext"`
	Containers         []Container        `json:"containers" yaml:"containers"`
}

type PodSecurityContext struct {
	RunAsNonRoot   bool           `json:"runAsNonRoot" yaml:"runAsNonRoot"`
	RunAsUser      int            `json:"runAsUser" yaml:"runAsUser"`
	SeccompProfile SeccompProfile `json:"seccompProfile" yaml:"seccompProfile"`
}

type SeccompProfile struct {
	Type string `json:"type" yaml:"type"`
}

type Container struct {
	Name            string                   `json:"name" yaml:"name"`
	Image           string                   `json:"image" yaml:"image"`
	Command         []string                 `json:"command,omitempty" yaml:"command,omitempty,flow"`
	Args            []string                 `json:"args" yaml:"args,flow"`
	Ports           []ContainerPort          `json:"ports" yaml:"ports"`
	LivenessProbe   Probe                    `json:"livenessProbe" yaml:"livenessProbe"`
	ReadinessProbe  Probe                    `json:"readinessProbe" yaml:"readinessProbe"`
	Resources       ResourceRequirements     `json:"resources" yaml:"resources"`
	SecurityContext ContainerSecurityContext `json:"securityContext" yaml:"securityContext"`
}

type ContainerPort struct {
	Name          string `json:"name" yaml:"name"`
	ContainerPort int    `json:"containerPort" yaml:"containerPort"`
	Protocol      string `json:"protocol" yaml:"protocol"`
}

type Probe struct {
	HTTPGet       HTTPGetAction `json:"httpGet" yaml:"httpGet"`
	PeriodSeconds int           `json:"periodSeconds" yaml:"periodSeconds"`
}

type HTTPGetAction struct {
	Path string `json:"path" yaml:"path"`
	Port string `json:"port" yaml:"port"`
}

type ResourceRequirements struct {
	Requests map[string]string `json:"requests" yaml:"requests"`
	Limits   map[string]string `json:"limits" yaml:"limits"`
}

type ContainerSecurityContext struct {
	AllowPrivilegeEscalation bool         `json:"allowPrivilegeEscalation" yaml:"allowPrivilegeEscalation"`
	ReadOnlyRootFilesystem   bool         `json:"readOnlyRootFilesystem" yaml:"readOnlyRootFilesystem"`
	Capabilities             Capabilities `json:"capabilities" yaml:"capabilities"`
}

type Capabilities struct {
	Drop []string `json:"drop" yaml:"drop,flow"`
}

// Service puts a name in front of the pods' metrics port.
type Service struct {
	rbac.TypeMeta `json:",inline" yaml:",inline"`
	Metadata      rbac.ObjectMeta `json:"metadata" yaml:"metadata"`
	Spec          ServiceSpec     `json:"spec" yaml:"spec"`
}

type ServiceSpec struct {
	Selector map[string]string `json:"selector" yaml:"selector"`
	Ports    []ServicePort     `json:"ports" yaml:"ports"`
}

type ServicePort struct {
	Name       string `json:"name" yaml:"name"`
	Port       int    `json:"port" yaml:"port"`
	TargetPort string `json:"targetPort" yaml:"targetPort"`
	Protocol   string `json:"protocol" yaml:"protocol"`
}

// nonRoot is the user the container runs as: the distroless images'
// "nonroot" (65532), which no image's root files belong to.
const nonRoot = 65532

func deployment(o Options, meta rbac.ObjectMeta) *Deployment {
	probe := func(path string) Probe {
		return Probe{HTTPGet: HTTPGetAction{Path: path, Port: "metrics"}, PeriodSeconds: 10}
	}
	return &Deployment{
		TypeMeta: rbac.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		Metadata: meta,
		Spec: DeploymentSpec{
			Replicas: o.Replicas,
			Selector: LabelSelector{MatchLabels: meta.Labels},
			Template: PodTemplateSpec{
				Metadata: TemplateMeta{Labels: meta.Labels},
				Spec: PodSpec{
					ServiceAccountName: o.Name,
					SecurityContext:    PodSecurityContext{RunAsNonRoot: true, RunAsUser: nonRoot, SeccompProfile: SeccompProfile{Type: "RuntimeDefault"}},
					Containers: []Container{{
						Name: "controller", Image: o.Image, Command: o.Command, Args: o.args(),
						Ports:          o.ports(),
						LivenessProbe:  probe("/healthz"),
						ReadinessProbe: probe("/readyz"),
						Resources: ResourceRequirements{Requests: map[string]string{"cpu": "10m", "memory": "64Mi"},
							Limits: map[string]string{"memory": "256Mi"}},
						SecurityContext: ContainerSecurityContext{ReadOnlyRootFilesystem: true, Capabilities: Capabilities{Drop: []string{"ALL"}}},
					}},
				},
			},
		},
	}
}

// ports are the container's: metrics, and the webhook server's with Webhooks.
func (o Options) ports() []ContainerPort {
	ports := []ContainerPort{{Name: "metrics", ContainerPort: o.MetricsPort, Protocol: "TCP"}}
	if o.Webhooks != nil {
		ports = append(ports, ContainerPort{Name: "webhooks", ContainerPort: o.Webhooks.Port, Protocol: "TCP"})
	}
	return ports
}

// WebhookServiceName is the webhook Service's name: NAME-webhooks. The API
// server calls the webhooks at WebhookServiceName.NAMESPACE.svc:443, which
// is what webhook.Options.Service must name.
func (o Options) WebhookServiceName() string { return o.Name + "-webhooks" }

func webhookService(o Options) *Service {
	return &Service{
		TypeMeta: rbac.TypeMeta{APIVersion: "v1", Kind: "Service"},
		Metadata: rbac.ObjectMeta{Name: o.WebhookServiceName(), Namespace: o.Namespace, Labels: map[string]string{"app.kubernetes.io/name": o.Name}},
		Spec: ServiceSpec{Selector: map[string]string{"app.kubernetes.io/name": o.Name},
			Ports: []ServicePort{{Name: "webhooks", Port: 443, TargetPort: "webhooks", Protocol: "TCP"}}},
	}
}

// ServiceName is the metrics Service's name: NAME-metrics. A scrape reaches
// the pods at ServiceName.NAMESPACE.svc:PORT.
func (o Options) ServiceName() string { return o.Name + "-metrics" }

func service(o Options) *Service {
	return &Service{
		TypeMeta: rbac.TypeMeta{APIVersion: "v1", Kind: "Service"},
		Metadata: rbac.ObjectMeta{Name: o.ServiceName(), Namespace: o.Namespace, Labels: map[string]string{"app.kubernetes.io/name": o.Name}},
		Spec: ServiceSpec{Selector: map[string]string{"app.kubernetes.io/name": o.Name},
			Ports: []ServicePort{{Name: "metrics", Port: o.MetricsPort, TargetPort: "metrics", Protocol: "TCP"}}},
	}
}
