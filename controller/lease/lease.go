package lease

import (
	"maps"

	"github.com/kubewire/kubewire/apiclient"
)

// Lease is a coordination.k8s.io/v1 Lease. Only spec matters to the protocols;
// metadata is kept whole so that an Update sends back the labels and
// annotations others may have set.
//
// The zero value is an empty Lease. A Lease is a plain value, not safe for
// concurrent modification; what a Holder or an Observer hands out is not
// changed by them afterwards.
type Lease struct {
	apiclient.TypeMeta
	Metadata apiclient.ObjectMeta `json:"metadata"`
	Spec     Spec                 `json:"spec"`
}

// Resource is coordination.k8s.io/v1 leases: a Lease is an apiclient.TypedObject.
func (*Lease) Resource() apiclient.Resource { return apiclient.Leases }

// GetObjectMeta returns the Lease's metadata.
func (l *Lease) GetObjectMeta() *apiclient.ObjectMeta { return &l.Metadata }

// Spec is what a Lease says about its holder. The protocols read holder,
// duration and transitions; the two times are for people (kubectl get lease -o
// yaml) and are never compared with another machine's clock.
type Spec struct {
	// HolderIdentity is the replica that holds the lease; empty when nobody does,
	// as after a release.
	HolderIdentity string `json:"holderIdentity,omitempty"`
	// LeaseDurationSeconds is how long others must see the lease unchanged before
	// they may count it expired: the holder's promise to renew before then.
	LeaseDurationSeconds int32 `json:"leaseDurationSeconds,omitempty"`
	// AcquireTime is when the holder took the lease; RenewTime, when it last renewed.
	AcquireTime *MicroTime `json:"acquireTime,omitempty"`
	RenewTime   *MicroTime `json:"renewTime,omitempty"`
	// LeaseTransitions counts changes of holder.
	LeaseTransitions int32 `json:"leaseTransitions,omitempty"`
	// Strategy and PreferredHolder belong to coordinated leader election (alpha
	// since Kubernetes 1.31), which kubewire does not take part in. They are
	// declared only so that an Update carries them back unchanged.
	Strategy        string `json:"strategy,omitempty"`
	PreferredHolder string `json:"preferredHolder,omitempty"`
}

// empty is a Lease namespace/name that is not stored yet, for a Create.
func empty(namespace, name string) *Lease {
	return &Lease{
		TypeMeta: apiclient.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
		Metadata: apiclient.ObjectMeta{Name: name, Namespace: namespace},
	}
}

// clone is a copy of l whose labels and annotations may be changed without
// touching l's. The rest is shared: nothing here changes it in place.
func (l *Lease) clone() *Lease {
	c := *l
	c.Metadata.Labels = maps.Clone(l.Metadata.Labels)
	c.Metadata.Annotations = maps.Clone(l.Metadata.Annotations)
	if c.Metadata.Labels == nil {
		c.Metadata.Labels = map[string]string{}
	}
	if c.Metadata.Annotations == nil {
		c.Metadata.Annotations = map[string]string{}
	}
	return &c
}

// sameRecord reports whether two specs say the same thing about their holder.
// An observer restarts its expiry countdown only when the record changes: a
// write that touches nothing a holder writes (a label added by hand, another
// annotation) must not extend a dead holder's lease. Comparing
// resourceVersions would count such writes.
func sameRecord(a, b Spec) bool {
	return a.HolderIdentity == b.HolderIdentity &&
		a.LeaseDurationSeconds == b.LeaseDurationSeconds &&
		a.LeaseTransitions == b.LeaseTransitions &&
		sameTime(a.AcquireTime, b.AcquireTime) &&
		sameTime(a.RenewTime, b.RenewTime)
}

func sameTime(a, b *MicroTime) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b.Time)
}
