package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/podrestart"
	controllertrace "github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/listwatch"
)

// demoTimeout bounds the whole story. Each step takes milliseconds; if one never
// happens (a bug), the demo says which step it was waiting for instead of hanging.
const demoTimeout = 30 * time.Second

// noConfigLine is what `kubewire` with no command prints before falling back
// to the demo, so nobody mistakes the demo for a run against their cluster.
const noConfigLine = "no cluster config found (--kubeconfig, $KUBECONFIG, ~/.kube/config, in-cluster): running the demo"

// defaultCommand picks what `kubewire` with no command does: `run` when a
// cluster config is found, `demo` when there is none at all. Any other failure
// to load one (a broken file, an unknown --context) is an error, not a reason
// to fall back: the user meant a cluster, and should hear what is wrong with it.
func defaultCommand(p *parsed, env Env) (string, error) {
	_, err := kubeconfig.Load(kubeconfig.Options{Path: p.str("kubeconfig"), Context: p.str("context"), Getenv: env.Getenv})
	switch {
	case err == nil:
		return "run", nil
	case errors.Is(err, kubeconfig.ErrNoConfig):
		fmt.Fprintln(env.Stderr, noConfigLine)
		return "demo", nil
	}
	return "", err
}

// runDemo is `kubewire demo`: the controller of `kubewire run`, on an API server
// that lives in this process (apitest's live mode), never on a real cluster. It
// seeds a namespace "demo", a deployment "tools" and two pods, starts the
// podrestart controller with --trace on, and plays a short story, printing each
// step on stdout as it happens while the trace shows, on stderr, every hop an
// object makes through the pipeline:
//
//  1. create pod web-2, Pending           listwatch → fifo → store → handler
//  2. make it Running (PATCH pods/status)  handler notes the transition → queue → controller
//  3. the controller restarts "tools"      PATCH of restartedAt, read back here
//  4. delete web-2                         an update (deletionTimestamp), then the DELETED event, down the same path
//
// The trace comes out step by step, each step's hops once the step is over, in
// one causal order (demo_order.go), so that every run prints the same lines in
// the same order, durations, the address and times aside (issue 36: the two
// informers and the worker race, and the story was a different one each run).
// The informers list with LIST (ListPaged), never with a streaming list: that
// one gives up on its initial events after a second of silence,
// and in step mode a hop may be held for longer. What is left of time in step
// mode: a watch held at one hop past its timeout (minutes) is ended by the
// server, or dropped by the Reflector's idle watchdog 30 s later, and watched
// again — a hop a normal run does not have.
//
// Then one summary line, and exit 0; interrupted, it says where it was and exits
// 130 (SIGINT) or 143 (SIGTERM). Discovery is skipped: the test server has
// no discovery endpoints, and the resources are the well-known ones
// (apiclient.Pods, apiclient.Deployments).
//
// With --ui ADDR the page shows the story as it happens and stays up, the
// controller still running, until Ctrl-C, which is then its designed end: exit
// 0 once the story is told; with --step as well, the pipeline waits
// at every hop for the page's "next" (so there is no time limit).
func runDemo(parent context.Context, s *session) error {
	page, err := s.openUI("demo")
	if err != nil {
		return err
	}
	var ctx context.Context
	var cancel context.CancelFunc
	if s.boolean("step") {
		ctx, cancel = context.WithCancel(parent) // the reader sets the pace
	} else {
		ctx, cancel = context.WithTimeout(parent, demoTimeout)
	}
	defer cancel()
	start := time.Now()
	// The trace and the log go through the story's order (demo_order.go):
	// each step's lines are printed when the step is over, the same way every
	// run. Main gave the session streams that take writes from several
	// goroutines (lockedWriter).
	s.flags["trace"] = "true" // the point of the demo is to watch the hops
	order := newStoryOrder(s.traceLine())
	s.log = slog.New(slog.NewTextHandler(order, &slog.HandlerOptions{Level: s.logLevel()}))
	say := func(format string, args ...any) { fmt.Fprintf(s.env.Stdout, "demo: "+format+"\n", args...) }

	srv := apitest.NewPlainServer(nil) // the real clock: the story is short, and read as it happens; plain HTTP: see the package doc
	defer srv.Close()
	if err := seedDemo(srv); err != nil {
		return fmt.Errorf("demo: seed the test server: %w", err)
	}
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		return err
	}
	trace := s.page.trace(nil) // the page with --ui, as each hop happens
	// LIST (ListPaged): by default the informers would stream their lists
	// here (apitest answers no GET /version), and a streaming list gives up
	// on its initial events after a second of silence (listwatch's
	// initialEventsIdle); in step mode a reader holds a hop longer than that,
	// so --step would have told another story.
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: demoNamespace, Log: s.log, List: listwatch.ListPaged, Trace: func(e controllertrace.Event) {
		order.Trace(e)
		if trace != nil {
			trace(e)
		}
	}})
	if err != nil {
		return err
	}
	if _, err := podrestart.Setup(m, podrestart.Options{LabelSelector: demoSelector, Deployment: demoDeployment, Workers: 1}); err != nil {
		return err
	}
	// The same informer the controller uses (same resource, namespace and
	// selector), so the story waits on the events the controller sees.
	inf := m.Informer(apiclient.Pods, controller.WithLabels(demoSelector))
	seen := newPodEvents(demoPod)
	inf.AddHandler("demo", seen.handler(), 0)

	say("an API server in this process (%s), no cluster touched; seeded namespace %q, deployment %q, pods web-1 (Running) and db-0", srv.URL, demoNamespace, demoDeployment)
	say("starting the podrestart controller: pods %q in %q; a pod first seen Pending that becomes Running restarts deployment %q", demoSelector, demoNamespace, demoDeployment)
	// The controller and the page run until the story is told or, with a page,
	// until Ctrl-C: not bounded by the story's time limit.
	runCtx, stop := context.WithCancel(parent)
	defer stop()
	runErr := make(chan error, 1)
	go func() { runErr <- m.Run(runCtx) }() // owned here: stopped and waited for below
	served := page.serve(runCtx, m)
	err = playDemo(ctx, m.Client(), inf, seen, order, say)
	if err == nil && page != nil {
		page.finish()
		say("the story is told; the page stays up, the controller running, until Ctrl-C")
		<-parent.Done()
	}
	stop()
	if rerr := <-runErr; err == nil && rerr != nil && !errors.Is(rerr, context.Canceled) {
		err = rerr
	}
	if perr := <-served; err == nil && perr != nil {
		err = perr
	}
	order.flush() // what came after the last step, and the controller's stop
	if err != nil && parent.Err() != nil {
		// Ctrl-C or SIGTERM before the story was told: a clean stop, and an
		// exit status that says it was cut short (130, 143).
		say("interrupted after %v: %v", time.Since(start).Round(time.Millisecond), err)
		return errStopped
	}
	if err != nil {
		return err
	}
	say("done in %v: pod created Pending, made Running, deployment restarted once, pod deleted; `kubewire run` does the same against a real cluster",
		time.Since(start).Round(time.Millisecond))
	return nil
}

