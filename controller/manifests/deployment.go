package manifests

import (
	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/builtin"
)

// The objects Objects makes besides RBAC are apiclient/builtin's kinds: as
// much of each as is set (every field omitempty), written in the API's field
// names by rbac.WriteYAML.

// nonRoot is the user the container runs as: the distroless images'
// "nonroot" (65532), which no image's root files belong to.
const nonRoot = 65532

func serviceAccount(meta apiclient.ObjectMeta) *builtin.ServiceAccount {
	return &builtin.ServiceAccount{TypeMeta: apiclient.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: meta}
}

func deployment(o Options, meta apiclient.ObjectMeta) *builtin.Deployment {
	probe := func(path string) *builtin.Probe {
		return &builtin.Probe{HTTPGet: &builtin.HTTPGetAction{Path: path, Port: builtin.String("metrics")}, PeriodSeconds: 10}
	}
	return &builtin.Deployment{
		TypeMeta:   apiclient.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: meta,
		Spec: builtin.DeploymentSpec{
			Replicas: builtin.Ptr(int32(o.Replicas)),
			Selector: &builtin.LabelSelector{MatchLabels: meta.Labels},
			Template: builtin.PodTemplateSpec{
				Metadata: apiclient.ObjectMeta{Labels: meta.Labels},
				Spec: builtin.PodSpec{
					ServiceAccountName: o.Name,
					SecurityContext: &builtin.PodSecurityContext{RunAsNonRoot: builtin.Ptr(true), RunAsUser: builtin.Ptr(int64(nonRoot)),
						SeccompProfile: &builtin.SeccompProfile{Type: "RuntimeDefault"}},
					Containers: []builtin.Container{{
						Name: "controller", Image: o.Image, Command: o.Command, Args: o.args(),
						Ports:          o.ports(),
						LivenessProbe:  probe("/healthz"),
						ReadinessProbe: probe("/readyz"),
						Resources: builtin.ResourceRequirements{Requests: builtin.ResourceList{"cpu": "10m", "memory": "64Mi"},
							Limits: builtin.ResourceList{"memory": "256Mi"}},
						SecurityContext: &builtin.SecurityContext{ReadOnlyRootFilesystem: builtin.Ptr(true),
							AllowPrivilegeEscalation: builtin.Ptr(false), Capabilities: &builtin.Capabilities{Drop: []string{"ALL"}}},
					}},
				},
			},
		},
	}
}

// ports are the container's: metrics, and the webhook server's with Webhooks.
func (o Options) ports() []builtin.ContainerPort {
	ports := []builtin.ContainerPort{{Name: "metrics", ContainerPort: int32(o.MetricsPort), Protocol: "TCP"}}
	if o.Webhooks != nil {
		ports = append(ports, builtin.ContainerPort{Name: "webhooks", ContainerPort: int32(o.Webhooks.Port), Protocol: "TCP"})
	}
	return ports
}

// ServiceName is the metrics Service's name: NAME-metrics. A scrape reaches
// the pods at ServiceName.NAMESPACE.svc:PORT.
func (o Options) ServiceName() string { return o.Name + "-metrics" }

// WebhookServiceName is the webhook Service's name: NAME-webhooks. The API
// server calls the webhooks at WebhookServiceName.NAMESPACE.svc:443, which
// is what webhook.Options.Service must name.
func (o Options) WebhookServiceName() string { return o.Name + "-webhooks" }

func service(o Options) *builtin.Service {
	return o.service(o.ServiceName(), builtin.ServicePort{Name: "metrics", Port: int32(o.MetricsPort), TargetPort: builtin.String("metrics"), Protocol: "TCP"})
}

func webhookService(o Options) *builtin.Service {
	return o.service(o.WebhookServiceName(), builtin.ServicePort{Name: "webhooks", Port: 443, TargetPort: builtin.String("webhooks"), Protocol: "TCP"})
}

// service is a Service named name in front of the pods' port.
func (o Options) service(name string, port builtin.ServicePort) *builtin.Service {
	labels := map[string]string{"app.kubernetes.io/name": o.Name}
	return &builtin.Service{
		TypeMeta:   apiclient.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: apiclient.ObjectMeta{Name: name, Namespace: o.Namespace, Labels: labels},
		Spec:       builtin.ServiceSpec{Selector: labels, Ports: []builtin.ServicePort{port}},
	}
}
