package perturb_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/perturb"
)

// The catalog is a ConfigMap that lists every Widget of its namespace, which
// the controller rewrites from its cache whenever a Widget comes or goes.
//
// The bug: the handler that wakes it skips a delete whose final state is
// unknown — one the informer learned from a relist, not from a watch event —
// as "not a real delete". It is client-go's most common handler bug, there
// written `w, ok := obj.(*Widget); if !ok { return }`, which drops the
// DeletedFinalStateUnknown tombstone just so. A Widget deleted while the watch
// had expired stays in the catalog. The fix treats every delete alike.

var widgets = custom("widgets", "Widget")

type cataloguer struct {
	client  *apiclient.Client
	widgets *informer.Informer
}

// Reconcile has one Request, the catalog's: it lists the Widgets the cache
// holds and writes their names.
func (r *cataloguer) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	var names []string
	for _, w := range r.widgets.List() {
		names = append(names, w.Metadata.Name)
	}
	sort.Strings(names)
	body := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"catalog"},"data":{"widgets":"` + strings.Join(names, ",") + `"}}`)
	_, err := r.client.Resource(configMaps).Namespace(req.Namespace).Patch(ctx, "catalog", apiclient.ApplyPatch, body,
		apiclient.WriteOptions{FieldManager: "catalog", Force: true})
	return controller.Result{}, err
}

func noUpdates(_, _ *apiclient.Object) bool { return false }

func catalogSpec(fixed bool) perturb.Spec {
	return perturb.Spec{
		Setup: func(m *controller.Manager) error {
			r := &cataloguer{client: m.Client(), widgets: m.Informer(widgets)}
			catalog := func(o *apiclient.Object) controller.Request {
				return controller.Request{Namespace: o.Metadata.Namespace, Name: "catalog"}
			}
			_, err := controller.New(m, "catalog", controller.Options{}).
				// The catalog itself: made again if deleted; its own updates
				// are no reason to write it.
				For(configMaps, controller.WithFields("metadata.name=catalog"), controller.WithPredicates(noUpdates)).
				WatchesWith(widgets, func(enqueue func(controller.Request)) informer.Handler {
					return informer.HandlerFuncs{
						AddFunc: func(w *apiclient.Object, _ bool) { enqueue(catalog(w)) },
						DeleteFunc: func(w *apiclient.Object, finalStateUnknown bool) {
							if finalStateUnknown && !fixed {
								return // not a real delete, or so it seems
							}
							enqueue(catalog(w))
						},
					}
				}).Complete(r)
			return err
		},
		Manager: controller.ManagerOptions{Namespace: "shop"},
		Workload: []perturb.Step{
			perturb.Create(widgets, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"gear","namespace":"shop"}}`),
			perturb.Create(widgets, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"sprocket","namespace":"shop"}}`),
			perturb.Delete(widgets, "shop/gear"),
		},
	}
}

func TestCatalog_keeps_a_widget_whose_delete_came_from_a_relist(t *testing.T) {
	found(t, perturb.Explore(t, catalogSpec(false)), perturb.Expire, "catalog")
}

func TestCatalog_fixed_treats_every_delete_alike(t *testing.T) {
	passes(t, perturb.Explore(t, catalogSpec(true)))
}
