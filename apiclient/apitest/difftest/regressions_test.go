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
