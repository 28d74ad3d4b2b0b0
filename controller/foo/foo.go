package foo

import (
	"cmp"
	"log/slog"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/events"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/store"
)

// Foo is the custom resource, as much of it as the controller reads.
type Foo struct {
	apiclient.TypeMeta
	Metadata apiclient.ObjectMeta `json:"metadata"`
	Spec     struct {
		DeploymentName string `json:"deploymentName"`
		Replicas       *int32 `json:"replicas"`
	} `json:"spec"`
	Status Status `json:"status"`
}

// Status is what the controller writes back: the Deployment's available
// replicas.
type Status struct {
	AvailableReplicas int32 `json:"availableReplicas"`
}

// deployment is as much of a Deployment as the controller reads.
type deployment struct {
	Metadata apiclient.ObjectMeta `json:"metadata"`
	Spec     struct {
		Replicas *int32 `json:"replicas"`
	} `json:"spec"`
	Status struct {
		AvailableReplicas int32 `json:"availableReplicas"`
	} `json:"status"`
}

// Options say where the controller works.
type Options struct {
	Namespace string // "" for every namespace
	Workers   int
	Log       *slog.Logger
	Trace     func(string)
}

// Reconciler brings one Foo's Deployment and status in line with its spec.
type Reconciler struct {
	client      *apiclient.Client
	foos        *informer.Lister[Foo]
	deployments *informer.Lister[deployment]
	events      *events.Recorder
	log         *slog.Logger
}

// byDeployment indexes Foos by the Deployment they ask for: namespace/name.
const byDeployment = "deployment"

func deploymentOf(f *apiclient.Object) ([]string, error) {
	name, _ := f.FieldString("spec", "deploymentName")
	if name == "" {
		return nil, nil
	}
	return []string{f.Metadata.Namespace + "/" + name}, nil
}

// Setup builds the controller on m: informers on Foos and Deployments, an events
// Recorder the Manager runs, and the watches.
func Setup(m *controller.Manager, opts Options) (*controller.Controller, *Reconciler) {
	opts.Log = cmp.Or(opts.Log, slog.Default())
	// Sharded: with a sharding Manager (kubewire run foo --shards) each replica
	// caches and reconciles its share of the Foos; every replica caches every
	// Deployment, since a Foo's Deployment hashes apart from the Foo.
	foos := m.Informer(Foos, informer.Options{Namespace: opts.Namespace, Sharded: true,
		Indexers: store.Indexers[*apiclient.Object]{byDeployment: deploymentOf}})
	deployments := m.Informer(apiclient.Deployments, informer.Options{Namespace: opts.Namespace})
	r := &Reconciler{client: m.Client(), foos: informer.NewLister[Foo](foos), deployments: informer.NewLister[deployment](deployments),
		events: events.NewRecorder(m.Client(), events.Options{Controller: "kubewire.io/foo", Log: opts.Log}), log: opts.Log}
	m.AddRunner("events", r.events)
	ctrl := controller.New("foo", r, controller.Options{Workers: opts.Workers, Log: opts.Log, Trace: opts.Trace})
	// A Foo's own status writes do not move its generation: GenerationChanged
	// keeps them from waking the controller.
	ctrl.Watch(foos, nil, controller.GenerationChanged)
	// Any change to a Deployment a Foo controls — deleted by hand, scaled by
	// hand, its status moved by the Deployment controller — reconciles that Foo;
	// so does any change to a Deployment a Foo asks for by name, controlled or
	// not: when someone else's Deployment in the way is deleted, the Foo that
	// wanted the name creates its own at once, with no retry loop waiting for it.
	ctrl.Watch(deployments, func(d *apiclient.Object) []controller.Request {
		reqs := controller.ToOwner(Foos)(d)
		wanting, _ := foos.ByIndex(byDeployment, d.Key())
		for _, f := range wanting {
			reqs = append(reqs, controller.RequestFor(f))
		}
		return reqs
	})
	m.Add(ctrl)
	return ctrl, r
}
