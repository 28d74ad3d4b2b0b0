package controller_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/lease"
)

// Against a real kube-apiserver (KUBEWIRE_TEST_KUBECONFIG; .ci/run starts one).

// realCluster is the setup of each test here: a client for the real server (the
// test is skipped without one) and a fresh namespace, deleted when the test ends.
func realCluster(t *testing.T) (*apiclient.Client, string) {
	t.Helper()
	c, _ := realtest.Client(t, apiclient.Options{QPS: 50, Burst: 100})
	return c, realtest.Namespace(t, c, "kubewire-ctrl")
}

// runManager runs m until the test ends.
func runManager(t *testing.T, m *controller.Manager) context.CancelFunc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	return cancel
}

func TestIntegration_reconcile_log_follows_pod_changes(t *testing.T) {
	c, ns := realCluster(t)
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: ns, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	s := &story{calls: make(chan string, 10)}
	pods := m.Informer(apiclient.Pods)
	_, err = controller.New(m, "pods", controller.Options{}).For(apiclient.Pods).Complete(&cacheReconciler{inf: pods, story: s})
	must(t, err)
	runManager(t, m)
	ctx := context.Background()
	pc := c.Resource(apiclient.Pods).Namespace(ns)
	p, err := pc.Create(ctx, []byte(`{"metadata":{"name":"web"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`), apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := func(suffix string) {
		t.Helper()
		if got := <-s.calls; !strings.HasPrefix(got, "reconcile "+ns+"/web: ") || !strings.HasSuffix(got, suffix) {
			t.Fatalf("got %q, want …%s", got, suffix)
		}
	}
	want("in the cache at rv=" + p.Metadata.ResourceVersion + " → ok")
	// What a kubelet would do: the pod becomes Running (the status subresource).
	p, err = pc.Patch(ctx, "web", apiclient.MergePatch, []byte(`{"status":{"phase":"Running"}}`), apiclient.WriteOptions{}, "status")
	if err != nil {
		t.Fatal(err)
	}
	want("in the cache at rv=" + p.Metadata.ResourceVersion + " → ok")
	if err := pc.Delete(ctx, "web", apiclient.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	// The server may first mark the pod (deletionTimestamp: one more update),
	// then remove it.
	for i := 0; ; i++ {
		got := <-s.calls
		if strings.HasSuffix(got, "gone from the cache → ok") {
			break
		}
		if i == 3 {
			t.Fatalf("no reconcile saw the pod gone; last: %q", got)
		}
	}
}

func TestIntegration_slow_handler_does_not_hold_back_a_fast_one(t *testing.T) {
	c, ns := realCluster(t)
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: ns, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	cms := m.Informer(apiclient.ConfigMaps)
	slow, fast := newRecorder(), newRecorder()
	slow.Gate = make(chan struct{})
	slowReg := cms.AddHandler("slow", slow, 0)
	cms.AddHandler("fast", fast, 0)
	runManager(t, m)
	ctx := context.Background()
	for i := 0; i < 20; i++ {
		if _, err := c.Resource(apiclient.ConfigMaps).Namespace(ns).Create(ctx, []byte(fmt.Sprintf(`{"metadata":{"name":"cm-%02d"}}`, i)), apiclient.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	fast.Next(20)
	if got := slowReg.Backlog(); got < 19 {
		t.Fatalf("slow handler backlog %d, want ≥ 19 while it holds its first call", got)
	}
	close(slow.Gate)
	slow.Next(20)
}

// Two managers, one Lease: only the leader reconciles; when the leader stops
// without releasing (a crash), the other takes over once the lease expires.
func TestIntegration_leader_election_hand_over(t *testing.T) {
	c, ns := realCluster(t)
	leaseName := "kubewire-it-" + ns
	type replica struct {
		name   string
		calls  chan string
		cancel context.CancelFunc
		m      *controller.Manager
	}
	start := func(name string, releaseOnCancel bool) *replica {
		// Each replica is a process of its own, with a client of its own: a
		// Manager adopts its client, and a client has one owner.
		rc, _ := realtest.Client(t, apiclient.Options{})
		m, err := controller.NewManager(rc, controller.ManagerOptions{Namespace: ns, Log: quiet,
			LeaderElection: &leaderelection.Config{Member: lease.Member{Namespace: ns, Identity: name}, Name: leaseName, ReleaseOnCancel: releaseOnCancel}})
		if err != nil {
			t.Fatal(err)
		}
		r := &replica{name: name, calls: make(chan string, 100), m: m}
		_, err = controller.New(m, "cms", controller.Options{}).For(apiclient.ConfigMaps).
			Complete(controller.ReconcilerFunc(func(_ context.Context, req controller.Request) (controller.Result, error) {
				r.calls <- req.String()
				return controller.Result{}, nil
			}))
		must(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { _ = m.Run(ctx); close(done) }()
		var once sync.Once
		r.cancel = func() { once.Do(func() { cancel(); <-done }) }
		t.Cleanup(r.cancel)
		return r
	}
	ctx := context.Background()
	cms := c.Resource(apiclient.ConfigMaps).Namespace(ns)
	if _, err := cms.Create(ctx, []byte(`{"metadata":{"name":"one"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	first := start("replica-1", false)
	if got := <-first.calls; got != ns+"/one" {
		t.Fatalf("leader reconciled %q", got)
	}
	second := start("replica-2", true)
	if _, err := cms.Create(ctx, []byte(`{"metadata":{"name":"two"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := <-first.calls; got != ns+"/two" {
		t.Fatalf("leader reconciled %q", got)
	}
	select {
	case got := <-second.calls:
		t.Fatalf("the standby reconciled %q", got)
	default:
	}
	// A crash, as far as the Lease can tell: the leader stops without releasing it
	// (ReleaseOnCancel is off), so the standby must wait for it to expire.
	crashed := time.Now()
	first.cancel()
	// The figures logged are the hand-over times README states; the limits
	// are watchdogs (LeaseDuration 15 s and RetryPeriod 2 s, twice over), not
	// timing assertions.
	select {
	case <-second.calls: // the new leader reconciles everything once
		t.Logf("hand-over after the leader stopped without releasing (a crash): %v", time.Since(crashed).Round(time.Millisecond))
	case <-time.After(40 * time.Second):
		t.Fatal("the standby never took over")
	}
	for range 1 { // the rest of the first reconcile-everything
		<-second.calls
	}
	// A clean stop: the leader releases the Lease (ReleaseOnCancel), and the
	// standby, which has seen it held, takes it at its next try: within one
	// RetryPeriod, jittered (2 to 4.4 s).
	third := start("replica-3", true)
	waitUntil(t, "replica-3 a standby that has read the Lease", func() bool {
		role, err := third.m.Ready()
		return err == nil && role == "standby"
	})
	stopped := time.Now()
	second.cancel()
	select {
	case <-third.calls:
		t.Logf("hand-over after the leader stopped cleanly (ReleaseOnCancel): %v", time.Since(stopped).Round(time.Millisecond))
	case <-time.After(40 * time.Second):
		t.Fatal("the standby never took over after a clean stop")
	}
}

// An admission policy refuses the reconciler's write, as in issue 14's report;
// the test lifts it only after more failures than the old retry limit (15) let
// happen. With the default Options the Request is still being retried and then
// succeeds. The controller's clock is fake, so its backoff (25 minutes by the
// 20th failure) takes no real time; the API server and its policy are real.
func TestIntegration_refused_write_is_retried_past_the_old_limit(t *testing.T) {
	c, ns := realCluster(t)
	ctx := context.Background()
	policies := c.Resource(apiclient.Resource{Group: "admissionregistration.k8s.io", Version: "v1", Name: "validatingadmissionpolicies", Kind: "ValidatingAdmissionPolicy"})
	bindings := c.Resource(apiclient.Resource{Group: "admissionregistration.k8s.io", Version: "v1", Name: "validatingadmissionpolicybindings", Kind: "ValidatingAdmissionPolicyBinding"})
	name := "kubewire-it-" + ns
	if _, err := policies.Create(ctx, []byte(fmt.Sprintf(`{"metadata":{"name":%q},"spec":{"failurePolicy":"Fail",
		"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
		"validations":[{"expression":"object.metadata.name != 'child'","message":"kubewire test: child refused"}]}}`, name)), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = policies.Delete(ctx, name, apiclient.DeleteOptions{}) })
	if _, err := bindings.Create(ctx, []byte(fmt.Sprintf(`{"metadata":{"name":%q},"spec":{"policyName":%q,"validationActions":["Deny"],
		"matchResources":{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":%q}}}}}`, name, name, ns)), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bindings.Delete(ctx, name, apiclient.DeleteOptions{}) })
	cms := c.Resource(apiclient.ConfigMaps).Namespace(ns)
	child := []byte(`{"metadata":{"name":"child"}}`)
	// The server enforces a new policy once its admission plugin has seen it: ask
	// (dry run) until it refuses.
	for watchdog := time.Now().Add(time.Minute); ; {
		_, err := cms.Create(ctx, child, apiclient.WriteOptions{DryRun: true})
		if err != nil {
			t.Logf("policy in force: %v", err)
			break
		}
		if time.Now().After(watchdog) {
			t.Fatal("the admission policy was not enforced within a minute")
		}
	}

	clock := clock.NewFake()
	start := clock.Now()
	// One clock for the whole Manager: its Reflectors arm timers on it too, so
	// the test waits for the queue to hold the retry, not for any timer.
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: ns, Log: quiet, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	tries := make(chan error, 1)
	ctrl, err := controller.New(m, "parent", controller.Options{}).
		For(apiclient.ConfigMaps, controller.WithFields("metadata.name=parent")).
		Complete(controller.ReconcilerFunc(func(ctx context.Context, _ controller.Request) (controller.Result, error) {
			_, err := cms.Create(ctx, child, apiclient.WriteOptions{})
			if apiclient.IsAlreadyExists(err) {
				err = nil
			}
			tries <- err
			return controller.Result{}, err
		}))
	must(t, err)
	runManager(t, m)
	if _, err := cms.Create(ctx, []byte(`{"metadata":{"name":"parent"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	failures := 0
	var lifted time.Time
	for err := range tries {
		if err == nil {
			break
		}
		failures++
		if failures == 1 {
			t.Logf("refused: %v", err)
		}
		if failures == 17 { // one past the old limit's last try: lift the policy
			if err := bindings.Delete(ctx, name, apiclient.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			lifted = time.Now()
		}
		// The server stops enforcing once its admission plugin has seen the delete:
		// a few hundred milliseconds, dozens of retries in fake time. The real-time
		// limit is a watchdog, not a timing assertion.
		if !lifted.IsZero() && time.Since(lifted) > time.Minute {
			t.Fatalf("still refused a minute after the policy was lifted (%d tries): %v", failures, err)
		}
		waitUntil(t, "the retry scheduled", func() bool {
			if ctrl.Stats().Dropped > 0 {
				t.Fatalf("the Request was dropped after %d refusals", failures)
			}
			return ctrl.Queue().Metrics().Delayed > 0
		})
		// The default backoff: 5 ms·2ⁿ⁻¹ after the n-th failure, up to the cap (from
		// the 17th; the shift would overflow long after).
		backoff := controller.DefaultMaxBackoff
		if failures < 17 {
			backoff = 5 * time.Millisecond << (failures - 1)
		}
		clock.Step(backoff)
	}
	t.Logf("the write succeeded after %d refusals, %s of (fake) backoff", failures, clock.Since(start).Round(time.Second))
	if failures <= 15 {
		t.Fatalf("only %d refusals before success: the test must outlast the old limit of 15 retries", failures)
	}
	if s := ctrl.Stats(); s.Dropped != 0 {
		t.Fatalf("stats %+v: dropped", s)
	}
}
