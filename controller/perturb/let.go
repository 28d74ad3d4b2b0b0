package perturb

import (
	"io"
	"time"
)

// What the driver lets through the gate, one thing at a time, and where the
// perturbation acts on it.

// letOne lets one thing through: the seed's choice among the held requests
// and the watch events, and only when there are none, a worker that has
// finished a Reconcile (finish says why).
func (x *execution) letOne() bool {
	calls, streams, finishes := x.net.enabled()
	k := len(calls) + len(streams)
	if k == 0 {
		if len(finishes) == 0 {
			return false
		}
		x.net.finished(finishes[0])
		return true
	}
	i := x.rng.IntN(k)
	if i < len(calls) {
		x.letCall(calls[i])
	} else {
		x.deliver(streams[i-len(calls)])
	}
	return true
}

// letCall lets a held request through, with the perturbation's fault if this
// is its write.
func (x *execution) letCall(c *call) {
	v := verdict{}
	if c.isWrite() {
		x.lastActive = time.Now()
		k := len(x.out.writes) + 1
		c.nth = k
		w := point{what: c.describe(), method: c.req.Method, coll: c.t.coll(), key: objectKey(c.t.namespace, c.t.name), conditional: conditional(c.req, c.body)}
		x.out.writes = append(x.out.writes, w)
		if x.plan.Write == k && !x.fired {
			switch x.plan.Kind {
			case Crash, Stale:
				v.crash, x.crashDue = true, true
				x.fire()
			case Late:
				x.holdLate(c)
			case Conflict, Throttle, Unavailable, Internal, Timeout:
				if v.fault = faultFor(x.plan, w); v.fault != nil {
					x.fire()
				}
			}
		}
	}
	x.let = c
	x.net.let(c, v)
}

// deliver delivers a stream's next event, or its end, unless the perturbation
// holds, replaces or cuts it. The story is told before the client is woken:
// what the client does with the event comes after it, however the goroutines
// run.
func (x *execution) deliver(s *stream) {
	n := x.net
	n.mu.Lock()
	defer n.mu.Unlock()
	x.lastActive = time.Now()
	line := s.next()
	if line == nil {
		x.say(s.proc, "← %s watch ended", s.t.coll())
		s.put(nil)
		return
	}
	ev := parseEvent(line)
	v := x.hist.ordinal(ev.version())
	change := ev.typ == "ADDED" || ev.typ == "MODIFIED" || ev.typ == "DELETED"
	p := x.plan
	if p.Kind == Coalesce && !x.fired && change && s.t.coll() == p.Coll && ev.key() == p.Key && v == p.Version {
		x.fire()
		x.say(s.proc, "✂ %s %s %s v%d is held back, with the rest of the watch, until %s changes again", s.t.coll(), ev.typ, ev.key(), v, ev.key())
		s.hold = &coalesce{key: p.Key, rv: ev.version()}
		return
	}
	i := 0
	if change && !s.initial {
		x.out.events = append(x.out.events, point{what: s.t.coll() + " " + ev.typ + " " + ev.key(), coll: s.t.coll(), key: ev.key(), typ: ev.typ, version: v})
		i = len(x.out.events)
	}
	if ev.initialEnd {
		s.initial = false
	}
	switch {
	case p.Kind == Expire && p.Event == i && i > 0 && !x.fired:
		x.fire()
		x.say(s.proc, "✂ %s %s %s v%d is replaced by 410 Expired", s.t.coll(), ev.typ, ev.key(), v)
		s.put(expiredLine())
		s.breakOff(io.EOF)
		return
	case ev.typ == "BOOKMARK":
		x.say(s.proc, "← %s BOOKMARK v%d", s.t.coll(), v)
	case ev.typ == "ERROR":
		x.say(s.proc, "← %s ERROR", s.t.coll())
	default:
		x.say(s.proc, "← %s %s %s v%d", s.t.coll(), ev.typ, ev.key(), v)
	}
	if p.Kind == Cut && p.Event == i && i > 0 && !x.fired {
		x.fire()
		x.say(s.proc, "✂ the watch of %s breaks", s.t.coll())
		s.put(line)
		s.breakOff(io.ErrUnexpectedEOF)
		return
	}
	s.put(line)
}
