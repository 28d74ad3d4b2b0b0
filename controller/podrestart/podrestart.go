package podrestart

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
)

// Options say what to watch and what to restart; where (the namespace) is the
// Manager's.
type Options struct {
	LabelSelector string // which pods; default "app=nginx"
	Deployment    string // which deployment to restart; default "tools"
	Workers       int
}

// Restarter is the Reconciler; it also carries the transitions handler.
type Restarter struct {
	opts   Options
	client *apiclient.Client
	clock  controller.Clock // the restartedAt timestamp
	log    *slog.Logger

	mu      sync.Mutex
	pending map[string]string   // pod UID → "namespace/name", for pods first seen Pending
	owed    map[string][]string // deployment request → pods that became Running
}

// Setup builds the controller on m. It reconciles the deployment: a cache of
// that one object, whose first list reconciles it once (with nothing owed, a
// no-op), and whose changes — this controller's own restarts among them — are
// no reason to restart it (noUpdates). What does restart it is a pod's
// transition, which the handler on the pods with the selector turns into the
// deployment's Request.
func Setup(m *controller.Manager, opts Options) (*Restarter, error) {
	if opts.LabelSelector == "" {
		opts.LabelSelector = "app=nginx"
	}
	if opts.Deployment == "" {
		opts.Deployment = "tools"
	}
	r := &Restarter{opts: opts, client: m.Client(), clock: m.Clock(), log: m.Log(), pending: map[string]string{}, owed: map[string][]string{}}
	_, err := controller.New(m, "podrestart", controller.Options{Workers: opts.Workers}).
		For(apiclient.Deployments, controller.WithFields("metadata.name="+opts.Deployment), controller.WithPredicates(noUpdates)).
		WatchesWith(apiclient.Pods, r.handler, controller.WithLabels(opts.LabelSelector)).
		Complete(r)
	return r, err
}

// noUpdates lets no update of the deployment through.
func noUpdates(_, _ *apiclient.Object) bool { return false }

// handler notes, per pod, whether it was first seen Pending, and enqueues the
// deployment when such a pod is Running.
func (r *Restarter) handler(enqueue func(controller.Request)) informer.Handler {
	deployment := func(pod *apiclient.Object) controller.Request {
		return controller.Request{Namespace: pod.Metadata.Namespace, Name: r.opts.Deployment}
	}
	return informer.HandlerFuncs{
		AddFunc: func(pod *apiclient.Object, _ bool) {
			if phase(pod) == "Pending" {
				r.mu.Lock()
				r.pending[pod.Metadata.UID] = pod.Key()
				r.mu.Unlock()
			}
		},
		UpdateFunc: func(_, pod *apiclient.Object) {
			if phase(pod) != "Running" {
				return
			}
			r.mu.Lock()
			_, wasPending := r.pending[pod.Metadata.UID]
			d := deployment(pod)
			if wasPending {
				delete(r.pending, pod.Metadata.UID)
				r.owed[d.String()] = append(r.owed[d.String()], pod.Key())
			}
			r.mu.Unlock()
			if wasPending {
				enqueue(d)
			}
		},
		DeleteFunc: func(pod *apiclient.Object, _ bool) {
			r.mu.Lock()
			delete(r.pending, pod.Metadata.UID)
			r.mu.Unlock()
		},
	}
}

// Reconcile restarts the deployment if pods became Running since the last restart.
func (r *Restarter) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	r.mu.Lock()
	pods := r.owed[req.String()]
	delete(r.owed, req.String())
	r.mu.Unlock()
	if len(pods) == 0 {
		return controller.Result{}, nil
	}
	sort.Strings(pods)
	at := r.clock.Now().UTC().Format(time.RFC3339)
	patch := fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":%q}}}}}`, at)
	_, err := r.client.Resource(apiclient.Deployments).Namespace(req.Namespace).Patch(ctx, req.Name,
		apiclient.StrategicMergePatch, []byte(patch), apiclient.WriteOptions{FieldManager: "kubewire"})
	if apiclient.IsNotFound(err) {
		return controller.Result{}, controller.Terminal(fmt.Errorf("deployment %s does not exist", req))
	}
	if err != nil {
		// Owed restarts stay owed: the retry must still restart.
		r.mu.Lock()
		r.owed[req.String()] = append(r.owed[req.String()], pods...)
		r.mu.Unlock()
		return controller.Result{}, err
	}
	r.log.Info("restarted deployment", "deployment", req.String(), "restartedAt", at, "because", strings.Join(pods, ",")+" became Running")
	return controller.Result{}, nil
}

func phase(pod *apiclient.Object) string {
	p, _ := pod.FieldString("status", "phase")
	return p
}
