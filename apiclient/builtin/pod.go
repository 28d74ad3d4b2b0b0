package builtin

import "github.com/kubewire/kubewire/apiclient"

// PodTemplateSpec is the pods a workload makes: their metadata (labels the
// selector matches, annotations) and spec.
type PodTemplateSpec struct {
	Metadata apiclient.ObjectMeta `json:"metadata,omitzero"`
	Spec     PodSpec              `json:"spec,omitzero"`
}

// PodSpec is what runs in a pod and how.
type PodSpec struct {
	Containers     []Container `json:"containers,omitempty"`
	InitContainers []Container `json:"initContainers,omitempty"`
	Volumes        []Volume    `json:"volumes,omitempty"`

	RestartPolicy                 string                 `json:"restartPolicy,omitempty"` // Always, OnFailure, Never
	TerminationGracePeriodSeconds *int64                 `json:"terminationGracePeriodSeconds,omitempty"`
	ServiceAccountName            string                 `json:"serviceAccountName,omitempty"`
	AutomountServiceAccountToken  *bool                  `json:"automountServiceAccountToken,omitempty"`
	EnableServiceLinks            *bool                  `json:"enableServiceLinks,omitempty"`
	ImagePullSecrets              []LocalObjectReference `json:"imagePullSecrets,omitempty"`
	SecurityContext               *PodSecurityContext    `json:"securityContext,omitempty"`
	PriorityClassName             string                 `json:"priorityClassName,omitempty"`

	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	Tolerations  []Toleration      `json:"tolerations,omitempty"`
	HostNetwork  bool              `json:"hostNetwork,omitempty"`
	DNSPolicy    string            `json:"dnsPolicy,omitempty"`
}

// Container is one container of a pod.
type Container struct {
	Name            string   `json:"name,omitempty"`
	Image           string   `json:"image,omitempty"`
	ImagePullPolicy string   `json:"imagePullPolicy,omitempty"` // Always, IfNotPresent, Never
	Command         []string `json:"command,omitempty"`
	Args            []string `json:"args,omitempty"`
	WorkingDir      string   `json:"workingDir,omitempty"`

	Ports        []ContainerPort      `json:"ports,omitempty"`
	Env          []EnvVar             `json:"env,omitempty"`
	EnvFrom      []EnvFromSource      `json:"envFrom,omitempty"`
	Resources    ResourceRequirements `json:"resources,omitzero"`
	VolumeMounts []VolumeMount        `json:"volumeMounts,omitempty"`

	LivenessProbe   *Probe           `json:"livenessProbe,omitempty"`
	ReadinessProbe  *Probe           `json:"readinessProbe,omitempty"`
	StartupProbe    *Probe           `json:"startupProbe,omitempty"`
	SecurityContext *SecurityContext `json:"securityContext,omitempty"`
}

// ContainerPort is a port a container listens on (documentation for the
// reader and for named targetPorts; a port not listed is reachable all the same).
type ContainerPort struct {
	Name          string `json:"name,omitempty"`
	ContainerPort int32  `json:"containerPort,omitempty"`
	Protocol      string `json:"protocol,omitempty"` // TCP (the default), UDP, SCTP
}

// EnvVar is one environment variable: a Value, or ValueFrom a ConfigMap,
// Secret or field of the pod.
type EnvVar struct {
	Name      string        `json:"name,omitempty"`
	Value     string        `json:"value,omitempty"`
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty"`
}

// EnvVarSource is where an EnvVar's value comes from: set one field.
type EnvVarSource struct {
	ConfigMapKeyRef *KeySelector         `json:"configMapKeyRef,omitempty"`
	SecretKeyRef    *KeySelector         `json:"secretKeyRef,omitempty"`
	FieldRef        *ObjectFieldSelector `json:"fieldRef,omitempty"`
}

// KeySelector is one key of a ConfigMap or Secret in the pod's namespace.
type KeySelector struct {
	Name     string `json:"name,omitempty"`
	Key      string `json:"key,omitempty"`
	Optional *bool  `json:"optional,omitempty"`
}

// ObjectFieldSelector is a field of the pod itself: "metadata.name",
// "status.podIP", "spec.nodeName".
type ObjectFieldSelector struct {
	FieldPath string `json:"fieldPath,omitempty"`
}

