package apitest

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"io"
	"strings"
	"sync"
)

// The built-in resources apitest serves, and the shapes of their objects, are
// kube-apiserver's own publications, recorded from a v1.37 server by
// internal/recordapi (never written by hand): discovery and the OpenAPI v3
// schemas, trimmed to what apitest reads and compressed. testdata/README.md
// says how each record was made.
//
//go:embed testdata/api-v1.37.json.gz
var recordedAPI []byte

// catalog is the record, parsed: what a server serves before any CRD is
// created. Read-only once built, so shared by every server of the process.
type catalog struct {
	server string
	// core and groups are /api and /apis as recorded; lists each
	// group-version's resource list ("v1", "apps/v1").
	core, groups json.RawMessage
	lists        map[string]json.RawMessage
	// resources: "group/version/plural" → the resource.
	resources map[string]*apiResource
	// schemas are the component schemas by name; kinds names the schema
	// of each "group/version/Kind".
	schemas map[string]any
	kinds   map[string]string
}

// apiResource is one resource a server serves, as discovery tells it.
type apiResource struct {
	group, version, name, singular, kind string
	namespaced                           bool
	verbs                                []string
	// subresources: "status", "scale", … → the kind they answer with.
	subresources map[string]string
	// crd is a custom resource's version in its CRD (schema, subresources);
	// nil for a built-in one.
	crd map[string]any
}

// recorded parses the record once per process, the first time a server is
// made: a program that makes none pays nothing (the demo's binary embeds
// apitest).
var recorded = sync.OnceValue(func() *catalog {
	c, err := parseCatalog(recordedAPI)
	if err != nil {
		panic("apitest: the embedded API record: " + err.Error()) // a build that cannot serve anything
	}
	return c
})

// parseCatalog reads a record written by internal/recordapi.
func parseCatalog(gz []byte) (*catalog, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	var rec struct {
		Server    string                     `json:"server"`
		Core      json.RawMessage            `json:"core"`
		Groups    json.RawMessage            `json:"groups"`
		Resources map[string]json.RawMessage `json:"resources"`
		Schemas   map[string]any             `json:"schemas"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, err
	}
	c := &catalog{server: rec.Server, core: rec.Core, groups: rec.Groups, lists: rec.Resources,
		resources: map[string]*apiResource{}, schemas: rec.Schemas, kinds: map[string]string{}}
	for gv, raw := range rec.Resources {
		var l struct {
			Resources []struct {
				Name, SingularName, Kind string
				Namespaced               bool
				Verbs                    []string
			}
		}
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, err
		}
		group, version, ok := strings.Cut(gv, "/")
		if !ok {
			group, version = "", gv
		}
		for _, r := range l.Resources {
			if !strings.Contains(r.Name, "/") {
				c.resources[group+"/"+version+"/"+r.Name] = &apiResource{group: group, version: version, name: r.Name, singular: r.SingularName,
					kind: r.Kind, namespaced: r.Namespaced, verbs: r.Verbs, subresources: map[string]string{}}
			}
		}
		for _, r := range l.Resources {
			if name, sub, isSub := strings.Cut(r.Name, "/"); isSub {
				if p := c.resources[group+"/"+version+"/"+name]; p != nil {
					p.subresources[sub] = r.Kind
				}
			}
		}
	}
	for name, s := range rec.Schemas {
		m, _ := s.(map[string]any)
		gvks, _ := m["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			gm, _ := g.(map[string]any)
			c.kinds[gm["group"].(string)+"/"+gm["version"].(string)+"/"+gm["kind"].(string)] = name
		}
	}
	return c, nil
}

// resource returns the built-in resource group/version/plural, if served.
func (c *catalog) resource(group, version, plural string) (*apiResource, bool) {
	r, ok := c.resources[group+"/"+version+"/"+plural]
	return r, ok
}

// groupServed reports whether the record serves any resource of group g ("" is
// the core group).
func (c *catalog) groupServed(g string) bool {
	for _, r := range c.resources {
		if r.group == g {
			return true
		}
	}
	return false
}
