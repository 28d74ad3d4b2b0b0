package apiclient_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// seen is one request as the server saw it.
type seen struct {
	method, path, query, contentType, body string
}

// recordingServer answers every request with reply and records what it saw.
func recordingServer(t *testing.T, code int, reply string) (*apiclient.Client, *[]seen) {
	t.Helper()
	var got []seen
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), string(b)})
		writeJSON(w, code, reply)
	})
	return c, &got
}

func TestVerbs_send_the_right_method_path_query_and_body(t *testing.T) {
	ctx := context.Background()
	deploy := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"prod","resourceVersion":"5"}}`
	tests := []struct {
		name string
		call func(c *apiclient.Client) error
		want seen
	}{
		{"get", func(c *apiclient.Client) error {
			_, err := c.Resource(apiclient.Pods).Namespace("default").Get(ctx, "web-1")
			return err
		}, seen{"GET", "/api/v1/namespaces/default/pods/web-1", "", "", ""}},
		{"get subresource of a cluster-scoped object", func(c *apiclient.Client) error {
			_, err := c.Resource(apiclient.Namespaces).Namespace("ignored").Get(ctx, "kube-system", "status")
			return err
		}, seen{"GET", "/api/v1/namespaces/kube-system/status", "", "", ""}},
		{"create takes the namespace from the object", func(c *apiclient.Client) error {
			_, err := c.Resource(apiclient.Deployments).Create(ctx, []byte(deploy), apiclient.WriteOptions{FieldManager: "kubewire", DryRun: true})
			return err
		}, seen{"POST", "/apis/apps/v1/namespaces/prod/deployments", "dryRun=All&fieldManager=kubewire", "application/json", deploy}},
		{"update", func(c *apiclient.Client) error {
			_, err := c.Resource(apiclient.Deployments).Namespace("prod").Update(ctx, []byte(deploy), apiclient.WriteOptions{})
			return err
		}, seen{"PUT", "/apis/apps/v1/namespaces/prod/deployments/web", "", "application/json", deploy}},
		{"update status", func(c *apiclient.Client) error {
			_, err := c.Resource(apiclient.Deployments).Namespace("prod").Update(ctx, []byte(deploy), apiclient.WriteOptions{}, "status")
			return err
		}, seen{"PUT", "/apis/apps/v1/namespaces/prod/deployments/web/status", "", "application/json", deploy}},
		{"json patch", func(c *apiclient.Client) error {
			_, err := c.Resource(apiclient.Deployments).Namespace("prod").Patch(ctx, "web", apiclient.JSONPatch, []byte(`[{"op":"replace","path":"/spec/replicas","value":1}]`), apiclient.WriteOptions{})
			return err
		}, seen{"PATCH", "/apis/apps/v1/namespaces/prod/deployments/web", "", "application/json-patch+json", `[{"op":"replace","path":"/spec/replicas","value":1}]`}},
		{"merge patch of scale", func(c *apiclient.Client) error {
			_, err := c.Resource(apiclient.Deployments).Namespace("prod").Patch(ctx, "web", apiclient.MergePatch, []byte(`{"spec":{"replicas":2}}`), apiclient.WriteOptions{}, "scale")
			return err
		}, seen{"PATCH", "/apis/apps/v1/namespaces/prod/deployments/web/scale", "", "application/merge-patch+json", `{"spec":{"replicas":2}}`}},
		{"strategic merge patch", func(c *apiclient.Client) error {
			_, err := c.Resource(apiclient.Deployments).Namespace("prod").Patch(ctx, "web", apiclient.StrategicMergePatch, []byte(`{}`), apiclient.WriteOptions{FieldManager: "kubewire"})
			return err
		}, seen{"PATCH", "/apis/apps/v1/namespaces/prod/deployments/web", "fieldManager=kubewire", "application/strategic-merge-patch+json", `{}`}},
		{"server-side apply", func(c *apiclient.Client) error {
			_, err := c.Resource(apiclient.Deployments).Namespace("prod").Patch(ctx, "web", apiclient.ApplyPatch, []byte(deploy), apiclient.WriteOptions{FieldManager: "kubewire", Force: true})
			return err
		}, seen{"PATCH", "/apis/apps/v1/namespaces/prod/deployments/web", "fieldManager=kubewire&force=true", "application/apply-patch+yaml", deploy}},
		{"apply a typed value to its own name and namespace", func(c *apiclient.Client) error {
			_, err := c.Resource(apiclient.Deployments).Apply(ctx, []byte(deploy), apiclient.WriteOptions{FieldManager: "kubewire", Force: true, FieldValidation: "Strict"})
			return err
		}, seen{"PATCH", "/apis/apps/v1/namespaces/prod/deployments/web", "fieldManager=kubewire&fieldValidation=Strict&force=true", "application/apply-patch+yaml", deploy}},
		{"apply to the status subresource", func(c *apiclient.Client) error {
			_, err := c.Resource(apiclient.Deployments).Namespace("prod").Apply(ctx, []byte(deploy), apiclient.WriteOptions{FieldManager: "kubewire"}, "status")
			return err
		}, seen{"PATCH", "/apis/apps/v1/namespaces/prod/deployments/web/status", "fieldManager=kubewire", "application/apply-patch+yaml", deploy}},
		{"delete foreground with preconditions", func(c *apiclient.Client) error {
			return c.Resource(apiclient.Deployments).Namespace("prod").Delete(ctx, "web", apiclient.DeleteOptions{
				Propagation: apiclient.Foreground, Preconditions: &apiclient.Preconditions{UID: "u-1"}})
		}, seen{"DELETE", "/apis/apps/v1/namespaces/prod/deployments/web", "", "application/json",
			`{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground","preconditions":{"uid":"u-1"}}`}},
		{"delete collection", func(c *apiclient.Client) error {
			return c.Resource(apiclient.Pods).Namespace("default").DeleteCollection(ctx, apiclient.DeleteOptions{Propagation: apiclient.Background, DryRun: true}, apiclient.ListOptions{LabelSelector: "app=web"})
		}, seen{"DELETE", "/api/v1/namespaces/default/pods", "labelSelector=app%3Dweb", "application/json",
			`{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background","dryRun":["All"]}`}},
		{"list with every option", func(c *apiclient.Client) error {
			_, err := c.Resource(apiclient.Pods).List(ctx, apiclient.ListOptions{LabelSelector: "a=b", FieldSelector: "spec.nodeName=n", Limit: 500, Continue: "tok", ResourceVersion: "0", ResourceVersionMatch: "NotOlderThan", TimeoutSeconds: 30})
			return err
		}, seen{"GET", "/api/v1/pods", "continue=tok&fieldSelector=spec.nodeName%3Dn&labelSelector=a%3Db&limit=500&resourceVersion=0&resourceVersionMatch=NotOlderThan&timeoutSeconds=30", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply := deploy
			if strings.HasPrefix(tt.name, "list") {
				reply = `{"kind":"PodList","metadata":{"resourceVersion":"9"},"items":[]}`
			}
			c, got := recordingServer(t, 200, reply)
			if err := tt.call(c); err != nil {
				t.Fatal(err)
			}
			if len(*got) != 1 || (*got)[0] != tt.want {
				t.Fatalf("server saw %+v\nwant          %+v", *got, tt.want)
			}
		})
	}
}

