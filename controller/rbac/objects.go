package rbac

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/builtin"
	"gopkg.in/yaml.v3"

	"github.com/kubewire/kubewire/controller/internal/yamlout"
)

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
// each namespace used, in order. Each is labelled app.kubernetes.io/name=name;
// each is one of apiclient/builtin's kinds.
func Objects(name string, sa ServiceAccount, accesses []Access) []any {
	labels := map[string]string{"app.kubernetes.io/name": name}
	subjects := []builtin.Subject{{Kind: "ServiceAccount", Name: sa.Name, Namespace: sa.Namespace}}
	typed := func(kind string) apiclient.TypeMeta { return apiclient.TypeMeta{APIVersion: group + "/v1", Kind: kind} }
	var out []any
	for _, s := range Scopes(accesses) {
		meta := apiclient.ObjectMeta{Name: name, Namespace: s.Namespace, Labels: labels}
		if s.Namespace == "" {
			ref := builtin.RoleRef{APIGroup: group, Kind: "ClusterRole", Name: name}
			out = append(out,
				&builtin.ClusterRole{TypeMeta: typed("ClusterRole"), ObjectMeta: meta, Rules: s.Rules},
				&builtin.ClusterRoleBinding{TypeMeta: typed("ClusterRoleBinding"), ObjectMeta: meta, RoleRef: ref, Subjects: subjects})
			continue
		}
		ref := builtin.RoleRef{APIGroup: group, Kind: "Role", Name: name}
		out = append(out,
			&builtin.Role{TypeMeta: typed("Role"), ObjectMeta: meta, Rules: s.Rules},
			&builtin.RoleBinding{TypeMeta: typed("RoleBinding"), ObjectMeta: meta, RoleRef: ref, Subjects: subjects})
	}
	return out
}

// WriteYAML writes objs as one YAML stream, a document each, separated by
// "---" lines, with two spaces of indent: what kubectl apply -f reads. Each
// object is written as its JSON would be — the API's field names, in the Go
// type's order, apiVersion first as kubectl prints it — in block style, a
// rule's lists on one line. A *yaml.Node is written as it is, if it is of what
// a tree read from JSON holds (mappings, sequences, scalars without a style;
// see package yamlout); another is an error.
//
// The text is what yaml.v3's Encoder, indent 2, writes for the same tree,
// byte for byte; it is written by yamlout so that the encoder stays out of the
// command's binary (issue 42).
func WriteYAML(w io.Writer, objs ...any) error {
	var b bytes.Buffer
	for i, o := range objs {
		if i > 0 {
			b.WriteString("---\n")
		}
		n, ok := o.(*yaml.Node)
		if !ok {
			data, err := json.Marshal(o)
			if err != nil {
				return fmt.Errorf("rbac: encode %T: %w", o, err)
			}
			n = new(yaml.Node)
			if err := yaml.Unmarshal(data, n); err != nil {
				return fmt.Errorf("rbac: encode %T: %w", o, err)
			}
			kubectlStyle(n)
		}
		text, err := yamlout.Node(n)
		if err != nil {
			return fmt.Errorf("rbac: encode %T as YAML: %w", o, err)
		}
		b.WriteString(text)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// kubectlStyle makes n, read from JSON, print as kubectl prints an object —
// block style, apiVersion before kind — but for a rule's lists, on one line.
func kubectlStyle(n *yaml.Node) {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		top := n.Content[0]
		if top.Kind == yaml.MappingNode && len(top.Content) >= 4 &&
			top.Content[0].Value == "kind" && top.Content[2].Value == "apiVersion" {
			top.Content[0], top.Content[1], top.Content[2], top.Content[3] = top.Content[2], top.Content[3], top.Content[0], top.Content[1]
		}
	}
	BlockStyle(n)
	flowRules(n)
}

// flowRules puts a rule's lists on one line each, as they read best:
// "verbs: [create, list, watch]".
func flowRules(n *yaml.Node) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			switch k, v := n.Content[i], n.Content[i+1]; k.Value {
			case "apiGroups", "resources", "verbs", "resourceNames", "nonResourceURLs":
				if v.Kind == yaml.SequenceNode {
					v.Style = yaml.FlowStyle
				}
			}
		}
	}
	for _, c := range n.Content {
		flowRules(c)
	}
}

// BlockStyle makes n, read from JSON, print as block YAML: mappings and
// sequences unfolded, strings quoted only where YAML needs it.
func BlockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		BlockStyle(c)
	}
}
