package listwatch

import (
	"strconv"
	"time"
)

// State is where a Reflector's loop stands (see the package doc's drawing).
type State int

const (
	// Stopped: Run has not been called, or has returned.
	Stopped State = iota
	// Listing: a LIST (or the initial events of a streaming list) is being read.
	Listing
	// Watching: a watch is open, or being opened, and its events applied.
	Watching
	// BackingOff: a request failed; waiting before trying again.
	BackingOff
)

func (s State) String() string {
	switch s {
	case Stopped:
		return "stopped"
	case Listing:
		return "listing"
	case Watching:
		return "watching"
	case BackingOff:
		return "backing off"
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// Health is a snapshot of how a Reflector is doing: what /readyz and a status line
// print, and what tells a watch that quietly died (LastEventAt stops moving while
// State says watching) from a quiet resource (bookmarks keep LastEventAt moving).
// It is a plain value: a copy, taken under the Reflector's lock.
type Health struct {
	State State
	// Synced is true once the first list reached the Sink; it stays true. The
	// package doc's "Synced" says what it does and does not mean.
	Synced bool
	// ResourceVersion is the last resourceVersion seen: from the last LIST, watch
	// event or bookmark. A watch resumes from it.
	ResourceVersion string
	// LastError is the last failure and LastErrorAt when it happened; nil and the
	// zero time if there was none.
	LastError   error
	LastErrorAt time.Time
	// Relists counts the lists started after the first one succeeded: after a 410,
	// after a failure to apply a list.
	Relists int
	// WatchRestarts counts the watches started again from a resourceVersion without
	// a LIST in between: after the server ended one, after a broken or idle one.
	WatchRestarts int
	// LastEventAt is when the last watch event (bookmarks included) arrived.
	LastEventAt time.Time
	// Received counts the objects the server sent: each one listed (by LIST or
	// streaming list) and each watch event, bookmarks left out. The live page's
	// Reflector total.
	Received uint64
}

// Health returns a snapshot. Safe to call from any goroutine, at any time.
func (r *Reflector) Health() Health {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.health
}

// HasSynced is Health().Synced: whether the first list has reached the Sink. Safe
// to call from any goroutine.
func (r *Reflector) HasSynced() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.health.Synced
}

// LastSyncResourceVersion is the last resourceVersion seen (Health().ResourceVersion).
// Safe to call from any goroutine.
func (r *Reflector) LastSyncResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.health.ResourceVersion
}

// The writers below are called by the Run goroutine, each under the lock.

func (r *Reflector) setState(s State) {
	r.mu.Lock()
	r.health.State = s
	r.mu.Unlock()
}

func (r *Reflector) noteError(err error) {
	now := r.clock.Now()
	r.mu.Lock()
	r.health.LastError, r.health.LastErrorAt = err, now
	r.mu.Unlock()
}

// noteVersion records a resourceVersion seen; with event, also that an event came
// at now, carrying objects objects (0 for a bookmark).
func (r *Reflector) noteVersion(rv string, event bool, objects int, now time.Time) {
	r.mu.Lock()
	if rv != "" {
		r.health.ResourceVersion = rv
	}
	if event {
		r.health.LastEventAt = now
	}
	r.health.Received += uint64(objects)
	r.mu.Unlock()
}

func (r *Reflector) count(relist, restart bool) {
	r.mu.Lock()
	if relist {
		r.health.Relists++
	}
	if restart {
		r.health.WatchRestarts++
	}
	r.mu.Unlock()
}
