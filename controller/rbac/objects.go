package rbac

import (
	"bytes"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// The objects Objects makes, as the API server reads them (JSON) and kubectl
// prints them (YAML, fields in this order).

// TypeMeta is an object's apiVersion and kind.
type TypeMeta struct {
	APIVersion string `json:"apiVersion" yaml:"apiVersion"`
	Kind       string `json:"kind" yaml:"kind"`
}

// ObjectMeta is as much metadata as the objects made here carry.
type ObjectMeta struct {
	Name      string            `json:"name" yaml:"name"`
	Namespace string            `json:"namespace,omitempty" yaml:"namespace,omitempty"`
	Labels    map[string]string `json:"labels,omitempty" yaml:"labels,omitempty"`
}

// Role is a Role (Namespace set) or a ClusterRole.
type Role struct {
	TypeMeta `json:",inline" yaml:",inline"`
	Metadata ObjectMeta `json:"metadata" yaml:"metadata"`
	Rules    []Rule     `json:"rules" yaml:"rules"`
}

// Binding is a RoleBinding or a ClusterRoleBinding.
type Binding struct {
	TypeMeta `json:",inline" yaml:",inline"`
	Metadata ObjectMeta `json:"metadata" yaml:"metadata"`
	RoleRef  RoleRef    `json:"roleRef" yaml:"roleRef"`
	Subjects []Subject  `json:"subjects" yaml:"subjects"`
}

// RoleRef names the Role or ClusterRole a Binding grants.
type RoleRef struct {
	APIGroup string `json:"apiGroup" yaml:"apiGroup"`
	Kind     string `json:"kind" yaml:"kind"`
	Name     string `json:"name" yaml:"name"`
}

// Subject is who a Binding grants it to: here, always a ServiceAccount.
type Subject struct {
	Kind      string `json:"kind" yaml:"kind"`
	Name      string `json:"name" yaml:"name"`
	Namespace string `json:"namespace" yaml:"namespace"`
}

// ServiceAccount names the account a process runs as: in a pod, the one its
// spec.serviceAccountName says, in the pod's namespace; its user name is
// system:serviceaccount:NAMESPACE:NAME.
type ServiceAccount struct {
	Name, Namespace string
}

// User is the name the API server knows sa by, for impersonation
// (Impersonate-User) and for a SubjectAccessReview.
func (sa ServiceAccount) User() string {
	return "system:serviceaccount:" + sa.Namespace + ":" + sa.Name
}

// Groups are the groups the API server puts sa in.
func (sa ServiceAccount) Groups() []string {
	return []string{"system:serviceaccounts", "system:serviceaccounts:" + sa.Namespace, "system:authenticated"}
}

const group = "rbac.authorization.k8s.io"

// Objects returns the Roles and ClusterRole that grant accesses, each named
// name, and a binding of each to sa: a ClusterRole and ClusterRoleBinding
// for what is cluster-wide, if anything is, then a Role and RoleBinding in
// each namespace used, in order. Each is labelled app.kubernetes.io/name=name.
func Objects(name string, sa ServiceAccount, accesses []Access) []any {
	labels := map[string]string{"app.kubernetes.io/name": name}
	subjects := []Subject{{Kind: "ServiceAccount", Name: sa.Name, Namespace: sa.Namespace}}
	var out []any
	for _, s := range Scopes(accesses) {
		role, binding := "Role", "RoleBinding"
		if s.Namespace == "" {
			role, binding = "ClusterRole", "ClusterRoleBinding"
		}
		meta := ObjectMeta{Name: name, Namespace: s.Namespace, Labels: labels}
		out = append(out,
			&Role{TypeMeta: TypeMeta{group + "/v1", role}, Metadata: meta, Rules: s.Rules},
			&Binding{TypeMeta: TypeMeta{group + "/v1", binding}, Metadata: meta,
				RoleRef: RoleRef{APIGroup: group, Kind: role, Name: name}, Subjects: subjects})
	}
	return out
}

// WriteYAML writes objs as one YAML stream, a document each, separated by
// "---" lines, with two spaces of indent: what kubectl apply -f reads.
func WriteYAML(w io.Writer, objs ...any) error {
	var b bytes.Buffer
	for i, o := range objs {
		if i > 0 {
			b.WriteString("---\n")
		}
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(o); err != nil {
			return fmt.Errorf("rbac: encode %T as YAML: %w", o, err)
		}
		if err := enc.Close(); err != nil {
			return err
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}
