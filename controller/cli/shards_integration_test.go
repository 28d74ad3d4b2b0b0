package cli_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/cli"
	"github.com/kubewire/kubewire/controller/foo"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/sharding"
)

// TestMain lets a test run the kubewire command as a process of its own, as
// main.go does (signals and all), so that it can be killed with SIGKILL: the
// test binary started with KUBEWIRE_CLI_CHILD=1 is the command.
func TestMain(m *testing.M) {
	if os.Getenv("KUBEWIRE_CLI_CHILD") == "1" {
		ctx, stop := cli.NotifyContext(context.Background())
		code := cli.Main(ctx, os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr})
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// fleet is replicas of `kubewire run foo --shards --trace`, each a process,
// and what their stderr says: which ranges each serves, and which Foos each
// reconciles.
type fleet struct {
	t       *testing.T
	args    []string
	env     []string
	mu      sync.Mutex
	procs   map[string]*exec.Cmd
	exited  map[string]chan error
	serving map[string]string   // replica → its last "sharding: serving" line
	held    map[string]bool     // replica → it said another process holds its Lease
	recs    []reconcile         // every "controller reconcile … start"
	changed chan struct{}       // a line was read
	deploys map[string]struct{} // Deployments seen
}

type reconcile struct {
	replica, key string
	at           time.Time
}

var (
	servingLine   = regexp.MustCompile(`msg="sharding: serving" ranges=(\S+) .*members=(\d+)`)
	reconcileLine = regexp.MustCompile(`^controller reconcile (\S+) start$`)
)

func (f *fleet) start(id string) { f.startAs(id, id) }

// startAs starts the replica id with the identity given: two replicas may be
// given one.
func (f *fleet) startAs(id, identity string) {
	f.t.Helper()
	cmd := exec.Command(os.Args[0], append(f.args, "--identity", identity)...)
	cmd.Env = append(os.Environ(), append(f.env, "KUBEWIRE_CLI_CHILD=1")...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		f.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		f.t.Fatal(err)
	}
	done := make(chan error, 1)
	f.mu.Lock()
	f.procs[id], f.exited[id] = cmd, done
	f.mu.Unlock()
	go func() { // ends at the child's exit, when its stderr closes
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			f.mu.Lock()
			if m := servingLine.FindStringSubmatch(line); m != nil {
				f.serving[id] = m[1] + " of " + m[2]
			}
			if m := reconcileLine.FindStringSubmatch(line); m != nil {
				f.recs = append(f.recs, reconcile{id, m[1], time.Now()})
			}
			if strings.Contains(line, "level=ERROR") && strings.Contains(line, "two replicas run with identity") {
				f.held[id] = true
			}
			f.mu.Unlock()
			f.signal()
		}
		done <- cmd.Wait()
	}()
}

// onlyFrom fails the test for each reconcile since the since-th that replica
// did not make.
func (f *fleet) onlyFrom(replica string, since int, when string) {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.recs[since:] {
		if r.replica != replica {
			f.t.Errorf("%s reconciled %s %s", r.replica, r.key, when)
		}
	}
}

