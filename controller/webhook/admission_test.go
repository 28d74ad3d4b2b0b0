package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/controller/webhook"
)

func validateSite(ctx context.Context, r *webhook.Review[Site]) error {
	switch {
	case r.Operation == webhook.Delete && r.OldObject.Labels["protected"] == "true":
		return errors.New("site is protected")
	case r.Object == nil:
		return nil
	case r.Object.Spec.Replicas > 10:
		return webhook.Refuse(http.StatusUnprocessableEntity, "replicas %d is over 10", r.Object.Spec.Replicas)
	case r.Object.Spec.Replicas > 5:
		r.Warn("replicas %d: more than 5 cost extra", r.Object.Spec.Replicas)
	case r.OldObject != nil && r.OldObject.Spec.Tier != r.Object.Spec.Tier:
		return errors.New("spec.tier cannot change")
	}
	return nil
}

func TestValidate_allows_refuses_and_warns_as_the_validator_says(t *testing.T) {
	s := serve(t, webhook.Options{}, func(s *webhook.Server) { webhook.Validate(s, webhook.Hook{}, validateSite) })
	path := "/validate/webhook-test.kubewire.io/v1/sites"
	site := func(replicas int32, tier string) *Site {
		return &Site{Spec: SiteSpec{Image: "nginx", Replicas: replicas, Tier: tier}}
	}
	for _, tc := range []struct {
		name     string
		op       webhook.Operation
		obj, old any
		allowed  bool
		code     int
		message  string
		warnings []string
	}{
		{name: "create allowed", op: webhook.Create, obj: site(3, "web"), allowed: true},
		{name: "create refused with the Refusal's code", op: webhook.Create, obj: site(11, "web"), code: 422, message: "replicas 11 is over 10"},
		{name: "create warned", op: webhook.Create, obj: site(6, "web"), allowed: true, warnings: []string{"replicas 6: more than 5 cost extra"}},
		{name: "update reads the old object", op: webhook.Update, obj: site(3, "web"), old: site(3, "batch"), code: 403, message: "spec.tier cannot change"},
		{name: "delete reads the old object alone", op: webhook.Delete, old: &Site{}, allowed: true},
		{name: "an object that is not the type is refused, 400", op: webhook.Create, obj: `{"spec":{"replicas":"three"}}`, code: 400, message: "the object does not decode as Site"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := s.review(t, path, admissionReview(t, tc.op, tc.obj, tc.old))
			if got, want := resp.UID, "uid-"+string(rune('0'+len(tc.op))); got != want {
				t.Errorf("uid %q, want %q", got, want)
			}
			if got, want := resp.Allowed, tc.allowed; got != want {
				t.Fatalf("allowed %v, want %v (%+v)", got, want, resp.Result)
			}
			if !tc.allowed {
				if got, want := resp.Result.Code, tc.code; got != want {
					t.Errorf("code %d, want %d", got, want)
				}
				if got, want := resp.Result.Message, tc.message; !strings.HasPrefix(got, want) {
					t.Errorf("message %q, want %q", got, want)
				}
			}
			if got, want := resp.Warnings, tc.warnings; !reflect.DeepEqual(got, want) {
				t.Errorf("warnings %q, want %q", got, want)
			}
		})
	}
}

func defaultSite(ctx context.Context, r *webhook.Review[Site]) error {
	if r.Object.Spec.Image == "" {
		r.Object.Spec.Image = "nginx:1.27"
	}
	if r.Object.Spec.Tier == "" {
		r.Object.Spec.Tier = "web"
	}
	if r.Object.Labels == nil {
		r.Object.Labels = map[string]string{}
	}
	r.Object.Labels["example.com/defaulted"] = "true"
	return nil
}

