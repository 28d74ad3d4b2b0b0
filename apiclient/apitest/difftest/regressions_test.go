package difftest_test

import (
	"testing"

	"github.com/kubewire/kubewire/apiclient/apitest/difftest"
)

// Sequences the harness found diverging, shrunk, each with the transcript of
// the real server it was found on; they run on apitest without a server (and
// on KUBEWIRE_TEST_KUBECONFIG's server too, when it is set). Each says what
// was wrong.

// A custom resource applied with an empty labels map: kube-apiserver keeps
// the empty map it never shows, and the next write that is not an apply,
// though it changes nothing, is a write (a new resourceVersion, an event).
// apitest wrote nothing.
func TestReplay_v137_seed_970(t *testing.T) {
	seq := difftest.Sequence{Seed: 970, Steps: []difftest.Step{
		{Do: `apply`, Res: `widgets`, Name: `a`, Body: `{"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"labels":{},"name":"a"},"spec":{"opts":{"o2":"x"},"tags":["a"]}}`, Mgr: `alice`},
		{Do: `patch`, Res: `widgets`, Name: `a`, Type: `merge`, Body: `{"spec":{"tags":["a"]}}`},
	}}
	// The transcript of kube-apiserver v1.37.
	want := `1 apply widgets/a mgr=alice {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"labels":{},"name":"a"},"spec":{"opts":{"o2":"x"},"tags":["a"]}} → 201 {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"creationTimestamp":"T","generation":1,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{"f:note":{}},"f:labels":{}},"f:spec":{"f:opts":{".":{},"f:o2":{}},"f:tags":{}}},"manager":"alice","operation":"Apply"}],"name":"a","namespace":"ns","resourceVersion":"r1","uid":"u1"},"spec":{"opts":{"o2":"x"},"tags":["a"]}}
2 patch widgets/a type=merge {"spec":{"tags":["a"]}} → 200 {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"creationTimestamp":"T","generation":1,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{"f:note":{}},"f:labels":{}},"f:spec":{"f:opts":{".":{},"f:o2":{}},"f:tags":{}}},"manager":"alice","operation":"Apply"}],"name":"a","namespace":"ns","resourceVersion":"r2","uid":"u1"},"spec":{"opts":{"o2":"x"},"tags":["a"]}}
watch widgets all:
    ADDED {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"creationTimestamp":"T","generation":1,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{"f:note":{}},"f:labels":{}},"f:spec":{"f:opts":{".":{},"f:o2":{}},"f:tags":{}}},"manager":"alice","operation":"Apply"}],"name":"a","namespace":"ns","resourceVersion":"r1","uid":"u1"},"spec":{"opts":{"o2":"x"},"tags":["a"]}}
    MODIFIED {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"creationTimestamp":"T","generation":1,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{"f:note":{}},"f:labels":{}},"f:spec":{"f:opts":{".":{},"f:o2":{}},"f:tags":{}}},"manager":"alice","operation":"Apply"}],"name":"a","namespace":"ns","resourceVersion":"r2","uid":"u1"},"spec":{"opts":{"o2":"x"},"tags":["a"]}}
watch widgets sel=on:`
	difftest.Replay(t, seq, 37, want)
}

