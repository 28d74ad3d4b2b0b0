package foo

import (
	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/builtin"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/events"
	"github.com/kubewire/kubewire/controller/informer"
)

// Foo is the custom resource, as much of it as the controller reads; its
// CRD's schema is read from it (CRD), the tags saying what Go cannot.
type Foo struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 struct {
		DeploymentName string `json:"deploymentName,omitempty"`
		Replicas       *int32 `json:"replicas" kubewire:"min=1,max=10"`
	} `json:"spec,omitempty"`
	Status Status `json:"status"`
}

// Resource links Foo to Foos (apiclient.TypedObject).
func (*Foo) Resource() apiclient.Resource { return Foos }

// Status is what the controller writes back: the Deployment's available
// replicas.
type Status struct {
	// Written even when 0 (no omitempty), but optional to a user's create.
	AvailableReplicas int32 `json:"availableReplicas" kubewire:"optional"`
}

// Options say how the controller works; where (the namespace) is the Manager's.
type Options struct {
	Workers int
}

// Reconciler brings one Foo's Deployment and status in line with its spec.
type Reconciler struct {
	client      *apiclient.Client
	foos        *informer.Lister[Foo]
	deployments *informer.Lister[builtin.Deployment]
	events      *events.Recorder
}

// byDeployment indexes Foos by the Deployment they ask for: namespace/name.
const byDeployment = "deployment"

func deploymentOf(f *apiclient.Object) ([]string, error) {
	name, _ := f.FieldString("spec", "deploymentName")
	if name == "" {
		return nil, nil
	}
	return []string{clock.ObjectKey(f.Metadata.Namespace, name)}, nil
}

// Setup builds the controller on m. With a sharding Manager (kubewire run foo
// --shards) each replica caches and reconciles its share of the Foos; every
// replica caches every Deployment, since a Foo's Deployment hashes apart from
// the Foo.
func Setup(m *controller.Manager, opts Options) (*Reconciler, error) {
	// A Foo's own status writes do not move its generation: GenerationChanged
	// keeps them from waking the controller.
	b := controller.New(m, "foo", controller.Options{Workers: opts.Workers}).
		For(Foos, controller.WithPredicates(controller.GenerationChanged)).
		// Any change to a Deployment a Foo controls — deleted by hand, scaled by
		// hand, its status moved by the Deployment controller — reconciles that Foo.
		Owns(apiclient.Deployments).
		// So does any change to a Deployment a Foo asks for by name, controlled
		// or not: when someone else's Deployment in the way is deleted, the Foo
		// that wanted the name creates its own at once, with no retry loop
		// waiting for it.
		Watches(apiclient.Deployments, controller.ToIndexed(m.Informer(Foos), byDeployment))
	if err := m.Index(Foos, byDeployment, deploymentOf); err != nil {
		return nil, err
	}
	r := &Reconciler{client: m.Client(), foos: controller.Lister[Foo](m), deployments: controller.Lister[builtin.Deployment](m),
		events: m.Recorder("kubewire.io/foo")}
	if _, err := b.Complete(r); err != nil {
		return nil, err
	}
	return r, nil
}
