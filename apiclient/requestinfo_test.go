package apiclient_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
)

// Every request the client makes tells its Observer's Sent and Answered what it is to the
// API server's authorizer — the verb RBAC names, the resource, subresource,
// namespace and name — so that nobody reads them back from the URL.
func TestRequestInfo_names_the_verb_and_resource_as_kube_apiserver_authorizes_them(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("ns1")
	defer srv.Close()
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sent, answered []string
	line := func(r apiclient.RequestInfo) string {
		return fmt.Sprintf("%s %s %s/%s ns=%q name=%q sub=%q", r.Verb, r.Action, r.Resource.Group, r.Resource.Name, r.Namespace, r.Name, r.Subresource)
	}
	c = c.Derive(apiclient.Derived{Observer: apiclient.Observer{Sent: func(_ context.Context, r apiclient.RequestInfo) { mu.Lock(); sent = append(sent, line(r)); mu.Unlock() }}})
	c = c.Derive(apiclient.Derived{Observer: apiclient.Observer{Answered: func(_ context.Context, r apiclient.RequestInfo) {
		mu.Lock()
		answered = append(answered, line(r))
		mu.Unlock()
	}}})

	ctx := context.Background()
	cms := c.Resource(apiclient.ConfigMaps).Namespace("ns1")
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns1"},"data":{"k":"v"}}`
	steps := []func() error{
		func() error { _, err := cms.Create(ctx, []byte(cm), apiclient.WriteOptions{}); return err },
		func() error { _, err := cms.Get(ctx, "a"); return err },
		func() error { _, err := cms.List(ctx, apiclient.ListOptions{}); return err },
		func() error {
			w, err := c.Resource(apiclient.ConfigMaps).Watch(ctx, apiclient.WatchOptions{})
			if err == nil {
				w.Close()
			}
			return err
		},
		func() error { _, err := cms.Update(ctx, []byte(cm), apiclient.WriteOptions{}); return err },
		func() error {
			_, err := cms.Patch(ctx, "a", apiclient.MergePatch, []byte(`{"data":{"k":"w"}}`), apiclient.WriteOptions{})
			return err
		},
		func() error {
			_, err := cms.Apply(ctx, []byte(cm), apiclient.WriteOptions{FieldManager: "t", Force: true})
			return err
		},
		func() error {
			_, err := c.Resource(apiclient.Deployments).Namespace("ns1").Get(ctx, "d", "scale")
			if apiclient.IsNotFound(err) {
				return nil
			}
			return err
		},
		// A cluster-scoped resource named in a namespace is still cluster-scoped.
		func() error {
			_, err := c.Resource(apiclient.Namespaces).Namespace("ignored").List(ctx, apiclient.ListOptions{})
			return err
		},
		func() error { return cms.Delete(ctx, "a", apiclient.DeleteOptions{}) },
		// apitest serves no DELETE of a collection (405): the request was made.
		func() error {
			_ = cms.DeleteCollection(ctx, apiclient.DeleteOptions{}, apiclient.ListOptions{})
			return nil
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	want := []string{
		`POST create /configmaps ns="ns1" name="" sub=""`,
		`GET get /configmaps ns="ns1" name="a" sub=""`,
		`GET list /configmaps ns="ns1" name="" sub=""`,
		`GET watch /configmaps ns="" name="" sub=""`,
		`PUT update /configmaps ns="ns1" name="a" sub=""`,
		`PATCH patch /configmaps ns="ns1" name="a" sub=""`,
		`PATCH patch /configmaps ns="ns1" name="a" sub=""`,
		`GET get apps/deployments ns="ns1" name="d" sub="scale"`,
		`GET list /namespaces ns="" name="" sub=""`,
		`DELETE delete /configmaps ns="ns1" name="a" sub=""`,
		`DELETE deletecollection /configmaps ns="ns1" name="" sub=""`,
	}
	mu.Lock()
	defer mu.Unlock()
	if got, want := strings.Join(sent, "\n"), strings.Join(want, "\n"); got != want {
		t.Errorf("Sent was told:\n%s\nwant:\n%s", got, want)
	}
	if got, want := strings.Join(answered, "\n"), strings.Join(want, "\n"); got != want {
		t.Errorf("Answered was told:\n%s\nwant:\n%s", got, want)
	}
}

// Discovery and /version are no resource's: their RequestInfo names none,
// and no Action (every authenticated user may read them: system:discovery).
func TestRequestInfo_of_discovery_names_no_resource(t *testing.T) {
	var mu sync.Mutex
	var infos []apiclient.RequestInfo
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"major":"1","minor":"37","gitVersion":"v1.37.2"}`)
	})
	c = c.Derive(apiclient.Derived{Observer: apiclient.Observer{Answered: func(_ context.Context, r apiclient.RequestInfo) { mu.Lock(); infos = append(infos, r); mu.Unlock() }}})
	if _, err := c.ServerVersion(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got, want := len(infos), 1; got != want {
		t.Fatalf("%d requests, want %d", got, want)
	}
	if r := infos[0]; r.Action != "" || r.Resource.Name != "" || !strings.HasSuffix(r.URL, "/version") {
		t.Errorf("GET /version was told as %+v; want no Action and no Resource", r)
	}
}
