package builtin

import "github.com/kubewire/kubewire/apiclient"

// ServiceAccount is an identity for the pods that name it (v1).
type ServiceAccount struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta         `json:"metadata"`
	AutomountServiceAccountToken *bool                  `json:"automountServiceAccountToken,omitempty"`
	ImagePullSecrets             []LocalObjectReference `json:"imagePullSecrets,omitempty"`
}

// Resource is apiclient.ServiceAccounts.
func (*ServiceAccount) Resource() apiclient.Resource { return apiclient.ServiceAccounts }

// Role grants Rules in its namespace (rbac.authorization.k8s.io/v1).
type Role struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Rules                []PolicyRule `json:"rules,omitempty"`
}

// Resource is apiclient.Roles.
func (*Role) Resource() apiclient.Resource { return apiclient.Roles }

// ClusterRole grants Rules in every namespace, and on cluster-scoped
// resources, to whom a ClusterRoleBinding names; a RoleBinding grants them in
// its own namespace only.
type ClusterRole struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Rules                []PolicyRule `json:"rules,omitempty"`
}

// Resource is apiclient.ClusterRoles.
func (*ClusterRole) Resource() apiclient.Resource { return apiclient.ClusterRoles }

// PolicyRule allows Verbs on Resources of APIGroups ("" is the core group),
// only those named ResourceNames when it is set; or, in a ClusterRole, on
// NonResourceURLs ("/healthz").
type PolicyRule struct {
	APIGroups       []string `json:"apiGroups,omitempty"`
	Resources       []string `json:"resources,omitempty"` // "deployments", "deployments/status"
	Verbs           []string `json:"verbs,omitempty"`     // get, list, watch, create, update, patch, delete
	ResourceNames   []string `json:"resourceNames,omitempty"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
}

// RoleBinding grants the Role or ClusterRole RoleRef to Subjects in its
// namespace.
type RoleBinding struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	RoleRef              RoleRef   `json:"roleRef,omitzero"`
	Subjects             []Subject `json:"subjects,omitempty"`
}

// Resource is apiclient.RoleBindings.
func (*RoleBinding) Resource() apiclient.Resource { return apiclient.RoleBindings }

// ClusterRoleBinding grants the ClusterRole RoleRef to Subjects everywhere.
type ClusterRoleBinding struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	RoleRef              RoleRef   `json:"roleRef,omitzero"`
	Subjects             []Subject `json:"subjects,omitempty"`
}

// Resource is apiclient.ClusterRoleBindings.
func (*ClusterRoleBinding) Resource() apiclient.Resource { return apiclient.ClusterRoleBindings }

// RoleRef names the role a binding grants; it cannot change once created.
type RoleRef struct {
	APIGroup string `json:"apiGroup,omitempty"` // rbac.authorization.k8s.io
	Kind     string `json:"kind,omitempty"`     // Role or ClusterRole
	Name     string `json:"name,omitempty"`
}

// Subject is who a binding grants to: Kind ServiceAccount (Name, Namespace),
// User or Group (Name, APIGroup rbac.authorization.k8s.io).
type Subject struct {
	Kind      string `json:"kind,omitempty"`
	APIGroup  string `json:"apiGroup,omitempty"`
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}
