package apitest

import "time"

// A CustomResourceDefinition makes its resource served (path.go's served,
// discovery.go) at once: apitest has no controllers, so it does at the create
// what kube-apiserver's naming and establishing controllers do a moment later
// — it accepts the names and sets the NamesAccepted and Established
// conditions — and at the deletion what its finalizer does: the custom
// resources go (a DELETED event each), then the CRD.

// crdStatus is a new CRD's status: its names accepted, established, its
// storage version stored.
func crdStatus(crd object, now time.Time) map[string]any {
	spec, _ := crd["spec"].(map[string]any)
	var stored []any
	for _, v := range asList(spec["versions"]) {
		if vm, _ := v.(map[string]any); vm["storage"] == true {
			stored = append(stored, vm["name"])
		}
	}
	at := now.UTC().Format(time.RFC3339)
	cond := func(typ, reason, msg string) map[string]any {
		return map[string]any{"type": typ, "status": "True", "lastTransitionTime": at, "reason": reason, "message": msg}
	}
	return map[string]any{
		"acceptedNames": spec["names"],
		"conditions": []any{
			cond("NamesAccepted", "NoConflicts", "no conflicts found"),
			cond("Established", "InitialNamesAccepted", "the initial names have been accepted"),
		},
		"storedVersions": stored,
	}
}

// dropCustomResources deletes every object of the resource crd defined, as
// its cleanup finalizer does before the CRD goes. Called with l.mu held.
func (l *liveState) dropCustomResources(crd object) {
	spec, _ := crd["spec"].(map[string]any)
	names, _ := spec["names"].(map[string]any)
	plural, _ := names["plural"].(string)
	group, _ := spec["group"].(string)
	coll := plural + "." + group
	for _, k := range sortedKeys(l.objects[coll]) {
		o := l.objects[coll][k]
		delete(l.objects[coll], k)
		delete(l.residue, coll+"/"+k)
		l.record("DELETED", coll, o, nil)
	}
}
