package perturb

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
)

// Spec is what Explore explores: a controller, what a user does to the
// cluster, and what must hold.
type Spec struct {
	// Setup builds the controller(s) on m, as a program's main would
	// (controller.New(m, …)…Complete). It is called once per process: after a
	// crash, again, on a fresh Manager, as a restarted Pod would run main.
	Setup func(m *controller.Manager) error
	// Manager is each process's ManagerOptions. Explore sets Clock (the
	// bubble's), Trace (calling the one given too), Log (nothing is logged when
	// nil) and, unless one is given, Source (listwatch Reflectors with jitter
	// drawn from the seed). LeaderElection, Sharding and MetricsAddr must be
	// left empty: a process here is one replica, and listens nowhere.
	Manager controller.ManagerOptions
	// Workload is what a user does, one Step at a time, each once the
	// controller is idle (Quiet) after the one before. Create, Patch,
	// PatchStatus and Delete make the usual ones.
	Workload []Step
	// Invariants must hold of the server's objects at every version, from the
	// first write to the last, in every execution. State.Process and
	// State.MadeBy tell an invariant which process runs and which made what,
	// so that a rule may hold within one process ("a process never makes more
	// Pods than it was asked for") and not across a restart.
	Invariants []Invariant
	// Eventually are properties of the idle state: each must hold whenever the
	// controller is idle (Quiet) — after the start, after each step of the
	// workload, and at the end — in the reference and in every execution:
	// what the controller must have done by then. A leak ("no copy without
	// its original"), a transition never acted on ("a Pod that went Running
	// had its Deployment restarted"), an object that never converges ("every
	// Task whose Pod runs says Running") are stated here; an Invariant would
	// flag the moments in between. State.Step says how many steps were done.
	// An idle state in which the perturbation still holds something back (a
	// watch a Coalesce holds until its object changes again) is not checked:
	// the controller has not been shown what it would act on.
	Eventually []Invariant
	// Ignore names fields left out when an end state is compared with the
	// reference's, each "collection:path" as a report writes them
	// (`deployments.apps:.spec.template.metadata.annotations["example.com/at"]`,
	// "*:" for every collection); a path names its whole subtree. Always
	// left out: uid, resourceVersion, creation and deletion timestamps,
	// managedFields, and every string that reads as a time.
	Ignore []string
	// Kinds are the kinds explored; nil means all of them (Kinds).
	Kinds []Kind
	// Seed decides, wherever several things could happen next (a request
	// and a watch event, two requests), which does. 0 means 1. The same seed
	// gives the same executions and the same report.
	Seed uint64
	// Quiet is how long (on the bubble's fake clock) nothing may be written
	// or delivered for the controller to count as idle; 0 means 10 s.
	Quiet time.Duration
	// Converge bounds how long (fake clock) the controller may take to become
	// idle after a step, a restart or the start; 0 means 10 minutes.
	Converge time.Duration
	// Lag is how long (fake clock) a lagging view lags at most — Stale's
	// from the fresh process's start, Late's from the write — since a watch
	// cache catches up whatever the controller does. It lifts sooner if the
	// process is idle (Quiet) first. 0 means 5 s.
	Lag time.Duration
	// FirstListAtZero makes every informer's first list ask for
	// resourceVersion "0", in pages (listwatch.Options.FirstListAtZero), as
	// client-go's LIST does, instead of the latest state: a lagging API
	// server may then serve a restarted process an old view (Stale). By
	// default the Reflectors list as the Manager's do on a 1.33+ server, with
	// a consistent read, which no server serves stale.
	FirstListAtZero bool
	// MaxMessages bounds what the gate lets through while waiting for the
	// controller to become idle, for loops that take no time; 0 means 2,000.
	MaxMessages int
}

// Step is one thing the user does. Do runs with the controller stopped in
// its tracks (the driver's goroutine runs it), so it must not wait for the
// controller: make that the next Step. What the controller must have done by
// then is a property of the idle state (Spec.Eventually), not a Step that
// reads and returns an error.
type Step struct {
	Name string
	Do   func(ctx context.Context, c *apiclient.Client) error

	restart bool // Restart: the driver stops the process and starts a fresh one
}

// Restart is the Step that stops the controller's process and starts a
// fresh one, as a rollout of the controller does: caches, queues and memory
// are gone, and the fresh process lists everything again.
func Restart() Step {
	return Step{Name: "restart the controller", restart: true}
}

// Invariant is a rule about the server's objects. Holds returns nil when it
// holds of s, else what is wrong.
type Invariant struct {
	Name  string
	Holds func(s *State) error
}

