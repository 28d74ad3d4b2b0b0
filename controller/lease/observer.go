package lease

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// Observer judges other holders' Leases on this reader's clock. It never
// compares a Lease's renewTime with its own time: two machines' clocks may
// disagree by more than a lease. Instead it notes when it first saw each
// Lease's record as it is (Sighting.Since); a Lease is held until it has stayed
// unchanged for its duration after that.
//
// The duration honoured is the one the Lease states, capped at twice this
// reader's own LeaseDuration; a Lease that states none, or cannot be decoded,
// gets this reader's own. A Lease that cannot be decoded is logged once per
// resourceVersion, and its resourceVersion stands in for its record.
//
// The zero value is not usable; build one with NewObserver. Not safe for
// concurrent use: one protocol loop owns it.
type Observer struct {
	own  time.Duration // the reader's LeaseDuration
	log  *slog.Logger
	seen map[string]Sighting // by Lease name, as last seen
}

// Sighting is what an Observer makes of one Lease at one read.
type Sighting struct {
	// Lease is the Lease as read; for one that could not be decoded, its
	// metadata alone (enough to write over it at its resourceVersion).
	Lease *Lease
	// Err says why the Lease could not be decoded; nil when it was.
	Err error
	// Since is when, on the reader's clock, the Lease's record was first seen as
	// it is now.
	Since time.Time
	// Honoured is how long after Since the Lease is held.
	Honoured time.Duration
}

// Expiry is when, on the reader's clock, the Lease stops being held unless it
// changes first.
func (s Sighting) Expiry() time.Time { return s.Since.Add(s.Honoured) }

// Held reports whether at now the Lease is held: it names a holder (or cannot
// be read: its holder is unknown) and has changed less than Honoured ago. The
// zero Sighting (nothing seen yet) is not held.
func (s Sighting) Held(now time.Time) bool {
	if s.Lease == nil {
		return false
	}
	return (s.Err != nil || s.Lease.Spec.HolderIdentity != "") && now.Before(s.Expiry())
}

// Unchanged is how long the Lease has been seen unchanged at now.
func (s Sighting) Unchanged(now time.Time) time.Duration { return now.Sub(s.Since) }

// NewObserver returns an Observer for a reader whose own LeaseDuration is
// leaseDuration; log receives the undecodable Leases (nil: discarded).
func NewObserver(leaseDuration time.Duration, log *slog.Logger) *Observer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Observer{own: leaseDuration, log: log, seen: map[string]Sighting{}}
}

// See records l as read at now and returns what the reader makes of it.
func (o *Observer) See(l *Lease, now time.Time) Sighting {
	s := Sighting{Lease: l, Since: now, Honoured: o.honoured(l)}
	if prev, ok := o.seen[l.Metadata.Name]; ok && prev.Err == nil && sameRecord(prev.Lease.Spec, l.Spec) {
		s.Since = prev.Since
	}
	o.seen[l.Metadata.Name] = s
	return s
}

// SeeObject decodes obj, a Lease as the server sent it, and Sees it. One that
// cannot be decoded (a renewTime of "yesterday", written by hand) is not an
// error: it is logged once per resourceVersion at Warn and returned with Err
// set, seen unchanged for as long as its resourceVersion is, and honoured for
// this reader's own LeaseDuration. What to do with it is the protocol's call.
func (o *Observer) SeeObject(obj *apiclient.Object, now time.Time) Sighting {
	var l Lease
	err := obj.Decode(&l)
	if err == nil {
		return o.See(&l, now)
	}
	name, rv := obj.Metadata.Name, obj.Metadata.ResourceVersion
	s := Sighting{
		Lease: &Lease{TypeMeta: obj.TypeMeta, Metadata: obj.Metadata},
		Err:   fmt.Errorf("lease %s/%s (resourceVersion %s) cannot be decoded: %w", obj.Metadata.Namespace, name, rv, err),
		Since: now, Honoured: o.own,
	}
	if prev, ok := o.seen[name]; ok && prev.Err != nil && prev.Lease.Metadata.ResourceVersion == rv {
		s.Since = prev.Since
	} else {
		o.log.Warn("lease: a Lease cannot be decoded; its resourceVersion is its only sign of life", "error", s.Err)
	}
	o.seen[name] = s
	return s
}

// SeeList Sees every Lease of a list, and forgets those it no longer holds.
func (o *Observer) SeeList(items []*apiclient.Object, now time.Time) []Sighting {
	out := make([]Sighting, 0, len(items))
	listed := make(map[string]bool, len(items))
	for _, obj := range items {
		out = append(out, o.SeeObject(obj, now))
		listed[obj.Metadata.Name] = true
	}
	for name := range o.seen {
		if !listed[name] {
			delete(o.seen, name)
		}
	}
	return out
}

// honoured is the duration l states, capped at twice the reader's own; the
// reader's own when l states none.
func (o *Observer) honoured(l *Lease) time.Duration {
	s := l.Spec.LeaseDurationSeconds
	if s <= 0 {
		return o.own
	}
	return min(time.Duration(s)*time.Second, 2*o.own)
}
