package webhook_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/crd"
	"github.com/kubewire/kubewire/controller/webhook"
)

// converter is a Server with Site's conversion, called without a network.
func converter(t testing.TB) *webhook.Server {
	s := webhook.NewServer(nil, webhook.Options{})
	webhook.Convert(s, crd.MustNew(crd.Options{Storage: "v1"}, new(Site), new(SiteV2)), webhook.Spoke(siteV1ToV2, siteV2ToV1))
	return s
}

const convertPath = "/convert/sites.webhook-test.kubewire.io"

// convert sends objects to s for conversion to apiVersion.
func convert(t *testing.T, s *webhook.Server, apiVersion string, objects ...any) []json.RawMessage {
	t.Helper()
	req := webhook.ConversionRequest{UID: "u", DesiredAPIVersion: apiVersion}
	for _, o := range objects {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		req.Objects = append(req.Objects, b)
	}
	body, _ := json.Marshal(webhook.ConversionReview{TypeMeta: apiclient.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview"}, Request: &req})
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, convertPath, bytes.NewReader(body)))
	var review webhook.ConversionReview
	if err := json.Unmarshal(w.Body.Bytes(), &review); err != nil || review.Response == nil {
		t.Fatalf("answered %d %s", w.Code, w.Body)
	}
	if r := review.Response; r.UID != "u" || r.Result.Status != "Success" || len(r.ConvertedObjects) != len(objects) {
		t.Fatalf("answered %+v", r)
	}
	return review.Response.ConvertedObjects
}

// Random v1 objects, converted to v2 and back, come back as they were,
// metadata included, and say the version asked for at each step.
func TestConvert_round_trip_loses_nothing(t *testing.T) {
	s := converter(t)
	rng := rand.New(rand.NewPCG(41, 2))
	words := []string{"", "a", "nginx:1.27", "main", "x/y"}
	pick := func() string { return words[rng.IntN(len(words))] }
	for i := range 200 {
		in := Site{TypeMeta: apiclient.TypeMeta{APIVersion: Sites.GroupVersion(), Kind: "Site"},
			ObjectMeta: apiclient.ObjectMeta{Name: "s" + pick(), Namespace: "ns", UID: "uid", ResourceVersion: "7", Generation: 3, Finalizers: []string{pick()}},
			Spec:       SiteSpec{Image: pick(), Replicas: rng.Int32(), Tier: pick()}}
		if rng.IntN(2) == 0 {
			in.Labels = map[string]string{"k": pick()}
		}
		if rng.IntN(2) == 0 {
			in.Annotations = map[string]string{"a": pick()}
		}
		if rng.IntN(3) == 0 { // containers v1 cannot say, waiting in their annotation
			more, _ := json.Marshal([]Container{{Name: "side" + pick(), Image: pick()}})
			in.Annotations = with(in.Annotations, moreContainers, string(more))
		}
		v2 := convert(t, s, SitesV2.GroupVersion(), in)
		var mid SiteV2
		if err := json.Unmarshal(v2[0], &mid); err != nil {
			t.Fatal(err)
		}
		if mid.APIVersion != SitesV2.GroupVersion() || mid.Kind != "Site" || mid.Spec.Replicas != in.Spec.Replicas {
			t.Fatalf("case %d: as v2: %s", i, v2[0])
		}
		back := convert(t, s, Sites.GroupVersion(), json.RawMessage(v2[0]))
		var out Site
		if err := json.Unmarshal(back[0], &out); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(out, in) {
			t.Fatalf("case %d: v1 → v2 → v1 changed it:\n in %+v\nout %+v\n(v2: %s)", i, in, out, v2[0])
		}
	}
}

// A conversion's failure is a review with status Failure that says which
// object and why, never a half-converted list.
func TestConvert_failure_names_the_object(t *testing.T) {
	s := converter(t)
	for _, tc := range []struct {
		name, body, says string
	}{
		{"another group", `{"uid":"u","desiredAPIVersion":"other.io/v1","objects":[]}`, `desiredAPIVersion "other.io/v1" is not a version of sites.webhook-test.kubewire.io`},
		{"a version not served", `{"uid":"u","desiredAPIVersion":"webhook-test.kubewire.io/v9","objects":[{"apiVersion":"webhook-test.kubewire.io/v1","kind":"Site","metadata":{}}]}`, `object 0: version "v9" is not served`},
		{"not an object", `{"uid":"u","desiredAPIVersion":"webhook-test.kubewire.io/v2","objects":[{"apiVersion":"webhook-test.kubewire.io/v1","kind":"Site"},7]}`, "object 1: not a JSON object"},
		{"a spec that is not the type", `{"uid":"u","desiredAPIVersion":"webhook-test.kubewire.io/v2","objects":[{"apiVersion":"webhook-test.kubewire.io/v1","kind":"Site","spec":{"replicas":"x"}}]}`, "object 0: v1 to v2"},
	} {
		body := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":` + tc.body + `}`
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, convertPath, strings.NewReader(body)))
		var review webhook.ConversionReview
		json.Unmarshal(w.Body.Bytes(), &review)
		if r := review.Response; r == nil || r.Result.Status != "Failure" || !strings.Contains(r.Result.Message, tc.says) || r.ConvertedObjects != nil {
			t.Errorf("%s: answered %d %s, want a Failure saying %q", tc.name, w.Code, w.Body, tc.says)
		}
	}
}
