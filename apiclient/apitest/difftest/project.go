package difftest

import (
	"fmt"
	"strings"
)

// kube-apiserver defaults the built-in kinds as it decodes them: a Deployment
// gets a strategy, a revisionHistoryLimit, a restartPolicy and a dozen more; a
// Pod gets a scheduler name, tolerations, a QoS class. apitest does no
// defaulting (its doc lists this first among its divergences), so for those
// kinds the harness compares a shape: the fields a sequence writes, and all
// the metadata. The same shape cuts the managedFields, since an Update's
// fieldsV1 names the defaulted fields too.

// keep is a shape: the members of an object to keep, each with the shape of
// its value; a nil shape keeps the whole value. "[]" is the shape of a list's
// items.
type keep map[string]keep

// A container's resources are kept for the quantities class (gen_class.go);
// the real server defaults them to {}, which the shape drops (emptyResources).
var containerShape = keep{"name": nil, "image": nil, "env": nil, "args": nil, "resources": keep{"requests": nil, "limits": nil}}

var deploymentShape = keep{
	"apiVersion": nil, "kind": nil, "metadata": nil, "status": nil,
	"spec": keep{"replicas": nil, "selector": nil, "paused": nil,
		"template": keep{"metadata": keep{"labels": nil, "annotations": nil},
			"spec": keep{"containers": keep{"[]": containerShape}}}},
}

// A Pod's conditions carry lastProbeTime and lastTransitionTime always, null
// when unset (the Go type has no omitempty for them): the shape leaves them out.
var podShape = keep{
	"apiVersion": nil, "kind": nil, "metadata": nil,
	"spec":   keep{"containers": keep{"[]": containerShape}},
	"status": keep{"phase": nil, "conditions": keep{"[]": keep{"type": nil, "status": nil, "reason": nil, "message": nil}}, "message": nil, "reason": nil},
}

// deploymentDefaults drops replicas 1 (the default) and an empty status (a
// created Deployment's, on the real server).
func deploymentDefaults(obj map[string]any) {
	if spec, ok := obj["spec"].(map[string]any); ok && fmt.Sprint(spec["replicas"]) == "1" {
		delete(spec, "replicas")
	}
	dropEmpty(obj, "status")
	emptyResources(obj)
}

// serviceDefaults drops a port's targetPort where it is the port: the real
// server gives that default to a port left without one (an apply that prunes
// the targetPort it owned), apitest none.
func serviceDefaults(obj map[string]any) {
	spec, _ := obj["spec"].(map[string]any)
	for _, p := range asList(spec["ports"]) {
		if pm, ok := p.(map[string]any); ok && fmt.Sprint(pm["targetPort"]) == fmt.Sprint(pm["port"]) {
			delete(pm, "targetPort")
		}
	}
}

// podDefaults drops phase Pending (what a created Pod gets) and an empty status.
func podDefaults(obj map[string]any) {
	if st, ok := obj["status"].(map[string]any); ok && st["phase"] == "Pending" {
		delete(st, "phase")
	}
	dropEmpty(obj, "status")
	emptyResources(obj)
}

// emptyResources drops the resources: {} the real server gives every
// container of a Pod or a Deployment's template that has none.
func emptyResources(obj map[string]any) {
	spec, _ := obj["spec"].(map[string]any)
	if t, ok := spec["template"].(map[string]any); ok {
		spec, _ = t["spec"].(map[string]any)
	}
	cs, _ := spec["containers"].([]any)
	for _, c := range cs {
		if cm, ok := c.(map[string]any); ok {
			dropEmpty(cm, "resources")
		}
	}
}

func dropEmpty(obj map[string]any, key string) {
	if m, ok := obj[key].(map[string]any); ok && len(m) == 0 {
		delete(obj, key)
	}
}

// projectJSON cuts v down to shape k, in place.
func projectJSON(v any, k keep) {
	if k == nil {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for name, child := range v {
			ck, ok := k[name]
			if !ok {
				delete(v, name)
				continue
			}
			projectJSON(child, ck)
		}
	case []any:
		for _, item := range v {
			projectJSON(item, k["[]"])
		}
	}
}

// projectFields cuts a managedFields entry's fieldsV1 down to shape k, in
// place: "f:name" is member name, "k:…", "v:…" and "i:…" are list items, "."
// the node itself. A node left empty by the cut goes too.
func projectFields(f map[string]any, k keep) {
	if k == nil {
		return
	}
	for key, child := range f {
		var ck keep
		var ok bool
		switch {
		case key == ".":
			continue
		case strings.HasPrefix(key, "f:"):
			ck, ok = k[key[2:]]
		default:
			ck, ok = k["[]"]
		}
		if !ok {
			delete(f, key)
			continue
		}
		if cm, isMap := child.(map[string]any); isMap && len(cm) > 0 {
			projectFields(cm, ck)
			if len(cm) == 0 {
				delete(f, key)
			}
		} else if isMap && ck != nil && key == "f:resources" {
			delete(f, key) // a container's defaulted resources: {} (emptyResources)
		}
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
