package apitest

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
)

// kube-apiserver validates every object's metadata as apimachinery's
// ValidateObjectMeta does, with a cause per fault (FieldValueInvalid unless
// said): the name (and generateName, its trailing "-" allowed) a DNS-1123
// subdomain for most kinds — an RFC 1123 label for Namespaces, an RFC 1035
// label for Services, a path segment for RBAC's kinds —, each label key a
// qualified name ("prefix/name", the prefix a subdomain, the name at most
// 63 characters) and each value at most 63 of [-A-Za-z0-9_.], alphanumeric
// at the ends (all at "metadata.labels"); annotation keys qualified names
// too and all annotations at most 256 KiB (FieldValueTooLong); finalizers
// qualified names, and for a built-in kind either standard ("kubernetes",
// "orphan", "foregroundDeletion") or with a "/" (at "metadata.finalizers[i]").
// ConfigMaps and Secrets marked immutable keep their data and the mark
// (FieldValueForbidden), and a Secret its type (validateImmutable).

var (
	qualifiedName = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	labelValue    = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
	subdomain     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	label1123     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	label1035     = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)
)

const (
	subdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
	nameMsg      = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)

// validateMetaOf is the causes of obj's metadata (at path); embedded: an
// embedded resource's, whose name is not checked.
func validateMetaOf(obj map[string]any, path string, embedded bool) []apiclient.StatusCause {
	m, _ := obj["metadata"].(map[string]any)
	var causes []apiclient.StatusCause
	bad := func(field string, value any, msg string) {
		causes = append(causes, apiclient.StatusCause{Type: "FieldValueInvalid", Field: field, Message: fmt.Sprintf("Invalid value: %q: %s", value, msg)})
	}
	labels, _ := m["labels"].(map[string]any)
	for _, k := range sortedNames(labels) {
		for _, msg := range qualified(k) {
			bad(path+".labels", k, msg)
		}
		v, _ := labels[k].(string)
		if len(v) > 63 {
			bad(path+".labels", v, "must be no more than 63 bytes")
		}
		if !labelValue.MatchString(v) {
			bad(path+".labels", v, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character")
		}
	}
	annotations, _ := m["annotations"].(map[string]any)
	size := 0
	for _, k := range sortedNames(annotations) {
		for _, msg := range qualified(strings.ToLower(k)) {
			bad(path+".annotations", k, msg)
		}
		v, _ := annotations[k].(string)
		size += len(k) + len(v)
	}
	if size > 256<<10 {
		causes = append(causes, apiclient.StatusCause{Type: "FieldValueTooLong", Field: path + ".annotations", Message: "Too long: may not be more than 262144 bytes"})
	}
	if embedded {
		return causes
	}
	fins := asList(m["finalizers"])
	for _, f := range fins {
		s, _ := f.(string)
		for _, msg := range qualified(s) {
			bad(path+".finalizers", s, msg)
		}
	}
	if slicesContain(fins, "orphan") && slicesContain(fins, "foregroundDeletion") {
		bad(path+".finalizers", fins, "finalizer orphan and foregroundDeletion cannot be both set")
	}
	return causes
}

// validateBuiltinMeta adds to validateMetaOf's causes a built-in kind's: its
// name's rule, and finalizers standard or qualified.
func validateBuiltinMeta(coll string, o object) []apiclient.StatusCause {
	causes := validateMetaOf(o, "metadata", false)
	m := o.meta()
	for i, f := range asList(m["finalizers"]) {
		if s, _ := f.(string); !standardFinalizer(s) {
			c := apiclient.StatusCause{Type: "FieldValueInvalid", Field: fmt.Sprintf("metadata.finalizers[%d]", i),
				Message: fmt.Sprintf("Invalid value: %q: name is neither a standard finalizer name nor is it fully qualified", s)}
			causes = append(causes, c)
		}
	}
	return append(causes, validateNames(coll, m)...)
}

// standardFinalizer: a finalizer name with a "/", or one of Kubernetes' own.
func standardFinalizer(s string) bool {
	return strings.Contains(s, "/") || s == "kubernetes" || s == "orphan" || s == "foregroundDeletion"
}

// validateNames checks metadata m's name and generateName by coll's rule.
func validateNames(coll string, m map[string]any) []apiclient.StatusCause {
	var causes []apiclient.StatusCause
	for _, k := range []string{"generateName", "name"} {
		v, _ := m[k].(string)
		if v == "" {
			continue
		}
		checked := v
		if k == "generateName" {
			checked = strings.TrimSuffix(v, "-") + strings.Repeat("a", len(v)-len(strings.TrimSuffix(v, "-")))
		}
		for _, msg := range nameRule(coll, checked) {
			causes = append(causes, apiclient.StatusCause{Type: "FieldValueInvalid", Field: "metadata." + k, Message: fmt.Sprintf("Invalid value: %q: %s", v, msg)})
		}
	}
	return causes
}

// nameRule is what is wrong with name as the name of an object of coll.
func nameRule(coll, name string) []string {
	var out []string
	switch coll {
	case "namespaces", "services":
		re, what := label1123, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
		if coll == "services" {
			re, what = label1035, "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"
		}
		if len(name) > 63 {
			out = append(out, "must be no more than 63 characters")
		}
		if !re.MatchString(name) {
			out = append(out, what)
		}
	case "roles.rbac.authorization.k8s.io", "clusterroles.rbac.authorization.k8s.io", "rolebindings.rbac.authorization.k8s.io", "clusterrolebindings.rbac.authorization.k8s.io":
		if name == "." || name == ".." {
			out = append(out, fmt.Sprintf("may not be '%s'", name))
		}
		for _, bad := range []string{"/", "%"} {
			if strings.Contains(name, bad) {
				out = append(out, fmt.Sprintf("may not contain '%s'", bad))
			}
		}
	default:
		if len(name) > 253 {
			out = append(out, "must be no more than 253 characters")
		}
		if !subdomain.MatchString(name) {
			out = append(out, subdomainMsg)
		}
	}
	return out
}

// qualified is what is wrong with s as a qualified name ("prefix/name").
func qualified(s string) []string {
	var out []string
	name := s
	switch parts := strings.Split(s, "/"); len(parts) {
	case 1:
	case 2:
		prefix := parts[0]
		name = parts[1]
		switch {
		case prefix == "":
			out = append(out, "prefix part must be non-empty")
		case len(prefix) > 253:
			out = append(out, "prefix part must be no more than 253 characters")
		case !subdomain.MatchString(prefix):
			out = append(out, "prefix part "+subdomainMsg)
		}
	default:
		return []string{"a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character, with an optional DNS subdomain prefix and '/'"}
	}
	if name == "" {
		out = append(out, "name part must be non-empty")
	} else if len(name) > 63 {
		out = append(out, "name part must be no more than 63 bytes")
	}
	if !qualifiedName.MatchString(name) {
		out = append(out, nameMsg)
	}
	return out
}

// validateImmutable refuses a change of what an immutable ConfigMap or
// Secret keeps (old is stored, o the write), and of a Secret's type.
func validateImmutable(t target, kind string, old, o object) error {
	var keys []string
	switch t.collection() {
	case "configmaps":
		keys = []string{"data", "binaryData"}
	case "secrets":
		keys = []string{"data"}
	default:
		return nil
	}
	var causes []apiclient.StatusCause
	if t.collection() == "secrets" && !reflect.DeepEqual(old["type"], o["type"]) {
		causes = append(causes, apiclient.StatusCause{Type: "FieldValueInvalid", Field: "type", Message: fmt.Sprintf("Invalid value: %q: field is immutable", o["type"])})
	}
	if old["immutable"] == true {
		for _, k := range append(keys, "immutable") {
			if !deepEqualMember(old, o, k) {
				causes = append(causes, apiclient.StatusCause{Type: "FieldValueForbidden", Field: k, Message: "Forbidden: field is immutable when `immutable` is set"})
			}
		}
	}
	if len(causes) == 0 {
		return nil
	}
	name, _ := o.meta()["name"].(string)
	return invalidAll(kind, name, causes, t.group, kind)
}

func slicesContain(l []any, s string) bool {
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}
