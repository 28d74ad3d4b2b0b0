package builtin

import "github.com/kubewire/kubewire/apiclient"

// ConfigMap holds configuration as text (Data) or bytes (BinaryData) (v1).
type ConfigMap struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Data                 map[string]string `json:"data,omitempty"`
	BinaryData           map[string][]byte `json:"binaryData,omitempty"`
	Immutable            *bool             `json:"immutable,omitempty"`
}

// Resource is apiclient.ConfigMaps.
func (*ConfigMap) Resource() apiclient.Resource { return apiclient.ConfigMaps }

// Secret holds credentials (v1). Data is bytes, base64 on the wire (as
// encoding/json writes a []byte); StringData is text the server moves into
// Data, and never returns.
type Secret struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Type                 string            `json:"type,omitempty"` // Opaque (the default), kubernetes.io/tls, …
	Data                 map[string][]byte `json:"data,omitempty"`
	StringData           map[string]string `json:"stringData,omitempty"`
	Immutable            *bool             `json:"immutable,omitempty"`
}

// Resource is apiclient.Secrets.
func (*Secret) Resource() apiclient.Resource { return apiclient.Secrets }
