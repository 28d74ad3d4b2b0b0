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

// Options say what to watch and what to restart.
type Options struct {
	Namespace     string // where the pods and the deployment are
	LabelSelector string // which pods; default "app=nginx"
	Deployment    string // which deployment to restart; default "tools"
	Workers       int
	Now           func() time.Time // the restartedAt timestamp; nil means time.Now
	Log           *slog.Logger
	Trace         func(string)
}

// Restarter is the Reconciler; it also carries the transitions handler.
type Restarter struct {
	opts   Options
	client *apiclient.Client

	mu      sync.Mutex
	pending map[string]string   // pod UID → "namespace/name", for pods first seen Pending
	owed    map[string][]string // deployment request → pods that became Running
}

// Setup builds the controller on m: a pods informer in opts.Namespace with the
// selector, the transitions handler, and the Reconciler.
func Setup(m *controller.Manager, opts Options) (*controller.Controller, *Restarter) {
	if opts.LabelSelector == "" {
		opts.LabelSelector = "app=nginx"
	}
	if opts.Deployment == "" {
		opts.Deployment = "tools"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	r := &Restarter{opts: opts, client: m.Client(), pending: map[string]string{}, owed: map[string][]string{}}
	ctrl := controller.New("podrestart", r, controller.Options{Workers: opts.Workers, Log: opts.Log, Trace: opts.Trace})
	pods := m.Informer(apiclient.Pods, informer.Options{Namespace: opts.Namespace, LabelSelector: opts.LabelSelector})
	ctrl.WatchWith(pods, r.handler)
	m.Add(ctrl)
	return ctrl, r
}

// handler notes, per pod, whether it was first seen Pending, and enqueues the
// deployment when such a pod is Running.
func (r *Restarter) handler(enqueue func(controller.Request)) informer.Handler {
	deployment := controller.Request{Namespace: r.opts.Namespace, Name: r.opts.Deployment}
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
			if wasPending {
				delete(r.pending, pod.Metadata.UID)
				r.owed[deployment.String()] = append(r.owed[deployment.String()], pod.Key())
			}
			r.mu.Unlock()
			if wasPending {
				enqueue(deployment)
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
	at := r.opts.Now().UTC().Format(time.RFC3339)
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
	r.opts.Log.Info("restarted deployment", "deployment", req.String(), "restartedAt", at, "because", strings.Join(pods, ",")+" became Running")
	return controller.Result{}, nil
}

func phase(pod *apiclient.Object) string {
	p, _ := pod.FieldString("status", "phase")
	return p
}
