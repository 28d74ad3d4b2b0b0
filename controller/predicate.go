package controller

import (
	"maps"

	"github.com/kubewire/kubewire/apiclient"
)

// Predicate decides whether an update is worth a reconcile, before it reaches the
// workqueue. It sees the object before and after; adds and deletes always pass,
// since the first and last sight of an object always matter.
//
// The usual one is GenerationChanged. The API server moves metadata.generation
// when the spec changes, and not for status or metadata writes; a controller that
// writes its object's status would otherwise be woken by its own write, reconcile,
// find nothing to do, and have spent a reconcile on it (on every write it makes).
//
// A resync (Options.ResyncPeriod) replays the cached object as an update whose
// old and new are the same object; predicates are not asked about it: every
// resync reaches Reconcile. The resync is the periodic safety net for a world
// that drifted without an event, and a predicate such as GenerationChanged,
// which passes no update of an unchanged object, would turn it off without a
// word (controller-runtime's GenerationChangedPredicate does just that to its
// SyncPeriod). Predicates decide which changes are worth a reconcile; a resync
// is not a change. So every update a predicate is asked about is a real write,
// with a new resourceVersion: comparing resourceVersions would pass them all,
// which is why there is no such predicate here.
type Predicate func(old, new *apiclient.Object) bool

// GenerationChanged passes updates that changed metadata.generation: the spec,
// for kinds whose server keeps a generation (custom resources with a status
// subresource, Deployments, …). An object with no generation (0, as ConfigMaps
// have) never changes it: watch those with no predicate, or with one that reads
// what you care about (LabelsChanged, AnnotationsChanged, your own).
func GenerationChanged(old, new *apiclient.Object) bool {
	return old.Metadata.Generation != new.Metadata.Generation
}

// LabelsChanged passes updates that added, removed or changed a label.
func LabelsChanged(old, new *apiclient.Object) bool {
	return !maps.Equal(old.Metadata.Labels, new.Metadata.Labels)
}

// AnnotationsChanged passes updates that added, removed or changed an annotation.
func AnnotationsChanged(old, new *apiclient.Object) bool {
	return !maps.Equal(old.Metadata.Annotations, new.Metadata.Annotations)
}

// And passes an update that every one of ps passes (all of none: every update).
func And(ps ...Predicate) Predicate {
	return func(old, new *apiclient.Object) bool {
		for _, p := range ps {
			if !p(old, new) {
				return false
			}
		}
		return true
	}
}

// Or passes an update that at least one of ps passes (one of none: no update).
func Or(ps ...Predicate) Predicate {
	return func(old, new *apiclient.Object) bool {
		for _, p := range ps {
			if p(old, new) {
				return true
			}
		}
		return false
	}
}

// Not passes the updates p drops.
func Not(p Predicate) Predicate {
	return func(old, new *apiclient.Object) bool { return !p(old, new) }
}