// The same, the empty map met later in a longer story.
func TestReplay_v137_seed_2021(t *testing.T) {
	seq := difftest.Sequence{Seed: 2021, Steps: []difftest.Step{
		{Do: `create`, Res: `widgets`, Body: `{"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"labels":{"sel":"on"},"name":"a"},"spec":{"opts":{"o2":"y"},"size":1,"tags":["a"]}}`},
		{Do: `update`, Res: `widgets`, Name: `a`, Body: `{"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"labels":{},"name":"a"},"spec":{"opts":{"o1":"x"},"size":2,"tags":["a"]}}`, RV: `latest`},
		{Do: `apply`, Res: `widgets`, Name: `a`, Body: `{"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"labels":{},"name":"a"},"spec":{"opts":{"o1":"x","o2":"x"},"tags":["a"]}}`, Mgr: `alice`},
		{Do: `patch`, Res: `widgets`, Name: `a`, Type: `merge`, Body: `{"metadata":{"annotations":{"note":"a"}}}`},
	}}
	// The transcript of kube-apiserver v1.37.
	want := `1 create widgets {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"labels":{"sel":"on"},"name":"a"},"spec":{"opts":{"o2":"y"},"size":1,"tags":["a"]}} → 201 {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"creationTimestamp":"T","generation":1,"labels":{"sel":"on"},"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:sel":{}}},"f:spec":{".":{},"f:opts":{".":{},"f:o2":{}},"f:size":{},"f:tags":{}}},"manager":"difftest","operation":"Update"}],"name":"a","namespace":"ns","resourceVersion":"r1","uid":"u1"},"spec":{"opts":{"o2":"y"},"size":1,"tags":["a"]}}
2 update widgets/a rv=latest {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"labels":{},"name":"a"},"spec":{"opts":{"o1":"x"},"size":2,"tags":["a"]}} → 200 {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"creationTimestamp":"T","generation":2,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:note":{}}},"f:spec":{".":{},"f:opts":{".":{},"f:o1":{}},"f:size":{},"f:tags":{}}},"manager":"difftest","operation":"Update"}],"name":"a","namespace":"ns","resourceVersion":"r2","uid":"u1"},"spec":{"opts":{"o1":"x"},"size":2,"tags":["a"]}}
3 apply widgets/a mgr=alice {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"labels":{},"name":"a"},"spec":{"opts":{"o1":"x","o2":"x"},"tags":["a"]}} → 200 {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"creationTimestamp":"T","generation":3,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{}},"f:spec":{"f:opts":{".":{},"f:o1":{},"f:o2":{}},"f:tags":{}}},"manager":"alice","operation":"Apply"},{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:note":{}}},"f:spec":{".":{},"f:opts":{".":{},"f:o1":{}},"f:size":{},"f:tags":{}}},"manager":"difftest","operation":"Update"}],"name":"a","namespace":"ns","resourceVersion":"r3","uid":"u1"},"spec":{"opts":{"o1":"x","o2":"x"},"size":2,"tags":["a"]}}
4 patch widgets/a type=merge {"metadata":{"annotations":{"note":"a"}}} → 200 {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"creationTimestamp":"T","generation":3,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{}},"f:spec":{"f:opts":{".":{},"f:o1":{},"f:o2":{}},"f:tags":{}}},"manager":"alice","operation":"Apply"},{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:note":{}}},"f:spec":{".":{},"f:opts":{".":{},"f:o1":{}},"f:size":{},"f:tags":{}}},"manager":"difftest","operation":"Update"}],"name":"a","namespace":"ns","resourceVersion":"r4","uid":"u1"},"spec":{"opts":{"o1":"x","o2":"x"},"size":2,"tags":["a"]}}
watch widgets all:
    ADDED {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"creationTimestamp":"T","generation":1,"labels":{"sel":"on"},"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:sel":{}}},"f:spec":{".":{},"f:opts":{".":{},"f:o2":{}},"f:size":{},"f:tags":{}}},"manager":"difftest","operation":"Update"}],"name":"a","namespace":"ns","resourceVersion":"r1","uid":"u1"},"spec":{"opts":{"o2":"y"},"size":1,"tags":["a"]}}
    MODIFIED {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"creationTimestamp":"T","generation":2,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:note":{}}},"f:spec":{".":{},"f:opts":{".":{},"f:o1":{}},"f:size":{},"f:tags":{}}},"manager":"difftest","operation":"Update"}],"name":"a","namespace":"ns","resourceVersion":"r2","uid":"u1"},"spec":{"opts":{"o1":"x"},"size":2,"tags":["a"]}}
    MODIFIED {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"creationTimestamp":"T","generation":3,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{}},"f:spec":{"f:opts":{".":{},"f:o1":{},"f:o2":{}},"f:tags":{}}},"manager":"alice","operation":"Apply"},{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:note":{}}},"f:spec":{".":{},"f:opts":{".":{},"f:o1":{}},"f:size":{},"f:tags":{}}},"manager":"difftest","operation":"Update"}],"name":"a","namespace":"ns","resourceVersion":"r3","uid":"u1"},"spec":{"opts":{"o1":"x","o2":"x"},"size":2,"tags":["a"]}}
    MODIFIED {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"creationTimestamp":"T","generation":3,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{}},"f:spec":{"f:opts":{".":{},"f:o1":{},"f:o2":{}},"f:tags":{}}},"manager":"alice","operation":"Apply"},{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:note":{}}},"f:spec":{".":{},"f:opts":{".":{},"f:o1":{}},"f:size":{},"f:tags":{}}},"manager":"difftest","operation":"Update"}],"name":"a","namespace":"ns","resourceVersion":"r4","uid":"u1"},"spec":{"opts":{"o1":"x","o2":"x"},"size":2,"tags":["a"]}}
watch widgets sel=on:
    ADDED {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"creationTimestamp":"T","generation":1,"labels":{"sel":"on"},"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:sel":{}}},"f:spec":{".":{},"f:opts":{".":{},"f:o2":{}},"f:size":{},"f:tags":{}}},"manager":"difftest","operation":"Update"}],"name":"a","namespace":"ns","resourceVersion":"r1","uid":"u1"},"spec":{"opts":{"o2":"y"},"size":1,"tags":["a"]}}
    DELETED {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"creationTimestamp":"T","generation":1,"labels":{"sel":"on"},"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:sel":{}}},"f:spec":{".":{},"f:opts":{".":{},"f:o2":{}},"f:size":{},"f:tags":{}}},"manager":"difftest","operation":"Update"}],"name":"a","namespace":"ns","resourceVersion":"r2","uid":"u1"},"spec":{"opts":{"o2":"y"},"size":1,"tags":["a"]}}`
	difftest.Replay(t, seq, 37, want)
}