// Create is the Step that creates obj (JSON) in res; its namespace is the
// object's, else the Manager's.
func Create(res apiclient.Resource, obj string) Step {
	return Step{Name: "create " + res.String() + " " + nameIn(obj), Do: func(ctx context.Context, c *apiclient.Client) error {
		o, err := apiclient.DecodeObject([]byte(obj))
		if err != nil {
			return err
		}
		_, err = c.Resource(res).Namespace(o.Metadata.Namespace).Create(ctx, []byte(obj), apiclient.WriteOptions{})
		return err
	}}
}

// Patch is the Step that merge-patches the object of res named key
// ("namespace/name", or "name" when cluster-scoped).
func Patch(res apiclient.Resource, key, patch string) Step {
	return Step{Name: "patch " + res.String() + " " + key + " " + patch, Do: func(ctx context.Context, c *apiclient.Client) error {
		ns, name := splitKey(key)
		_, err := c.Resource(res).Namespace(ns).Patch(ctx, name, apiclient.MergePatch, []byte(patch), apiclient.WriteOptions{})
		return err
	}}
}

// PatchStatus is Patch of the status subresource: what a kubelet or another
// controller would write (a pod turning Running).
func PatchStatus(res apiclient.Resource, key, patch string) Step {
	return Step{Name: "patch " + res.String() + "/status " + key + " " + patch, Do: func(ctx context.Context, c *apiclient.Client) error {
		ns, name := splitKey(key)
		_, err := c.Resource(res).Namespace(ns).Patch(ctx, name, apiclient.MergePatch, []byte(patch), apiclient.WriteOptions{}, "status")
		return err
	}}
}

// Delete is the Step that deletes the object of res named key.
func Delete(res apiclient.Resource, key string) Step {
	return Step{Name: "delete " + res.String() + " " + key, Do: func(ctx context.Context, c *apiclient.Client) error {
		ns, name := splitKey(key)
		return c.Resource(res).Namespace(ns).Delete(ctx, name, apiclient.DeleteOptions{})
	}}
}

func splitKey(key string) (ns, name string) {
	if ns, name, ok := strings.Cut(key, "/"); ok {
		return ns, name
	}
	return "", key
}

func nameIn(obj string) string {
	o, err := apiclient.DecodeObject([]byte(obj))
	if err != nil {
		return "(not an object)"
	}
	return o.Key()
}

// State is the server's objects at one version, as an Invariant sees them.
type State struct {
	Version int // the changes to state so far (Events and Leases aside)
	// Process is the process that ran when this version was written: 1, the
	// first; each restart (a crash, a Down, a Restart step) starts the next.
	Process int
	// By is the process whose write made this version, 0 when the workload
	// did; for an Eventually property, 0.
	By int
	// Step is how many steps of the workload were done (the one under way
	// included, for a change it made).
	Step   int
	objs   objects
	before objects
}

// Before is the state one change earlier, for invariants about a change
// ("replicas are only ever set to what the Foo asks"); at the first change,
// the empty server. Its Process and Step are s's, its By 0.
func (s *State) Before() *State {
	return &State{Version: s.Version - 1, Process: s.Process, Step: s.Step, objs: s.before}
}

// MadeBy returns the process whose write created the object of res named
// key: 0 when the workload did, -1 when there is no such object. With
// Process, it states a rule within one process: "the Pods the running
// process made are never more than the Pool asks for" holds across a restart
// whose fresh process, its view lagging, makes Pods again — a window no
// staleness guard can close — and fails when one process counts twice.
func (s *State) MadeBy(res apiclient.Resource, key string) int {
	c, ok := s.objs[res.String()][key]
	if !ok {
		return -1
	}
	return c.madeBy
}

// List returns the objects of res, by key.
func (s *State) List(res apiclient.Resource) []*apiclient.Object {
	coll := s.objs[res.String()]
	keys := make([]string, 0, len(coll))
	for k := range coll {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*apiclient.Object, 0, len(keys))
	for _, k := range keys {
		if o, err := apiclient.DecodeObject(coll[k].raw); err == nil {
			out = append(out, o)
		}
	}
	return out
}

// Get returns the object of res named key ("namespace/name"), nil if there is
// none.
func (s *State) Get(res apiclient.Resource, key string) *apiclient.Object {
	c, ok := s.objs[res.String()][key]
	if !ok {
		return nil
	}
	o, _ := apiclient.DecodeObject(c.raw)
	return o
}

// withDefaults fills what the Spec leaves out.
func (s Spec) withDefaults() Spec {
	if s.Seed == 0 {
		s.Seed = 1
	}
	if s.Quiet <= 0 {
		s.Quiet = 10 * time.Second
	}
	if s.Converge <= 0 {
		s.Converge = 10 * time.Minute
	}
	if s.Lag <= 0 {
		s.Lag = 5 * time.Second
	}
	if s.MaxMessages <= 0 {
		s.MaxMessages = 2000
	}
	if s.Kinds == nil {
		s.Kinds = Kinds
	}
	return s
}
