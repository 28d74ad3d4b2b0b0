package builtin

import "github.com/kubewire/kubewire/apiclient"

// Volume is a directory a pod's containers may mount (VolumeMount): set its
// Name and one source. The sources are pointers because an empty one is a
// choice: EmptyDir: &builtin.EmptyDirVolumeSource{} is sent as "emptyDir": {}.
type Volume struct {
	Name                  string                             `json:"name,omitempty"`
	ConfigMap             *ConfigMapVolumeSource             `json:"configMap,omitempty"`
	Secret                *SecretVolumeSource                `json:"secret,omitempty"`
	EmptyDir              *EmptyDirVolumeSource              `json:"emptyDir,omitempty"`
	PersistentVolumeClaim *PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty"`
}

// ConfigMapVolumeSource is a ConfigMap's keys as files (Items picks and
// renames some; all of them when empty).
type ConfigMapVolumeSource struct {
	Name        string      `json:"name,omitempty"`
	Items       []KeyToPath `json:"items,omitempty"`
	DefaultMode *int32      `json:"defaultMode,omitempty"` // file mode bits, 0644 when nil
	Optional    *bool       `json:"optional,omitempty"`
}

// SecretVolumeSource is a Secret's keys as files.
type SecretVolumeSource struct {
	SecretName  string      `json:"secretName,omitempty"`
	Items       []KeyToPath `json:"items,omitempty"`
	DefaultMode *int32      `json:"defaultMode,omitempty"`
	Optional    *bool       `json:"optional,omitempty"`
}

// KeyToPath puts one key at a path relative to the mount point.
type KeyToPath struct {
	Key  string `json:"key,omitempty"`
	Path string `json:"path,omitempty"`
	Mode *int32 `json:"mode,omitempty"`
}

// EmptyDirVolumeSource is a directory that lives as long as the pod.
type EmptyDirVolumeSource struct {
	Medium    string `json:"medium,omitempty"`    // "" (the node's disk) or Memory
	SizeLimit string `json:"sizeLimit,omitempty"` // a quantity: "1Gi"
}

// PersistentVolumeClaimVolumeSource mounts a PersistentVolumeClaim of the pod's
// namespace.
type PersistentVolumeClaimVolumeSource struct {
	ClaimName string `json:"claimName,omitempty"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}

// VolumeMount mounts the pod's Volume Name at MountPath in one container.
type VolumeMount struct {
	Name      string `json:"name,omitempty"`
	MountPath string `json:"mountPath,omitempty"`
	SubPath   string `json:"subPath,omitempty"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}

// PersistentVolumeClaim is a StatefulSet's volumeClaimTemplates entry: each
// pod gets a claim made from it.
type PersistentVolumeClaim struct {
	Metadata apiclient.ObjectMeta      `json:"metadata,omitzero"`
	Spec     PersistentVolumeClaimSpec `json:"spec,omitzero"`
}

// PersistentVolumeClaimSpec is the storage a claim asks for.
type PersistentVolumeClaimSpec struct {
	AccessModes      []string                   `json:"accessModes,omitempty"` // ReadWriteOnce, ReadOnlyMany, …
	StorageClassName *string                    `json:"storageClassName,omitempty"`
	VolumeMode       string                     `json:"volumeMode,omitempty"`
	Resources        VolumeResourceRequirements `json:"resources,omitzero"`
}

// VolumeResourceRequirements is how much storage a claim asks for: Requests
// {"storage": "10Gi"}.
type VolumeResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty"`
	Requests ResourceList `json:"requests,omitempty"`
}