const (
	demoNamespace  = "demo"
	demoDeployment = "tools"
	demoSelector   = "app=nginx"
	demoPod        = "web-2"
	demoKey        = demoNamespace + "/" + demoPod
)

// seedDemo fills the server with what exists before the story starts. web-1 is
// already Running, so it never triggers a restart (the controller only acts on a
// pod it saw Pending first); db-0 does not match the selector, so the
// controller's informer never even receives it.
func seedDemo(srv *apitest.Server) error {
	seeds := []struct {
		res apiclient.Resource
		obj string
	}{
		{apiclient.Namespaces, `{"metadata":{"name":"demo"}}`},
		{apiclient.Deployments, `{"metadata":{"name":"tools","namespace":"demo"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"tools"}},
			"template":{"metadata":{"labels":{"app":"tools"}},"spec":{"containers":[{"name":"tools","image":"busybox"}]}}}}`},
		{apiclient.Pods, `{"metadata":{"name":"web-1","namespace":"demo","labels":{"app":"nginx"}},"spec":{"containers":[{"name":"nginx","image":"nginx"}]},"status":{"phase":"Running"}}`},
		{apiclient.Pods, `{"metadata":{"name":"db-0","namespace":"demo","labels":{"app":"db"}},"spec":{"containers":[{"name":"db","image":"postgres"}]},"status":{"phase":"Running"}}`},
	}
	for _, sd := range seeds {
		if _, err := srv.Add(sd.res, sd.obj); err != nil {
			return err
		}
	}
	return nil
}

