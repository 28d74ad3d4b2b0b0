package live

// page is one open page (one /api/events stream): what it follows, and what is
// waiting to be sent to it. The Hub offers it hops and steps under its lock; the
// page's own goroutine (serveEvents) sends them.
type page struct {
	follow *follower     // nil: the page follows nothing, and gets no hops
	hops   chan Hop      // buffered; a page that falls behind loses hops, never the pipeline time
	steps  chan Step     // buffered(1): only the latest step matters
	opened uint64        // the order it opened in (serveEvents)
	gone   chan struct{} // closed, under the Hub's lock, when a newer page replaced it
}

// pageHops is how many hops wait for a slow page before the next are dropped.
const pageHops = 1024

func newPage(follow string) *page {
	p := &page{hops: make(chan Hop, pageHops), steps: make(chan Step, 1)}
	if follow != "" {
		p.follow = newFollower(follow)
	}
	return p
}

// offer is called for every hop while the page is open, under the Hub's lock.
func (p *page) offer(hop Hop) {
	if p.follow == nil || !p.follow.on(hop) {
		return
	}
	select {
	case p.hops <- hop:
	default: // the page is behind: it misses this hop rather than slow the pipeline
	}
}

// offerStep replaces a step not yet sent with s, under the Hub's lock.
func (p *page) offerStep(s Step) {
	select {
	case <-p.steps:
	default:
	}
	p.steps <- s
}
