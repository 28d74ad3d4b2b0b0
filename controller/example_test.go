package controller_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/trace"
)

// examplePodView is as much of a pod as the Examples read: a TypedObject.
type examplePodView struct {
	apiclient.ObjectMeta `json:"metadata"`
}

func (*examplePodView) Resource() apiclient.Resource { return apiclient.Pods }

// examplePod is the JSON of a bare pod in "default": the in-memory server does no
// defaulting or validation, so name and namespace are all it needs.
func examplePod(name string) []byte {
	return []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"namespace":"default"}}`, name))
}

// quietLog keeps the manager's and the controller's logs out of the Examples' output.
var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// exampleManager starts an API server in memory that holds the pods named (in
// "default"), and a Manager on it, working in "default" with opts. The caller
// closes the server.
func exampleManager(opts controller.ManagerOptions, pods ...string) (*apitest.Server, *controller.Manager, error) {
	srv := apitest.NewServer(clock.NewFake())
	for _, name := range pods {
		if _, err := srv.Add(apiclient.Pods, examplePod(name)); err != nil {
			srv.Close()
			return nil, nil, err
		}
	}
	client, err := srv.Client(apiclient.Options{})
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	opts.Namespace, opts.Log = "default", quietLog
	m, err := controller.NewManager(client, opts)
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	return srv, m, nil
}

// client-go's workqueue example, on kubewire: a controller that prints each pod it
// reconciles, reading it from the informer's cache, and whose Reconcile fails for
// one pod, so that the loop retries it up to MaxRetries times and then drops it.
//
// The Example waits for each line it expects before taking the next step, so
// that its output is deterministic; a real controller never waits like this.
func Example_workqueue() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// printed is how the Example learns that a Reconcile has printed its line;
	// dropped, that the loop gave up on a Request. Both are unbuffered: the
	// worker waits for the Example to take note, which keeps the output in order.
	printed := make(chan struct{})
	dropped := make(chan string)
	trace := func(e trace.Event) { // every hop of the pipeline: the Example waits for one
		if e.Stage == trace.Controller && e.Outcome == "dropped" {
			dropped <- e.String()
		}
	}
	// web-1 exists before the controller starts: it reaches Reconcile from the
	// initial LIST, as every object does after a restart.
	srv, m, err := exampleManager(controller.ManagerOptions{Trace: trace}, "web-1")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	client := m.Client()
	pods := controller.Lister[examplePodView](m)

	say := func(format string, args ...any) {
		fmt.Printf(format, args...)
		printed <- struct{}{}
	}
	goneSaid := map[controller.Request]bool{} // one worker: no lock needed
	reconcile := func(ctx context.Context, req controller.Request) (controller.Result, error) {
		// The Request is only a name. What the pod looks like now is read from the
		// cache: the informer updated it before it told the controller, so the
		// cache holds at least the change that queued this Request.
		pod, err := pods.Get(req.Namespace, req.Name)
		if apiclient.IsNotFound(err) {
			// Gone from the cache means gone from the server: this is where a
			// controller cleans up whatever it made for the pod. A Pod's delete is
			// two changes, as on kube-apiserver: marked (deletionTimestamp), then
			// removed; the queue may fold them into one Reconcile or not, so the
			// same Request can find the pod gone twice. Cleaning up must not care.
			if !goneSaid[req] {
				goneSaid[req] = true
				say("Pod %s does not exist anymore\n", req)
			}
			return controller.Result{}, nil
		}
		if pod.DeletionTimestamp != nil {
			return controller.Result{}, nil // being deleted: its removal comes next
		}
		say("Sync/Add/Update for Pod %s\n", pod.Name)
		if pod.Name == "broken" {
			// An ordinary error: the loop puts the Request back with a growing delay
			// (5 ms, 10 ms, 20 ms, …) and calls us again.
			return controller.Result{}, errors.New("image registry unreachable")
		}
		return controller.Result{}, nil
	}
	// Every add, update and delete of a pod becomes the pod's own Request.
	_, err = controller.New(m, "pod-printer", controller.Options{
		// One worker, so Reconciles come one at a time, in queue order.
		Workers: 1,
		// After the first failure, five retries; then the Request is dropped. It
		// comes back with the pod's next change, or the next resync.
		MaxRetries: 5,
	}).For(apiclient.Pods).Complete(controller.ReconcilerFunc(reconcile))
	if err != nil {
		fmt.Println(err)
		return
	}
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }() // owned here: waited for at the end

	rc := client.Resource(apiclient.Pods).Namespace("default")
	<-printed // web-1, from the initial list

	if _, err := rc.Create(ctx, examplePod("web-2"), apiclient.WriteOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	<-printed

	if _, err := rc.Patch(ctx, "web-1", apiclient.MergePatch, []byte(`{"metadata":{"labels":{"tier":"frontend"}}}`), apiclient.WriteOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	<-printed

	if err := rc.Delete(ctx, "web-2", apiclient.DeleteOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	<-printed

	if _, err := rc.Create(ctx, examplePod("broken"), apiclient.WriteOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	for i := 0; i < 1+5; i++ { // the first attempt and five retries
		<-printed
	}
	fmt.Println("Dropping pod out of the queue:", strings.SplitN(<-dropped, "controller reconcile ", 2)[1])

	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		fmt.Println("manager:", err)
	}
	// Output:
	// Sync/Add/Update for Pod web-1
	// Sync/Add/Update for Pod web-2
	// Sync/Add/Update for Pod web-1
	// Pod default/web-2 does not exist anymore
	// Sync/Add/Update for Pod broken
	// Sync/Add/Update for Pod broken
	// Sync/Add/Update for Pod broken
	// Sync/Add/Update for Pod broken
	// Sync/Add/Update for Pod broken
	// Sync/Add/Update for Pod broken
	// Dropping pod out of the queue: default/broken dropped after 5 retries: image registry unreachable
}

// An informer's handlers are told, in order, what happened to the objects it
// caches: the initial list as adds, then each change the watch brings.
func Example_informer() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, m, err := exampleManager(controller.ManagerOptions{}, "web-1")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	client := m.Client()
	pods := m.Informer(apiclient.Pods)

	// The handler runs on a goroutine of its own; it hands each line to the
	// Example, which prints it, so that output and steps stay in one order.
	lines := make(chan string)
	pods.AddHandler("example", informer.HandlerFuncs{
		AddFunc: func(o *apiclient.Object, initialList bool) {
			lines <- fmt.Sprintf("add %s (initial list: %v)", o.Key(), initialList)
		},
		UpdateFunc: func(old, o *apiclient.Object) {
			lines <- fmt.Sprintf("update %s labels %v → %v", o.Key(), old.Metadata.Labels, o.Metadata.Labels)
		},
		DeleteFunc: func(o *apiclient.Object, finalStateUnknown bool) {
			lines <- fmt.Sprintf("delete %s (final state unknown: %v)", o.Key(), finalStateUnknown)
		},
	}, 0)
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }() // owned here: waited for at the end

	rc := client.Resource(apiclient.Pods).Namespace("default")
	fmt.Println(<-lines)
	if _, err := rc.Create(ctx, examplePod("web-2"), apiclient.WriteOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(<-lines)
	if _, err := rc.Patch(ctx, "web-2", apiclient.MergePatch, []byte(`{"metadata":{"labels":{"tier":"frontend"}}}`), apiclient.WriteOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(<-lines)
	if err := rc.Delete(ctx, "web-2", apiclient.DeleteOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	// A Pod's delete is two writes, as on kube-apiserver: deletionTimestamp
	// set (an update), then the object gone.
	fmt.Println(<-lines)
	fmt.Println(<-lines)
	// The cache already agrees: the store is updated before handlers are told.
	fmt.Println("cached:", len(pods.List()))

	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		fmt.Println("manager:", err)
	}
	// Output:
	// add default/web-1 (initial list: true)
	// add default/web-2 (initial list: false)
	// update default/web-2 labels map[] → map[tier:frontend]
	// update default/web-2 labels map[tier:frontend] → map[tier:frontend]
	// delete default/web-2 (final state unknown: false)
	// cached: 1
}