// The same on kube-apiserver 1.32.
func TestReplay_v132_seed_970(t *testing.T) {
	seq := difftest.Sequence{Seed: 970, Steps: []difftest.Step{
		{Do: `apply`, Res: `widgets`, Name: `a`, Body: `{"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"labels":{},"name":"a"},"spec":{"opts":{"o2":"x"},"tags":["a"]}}`, Mgr: `alice`},
		{Do: `patch`, Res: `widgets`, Name: `a`, Type: `merge`, Body: `{"spec":{"tags":["a"]}}`},
	}}
	// The transcript of kube-apiserver v1.32.
	want := `1 apply widgets/a mgr=alice {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"labels":{},"name":"a"},"spec":{"opts":{"o2":"x"},"tags":["a"]}} → 201 {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"creationTimestamp":"T","generation":1,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{"f:note":{}},"f:labels":{}},"f:spec":{"f:opts":{".":{},"f:o2":{}},"f:tags":{}}},"manager":"alice","operation":"Apply"}],"name":"a","namespace":"ns","resourceVersion":"r1","uid":"u1"},"spec":{"opts":{"o2":"x"},"tags":["a"]}}
2 patch widgets/a type=merge {"spec":{"tags":["a"]}} → 200 {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"creationTimestamp":"T","generation":1,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{"f:note":{}},"f:labels":{}},"f:spec":{"f:opts":{".":{},"f:o2":{}},"f:tags":{}}},"manager":"alice","operation":"Apply"}],"name":"a","namespace":"ns","resourceVersion":"r2","uid":"u1"},"spec":{"opts":{"o2":"x"},"tags":["a"]}}
watch widgets all:
    ADDED {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"creationTimestamp":"T","generation":1,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{"f:note":{}},"f:labels":{}},"f:spec":{"f:opts":{".":{},"f:o2":{}},"f:tags":{}}},"manager":"alice","operation":"Apply"}],"name":"a","namespace":"ns","resourceVersion":"r1","uid":"u1"},"spec":{"opts":{"o2":"x"},"tags":["a"]}}
    MODIFIED {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"annotations":{"note":"a"},"creationTimestamp":"T","generation":1,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{"f:note":{}},"f:labels":{}},"f:spec":{"f:opts":{".":{},"f:o2":{}},"f:tags":{}}},"manager":"alice","operation":"Apply"}],"name":"a","namespace":"ns","resourceVersion":"r2","uid":"u1"},"spec":{"opts":{"o2":"x"},"tags":["a"]}}
watch widgets sel=on:`
	difftest.Replay(t, seq, 32, want)
}