func (f *fleet) signal() {
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

// waitFor waits until cond holds, re-checking it whenever a replica writes a
// line or a Deployment appears; it fails the test after limit.
func (f *fleet) waitFor(what string, limit time.Duration, cond func() bool) time.Duration {
	f.t.Helper()
	start := time.Now()
	deadline := time.After(limit)
	for {
		f.mu.Lock()
		ok := cond()
		f.mu.Unlock()
		if ok {
			return time.Since(start)
		}
		select {
		case <-f.changed:
		case <-deadline:
			f.t.Fatalf("%s: not within %s", what, limit)
		}
	}
}

// newFleet installs the Foo CRD and readies a fleet of `kubewire run foo
// --shards` replicas in ns, which watches the Deployments they make until ctx
// ends; the replicas still running when the test ends are killed.
func newFleet(t *testing.T, ctx context.Context, c *apiclient.Client, ns, kubeconfig string) *fleet {
	t.Helper()
	if err := foo.InstallCRD(ctx, c); err != nil {
		t.Fatal(err)
	}
	f := &fleet{t: t, args: []string{"run", "foo", "-n", ns, "--shards", "--trace", "--workers", "4"}, env: []string{"KUBECONFIG=" + kubeconfig},
		procs: map[string]*exec.Cmd{}, exited: map[string]chan error{}, serving: map[string]string{}, held: map[string]bool{}, changed: make(chan struct{}, 1), deploys: map[string]struct{}{}}
	t.Cleanup(func() {
		for id, p := range f.procs {
			_ = p.Process.Kill()
			<-f.exited[id]
		}
	})
	w, err := c.Resource(apiclient.Deployments).Namespace(ns).Watch(ctx, apiclient.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	go func() { // ends when the watch is closed
		for {
			ev, err := w.Next()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.deploys[ev.Object.Metadata.Name] = struct{}{}
			f.mu.Unlock()
			f.signal()
		}
	}()
	return f
}

func createFoos(t *testing.T, c *apiclient.Client, ns, prefix string, n int) {
	t.Helper()
	foos := c.Resource(foo.Foos).Namespace(ns)
	for i := range n {
		name := fmt.Sprintf("%s-%03d", prefix, i)
		body := fmt.Sprintf(`{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo","metadata":{"name":%q},"spec":{"deploymentName":%q,"replicas":1}}`, name, name)
		if _, err := foos.Create(context.Background(), []byte(body), apiclient.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// Three replicas of `kubewire run foo --shards` share 300 Foos: every Foo gets
// its Deployment, each from the replica whose range holds its UID's hash.
// One replica killed with SIGKILL: 30 Foos created after it are all reconciled
// within the Lease's duration (15 s) + 10 s. One stopped with Ctrl-C: the last
// takes its range over at once.
func TestIntegration_three_replicas_share_the_Foos_and_survive_kill_9(t *testing.T) {
	c, path, ns := realCluster(t, "kubewire-shards")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	f := newFleet(t, ctx, c, ns, path)

	ids := []string{"r1", "r2", "r3"}
	for _, id := range ids {
		f.start(id)
	}
	f.waitFor("three replicas each serving a third", 30*time.Second, func() bool {
		return len(f.serving) == 3 && strings.HasSuffix(f.serving["r1"], " of 3") && strings.HasSuffix(f.serving["r2"], " of 3") && strings.HasSuffix(f.serving["r3"], " of 3")
	})
	f.mu.Lock()
	settled := len(f.recs)
	f.mu.Unlock()
	created := time.Now()
	createFoos(t, c, ns, "foo", 300)
	f.waitFor("300 Deployments", time.Minute, func() bool { return len(f.deploys) == 300 })
	took := time.Since(created)
	t.Logf("3 replicas: 300 Foos' Deployments in %s", took.Round(time.Millisecond))

	// Each reconcile since the three settled came from the Foo's own replica.
	list, err := c.Resource(foo.Foos).Namespace(ns).List(ctx, apiclient.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hash := map[string]uint64{}
	for _, o := range list.Items {
		hash[o.Key()] = sharding.Hash(o.Metadata.UID)
	}
	assigned := sharding.Assign(ids)
	f.mu.Lock()
	perReplica := map[string]map[string]bool{}
	for _, r := range f.recs[settled:] {
		if !assigned[r.replica].Contains(hash[r.key]) {
			t.Errorf("%s reconciled %s, whose hash %016x is in another replica's range", r.replica, r.key, hash[r.key])
		}
		if perReplica[r.replica] == nil {
			perReplica[r.replica] = map[string]bool{}
		}
		perReplica[r.replica][r.key] = true
	}
	f.mu.Unlock()
	t.Logf("Foos reconciled per replica: r1 %d, r2 %d, r3 %d", len(perReplica["r1"]), len(perReplica["r2"]), len(perReplica["r3"]))

	// kill -9: nothing is released; r3's Lease must expire first.
	killed := time.Now()
	if err := f.procs["r3"].Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-f.exited["r3"]
	delete(f.procs, "r3")
	createFoos(t, c, ns, "late", 30)
	limit := leaderelection.DefaultLeaseDuration + 10*time.Second
	f.waitFor("the 30 Foos created after kill -9", limit, func() bool { return len(f.deploys) == 330 })
	t.Logf("after kill -9: all 330 Deployments %s after the kill (limit %s)", time.Since(killed).Round(time.Millisecond), limit)

	// Ctrl-C: r2 drains, deletes its Lease, and r1 takes everything at once.
	stopped := time.Now()
	if err := f.procs["r2"].Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	f.waitFor("r1 serving everything after r2's clean stop", 5*time.Second, func() bool {
		return f.serving["r1"] == sharding.Set{sharding.Full}.String()+" of 1"
	})
	handover := time.Since(stopped)
	if err := <-f.exited["r2"]; err != nil {
		t.Errorf("r2 after Ctrl-C: %v", err)
	}
	delete(f.procs, "r2")
	createFoos(t, c, ns, "after", 10)
	f.waitFor("the 10 Foos created after the clean stop", 30*time.Second, func() bool { return len(f.deploys) == 340 })
	t.Logf("after Ctrl-C: r1 served every range %s after the signal", handover.Round(time.Millisecond))

	if err := f.procs["r1"].Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := <-f.exited["r1"]; err != nil {
		t.Errorf("r1 after Ctrl-C: %v", err)
	}
	delete(f.procs, "r1")
}

// Issue 29, done when: two `kubewire run foo --shards --identity r1`, as a
// Deployment with a fixed --identity makes them, never serve one range at
// once. The second says at ERROR that another process writes its Lease, and
// serves nothing; every Foo is reconciled by the first alone. When the first
// stops (Ctrl-C), the second takes over and reconciles alone. (Before, each
// said "serving 0000000000000000-ffffffffffffffff (100.0%), the only member"
// and both reconciled every Foo.)
func TestIntegration_two_replicas_with_one_identity_never_both_serve(t *testing.T) {
	c, path, ns := realCluster(t, "kubewire-twins")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	f := newFleet(t, ctx, c, ns, path)
	all := sharding.Set{sharding.Full}.String() + " of 1"

	f.startAs("a", "r1")
	f.waitFor("a serving everything", 30*time.Second, func() bool { return f.serving["a"] == all })
	f.startAs("b", "r1")
	f.waitFor("b saying another process writes its Lease", 30*time.Second, func() bool { return f.held["b"] })
	f.mu.Lock()
	since := len(f.recs)
	f.mu.Unlock()
	createFoos(t, c, ns, "twin", 20)
	f.waitFor("20 Deployments", time.Minute, func() bool { return len(f.deploys) == 20 })
	f.onlyFrom("a", since, "while a served everything under the same identity")
	f.mu.Lock()
	if strings.Contains(f.serving["b"], "-") { // a range: 0000…-7fff…
		t.Errorf("b, waiting, says it serves %q", f.serving["b"])
	}
	f.mu.Unlock()

	if err := f.procs["a"].Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := <-f.exited["a"]; err != nil {
		t.Errorf("a after Ctrl-C: %v", err)
	}
	delete(f.procs, "a")
	f.waitFor("b serving everything after a's clean stop", 30*time.Second, func() bool { return f.serving["b"] == all })
	f.mu.Lock()
	since = len(f.recs)
	f.mu.Unlock()
	createFoos(t, c, ns, "after", 10)
	f.waitFor("30 Deployments", time.Minute, func() bool { return len(f.deploys) == 30 })
	f.onlyFrom("b", since, "after a stopped")
	if err := f.procs["b"].Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := <-f.exited["b"]; err != nil {
		t.Errorf("b after Ctrl-C: %v", err)
	}
	delete(f.procs, "b")
}
