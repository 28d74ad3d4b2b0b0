package lease

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// InstanceAnnotation holds, on a Lease, the instance of the Holder that wrote
// it last: random, new with every Holder (so with every process). Two processes
// given one identity write the same holderIdentity; the instance tells them
// apart.
const InstanceAnnotation = "kubewire.io/holder-instance"

// HolderConfig says which Lease a Holder writes, as whom, and with which
// timings. Every field but Stamp is required; the timings are Timings'.
type HolderConfig struct {
	Client          *apiclient.Client
	Namespace, Name string
	Identity        string
	LeaseDuration   time.Duration // written to the Lease, rounded up to whole seconds (Seconds)
	RenewDeadline   time.Duration // a holder acts only this long after the last successful write was sent
	Clock           apiclient.Clock
	// Stamp, when set, is called with the metadata of every record before it is
	// written, its labels and annotations already copies it may change (sharding
	// writes its group label and its claim there).
	Stamp func(*apiclient.ObjectMeta)
}

// Holder writes one Lease as its holder, for one replica: the record, the
// instance that tells this process from another given the same identity, and
// the renew deadline.
//
// The zero value is not usable; build one with NewHolder. Renew, Take, Release
// and Delete are called by one goroutine at a time (the protocol's loop);
// Deadline, Renewed and Holds are safe from any goroutine.
type Holder struct {
	cfg      HolderConfig
	leases   apiclient.Typed[Lease]
	instance string

	last *Lease // as this holder last wrote it; nil before the first write, or once it holds the Lease no more

	mu   sync.Mutex
	sent time.Time // when the last successful write was sent; zero while it holds nothing
}

// HeldError is the error of Renew, Take, Release and Delete when the Lease is
// held by someone else: another identity, or another process given this
// identity (another instance). This holder holds nothing from then on.
type HeldError struct {
	Lease *Lease // as read
}

func (e *HeldError) Error() string {
	l := e.Lease
	return fmt.Sprintf("lease %s/%s is held by %q (instance %q)", l.Metadata.Namespace, l.Metadata.Name, l.Spec.HolderIdentity, InstanceOf(l))
}

// ErrRace is wrapped by Take's error when another writer wrote the Lease after
// it was read: the server refused the write (Conflict, or AlreadyExists for a
// create). Of several candidates that take one Lease at once, one wins.
var ErrRace = errors.New("another writer came first")

// NewHolder returns a Holder that has not written yet.
func NewHolder(cfg HolderConfig) *Holder {
	return &Holder{
		cfg:      cfg,
		leases:   apiclient.NewTyped[Lease](cfg.Client).Namespace(cfg.Namespace),
		instance: random(8),
	}
}

// Take writes this holder's record over cur, a Lease read and judged free,
// expired or this holder's own (nil: there is none, create it). The write
// carries cur's resourceVersion: if anyone wrote since, the server refuses it
// and Take returns an error wrapping ErrRace. A Lease taken from another holder
// (or process) gets a new acquireTime and one more transition.
func (h *Holder) Take(ctx context.Context, cur *Lease) (*Lease, error) {
	sent := h.cfg.Clock.Now()
	var written *Lease
	var err error
	if cur == nil {
		written, err = h.leases.Create(ctx, h.record(empty(h.cfg.Namespace, h.cfg.Name), sent), apiclient.WriteOptions{})
	} else {
		written, err = h.leases.Update(ctx, h.record(cur, sent), apiclient.WriteOptions{})
	}
	if apiclient.IsConflict(err) || apiclient.IsAlreadyExists(err) {
		return nil, fmt.Errorf("lease %s/%s: %w: %w", h.cfg.Namespace, h.cfg.Name, ErrRace, err)
	}
	if err != nil {
		return nil, err
	}
	h.wrote(written, sent)
	return written, nil
}

// Renew writes a fresh renewTime (and whatever Stamp sets). It updates the Lease
// as this holder last wrote it, with no read first: while it holds the Lease
// nobody else should write, so one request usually does. A Conflict means
// someone did write (NotFound: deleted it); then it reads the Lease, writes
// again only if the Lease is still its own (someone only labelled it), creates
// it if it is gone, and returns a *HeldError if another holder or process has
// it. Before the first write it creates the Lease (AlreadyExists: the same
// read). A success moves the renew deadline to RenewDeadline after the write
// was sent.
func (h *Holder) Renew(ctx context.Context) (*Lease, error) {
	sent := h.cfg.Clock.Now()
	written, err := h.write(ctx, func(l *Lease) *Lease { return h.record(l, sent) }, true)
	if err != nil {
		return nil, err
	}
	h.wrote(written, sent)
	return written, nil
}

// Release gives the Lease up, if this holder holds it: no holder, a duration
// of one second, the transition count kept. An observer sees the empty holder
// at its next read and may take the Lease at once. It returns the Lease as
// written, or nil when there was nothing of its own to release (never
// written, gone, held by another); either way it holds nothing after.
func (h *Holder) Release(ctx context.Context) (*Lease, error) {
	if h.last == nil {
		return nil, nil
	}
	now := h.cfg.Clock.Now()
	written, err := h.write(ctx, func(l *Lease) *Lease {
		next := l.clone()
		next.Spec.HolderIdentity = ""
		next.Spec.LeaseDurationSeconds = 1
		next.Spec.AcquireTime, next.Spec.RenewTime = NewMicroTime(now), NewMicroTime(now)
		return next
	}, false)
	if err != nil && !errors.As(err, new(*HeldError)) {
		return nil, err
	}
	h.lost()
	return written, nil
}

