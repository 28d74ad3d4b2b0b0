package apitest

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
)

// serveDiscovery answers the discovery documents kube-apiserver serves —
// /api, /apis, /apis/GROUP and each group-version's resource list — from the
// record (catalog.go) and the stored CRDs, and reports whether path was one.
// Legacy discovery only: a client asking for the aggregated form
// (apidiscovery.k8s.io/v2) gets the plain JSON, which kube-apiserver also
// answers a client that accepts it, and apiclient reads both.
func (l *liveState) serveDiscovery(w http.ResponseWriter, path string) bool {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	l.mu.Lock()
	crds := l.servedCRDs()
	l.mu.Unlock()
	var body any
	switch {
	case len(segs) == 1 && segs[0] == "api":
		body = l.api.core
	case len(segs) == 2 && segs[0] == "api" && segs[1] == "v1":
		body = l.api.lists["v1"]
	case len(segs) == 1 && segs[0] == "apis":
		body = l.api.groupList(crds)
	case len(segs) == 2 && segs[0] == "apis":
		g, ok := l.api.group(segs[1], crds)
		if !ok {
			return false
		}
		body = g
	case len(segs) == 3 && segs[0] == "apis":
		gv := segs[1] + "/" + segs[2]
		list, ok := l.api.resourceList(gv, crds)
		if !ok {
			return false
		}
		body = list
	default:
		return false
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(b, '\n'))
	return true
}

// servedCRD is what discovery tells of one stored CRD: its group, the versions
// it serves (storage version first, as kube-apiserver prefers it), and its
// resource entries per version. Called with l.mu held.
type servedCRD struct {
	group     string
	versions  []string
	resources map[string][]map[string]any // version → entries
}

func (l *liveState) servedCRDs() []servedCRD {
	var out []servedCRD
	for _, name := range sortedKeys(l.objects[crdCollection]) {
		crd := l.objects[crdCollection][name]
		spec, _ := crd["spec"].(map[string]any)
		names, _ := spec["names"].(map[string]any)
		c := servedCRD{resources: map[string][]map[string]any{}}
		c.group, _ = spec["group"].(string)
		for _, v := range asList(spec["versions"]) {
			vm, _ := v.(map[string]any)
			if vm["served"] != true {
				continue
			}
			ver, _ := vm["name"].(string)
			if vm["storage"] == true {
				c.versions = append([]string{ver}, c.versions...)
			} else {
				c.versions = append(c.versions, ver)
			}
			main := map[string]any{"name": names["plural"], "singularName": names["singular"], "namespaced": spec["scope"] != "Cluster",
				"kind": names["kind"], "verbs": []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}}
			for _, k := range []string{"shortNames", "categories"} {
				if x, ok := names[k]; ok {
					main[k] = x
				}
			}
			entries := []map[string]any{main}
			sub, _ := vm["subresources"].(map[string]any)
			if _, ok := sub["status"]; ok {
				entries = append(entries, map[string]any{"name": names["plural"].(string) + "/status", "singularName": "", "namespaced": main["namespaced"],
					"kind": names["kind"], "verbs": []string{"get", "patch", "update"}})
			}
			if _, ok := sub["scale"]; ok {
				entries = append(entries, map[string]any{"name": names["plural"].(string) + "/scale", "singularName": "", "namespaced": main["namespaced"],
					"group": "autoscaling", "version": "v1", "kind": "Scale", "verbs": []string{"get", "patch", "update"}})
			}
			c.resources[ver] = entries
		}
		if len(c.versions) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// groupList is /apis: the recorded groups, then the CRDs' groups in order of
// name (kube-apiserver orders them by priority, which CRDs share).
func (c *catalog) groupList(crds []servedCRD) any {
	var l struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
		Groups     []any  `json:"groups"`
	}
	json.Unmarshal(c.groups, &l)
	seen := map[string]bool{}
	var names []string
	for _, crd := range crds {
		if !seen[crd.group] {
			seen[crd.group] = true
			names = append(names, crd.group)
		}
	}
	sort.Strings(names)
	for _, g := range names {
		grp, _ := c.group(g, crds)
		l.Groups = append(l.Groups, grp)
	}
	return l
}

// group is /apis/NAME: an APIGroup, from the record or the CRDs of the group.
func (c *catalog) group(name string, crds []servedCRD) (map[string]any, bool) {
	var l struct {
		Groups []map[string]any `json:"groups"`
	}
	json.Unmarshal(c.groups, &l)
	for _, g := range l.Groups {
		if g["name"] == name {
			g["kind"], g["apiVersion"] = "APIGroup", "v1"
			return g, true
		}
	}
	var versions []any
	seen := map[string]bool{}
	for _, crd := range crds {
		if crd.group != name {
			continue
		}
		for _, v := range crd.versions {
			if !seen[v] {
				seen[v] = true
				versions = append(versions, map[string]any{"groupVersion": name + "/" + v, "version": v})
			}
		}
	}
	if len(versions) == 0 {
		return nil, false
	}
	return map[string]any{"kind": "APIGroup", "apiVersion": "v1", "name": name, "versions": versions, "preferredVersion": versions[0]}, true
}

// resourceList is /apis/GROUP/VERSION: the recorded list, or the CRDs'.
func (c *catalog) resourceList(gv string, crds []servedCRD) (any, bool) {
	if raw, ok := c.lists[gv]; ok {
		return raw, true
	}
	var entries []map[string]any
	for _, crd := range crds {
		g, v, _ := strings.Cut(gv, "/")
		if crd.group == g {
			entries = append(entries, crd.resources[v]...)
		}
	}
	if entries == nil {
		return nil, false
	}
	return map[string]any{"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": entries}, true
}
