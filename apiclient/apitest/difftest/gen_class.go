package difftest

import (
	"math/rand/v2"
	"net/url"
	"strings"
)

// Classes are the kinds of request a controller's author meets outside the
// universe's steps (apitest's issue 37 lists them): each makes sequences of
// a few universe writes and raw steps (raw.go) that probe one class. They are
// run by TestClasses, class by class, so that the divergences are counted
// per class.
var Classes = []string{
	"unknown-resource",  // a typo'd plural, a wrong group, a version not served, a CRD not installed
	"collection-delete", // DELETE of a collection: selectors, dry run, finalizers
	"create-with-rv",    // a create whose body carries a resourceVersion
	"body-url",          // a body whose namespace, name or kind is not its URL's
	"generate-name",     // a long generateName, cut so that the name stays within 63
	"rv0-limit",         // a LIST at resourceVersion 0 with a limit
	"too-large-rv",      // a GET or LIST at a version the server has not reached
	"params",            // parameters the server refuses
	"unknown-fields",    // fields no schema has, under each fieldValidation
	"quantities",        // resource quantities, canonicalised
	"times",             // a Lease's date-times and micro-times; its update without a version
	"secrets",           // a Secret's stringData and data that is not base64
	"crd-schema",        // a custom resource pruned, checked and defaulted by its CRD's schema
	"meta-validation",   // names, labels, annotations and finalizers validated
	"immutable",         // immutable ConfigMaps and Secrets
	"scale",             // a custom resource's scale subresource
	"merge-keys",        // a Service's ports, keyed by port and protocol, under apply and strategic merge
	"owner-refs",        // ownerReferences applied by two managers: each reference one atomic item
	"namespaces",        // a create in a missing namespace, a namespace's deletion, creates in one terminating
}

// GenerateClass returns the sequence of seed for class, always the same one:
// a few writes of the universe, then one to three probes of the class, a read
// between them now and then.
func GenerateClass(class string, seed uint64) Sequence {
	g := &gen{rnd: rand.New(rand.NewPCG(seed, seed^0x5bd1e9955bd1e995))}
	probe := classProbes[class]
	if probe == nil {
		panic("difftest: no class " + class)
	}
	seq := Sequence{Seed: seed}
	res := pick(g, []string{"configmaps", "configmaps", "widgets"})
	if class == "quantities" {
		res = pick(g, []string{"pods", "deployments"})
	}
	for range g.rnd.IntN(3) {
		seq.Steps = append(seq.Steps, Step{Do: "create", Res: res, Body: js(g.object(res, pick(g, []string{"a", "b"}), true))})
	}
	for range 1 + g.rnd.IntN(3) {
		seq.Steps = append(seq.Steps, probe(g, res)...)
		if g.rnd.IntN(3) == 0 {
			seq.Steps = append(seq.Steps, Step{Do: "list", Res: res})
		}
	}
	return seq
}

var classProbes = map[string]func(g *gen, res string) []Step{
	"unknown-resource":  (*gen).unknownResource,
	"collection-delete": (*gen).collectionDelete,
	"create-with-rv":    (*gen).createWithRV,
	"body-url":          (*gen).bodyURL,
	"generate-name":     (*gen).generateName,
	"rv0-limit":         (*gen).rv0Limit,
	"too-large-rv":      (*gen).tooLargeRV,
	"params":            (*gen).params,
	"unknown-fields":    (*gen).unknownFields,
	"quantities":        (*gen).quantities,
	"times":             (*gen).times,
	"secrets":           (*gen).secrets,
	"crd-schema":        (*gen).crdSchema,
	"meta-validation":   (*gen).metaValidation,
	"immutable":         (*gen).immutable,
	"scale":             (*gen).scale,
	"merge-keys":        (*gen).mergeKeys,
	"owner-refs":        (*gen).ownerRefs,
	"namespaces":        (*gen).namespaces,
}