func TestApply_without_a_field_manager_is_refused_before_sending(t *testing.T) {
	c, got := recordingServer(t, 200, `{}`)
	_, err := c.Resource(apiclient.Deployments).Namespace("prod").Patch(context.Background(), "web", apiclient.ApplyPatch, []byte(`{}`), apiclient.WriteOptions{})
	if err == nil || len(*got) != 0 {
		t.Fatalf("err %v, %d requests sent", err, len(*got))
	}
}

func TestUpdate_needs_a_name(t *testing.T) {
	c, got := recordingServer(t, 200, `{}`)
	_, err := c.Resource(apiclient.Pods).Namespace("default").Update(context.Background(), map[string]any{"metadata": map[string]any{}}, apiclient.WriteOptions{})
	if err == nil || !strings.Contains(err.Error(), "metadata.name") || len(*got) != 0 {
		t.Fatalf("err %v, %d requests sent", err, len(*got))
	}
}

// TestTyped_List_reads_one_page: Typed.List makes one request, as List does, and
// hands back the continue token; following it is listwatch.Pager's job.
func TestTyped_List_reads_one_page(t *testing.T) {
	var queries []string
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		queries = append(queries, r.URL.RawQuery)
		writeJSON(w, 200, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"50","continue":"p2"},"items":[{"metadata":{"name":"a","namespace":"default"}}]}`)
	})
	pods, meta, err := apiclient.NewTyped[typedPod](c).Namespace("default").List(context.Background(), apiclient.ListOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods) != 1 || pods[0].Name != "a" || meta.ResourceVersion != "50" || meta.Continue != "p2" {
		t.Fatalf("pods %+v, meta %+v", pods, meta)
	}
	if got, want := strings.Join(queries, " "), "limit=1"; got != want {
		t.Fatalf("queries %q, want %q", got, want)
	}
}

func TestList_of_a_cut_or_malformed_body_fails_with_where(t *testing.T) {
	for _, body := range []string{
		`{"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"a"}},{"metad`,
		`{"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"a"}},7]}`,
		`<html>not json</html>`,
		``,
	} {
		c, _ := recordingServer(t, 200, body)
		_, err := c.Resource(apiclient.Pods).List(context.Background(), apiclient.ListOptions{})
		if err == nil || !strings.HasPrefix(err.Error(), "list pods: decode list") || strings.Contains(err.Error(), "\n") {
			t.Errorf("body %q: err = %v", body, err)
		}
	}
}