// The patch names what Default changed and nothing else: a member the Go
// type does not declare (spec.extra, status) stays as sent, and a member the
// type would write as its zero value but the object left out (replicas)
// is not touched.
func TestDefault_patches_what_Default_changed_and_keeps_what_the_type_does_not_know(t *testing.T) {
	s := serve(t, webhook.Options{}, func(s *webhook.Server) { webhook.Default(s, webhook.Hook{}, defaultSite) })
	sent := `{"apiVersion":"webhook-test.kubewire.io/v1","kind":"Site","metadata":{"name":"a"},"spec":{"extra":{"kept":true}},"status":{"phase":"x"}}`
	resp := s.review(t, "/default/webhook-test.kubewire.io/v1/sites", admissionReview(t, webhook.Create, sent, nil))
	if !resp.Allowed || resp.PatchType != "JSONPatch" {
		t.Fatalf("allowed %v patchType %q: %+v", resp.Allowed, resp.PatchType, resp.Result)
	}
	got, err := applyPatch(decode(t, []byte(sent)), resp.Patch)
	if err != nil {
		t.Fatalf("the patch %s does not apply: %v", resp.Patch, err)
	}
	want := decode(t, []byte(`{"apiVersion":"webhook-test.kubewire.io/v1","kind":"Site","metadata":{"name":"a","labels":{"example.com/defaulted":"true"}},"spec":{"extra":{"kept":true},"image":"nginx:1.27","tier":"web"},"status":{"phase":"x"}}`))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("patched:\n%v\nwant:\n%v\n(patch %s)", got, want, resp.Patch)
	}

	// Nothing to change: no patch at all.
	resp = s.review(t, "/default/webhook-test.kubewire.io/v1/sites", admissionReview(t, webhook.Create,
		`{"metadata":{"name":"a","labels":{"example.com/defaulted":"true"}},"spec":{"image":"x","tier":"batch","replicas":1}}`, nil))
	if !resp.Allowed || resp.Patch != nil {
		t.Fatalf("allowed %v, patch %s: want allowed, no patch", resp.Allowed, resp.Patch)
	}
}

// Random objects, random changes: the patch, applied to the object sent
// (with members the type does not know), gives the changed value, and keeps
// those members.
func TestDefault_patch_applies_to_the_object_sent_for_random_changes(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 1))
	var change func(*Site)
	s := serve(t, webhook.Options{}, func(s *webhook.Server) {
		webhook.Default(s, webhook.Hook{}, func(_ context.Context, r *webhook.Review[Site]) error { change(r.Object); return nil })
	})
	words := []string{"", "a", "b/c", "d~e", "nginx:1.27"}
	pick := func() string { return words[rng.IntN(len(words))] }
	labels := func() map[string]string {
		if rng.IntN(3) == 0 {
			return nil
		}
		m := map[string]string{}
		for range rng.IntN(3) {
			m[pick()+"k"] = pick()
		}
		return m
	}
	for i := range 300 {
		before := Site{Spec: SiteSpec{Image: pick(), Replicas: int32(rng.IntN(3)), Tier: pick()}}
		before.Name, before.Labels, before.Annotations = "s", labels(), labels()
		wantSite := before
		wantSite.Spec = SiteSpec{Image: pick(), Replicas: int32(rng.IntN(3)), Tier: pick()}
		wantSite.Labels, wantSite.Annotations = labels(), labels()
		change = func(o *Site) { o.Spec, o.Labels, o.Annotations = wantSite.Spec, wantSite.Labels, wantSite.Annotations }

		sentJSON, _ := json.Marshal(before)
		sent := decode(t, sentJSON).(map[string]any)
		sent["status"] = map[string]any{"unknown": "kept"}
		sent["spec"].(map[string]any)["unknown"] = []any{"kept"}
		if rng.IntN(2) == 0 {
			delete(sent["spec"].(map[string]any), "replicas") // the type writes 0; the object left it out
		}
		raw, _ := json.Marshal(sent)
		resp := s.review(t, "/default/webhook-test.kubewire.io/v1/sites", admissionReview(t, webhook.Create, string(raw), nil))
		patched, err := applyPatch(decode(t, raw), resp.Patch)
		if err != nil {
			t.Fatalf("case %d: the patch %s does not apply to %s: %v", i, resp.Patch, raw, err)
		}
		out, _ := json.Marshal(patched)
		var got Site
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Spec, wantSite.Spec) || !sameMap(got.Labels, wantSite.Labels) || !sameMap(got.Annotations, wantSite.Annotations) {
			t.Fatalf("case %d: patched %s into %s, want %+v", i, raw, out, wantSite)
		}
		if m := patched.(map[string]any); m["status"] == nil || m["spec"].(map[string]any)["unknown"] == nil {
			t.Fatalf("case %d: a member the type does not know was lost: %s", i, out)
		}
	}
}

func sameMap(a, b map[string]string) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}