// EnvFromSource makes every key of a ConfigMap or Secret (set one) a
// variable, its name prefixed by Prefix.
type EnvFromSource struct {
	Prefix       string        `json:"prefix,omitempty"`
	ConfigMapRef *EnvSourceRef `json:"configMapRef,omitempty"`
	SecretRef    *EnvSourceRef `json:"secretRef,omitempty"`
}

// EnvSourceRef names the ConfigMap or Secret of an EnvFromSource.
type EnvSourceRef struct {
	Name     string `json:"name,omitempty"`
	Optional *bool  `json:"optional,omitempty"`
}

// ResourceRequirements are a container's requests (what the scheduler
// reserves) and limits (what it may not pass).
type ResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty"`
	Requests ResourceList `json:"requests,omitempty"`
}

// Probe asks a container whether it is alive, ready or started: set one of
// Exec, HTTPGet, TCPSocket. The counts are the API's defaults when 0.
type Probe struct {
	Exec      *ExecAction      `json:"exec,omitempty"`
	HTTPGet   *HTTPGetAction   `json:"httpGet,omitempty"`
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty"`

	InitialDelaySeconds int32 `json:"initialDelaySeconds,omitempty"`
	TimeoutSeconds      int32 `json:"timeoutSeconds,omitempty"`
	PeriodSeconds       int32 `json:"periodSeconds,omitempty"`
	SuccessThreshold    int32 `json:"successThreshold,omitempty"`
	FailureThreshold    int32 `json:"failureThreshold,omitempty"`
}

// ExecAction runs a command in the container; exit status 0 is success.
type ExecAction struct {
	Command []string `json:"command,omitempty"`
}

// HTTPGetAction is a GET; a status from 200 to 399 is success.
type HTTPGetAction struct {
	Path   string      `json:"path,omitempty"`
	Port   IntOrString `json:"port,omitzero"` // a number, or a ContainerPort's name
	Host   string      `json:"host,omitempty"`
	Scheme string      `json:"scheme,omitempty"` // HTTP (the default), HTTPS
}

// TCPSocketAction opens a TCP connection; connecting is success.
type TCPSocketAction struct {
	Port IntOrString `json:"port,omitzero"`
}

// PodSecurityContext is what every container of the pod runs as.
type PodSecurityContext struct {
	RunAsUser      *int64          `json:"runAsUser,omitempty"`
	RunAsGroup     *int64          `json:"runAsGroup,omitempty"`
	RunAsNonRoot   *bool           `json:"runAsNonRoot,omitempty"`
	FSGroup        *int64          `json:"fsGroup,omitempty"`
	SeccompProfile *SeccompProfile `json:"seccompProfile,omitempty"`
}

// SecurityContext is what one container runs as; it overrides the pod's.
type SecurityContext struct {
	RunAsUser                *int64          `json:"runAsUser,omitempty"`
	RunAsGroup               *int64          `json:"runAsGroup,omitempty"`
	RunAsNonRoot             *bool           `json:"runAsNonRoot,omitempty"`
	ReadOnlyRootFilesystem   *bool           `json:"readOnlyRootFilesystem,omitempty"`
	AllowPrivilegeEscalation *bool           `json:"allowPrivilegeEscalation,omitempty"`
	Privileged               *bool           `json:"privileged,omitempty"`
	Capabilities             *Capabilities   `json:"capabilities,omitempty"`
	SeccompProfile           *SeccompProfile `json:"seccompProfile,omitempty"`
}

// Capabilities are Linux capabilities added to or dropped from the runtime's
// default set ("ALL", "NET_BIND_SERVICE").
type Capabilities struct {
	Add  []string `json:"add,omitempty"`
	Drop []string `json:"drop,omitempty"`
}

// SeccompProfile is the seccomp filter: Type RuntimeDefault, Unconfined, or
// Localhost with LocalhostProfile.
type SeccompProfile struct {
	Type             string `json:"type,omitempty"`
	LocalhostProfile string `json:"localhostProfile,omitempty"`
}

// Toleration lets the pod onto nodes with a matching taint.
type Toleration struct {
	Key               string `json:"key,omitempty"`
	Operator          string `json:"operator,omitempty"` // Equal (the default), Exists
	Value             string `json:"value,omitempty"`
	Effect            string `json:"effect,omitempty"` // NoSchedule, PreferNoSchedule, NoExecute
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}