func (g *gen) unknownResource(res string) []Step {
	path := pick(g, []string{
		"/api/v1/namespaces/{ns}/configmap",                              // the singular
		"/api/v1/namespaces/{ns}/configmapz",                             // a typo
		"/apis/apps/v1/namespaces/{ns}/deployment",                       // the singular
		"/apis/apps/v1/namespaces/{ns}/configmaps",                       // a wrong group
		"/api/v1/namespaces/{ns}/deployments",                            // the core group
		"/apis/apps/v2/namespaces/{ns}/deployments",                      // a version not served
		"/api/v2/namespaces/{ns}/configmaps",                             // a version not served
		"/apis/difftest.kubewire.dev/v2/namespaces/{ns}/widgets",         // a version the CRD lacks
		"/apis/gadgets.kubewire.dev/v1/namespaces/{ns}/gadgets",          // a CRD not installed
		"/apis/difftest.kubewire.dev/v1/namespaces/{ns}/widgets/a/scale", // no scale subresource
	})
	switch g.rnd.IntN(4) {
	case 0:
		return []Step{{Do: "raw", Res: res, Method: "GET", Path: path}}
	case 1:
		return []Step{{Do: "raw", Res: res, Method: "GET", Path: path + "/a"}}
	case 2:
		return []Step{{Do: "raw", Res: res, Method: "DELETE", Path: path + "/a"}}
	}
	return []Step{{Do: "raw", Res: res, Method: "POST", Path: path, Body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k1":"x"}}`}}
}

func (g *gen) collectionDelete(res string) []Step {
	var steps []Step
	// Objects for the delete to find: one held by a finalizer now and then.
	obj := g.object(res, pick(g, []string{"a", "b"}), true)
	if g.rnd.IntN(3) == 0 {
		obj["metadata"].(map[string]any)["finalizers"] = []any{"example.com/f1"}
	}
	steps = append(steps, Step{Do: "create", Res: res, Body: js(obj)})
	q := url.Values{}
	switch g.rnd.IntN(4) {
	case 0:
		q.Set("labelSelector", "sel=on")
	case 1:
		q.Set("fieldSelector", "metadata.name=a")
	case 2:
		q.Set("labelSelector", "sel!=on")
	}
	if g.rnd.IntN(4) == 0 {
		q.Set("dryRun", "All")
	}
	steps = append(steps, Step{Do: "raw", Res: res, Method: "DELETE", Path: coll(res), Query: q.Encode()})
	return append(steps, Step{Do: "list", Res: res})
}

func (g *gen) createWithRV(res string) []Step {
	obj := g.object(res, pick(g, []string{"a", "b"}), true)
	obj["metadata"].(map[string]any)["resourceVersion"] = pick(g, []string{"1", "12345"})
	return []Step{{Do: "create", Res: res, Body: js(obj)}}
}

func (g *gen) bodyURL(res string) []Step {
	obj := g.object(res, "a", true)
	m := obj["metadata"].(map[string]any)
	switch g.rnd.IntN(6) {
	case 0: // PUT with another name
		m["name"] = "b"
		return []Step{{Do: "raw", Res: res, Method: "PUT", Name: "a", Body: js(obj)}}
	case 1: // PUT with another namespace
		m["namespace"] = "elsewhere"
		return []Step{{Do: "raw", Res: res, Method: "PUT", Name: "a", Body: js(obj)}}
	case 2: // POST with another namespace
		m["namespace"] = "elsewhere"
		return []Step{{Do: "raw", Res: res, Method: "POST", Path: coll(res), Body: js(obj)}}
	case 3: // a merge patch that renames
		return []Step{{Do: "raw", Res: res, Method: "PATCH", Type: "merge", Name: "a", Body: `{"metadata":{"name":"b"}}`}}
	case 4: // a merge patch that moves
		return []Step{{Do: "raw", Res: res, Method: "PATCH", Type: "merge", Name: "a", Body: `{"metadata":{"namespace":"elsewhere"}}`}}
	}
	// a merge patch that changes the kind
	return []Step{{Do: "raw", Res: res, Method: "PATCH", Type: "merge", Name: "a", Body: `{"kind":"Secret"}`}}
}

func (g *gen) generateName(res string) []Step {
	obj := g.object(res, "", true)
	m := obj["metadata"].(map[string]any)
	delete(m, "name")
	m["generateName"] = strings.Repeat("g", pick(g, []int{50, 57, 58, 59, 62, 63})) + "-"
	return []Step{{Do: "raw", Res: res, Method: "POST", Path: coll(res), Body: js(obj)}}
}

func (g *gen) rv0Limit(res string) []Step {
	return []Step{
		{Do: "create", Res: res, Body: js(g.object(res, "a", true))},
		{Do: "create", Res: res, Body: js(g.object(res, "b", true))},
		// A LIST at 0 may be served from a watch cache behind the last write
		// (any version will do, and the real server sometimes answers from
		// before b): a consistent LIST first, which a 1.31+ server serves from
		// its cache only once the cache has caught up, so that what is compared
		// is the limit being ignored, not how far behind the cache happens to be.
		{Do: "raw", Res: res, Method: "GET", Path: coll(res)},
		{Do: "raw", Res: res, Method: "GET", Path: coll(res), Query: pick(g, []string{"resourceVersion=0&limit=1", "resourceVersion=0&limit=1&resourceVersionMatch=NotOlderThan", "limit=1"})},
	}
}

func (g *gen) tooLargeRV(res string) []Step {
	steps := []Step{{Do: "create", Res: res, Body: js(g.object(res, "a", true))}}
	if g.rnd.IntN(2) == 0 {
		return append(steps, Step{Do: "raw", Res: res, Method: "GET", Name: "a", Query: "resourceVersion=999999999999"})
	}
	return append(steps, Step{Do: "raw", Res: res, Method: "GET", Path: coll(res), Query: pick(g, []string{"resourceVersion=999999999999", "resourceVersion=999999999999&resourceVersionMatch=NotOlderThan"})})
}

func (g *gen) params(res string) []Step {
	all := coll(res)
	obj := g.object(res, "a", true)
	switch g.rnd.IntN(10) {
	case 0:
		return []Step{{Do: "raw", Res: res, Method: "GET", Path: all, Query: pick(g, []string{"resourceVersionMatch=NotOlderThan", "resourceVersionMatch=Exact", "resourceVersionMatch=Bogus&resourceVersion=0"})}}
	case 1:
		return []Step{{Do: "raw", Res: res, Method: "GET", Path: all, Query: "watch=1&timeoutSeconds=1&resourceVersion=0&resourceVersionMatch=NotOlderThan"}}
	case 2:
		return []Step{{Do: "raw", Res: res, Method: "GET", Path: all, Query: pick(g, []string{"sendInitialEvents=true", "sendInitialEvents=false"})}}
	case 3:
		return []Step{
			{Do: "create", Res: res, Body: js(obj)},
			{Do: "raw", Res: res, Method: "DELETE", Name: "a", Query: "dryRun=Bogus"},
			{Do: "get", Res: res, Name: "a"},
		}
	case 4:
		return []Step{{Do: "raw", Res: res, Method: "POST", Path: all, Query: "dryRun=Bogus", Body: js(obj)}}
	case 5:
		return []Step{{Do: "raw", Res: res, Method: "PATCH", Type: "apply", Name: "a", Body: js(obj)}}
	case 6:
		return []Step{{Do: "raw", Res: res, Method: "PATCH", Type: "apply", Name: "a", Query: "fieldManager=" + strings.Repeat("m", pick(g, []int{128, 129})), Body: js(obj)}}
	case 7:
		return []Step{
			{Do: "create", Res: res, Body: js(obj)},
			{Do: "raw", Res: res, Method: "PATCH", Type: pick(g, []string{"merge", "strategic"}), Name: "a", Query: "force=true", Body: `{"metadata":{"labels":{"x":"1"}}}`},
		}
	case 8:
		return []Step{{Do: "raw", Res: res, Method: "POST", Path: all, Query: "fieldManager=" + strings.Repeat("m", pick(g, []int{128, 129})), Body: js(obj)}}
	}
	// (Not resourceVersion=x: kube-apiserver 1.32 answers such a LIST 500,
	// 1.37 and apitest 400; apitest's Divergences 7.)
	return []Step{{Do: "raw", Res: res, Method: "GET", Path: all, Query: pick(g, []string{"limit=-1", "limit=x", "timeoutSeconds=x"})}}
}

func (g *gen) unknownFields(res string) []Step {
	obj := g.object(res, "a", true)
	where := g.rnd.IntN(3)
	switch where {
	case 0:
		obj["extra"] = "x"
	case 1:
		obj["metadata"].(map[string]any)["extra"] = "x"
	default:
		if res == "widgets" {
			obj["status"] = map[string]any{"phase": "Ready"} // the status subresource's: dropped
		} else {
			obj["extra"] = map[string]any{"deep": 1}
		}
	}
	q := ""
	if v := pick(g, []string{"", "", "Ignore", "Warn", "Strict", "Bogus"}); v != "" {
		q = "fieldValidation=" + v
	}
	body := js(obj)
	if g.rnd.IntN(6) == 0 {
		// A field twice: the later one counts, and Strict refuses it.
		body = strings.TrimSuffix(body, "}") + `,"metadata":{"name":"a","labels":{"dup":"1"}}}`
	}
	switch g.rnd.IntN(4) {
	case 0:
		return []Step{{Do: "raw", Res: res, Method: "POST", Path: coll(res), Query: q, Body: body}}
	case 1:
		return []Step{
			{Do: "create", Res: res, Body: js(g.object(res, "a", true))},
			{Do: "raw", Res: res, Method: "PUT", Name: "a", Query: q, Body: body},
		}
	case 2:
		return []Step{
			{Do: "create", Res: res, Body: js(g.object(res, "a", true))},
			{Do: "raw", Res: res, Method: "PATCH", Type: "merge", Name: "a", Query: q, Body: `{"extra":"x","metadata":{"labels":{"x":"2"}}}`},
		}
	}
	if q != "" {
		q += "&"
	}
	return []Step{{Do: "raw", Res: res, Method: "PATCH", Type: "apply", Name: "a", Query: q + "fieldManager=alice", Body: body}}
}

func (g *gen) quantities(res string) []Step {
	req := map[string]any{}
	if g.rnd.IntN(3) > 0 {
		req["cpu"] = pick(g, []string{"0.5", "500m", "1", "1000m", "0.1", "2.5"})
	}
	if g.rnd.IntN(3) > 0 {
		req["memory"] = pick(g, []string{"1024Mi", "1.5Gi", "128974848", "129e6", "1Gi", "64M"})
	}
	if g.rnd.IntN(10) == 0 {
		req["memory"] = "1.5.5Gi"
	}
	obj := g.object(res, "q", true)
	c := map[string]any{"name": "c1", "image": "img:1", "resources": map[string]any{"requests": req}}
	if res == "pods" {
		obj["spec"].(map[string]any)["containers"] = []any{c}
	} else {
		spec := obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
		spec["containers"] = []any{c}
	}
	steps := []Step{{Do: "create", Res: res, Body: js(obj)}}
	if g.rnd.IntN(2) == 0 {
		steps = append(steps, Step{Do: "get", Res: res, Name: "q"})
	}
	return steps
}

func (g *gen) times(res string) []Step {
	lease := func(name string) map[string]any {
		spec := map[string]any{"holderIdentity": pick(g, []string{"alice", "bob"}), "leaseDurationSeconds": 15}
		for _, f := range []string{"renewTime", "acquireTime"} {
			if g.rnd.IntN(2) == 0 {
				spec[f] = pick(g, []string{"2026-01-01T00:00:00.000000Z", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00.5Z", "2026-01-01T02:00:00.000000+02:00", "yesterday"})
			}
		}
		return map[string]any{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": map[string]any{"name": name}, "spec": spec}
	}
	steps := []Step{{Do: "raw", Res: "leases", Method: "POST", Path: coll("leases"), Body: js(lease("l"))}}
	switch g.rnd.IntN(3) {
	case 0: // an update without a resourceVersion
		steps = append(steps, Step{Do: "raw", Res: "leases", Method: "PUT", Name: "l", Body: js(lease("l"))})
	case 1:
		steps = append(steps, Step{Do: "raw", Res: "leases", Method: "PATCH", Type: "merge", Name: "l", Body: js(map[string]any{"spec": lease("l")["spec"]})})
	}
	return append(steps, Step{Do: "raw", Res: "leases", Method: "GET", Name: "l"})
}

func (g *gen) secrets(res string) []Step {
	s := map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s"}}
	if g.rnd.IntN(2) == 0 {
		s["stringData"] = map[string]any{"k1": pick(g, []string{"x", "y"})}
	}
	if g.rnd.IntN(2) == 0 {
		s["data"] = map[string]any{pick(g, []string{"k1", "k2"}): pick(g, []string{"eA==", "not base64!", "eA"})}
	}
	steps := []Step{{Do: "raw", Res: "secrets", Method: "POST", Path: coll("secrets"), Body: js(s)}}
	if g.rnd.IntN(2) == 0 {
		steps = append(steps, Step{Do: "raw", Res: "secrets", Method: "PATCH", Type: "merge", Name: "s", Body: `{"stringData":{"k2":"z"}}`})
	}
	return append(steps, Step{Do: "raw", Res: "secrets", Method: "GET", Name: "s"})
}

// coll is the path of res's collection in the run's namespace, "{ns}".
func coll(res string) string {
	return strings.ReplaceAll(kinds[res].res.Path("NS", "", ""), "/NS/", "/{ns}/")
}
