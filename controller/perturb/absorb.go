package perturb

import "time"

// What the driver does between two things let through: take in what the
// last one did, and end what the perturbation holds back when its time has
// come.

// absorb takes in what the last thing let through did: the story's line for a
// request, the lagging watches' new events, held watches whose object has
// changed, and the invariants at every new version. false: one failed.
func (x *execution) absorb() bool {
	x.net.feed()
	by := 0 // nothing let through: what changed, the workload's step did
	if c := x.let; c != nil {
		x.let = nil
		if c.isWrite() {
			x.out.writes[len(x.out.writes)-1].version = x.hist.ordinal(x.hist.last())
			by = c.proc.n
		}
		x.noteWatched(c)
	}
	x.releaseHolds(false)
	return x.checkInvariants(by)
}

// noteWatched remembers which collections the processes list and watch, and
// which they read at resourceVersion "0" (what a lagging server serves from
// any version it has).
func (x *execution) noteWatched(c *call) {
	if c.req.Method != "GET" {
		return
	}
	if c.req.URL.Query().Get("resourceVersion") == "0" {
		if x.out.atZero == nil {
			x.out.atZero = map[string]bool{}
		}
		x.out.atZero[c.t.coll()] = true
	}
	if c.t.name != "" {
		return
	}
	for _, w := range x.out.watched {
		if w == c.t.coll() {
			return
		}
	}
	x.out.watched = append(x.out.watched, c.t.coll())
}

// releaseHolds ends the watches a Coalesce holds once their object has
// changed again (or, with all, anyway): 410 Expired, and the Reflector's relist
// shows the object as it is now.
func (x *execution) releaseHolds(all bool) bool {
	n := x.net
	n.mu.Lock()
	var released []*stream
	for _, s := range n.streams {
		h := s.hold
		if h == nil {
			continue
		}
		changed := false
		for _, c := range x.hist.since(h.rv) {
			changed = changed || (c.coll == s.t.coll() && c.key() == h.key)
		}
		if changed || all {
			s.hold, s.queued, s.ended = nil, [][]byte{expiredLine()}, true
			s.cancel()
			released = append(released, s)
		}
	}
	n.mu.Unlock()
	for _, s := range released {
		x.say(s.proc, "✂ the held watch of %s ends with 410 Expired: the relist shows %s as it is now", s.t.coll(), x.plan.Key)
	}
	return len(released) > 0
}

func (x *execution) letHoldsGo() bool { return x.releaseHolds(true) }

// holding says whether the perturbation holds a watch back: a Coalesce's,
// until its object changes again (lags and Late holds lift before the
// controller counts as idle).
func (x *execution) holding() bool {
	x.net.mu.Lock()
	defer x.net.mu.Unlock()
	for _, s := range x.net.streams {
		if s.err == nil && (s.hold != nil || s.late) {
			return true
		}
	}
	return false
}

// letGo ends what the perturbation still holds back: a held watch, a lag.
func (x *execution) letGo() bool {
	held := x.releaseHolds(true)
	held = x.releaseLate(false) || held
	return x.liftLag() || held
}

// liftLag lifts the current process's stale view: its watches catch up.
func (x *execution) liftLag() bool {
	l := x.cur.lag
	x.net.mu.Lock()
	lift := l != nil && !l.lifted
	if lift {
		l.lifted = true
	}
	x.net.mu.Unlock()
	if lift {
		x.say(x.cur, "its view of %s catches up", l.coll)
	}
	return lift
}

// lagEnds is when the current process's stale view, or the watch a Late
// perturbation holds, lifts on its own clock; ok is false when there is none
// left to lift.
func (x *execution) lagEnds() (at time.Time, ok bool) {
	if !x.lateUntil.IsZero() {
		return x.lateUntil, true
	}
	l := x.cur.lag
	x.net.mu.Lock()
	defer x.net.mu.Unlock()
	if l == nil || l.lifted {
		return time.Time{}, false
	}
	return l.until, true
}

// liftDue lifts the stale view once its time has come, whatever the process
// is doing.
func (x *execution) liftDue() bool {
	if x.releaseLate(true) {
		return true
	}
	if at, ok := x.lagEnds(); ok && !time.Now().Before(at) {
		return x.liftLag()
	}
	return false
}

// holdLate holds c's process's watches of c's collection from c's write on
// (Late), until Spec.Lag has passed or the process is idle.
func (x *execution) holdLate(c *call) {
	x.fire()
	x.lateUntil = time.Now().Add(x.spec.Lag)
	x.net.mu.Lock()
	for _, s := range x.net.streams {
		if s.proc == c.proc && s.t.coll() == c.t.coll() {
			s.late = true
		}
	}
	x.net.mu.Unlock()
	x.say(c.proc, "✂ its watch of %s holds the event of write %d back", c.t.coll(), c.nth)
}

// releaseLate lets the watches a Late perturbation holds go: with due, only
// once their time has come.
func (x *execution) releaseLate(due bool) bool {
	if x.lateUntil.IsZero() || due && time.Now().Before(x.lateUntil) {
		return false
	}
	x.lateUntil = time.Time{}
	var coll string
	x.net.mu.Lock()
	for _, s := range x.net.streams {
		if s.late {
			s.late, coll = false, s.t.coll()
		}
	}
	x.net.mu.Unlock()
	if coll != "" {
		x.say(x.cur, "its watch of %s catches up", coll)
	}
	return true
}

// restart crashes the current process and starts a fresh one, with the
// perturbation's stale view for Stale.
func (x *execution) restart() bool {
	old := x.cur
	x.say(old, "✂ crashes before it reads the answer to write %d", x.plan.Write)
	x.net.kill(old)
	if err := x.stop(old); err != nil {
		x.fail("%v", err)
		return false
	}
	var l *lag
	if x.plan.Kind == Stale {
		l = x.lagAt(x.plan.Coll, x.plan.Version)
	}
	if err := x.start(l); err != nil {
		x.fail("%v", err)
		return false
	}
	x.lastActive = time.Now()
	return true
}

// lagAt is a view of coll lagging at version v (ordinal), from now for
// Spec.Lag at most.
func (x *execution) lagAt(coll string, v int) *lag {
	return &lag{coll: coll, rv: x.hist.version(v), v: v, until: time.Now().Add(x.spec.Lag)}
}

// guardHolds says whether the staleness guard of the current process has
// sent back a Request whose turn is still to come.
func (x *execution) guardHolds() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.guarded) > 0
}