func TestTyped_decodes_into_the_users_struct(t *testing.T) {
	c, got := recordingServer(t, 200, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"prod"},"spec":{"replicas":3,"Replicas":7}}`)
	deployments := apiclient.NewTyped[typedDeployment](c).Namespace("prod")
	d, err := deployments.Get(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	if d.Kind != "Deployment" || d.Name != "web" || *d.Spec.Replicas != 3 {
		t.Fatalf("got %+v replicas %d", d, *d.Spec.Replicas)
	}
	one := int32(1)
	d.Spec.Replicas = &one
	if _, err := deployments.Update(context.Background(), d, apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if last := (*got)[len(*got)-1]; last.method != "PUT" || !strings.Contains(last.body, `"replicas":1`) || last.path != "/apis/apps/v1/namespaces/prod/deployments/web" {
		t.Fatalf("update sent %+v", last)
	}
}

func keys(objs []*apiclient.Object) string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Key())
	}
	return strings.Join(out, " ")
}

func TestApply_refuses_an_object_without_its_type_before_sending(t *testing.T) {
	c, got := recordingServer(t, 200, `{}`)
	rc := c.Resource(apiclient.ConfigMaps).Namespace("demo")
	for _, body := range []string{`{"metadata":{"name":"a"}}`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}`} {
		if _, err := rc.Apply(context.Background(), []byte(body), apiclient.WriteOptions{FieldManager: "m"}); err == nil {
			t.Errorf("apply of %s: no error", body)
		}
	}
	if len(*got) != 0 {
		t.Fatalf("%d requests sent", len(*got))
	}
}

// Every Warning header of every response, success or failure, reaches OnWarning,
// unquoted.
func TestWarnings_reach_OnWarning(t *testing.T) {
	var warned []string
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Warning", `299 - "unknown field \"spec.replica\""`)
		w.Header().Add("Warning", `299 - "v1 ComponentStatus is deprecated in v1.19+"`)
		writeJSON(w, 404, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
	}))
	defer ts.Close()
	c, err := apiclient.New(&kubeconfig.Config{Server: ts.URL, Source: "test"}, apiclient.Options{
		Transport: ts.Client().Transport, OnWarning: func(text string) { warned = append(warned, text) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Resource(apiclient.Pods).Namespace("demo").Get(context.Background(), "web"); !apiclient.IsNotFound(err) {
		t.Fatalf("get: %v", err)
	}
	want := []string{`unknown field "spec.replica"`, "v1 ComponentStatus is deprecated in v1.19+"}
	if !slices.Equal(warned, want) {
		t.Fatalf("warnings %q, want %q", warned, want)
	}
}

// A name is escaped once on the wire: "a/b" is a%2Fb, not a%252Fb, whatever
// the server then makes of it (kube-apiserver refuses names with '/').
func TestVerbs_escape_names_once(t *testing.T) {
	var paths []string
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.EscapedPath())
		writeJSON(w, 200, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x"}}`)
	})
	ctx := context.Background()
	if _, err := c.Resource(apiclient.ConfigMaps).Namespace("team a").Get(ctx, "a/b"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Resource(apiclient.ConfigMaps).Namespace("demo").Get(ctx, "50%"); err != nil {
		t.Fatal(err)
	}
	want := []string{"/api/v1/namespaces/team%20a/configmaps/a%2Fb", "/api/v1/namespaces/demo/configmaps/50%25"}
	if !slices.Equal(paths, want) {
		t.Fatalf("the server saw %q, want %q", paths, want)
	}
}

// typedPod and typedDeployment are TypedObjects of the tests' own, declaring
// only what the tests read.
type typedPod struct {
	apiclient.ObjectMeta `json:"metadata"`
}

func (*typedPod) Resource() apiclient.Resource { return apiclient.Pods }

type typedDeployment struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 struct {
		Replicas *int32 `json:"replicas"`
	} `json:"spec"`
}

func (*typedDeployment) Resource() apiclient.Resource { return apiclient.Deployments }
