package perturb_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/perturb"
	"github.com/kubewire/kubewire/controller/status"
)

// A Database keeps its data on a PersistentVolumeClaim, "<name>-data", that
// the controller makes for it. When a Database goes, the controller deletes
// the claim itself (an operator that snapshots the volume first does so,
// rather than leave it to the garbage collector).
//
// The bug: "the Database is gone" is read from the cache. After a restart
// against an API server whose watch cache lags, the cache of Databases can be
// older than the cache of claims — a claim is there, its Database not yet —
// and the controller deletes the data of a Database that exists. The fix
// asks the API server (a GET with no resourceVersion is a consistent read,
// never served stale) before it deletes anything; so does its other twin,
// with a LIST of the Databases with no resourceVersion, the textbook fix.
//
// It takes a first list that may be stale: a process whose Reflectors ask
// for resourceVersion "0" (Spec.FirstListAtZero), as client-go's LIST does
// and kubewire's did before issue 38. With the first list a consistent read
// the caches of a fresh process are never older than the cluster at its
// start, and the bug does not show.

var databases = custom("databases", "Database")

type database struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Status               struct {
		Volume string `json:"volume,omitempty"`
	} `json:"status"`
}

func (*database) Resource() apiclient.Resource { return databases }

type sweeper struct {
	client  *apiclient.Client
	dbs     *informer.Lister[database]
	claims  *informer.Lister[claim]
	confirm confirm // the fix, if any
}

// confirm is how the sweeper asks the API server before it deletes.
type confirm int

const (
	trustCache confirm = iota // the bug
	getIt                     // a GET of the Database
	listThem                  // a LIST of the Databases, with no resourceVersion
)

func (r *sweeper) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	volume := req.Name + "-data"
	db, err := r.dbs.Get(req.Namespace, req.Name)
	if apiclient.IsNotFound(err) {
		// The cache says the Database is gone; the API server has the last word.
		switch r.confirm {
		case getIt:
			if _, err := apiclient.NewTyped[database](r.client).Namespace(req.Namespace).Get(ctx, req.Name); !apiclient.IsNotFound(err) {
				return controller.Result{}, err // there after all (nil), or no answer: retry
			}
		case listThem:
			all, _, err := apiclient.NewTyped[database](r.client).Namespace(req.Namespace).List(ctx, apiclient.ListOptions{})
			if err != nil {
				return controller.Result{}, err
			}
			for _, db := range all {
				if db.Name == req.Name {
					return controller.Result{}, nil // there after all
				}
			}
		}
		// Gone: its data goes too.
		err := apiclient.NewTyped[claim](r.client).Namespace(req.Namespace).Delete(ctx, volume, apiclient.DeleteOptions{})
		return controller.Result{}, apiclient.IgnoreNotFound(err)
	}
	if err != nil {
		return controller.Result{}, err
	}
	if _, err := r.claims.Get(req.Namespace, volume); apiclient.IsNotFound(err) {
		c := &claim{ObjectMeta: controller.ChildOf(db, volume), Spec: map[string]any{"resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}}}
		if _, err := apiclient.NewTyped[claim](r.client).Create(ctx, c, apiclient.WriteOptions{}); err != nil && !apiclient.IsAlreadyExists(err) {
			return controller.Result{}, err
		}
	}
	_, err = status.Update(ctx, r.client, db, map[string]any{"volume": volume})
	return controller.Result{}, err
}

func sweeperSpec(c confirm) perturb.Spec {
	return perturb.Spec{
		Setup: func(m *controller.Manager) error {
			r := &sweeper{client: m.Client(), dbs: controller.Lister[database](m), claims: controller.Lister[claim](m), confirm: c}
			_, err := controller.New(m, "databases", controller.Options{}).For(databases).Owns(pvcs).Complete(r)
			return err
		},
		Manager:         controller.ManagerOptions{Namespace: "shop"},
		FirstListAtZero: true,
		Workload: []perturb.Step{
			perturb.Create(databases, `{"apiVersion":"example.com/v1","kind":"Database","metadata":{"name":"orders","namespace":"shop"}}`),
			perturb.Create(databases, `{"apiVersion":"example.com/v1","kind":"Database","metadata":{"name":"carts","namespace":"shop"}}`),
			perturb.Delete(databases, "shop/carts"),
		},
		Invariants: []perturb.Invariant{{
			Name: "a Database's volume outlives it",
			Holds: func(s *perturb.State) error {
				for _, db := range s.List(databases) {
					v, _ := db.FieldString("status", "volume")
					if v != "" && s.Get(pvcs, db.Metadata.Namespace+"/"+v) == nil {
						return fmt.Errorf("database %s exists, its volume %s does not: its data is lost", db.Key(), v)
					}
				}
				return nil
			},
		}},
	}
}

func TestSweeper_deletes_the_data_of_a_database_a_stale_cache_does_not_show(t *testing.T) {
	found(t, perturb.Explore(t, sweeperSpec(trustCache)), perturb.Stale, "sweeper")
}

func TestSweeper_fixed_asks_the_API_server_before_it_deletes(t *testing.T) {
	passes(t, perturb.Explore(t, sweeperSpec(getIt)))
}

// A LIST with no resourceVersion is a consistent read too: a lagging view
// does not serve it (before issue 38 it did, and this twin was flagged).
func TestSweeper_fixed_relists_with_no_resourceVersion_before_it_deletes(t *testing.T) {
	passes(t, perturb.Explore(t, sweeperSpec(listThem)))
}
