package apitest

import (
	"encoding/json"
	"testing"

	"github.com/kubewire/kubewire/apiclient/clock"
)

// Which webhooks a write is sent to: rules (operations, groups, versions,
// resource and subresource forms, scope), the namespace selector (on the
// namespace's labels and its kubernetes.io/metadata.name) and the object
// selector (the new object's labels or the old one's).
func TestWebhook_matches_as_kube_apiserver_selects(t *testing.T) {
	l := &liveState{}
	l.init(clock.NewFake(), nil)
	l.collection("namespaces")["prod"] = object{"metadata": map[string]any{"name": "prod", "labels": map[string]any{"env": "prod"}}}
	site := func(labels map[string]any) object {
		return object{"metadata": map[string]any{"name": "a", "labels": labels}}
	}
	sites := target{group: "example.com", version: "v1", namespace: "prod", resource: "sites", name: "a"}
	status := sites
	status.sub = "status"
	other := sites
	other.version = "v2"
	cluster := target{group: "example.com", version: "v1", resource: "sites", name: "a"}
	config := target{group: "admissionregistration.k8s.io", version: "v1", resource: "validatingwebhookconfigurations", name: "a"}
	nsObj := target{version: "v1", resource: "namespaces", name: "prod"}
	rule := `{"operations":["CREATE","UPDATE"],"apiGroups":["example.com"],"apiVersions":["v1"],"resources":["sites"]}`
	for _, c := range []struct {
		name, hook string
		a          admissionAttrs
		want       bool
	}{
		{"the rule's resource", `{"rules":[` + rule + `]}`, admissionAttrs{op: "CREATE", t: sites, obj: site(nil)}, true},
		{"another operation", `{"rules":[` + rule + `]}`, admissionAttrs{op: "DELETE", t: sites, old: site(nil)}, false},
		{"another version (matchPolicy Exact)", `{"rules":[` + rule + `]}`, admissionAttrs{op: "CREATE", t: other, obj: site(nil)}, false},
		{"a subresource, by the resource alone", `{"rules":[` + rule + `]}`, admissionAttrs{op: "UPDATE", t: status, obj: site(nil), old: site(nil)}, false},
		{"a subresource, named", `{"rules":[{"operations":["*"],"apiGroups":["*"],"apiVersions":["*"],"resources":["sites/status"]}]}`, admissionAttrs{op: "UPDATE", t: status, obj: site(nil), old: site(nil)}, true},
		{"*/status", `{"rules":[{"operations":["*"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*/status"]}]}`, admissionAttrs{op: "UPDATE", t: status, obj: site(nil), old: site(nil)}, true},
		{"* is no subresource", `{"rules":[{"operations":["*"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*"]}]}`, admissionAttrs{op: "UPDATE", t: status, obj: site(nil), old: site(nil)}, false},
		{"scope Cluster, a namespaced write", `{"rules":[{"operations":["*"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*"],"scope":"Cluster"}]}`, admissionAttrs{op: "CREATE", t: sites, obj: site(nil)}, false},
		{"scope Cluster, a cluster write", `{"rules":[{"operations":["*"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*"],"scope":"Cluster"}]}`, admissionAttrs{op: "CREATE", t: cluster, obj: site(nil)}, true},
		{"the configurations of admission", `{"rules":[{"operations":["*"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*"]}]}`, admissionAttrs{op: "CREATE", t: config, obj: site(nil)}, false},
		{"namespace labels", `{"rules":[` + rule + `],"namespaceSelector":{"matchLabels":{"env":"prod"}}}`, admissionAttrs{op: "CREATE", t: sites, obj: site(nil)}, true},
		{"namespace labels, not", `{"rules":[` + rule + `],"namespaceSelector":{"matchExpressions":[{"key":"env","operator":"NotIn","values":["prod"]}]}}`, admissionAttrs{op: "CREATE", t: sites, obj: site(nil)}, false},
		{"the namespace's name label", `{"rules":[` + rule + `],"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"prod"}}}`, admissionAttrs{op: "CREATE", t: sites, obj: site(nil)}, true},
		{"a namespace not held has its name label", `{"rules":[{"operations":["*"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*"]}],"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"dev"}}}`, admissionAttrs{op: "CREATE", t: func() target { s := sites; s.namespace = "dev"; return s }(), obj: site(nil)}, true},
		{"a namespace by its own labels", `{"rules":[{"operations":["*"],"apiGroups":[""],"apiVersions":["v1"],"resources":["namespaces"]}],"namespaceSelector":{"matchExpressions":[{"key":"team","operator":"Exists"}]}}`, admissionAttrs{op: "CREATE", t: nsObj, obj: site(map[string]any{"team": "a"})}, true},
		{"a cluster object, whatever the namespace selector", `{"rules":[{"operations":["*"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*"]}],"namespaceSelector":{"matchLabels":{"env":"none"}}}`, admissionAttrs{op: "CREATE", t: cluster, obj: site(nil)}, true},
		{"object labels", `{"rules":[` + rule + `],"objectSelector":{"matchLabels":{"x":"1"}}}`, admissionAttrs{op: "CREATE", t: sites, obj: site(map[string]any{"x": "1"})}, true},
		{"object without the label", `{"rules":[` + rule + `],"objectSelector":{"matchLabels":{"x":"1"}}}`, admissionAttrs{op: "CREATE", t: sites, obj: site(nil)}, false},
		{"the old object's labels", `{"rules":[` + rule + `],"objectSelector":{"matchLabels":{"x":"1"}}}`, admissionAttrs{op: "UPDATE", t: sites, obj: site(nil), old: site(map[string]any{"x": "1"})}, true},
		{"a delete, by the old object", `{"rules":[{"operations":["DELETE"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*"]}],"objectSelector":{"matchExpressions":[{"key":"x","operator":"In","values":["1","2"]}]}}`, admissionAttrs{op: "DELETE", t: sites, old: site(map[string]any{"x": "2"})}, true},
	} {
		var h admissionWebhook
		if err := json.Unmarshal([]byte(c.hook), &h); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := l.matches(h, c.a); got != c.want {
			t.Errorf("%s: matches %v, want %v", c.name, got, c.want)
		}
	}
}