// Delete deletes the Lease, if this holder holds it, with the resourceVersion
// it last wrote as a precondition: a Lease written since is read, and deleted
// only if it is still its own. Deleted, gone or held by another, it holds
// nothing.
func (h *Holder) Delete(ctx context.Context) error {
	if h.last == nil {
		return nil
	}
	del := func(l *Lease) error {
		pre := &apiclient.Preconditions{ResourceVersion: l.Metadata.ResourceVersion}
		return h.leases.Delete(ctx, h.cfg.Name, apiclient.DeleteOptions{Preconditions: pre})
	}
	err := del(h.last)
	if apiclient.IsConflict(err) {
		var cur *Lease
		if cur, err = h.leases.Get(ctx, h.cfg.Name); err == nil && h.Owns(cur) {
			err = del(cur)
		}
	}
	if err != nil && !apiclient.IsNotFound(err) {
		return err
	}
	h.lost()
	return nil
}

// write sends next(the Lease last written) at its resourceVersion (a create
// before the first write). When the Lease changed meanwhile it reads it: gone,
// it creates next(an empty Lease) if create is set, else does nothing; another
// holder's, a *HeldError; its own, next(it) at its resourceVersion.
func (h *Holder) write(ctx context.Context, next func(*Lease) *Lease, create bool) (*Lease, error) {
	var written *Lease
	var err error
	if h.last == nil {
		written, err = h.leases.Create(ctx, next(empty(h.cfg.Namespace, h.cfg.Name)), apiclient.WriteOptions{})
	} else {
		written, err = h.leases.Update(ctx, next(h.last), apiclient.WriteOptions{})
	}
	if !apiclient.IsConflict(err) && !apiclient.IsNotFound(err) && !apiclient.IsAlreadyExists(err) {
		return written, err
	}
	cur, err := h.leases.Get(ctx, h.cfg.Name)
	if apiclient.IsNotFound(err) {
		if !create {
			return nil, nil
		}
		// Deleted (by hand, or as a dead member's): nobody holds it, so creating
		// it is safe; if another writer created it first, its record decides.
		written, err = h.leases.Create(ctx, next(empty(h.cfg.Namespace, h.cfg.Name)), apiclient.WriteOptions{})
		if !apiclient.IsAlreadyExists(err) {
			return written, err
		}
		cur, err = h.leases.Get(ctx, h.cfg.Name)
	}
	if err != nil {
		return nil, err
	}
	if !h.Owns(cur) {
		h.lost()
		return nil, &HeldError{Lease: cur}
	}
	return h.leases.Update(ctx, next(cur), apiclient.WriteOptions{})
}

// record is the Lease to write at now, from l: this holder's identity,
// duration (rounded up), renewTime and instance, over everything else l has
// (labels and annotations others set, Strategy, PreferredHolder). Taken from
// another holder or process, or new, it is acquired now, and one more
// transition if it was stored before.
func (h *Holder) record(l *Lease, now time.Time) *Lease {
	next := l.clone()
	if !h.Owns(l) || l.Spec.AcquireTime == nil {
		next.Spec.AcquireTime = NewMicroTime(now)
	}
	if !h.Owns(l) && l.Metadata.ResourceVersion != "" {
		next.Spec.LeaseTransitions++
	}
	next.Spec.HolderIdentity = h.cfg.Identity
	next.Spec.LeaseDurationSeconds = Seconds(h.cfg.LeaseDuration)
	next.Spec.RenewTime = NewMicroTime(now)
	next.Metadata.Annotations[InstanceAnnotation] = h.instance
	if h.cfg.Stamp != nil {
		h.cfg.Stamp(&next.Metadata)
	}
	return next
}

// Owns reports whether l was written last by this Holder: it names its
// identity and its instance.
func (h *Holder) Owns(l *Lease) bool {
	return l.Spec.HolderIdentity == h.cfg.Identity && InstanceOf(l) == h.instance
}

// InstanceOf is the instance of the Holder that last wrote l; "" for a Lease
// written by hand, by client-go, or by no Holder.
func InstanceOf(l *Lease) string { return l.Metadata.Annotations[InstanceAnnotation] }

// Written is the Lease as this Holder last wrote it; nil before its first
// write, or once it holds the Lease no more. For the protocol's goroutine.
func (h *Holder) Written() *Lease { return h.last }

// wrote notes a successful write sent at sent.
func (h *Holder) wrote(l *Lease, sent time.Time) {
	h.last = l
	h.mu.Lock()
	h.sent = sent
	h.mu.Unlock()
}

// lost notes that this holder holds the Lease no more.
func (h *Holder) lost() {
	h.last = nil
	h.mu.Lock()
	h.sent = time.Time{}
	h.mu.Unlock()
}
