package apitest

import (
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
)

// ExpireWatches makes res's watches meet 410 Expired now, the one call a test
// needs to see a client relist: the history up to now is compacted (Compact),
// and every open watch of res (any namespace, any selector) is sent an ERROR
// event with a 410 Expired Status and ended, as kube-apiserver ends a watch
// whose next event etcd compacted away ("required revision has been
// compacted"). With no watch of res open — a client between two watches, or
// one whose watch request is on its way — the next watch of res to start
// gets the 410 instead, whatever its resourceVersion, so that the call does
// not race the client. A watch from an older resourceVersion, res's or
// another's, gets the same 410 as it starts; the open watches of other
// resources go on. No
// clock moves and nothing waits: the watch ends with an error event, not a
// clean end, so a Reflector that has had an event on that watch relists at
// once, rather than counting a watch that ended within a second as a failure
// (listwatch's errClosedAtOnce) and backing off. (One that has had none backs
// off first, as after any 410 right after its list: listwatch's relist.)
func (s *Server) ExpireWatches(res apiclient.Resource) {
	l := &s.live
	l.mu.Lock()
	defer l.mu.Unlock()
	l.compacted = l.rv
	if l.expired == nil {
		l.expired = map[string]int{}
	}
	l.expired[res.String()]++
	if l.watching[res.String()] == 0 {
		if l.expireNext == nil {
			l.expireNext = map[string]bool{}
		}
		l.expireNext[res.String()] = true
	}
	close(l.changed) // wake the watches: each open one of res sees it expired
	l.changed = make(chan struct{})
}

// expiredStatus is the ERROR event's object of a watch from a compacted
// version, in kube-apiserver's words.
func expiredStatus(from, compacted int64) []byte {
	return fmt.Appendf(nil, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: %d (%d)","reason":"Expired","code":410}`, from, compacted)
}
