package perturb

import "fmt"

// finish is a worker that has returned from Reconcile and waits, before it
// tells its queue it is done, until nothing else can happen: every watch
// event already written has been delivered. So the next Reconcile of that
// worker — of this Request again, if it was queued meanwhile — reads caches
// at least as new as what the server has said, however the process's
// goroutines ran: a handler's Request that came before the worker took the
// last one and one that came after it lead to the same reads and the same
// writes.
type finish struct {
	proc    *process
	sortKey string
	release chan struct{}
}

// hold holds a worker at the end of a Reconcile until the driver lets it go,
// or the process stops.
func (n *network) hold(p *process, request string) {
	f := &finish{proc: p, sortKey: fmt.Sprintf("%06d %s", p.n, request), release: make(chan struct{})}
	n.mu.Lock()
	if p.dead {
		n.mu.Unlock()
		return
	}
	n.finishes = append(n.finishes, f)
	n.mu.Unlock()
	n.signal()
	select {
	case <-f.release:
	case <-p.stopped:
	}
}

// finished lets a held worker go.
func (n *network) finished(f *finish) {
	n.mu.Lock()
	n.finishes = remove(n.finishes, f)
	n.mu.Unlock()
	close(f.release)
}