// A finalizer added twice by a JSON patch ("/metadata/finalizers/-"): a list
// that repeats an item owns the repeats as one field, taken by the write that
// repeated it. apitest owned them item by item.
func TestReplay_v137_seed_902(t *testing.T) {
	seq := difftest.Sequence{Seed: 902, Steps: []difftest.Step{
		{Do: `apply`, Res: `configmaps`, Name: `a`, Body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`, Mgr: `alice`},
		{Do: `patch`, Res: `configmaps`, Name: `a`, Type: `strategic`, Body: `{"metadata":{"finalizers":["example.com/f2"]}}`},
		{Do: `apply`, Res: `configmaps`, Name: `a`, Body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{},"name":"a"}}`, Mgr: `alice`, Force: true},
		{Do: `patch`, Res: `configmaps`, Name: `a`, Type: `json`, Body: `[{"op":"add","path":"/metadata/finalizers/-","value":"example.com/f2"}]`},
	}}
	// The transcript of kube-apiserver v1.37.
	want := `1 apply configmaps/a mgr=alice {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}} → 201 {"apiVersion":"v1","kind":"ConfigMap","metadata":{"creationTimestamp":"T","name":"a","namespace":"ns","resourceVersion":"r1","uid":"u1"}}
2 patch configmaps/a type=strategic {"metadata":{"finalizers":["example.com/f2"]}} → 200 {"apiVersion":"v1","kind":"ConfigMap","metadata":{"creationTimestamp":"T","finalizers":["example.com/f2"],"name":"a","namespace":"ns","resourceVersion":"r2","uid":"u1"}}
3 apply configmaps/a mgr=alice force {"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{},"name":"a"}} → 200 {"apiVersion":"v1","kind":"ConfigMap","metadata":{"creationTimestamp":"T","finalizers":["example.com/f2"],"managedFields":[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{}}},"manager":"alice","operation":"Apply"},{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:finalizers":{".":{},"v:\"example.com/f2\"":{}}}},"manager":"before-first-apply","operation":"Update"}],"name":"a","namespace":"ns","resourceVersion":"r3","uid":"u1"}}
4 patch configmaps/a type=json [{"op":"add","path":"/metadata/finalizers/-","value":"example.com/f2"}] → 200 {"apiVersion":"v1","kind":"ConfigMap","metadata":{"creationTimestamp":"T","finalizers":["example.com/f2","example.com/f2"],"managedFields":[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{}}},"manager":"alice","operation":"Apply"},{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:finalizers":{}}},"manager":"before-first-apply","operation":"Update"},{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:finalizers":{"v:\"example.com/f2\"":{}}}},"manager":"difftest","operation":"Update"}],"name":"a","namespace":"ns","resourceVersion":"r4","uid":"u1"}}
watch configmaps all:
    ADDED {"apiVersion":"v1","kind":"ConfigMap","metadata":{"creationTimestamp":"T","name":"a","namespace":"ns","resourceVersion":"r1","uid":"u1"}}
    MODIFIED {"apiVersion":"v1","kind":"ConfigMap","metadata":{"creationTimestamp":"T","finalizers":["example.com/f2"],"name":"a","namespace":"ns","resourceVersion":"r2","uid":"u1"}}
    MODIFIED {"apiVersion":"v1","kind":"ConfigMap","metadata":{"creationTimestamp":"T","finalizers":["example.com/f2"],"managedFields":[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{}}},"manager":"alice","operation":"Apply"},{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:finalizers":{".":{},"v:\"example.com/f2\"":{}}}},"manager":"before-first-apply","operation":"Update"}],"name":"a","namespace":"ns","resourceVersion":"r3","uid":"u1"}}
    MODIFIED {"apiVersion":"v1","kind":"ConfigMap","metadata":{"creationTimestamp":"T","finalizers":["example.com/f2","example.com/f2"],"managedFields":[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{}}},"manager":"alice","operation":"Apply"},{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:finalizers":{}}},"manager":"before-first-apply","operation":"Update"},{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:finalizers":{"v:\"example.com/f2\"":{}}}},"manager":"difftest","operation":"Update"}],"name":"a","namespace":"ns","resourceVersion":"r4","uid":"u1"}}
watch configmaps sel=on:`
	difftest.Replay(t, seq, 37, want)
}

