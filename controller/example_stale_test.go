package controller_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/trace"
)

// The stale-cache chapter (doc.go, "A stale cache after your own write"): a
// controller that counts its children in its cache, run twice while its watch
// of the children lags — once without the staleness guard, once with it.

// parent is a ConfigMap that asks for data.replicas child pods.
type parent struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Data                 struct {
		Replicas string `json:"replicas"`
	} `json:"data"`
}

func (*parent) Resource() apiclient.Resource { return apiclient.ConfigMaps }

// child is a pod a parent controls.
type child struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 map[string]any `json:"spec"`
}

func (*child) Resource() apiclient.Resource { return apiclient.Pods }

// parents are the ConfigMaps with this label.
const parentLabel = "kubewire.io/replicas"

// replicas is a ReplicaSet in miniature: it reads a parent and its children
// from the cache, creates the children that are missing and deletes the extra
// ones, then writes how many there are on the parent (only when that changed).
// That write is what brings it back at once — its own watch event — while the
// watch of the children may not have shown the child it created yet.
type replicas struct {
	client   *apiclient.Client
	parents  *informer.Lister[parent]
	children *informer.Lister[child]
}

// newReplicas builds the controller on m: For the parents, Owns their pods.
func newReplicas(m *controller.Manager, opts controller.Options) (*controller.Controller, error) {
	r := &replicas{client: m.Client(), parents: controller.Lister[parent](m, controller.WithLabels(parentLabel)),
		children: controller.Lister[child](m)}
	return controller.New(m, "replicas", opts).For(apiclient.ConfigMaps, controller.WithLabels(parentLabel)).
		Owns(apiclient.Pods).Complete(r)
}

func (r *replicas) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	p, err := r.parents.Get(req.Namespace, req.Name)
	if apiclient.IsNotFound(err) {
		return controller.Result{}, nil // gone: the garbage collector takes its children
	}
	if err != nil {
		return controller.Result{}, err
	}
	want, _ := strconv.Atoi(p.Data.Replicas)
	all, err := r.children.List() // the cache: cheap, and maybe behind
	if err != nil {
		return controller.Result{}, err
	}
	var mine []*child
	for _, c := range all {
		if controller.IsControlledBy(&c.ObjectMeta, p) {
			mine = append(mine, c)
		}
	}
	pods := apiclient.NewTyped[child](r.client).Namespace(p.Namespace)
	for n := len(mine); n < want; n++ {
		c := &child{ObjectMeta: controller.ChildOf(p, ""), Spec: map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox"}}}}
		c.GenerateName = p.Name + "-"
		if _, err := pods.Create(ctx, c, apiclient.WriteOptions{}); err != nil {
			return controller.Result{}, err
		}
	}
	for _, extra := range mine[min(want, len(mine)):] {
		if err := pods.Delete(ctx, extra.Name, apiclient.DeleteOptions{}); apiclient.IgnoreNotFound(err) != nil {
			return controller.Result{}, err
		}
	}
	if count := strconv.Itoa(want); p.Annotations["kubewire.io/children"] != count {
		patch := fmt.Sprintf(`{"metadata":{"annotations":{"kubewire.io/children":%q}}}`, count)
		if _, err := apiclient.NewTyped[parent](r.client).Namespace(p.Namespace).Patch(ctx, p.Name, apiclient.MergePatch, []byte(patch), apiclient.WriteOptions{}); err != nil {
			return controller.Result{}, err
		}
	}
	return controller.Result{}, nil
}

// A parent asks for one child. The children's watch lags (HoldWatch): the
// controller's create is answered at once, its watch event is not. The
// controller's own write on the parent brings the parent back for a second
// turn; without the guard that turn counts no child in its cache and makes a
// second one. With the guard, the turn is skipped until the cache of pods
// shows the create — the trace line says why — and nothing is made twice.
func Example_staleCache() {
	for _, guard := range []bool{false, true} {
		srv := apitest.NewServer(nil)
		srv.CreateNamespaces("demo")
		srv.Add(apiclient.ConfigMaps, `{"metadata":{"name":"web","namespace":"demo","labels":{"kubewire.io/replicas":""}},"data":{"replicas":"1"}}`)
		release := srv.HoldWatch(apiclient.Pods) // from here, the pods watch sends nothing

		var once sync.Once
		stale := make(chan string, 1)
		client, _ := srv.Client(apiclient.Options{})
		m, _ := controller.NewManager(client, controller.ManagerOptions{Namespace: "demo",
			Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Trace: func(e trace.Event) {
				if e.Outcome == "stale" { // the trace's line has the cache's version too
					once.Do(func() {
						stale <- fmt.Sprintf("turn of %s skipped: the cache of %s does not show %s yet", e.Key, e.Informer, e.Awaited)
					})
				}
			}})
		c, _ := newReplicas(m, controller.Options{DisableStaleGuard: !guard})
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- m.Run(ctx) }()

		if guard {
			select {
			case line := <-stale:
				fmt.Println(line)
			case <-time.After(time.Minute):
				fmt.Println("no turn was skipped in a minute")
			}
			release() // the watch catches up; the skipped turn runs on a cache that shows the child
		}
		waitFor(func() bool { return c.Stats().Reconciles >= 2 })
		pods, _ := client.Resource(apiclient.Pods).Namespace("demo").List(ctx, apiclient.ListOptions{})
		fmt.Printf("guard %v: %d children for 1 wanted; turns skipped: %v\n", guard, len(pods.Items), c.Stats().StaleSkips > 0)

		release()
		stop()
		<-done
		srv.Close()
	}
	// Output:
	// guard false: 2 children for 1 wanted; turns skipped: false
	// turn of demo/web skipped: the cache of pods does not show rv 3 yet
	// guard true: 1 children for 1 wanted; turns skipped: true
}

// waitFor returns once cond holds, or after a minute (then the Example's
// output shows what was missing).
func waitFor(cond func() bool) {
	for deadline := time.Now().Add(time.Minute); !cond() && time.Now().Before(deadline); {
		runtime.Gosched()
	}
}