// playDemo is the story, step by step; each step waits for its effect before
// the next begins, so the output reads in the order things happened.
//
// Each step ends when the hops it causes have all come (order.settle: the last
// hop of each path the step starts), and its trace is printed then
// (order.flush), so that the next step's hops never mix with its own.
func playDemo(ctx context.Context, c *apiclient.Client, inf *informer.Informer, seen *podEvents, order *storyOrder, say func(string, ...any)) error {
	if !inf.WaitForCacheSync(ctx) {
		return fmt.Errorf("demo: the pods informer never synced: %w", context.Cause(ctx))
	}
	// Both informers listed and watching; the deployment's initial list
	// reconciled once.
	synced := append(listedAndWatching(apiclient.Deployments.String()), listedAndWatching(apiclient.Pods.String())...)
	if err := order.settle(ctx, "the caches to sync", append(synced, reconciled(demoNamespace+"/"+demoDeployment))...); err != nil {
		return err
	}
	order.flush()
	say("1/4 the controller's cache is synced; creating pod %s/%s in phase Pending", demoNamespace, demoPod)
	pods := c.Resource(apiclient.Pods).Namespace(demoNamespace)
	pod := `{"metadata":{"name":"` + demoPod + `","labels":{"app":"nginx"}},"spec":{"containers":[{"name":"nginx","image":"nginx"}]},"status":{"phase":"Pending"}}`
	if _, err := pods.Create(ctx, []byte(pod), apiclient.WriteOptions{}); err != nil {
		return fmt.Errorf("demo: create pod: %w", err)
	}
	if err := waitFor(ctx, seen.pending, "the controller to see the Pending pod"); err != nil {
		return err
	}
	if err := order.settle(ctx, "the Pending pod's hops", handled("add", demoKey, "podrestart"), handled("add", demoKey, "demo")); err != nil {
		return err
	}
	order.flush()

	// Watch the deployment before the pod runs, so the restart cannot be missed.
	// With no resourceVersion the watch starts with the deployment as it is now.
	w, err := c.Resource(apiclient.Deployments).Namespace(demoNamespace).Watch(ctx, apiclient.WatchOptions{})
	if err != nil {
		return fmt.Errorf("demo: watch deployments: %w", err)
	}
	defer w.Close()
	say("2/4 the pod is Running now: PATCH pods/%s/status, as a kubelet would", demoPod)
	if _, err := pods.Patch(ctx, demoPod, apiclient.MergePatch, []byte(`{"status":{"phase":"Running"}}`), apiclient.WriteOptions{}, "status"); err != nil {
		return fmt.Errorf("demo: make the pod Running: %w", err)
	}
	at, err := waitForRestart(w)
	if err != nil {
		return fmt.Errorf("demo: waiting for the controller to restart deployment %s/%s: %w", demoNamespace, demoDeployment, err)
	}
	// The reconcile done, and its write back in the controller's cache.
	tools := demoNamespace + "/" + demoDeployment
	if err := order.settle(ctx, "the restart's hops", handled("update", demoKey, "demo"), reconciled(tools), handled("update", tools, "podrestart")); err != nil {
		return err
	}
	order.flush()
	say("3/4 the controller restarted deployment %s/%s: restartedAt=%s", demoNamespace, demoDeployment, at)

	say("4/4 deleting pod %s/%s", demoNamespace, demoPod)
	if err := pods.Delete(ctx, demoPod, apiclient.DeleteOptions{}); err != nil {
		return fmt.Errorf("demo: delete pod: %w", err)
	}
	if err := waitFor(ctx, seen.deleted, "the controller to see the pod deleted"); err != nil {
		return err
	}
	if err := order.settle(ctx, "the deletion's hops", handled("delete", demoKey, "podrestart"), handled("delete", demoKey, "demo")); err != nil {
		return err
	}
	order.flush()
	return nil
}

// waitForRestart reads deployment events until one carries the restartedAt
// annotation that `kubectl rollout restart` (and podrestart) set, and returns it.
func waitForRestart(w *apiclient.Watcher) (string, error) {
	for {
		ev, err := w.Next()
		if err != nil {
			return "", err
		}
		if ev.Object == nil {
			continue
		}
		if at, _ := ev.Object.FieldString("spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt"); at != "" {
			return at, nil
		}
	}
}

func waitFor(ctx context.Context, ch <-chan struct{}, what string) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("demo: gave up waiting for %s: %w", what, context.Cause(ctx))
	}
}

// podEvents closes pending when the informer delivers the named pod in phase
// Pending, and deleted when it delivers its deletion: the story's cues. Its
// handler is called from the informer's listener goroutine; the channels are
// closed once each, so it is safe for concurrent use. Build it with newPodEvents.
type podEvents struct {
	name                 string
	pending, deleted     chan struct{}
	pendingOnce, delOnce sync.Once
}

func newPodEvents(name string) *podEvents {
	return &podEvents{name: name, pending: make(chan struct{}), deleted: make(chan struct{})}
}

func (p *podEvents) handler() informer.HandlerFuncs {
	return informer.HandlerFuncs{
		AddFunc: func(obj *apiclient.Object, _ bool) {
			if obj.Metadata.Name != p.name {
				return
			}
			if phase, _ := obj.FieldString("status", "phase"); phase == "Pending" {
				p.pendingOnce.Do(func() { close(p.pending) })
			}
		},
		DeleteFunc: func(obj *apiclient.Object, _ bool) {
			if obj.Metadata.Name == p.name {
				p.delOnce.Do(func() { close(p.deleted) })
			}
		},
	}
}