// The same apply to a custom resource, with an empty labels map, twice:
// kube-apiserver writes it both times (a new resourceVersion, an event).
// apitest took the second for a write that changed nothing.
func TestReplay_v137_seed_1478(t *testing.T) {
	seq := difftest.Sequence{Seed: 1478, Steps: []difftest.Step{
		{Do: `apply`, Res: `widgets`, Name: `a`, Body: `{"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"labels":{},"name":"a"},"spec":{}}`, Mgr: `alice`, Force: true},
		{Do: `apply`, Res: `widgets`, Name: `a`, Sub: `status`, Body: `{"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"name":"a"},"status":{"observedGeneration":3,"phase":"Pending"}}`, Mgr: `alice`},
		{Do: `patch`, Res: `widgets`, Name: `a`, Sub: `status`, Type: `merge`, Body: `{"status":{"phase":"Pending"}}`},
	}}
	// The transcript of kube-apiserver v1.37.
	want := `1 apply widgets/a mgr=alice force {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"labels":{},"name":"a"},"spec":{}} → 201 {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"creationTimestamp":"T","generation":1,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{}},"f:spec":{}},"manager":"alice","operation":"Apply"}],"name":"a","namespace":"ns","resourceVersion":"r1","uid":"u1"},"spec":{}}
2 apply widgets/a/status mgr=alice {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"name":"a"},"status":{"observedGeneration":3,"phase":"Pending"}} → 200 {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"creationTimestamp":"T","generation":1,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{}},"f:spec":{}},"manager":"alice","operation":"Apply"},{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:observedGeneration":{},"f:phase":{}}},"manager":"alice","operation":"Apply","subresource":"status"}],"name":"a","namespace":"ns","resourceVersion":"r2","uid":"u1"},"spec":{},"status":{"observedGeneration":3,"phase":"Pending"}}
3 patch widgets/a/status type=merge {"status":{"phase":"Pending"}} → 200 {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"creationTimestamp":"T","generation":1,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{}},"f:spec":{}},"manager":"alice","operation":"Apply"},{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:observedGeneration":{},"f:phase":{}}},"manager":"alice","operation":"Apply","subresource":"status"}],"name":"a","namespace":"ns","resourceVersion":"r2","uid":"u1"},"spec":{},"status":{"observedGeneration":3,"phase":"Pending"}}
watch widgets all:
    ADDED {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"creationTimestamp":"T","generation":1,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{}},"f:spec":{}},"manager":"alice","operation":"Apply"}],"name":"a","namespace":"ns","resourceVersion":"r1","uid":"u1"},"spec":{}}
    MODIFIED {"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"creationTimestamp":"T","generation":1,"managedFields":[{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{}},"f:spec":{}},"manager":"alice","operation":"Apply"},{"apiVersion":"difftest.kubewire.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:observedGeneration":{},"f:phase":{}}},"manager":"alice","operation":"Apply","subresource":"status"}],"name":"a","namespace":"ns","resourceVersion":"r2","uid":"u1"},"spec":{},"status":{"observedGeneration":3,"phase":"Pending"}}
watch widgets sel=on:`
	difftest.Replay(t, seq, 37, want)
}
