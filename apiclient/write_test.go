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

// writeLog is an Observer's Write that writes one line per write begun and one
// per write over, and keeps the context value it was given.
type writeLog struct {
	mu    sync.Mutex
	lines []string
}

type ctxKey struct{}

func (l *writeLog) hook(ctx context.Context, w apiclient.WriteInfo) func(*apiclient.Object, error) {
	l.add(fmt.Sprintf("begin %s %s %s/%s sub=%q ctx=%v", w.Verb, w.Resource.Name, w.Namespace, w.Name, w.Subresource, ctx.Value(ctxKey{})))
	return func(answer *apiclient.Object, err error) {
		switch {
		case err != nil:
			l.add(fmt.Sprintf("done %s error %v", w.Verb, apiclient.IsNotFound(err)))
		case answer == nil:
			l.add(fmt.Sprintf("done %s no answer", w.Verb))
		default:
			l.add(fmt.Sprintf("done %s %s %s rv=%s", w.Verb, answer.Kind, answer.Metadata.Name, answer.Metadata.ResourceVersion))
		}
	}
}

func (l *writeLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
}

// The Observer's Write hears of every write of one object, with the caller's context, and
// of what the server answered: the object, with the resourceVersion a cache
// must reach to show the write.
func TestObserver_Write_is_told_of_each_write_and_its_answer(t *testing.T) {
	srv := apitest.NewServer(nil)
	defer srv.Close()
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var log writeLog
	c = c.Derive(apiclient.Derived{Observer: apiclient.Observer{Write: log.hook}})
	ctx := context.WithValue(context.Background(), ctxKey{}, "reconcile default/a")
	cms := c.Resource(apiclient.ConfigMaps).Namespace("default")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = cms.Create(ctx, []byte(`{"metadata":{"name":"a"}}`), apiclient.WriteOptions{})
	must(err)
	_, err = cms.Patch(ctx, "a", apiclient.MergePatch, []byte(`{"data":{"k":"v"}}`), apiclient.WriteOptions{})
	must(err)
	_, err = cms.Apply(ctx, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"w"}}`), apiclient.WriteOptions{FieldManager: "t", Force: true}) // the patch's manager owns data.k
	must(err)
	_, err = cms.Update(ctx, []byte(`{"metadata":{"name":"a"},"data":{"k":"x"}}`), apiclient.WriteOptions{}) // a ConfigMap has no status subresource
	must(err)
	must(cms.Delete(ctx, "a", apiclient.DeleteOptions{}))
	if err := cms.Delete(ctx, "a", apiclient.DeleteOptions{}); !apiclient.IsNotFound(err) {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := cms.Get(ctx, "a"); !apiclient.IsNotFound(err) {
		t.Fatalf("get: %v", err)
	}

	want := []string{
		`begin POST configmaps default/a sub="" ctx=reconcile default/a`,
		`done POST ConfigMap a rv=2`,
		`begin PATCH configmaps default/a sub="" ctx=reconcile default/a`,
		`done PATCH ConfigMap a rv=3`,
		`begin PATCH configmaps default/a sub="" ctx=reconcile default/a`,
		`done PATCH ConfigMap a rv=4`,
		`begin PUT configmaps default/a sub="" ctx=reconcile default/a`,
		`done PUT ConfigMap a rv=5`,
		`begin DELETE configmaps default/a sub="" ctx=reconcile default/a`,
		`done DELETE Status  rv=`, // a ConfigMap's delete is answered with a Status, as on kube-apiserver
		`begin DELETE configmaps default/a sub="" ctx=reconcile default/a`,
		`done DELETE error true`,
	}
	if got := strings.Join(log.lines, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("the Observer's Write heard:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// A DELETE that the server answers with a Status (configmaps, deployments and
// most resources on a real kube-apiserver) gives the Observer's Write that Status, whose
// details name the object's uid; an answer that is neither gives nil, and the
// delete still succeeds.
func TestObserver_Write_gets_a_deletes_Status(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"a","kind":"configmaps","uid":"u-1"}}`, "Status u-1"},
		{`<html>ok</html>`, "nil"},
		{``, "nil"},
	} {
		c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, tc.body) })
		var got string
		c = c.Derive(apiclient.Derived{Observer: apiclient.Observer{Write: func(context.Context, apiclient.WriteInfo) func(*apiclient.Object, error) {
			return func(answer *apiclient.Object, err error) {
				if answer == nil {
					got = "nil"
					return
				}
				uid, _ := answer.FieldString("details", "uid")
				got = answer.Kind + " " + uid
			}
		}}})
		if err := c.Resource(apiclient.ConfigMaps).Namespace("default").Delete(context.Background(), "a", apiclient.DeleteOptions{}); err != nil {
			t.Fatalf("%s: delete: %v", tc.body, err)
		}
		if got != tc.want {
			t.Errorf("answer %q: the Observer's Write got %q, want %q", tc.body, got, tc.want)
		}
		// DeleteCollection is no one object's write: the Observer's Write is not told.
		got = "untold"
		if err := c.Resource(apiclient.ConfigMaps).Namespace("default").DeleteCollection(context.Background(), apiclient.DeleteOptions{}, apiclient.ListOptions{}); err != nil || got != "untold" {
			t.Errorf("DeleteCollection: %v, the Observer's Write got %q", err, got)
		}
	}
}
