package apitest

import (
	"sync"

	"github.com/kubewire/kubewire/apiclient"
)

// HoldWatch makes every watch of res lag, as a busy API server's watch cache or
// a slow network makes it lag: from now until release is called, the changes
// made to res's objects are not sent to the watches of res (any namespace, any
// selector); the writes themselves are answered at once, and a GET or a LIST
// sees them. On release each watch sends what was held, in order, and goes on
// as before. A watch's initial events (from "" or a streaming list) are not
// held, only the changes it streams. Holds nest: the changes flow again once
// every hold of res is released; calling release twice releases once.
//
// It is how a test shows a controller acting on its own stale cache (package
// controller's stale-cache tests): the controller's write succeeds, and the
// watch event that would show it to the controller's cache waits for release.
func (s *Server) HoldWatch(res apiclient.Resource) (release func()) {
	l := &s.live
	coll := res.String()
	l.mu.Lock()
	if l.held == nil {
		l.held = map[string]int{}
	}
	l.held[coll]++
	l.mu.Unlock()
	return onlyOnce(func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.held[coll]--; l.held[coll] == 0 {
			delete(l.held, coll)
		}
		close(l.changed) // wake the watches: what was held is sent now
		l.changed = make(chan struct{})
	})
}

// onlyOnce returns a func that runs release the first time it is called, and
// does nothing after: a release called twice releases once.
func onlyOnce(release func()) func() {
	var once sync.Once
	return func() { once.Do(release) }
}
