package apitest

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// WatchLag is a delaying proxy for the watches of one resource: an
// http.RoundTripper to put between a client and any API server — Server, or a
// real kube-apiserver in an integration test (wrap the transport its
// kubeconfig makes, and give WatchLag to apiclient.Options.Transport). Every
// other request passes as it is; a watch's bytes reach the client Delay after
// they arrived, and not at all while the lag is held (Hold), as from a watch
// cache or a network that has fallen behind. The writes the client makes are
// answered at once.
//
// Server.HoldWatch does the same inside Server; WatchLag works on any server,
// with the real clock. What a held watch receives waits in memory: hold it for
// a test's moments, not for gigabytes. Build one with NewWatchLag; safe for
// concurrent use.
type WatchLag struct {
	rt          http.RoundTripper
	prefix, res string // the collection's path: "/api/", "pods"; "/apis/apps/", "deployments"

	mu      sync.Mutex
	delay   time.Duration
	holds   int
	changed chan struct{} // closed and replaced when delay or holds change
}

// NewWatchLag returns a proxy over rt that makes the watches of res lag.
func NewWatchLag(rt http.RoundTripper, res apiclient.Resource) *WatchLag {
	prefix := "/api/"
	if res.Group != "" {
		prefix = "/apis/" + res.Group + "/"
	}
	return &WatchLag{rt: rt, prefix: prefix, res: res.Name, changed: make(chan struct{})}
}

// Delay makes every byte of the watches reach the client d after it arrived
// (0: at once); it applies to the bytes still on their way too.
func (l *WatchLag) Delay(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.delay = d
	l.wake()
}

// Hold stops the watches' bytes until release is called; holds nest, and
// calling release twice releases once.
func (l *WatchLag) Hold() (release func()) {
	l.mu.Lock()
	l.holds++
	l.wake()
	l.mu.Unlock()
	return onlyOnce(func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.holds--
		l.wake()
	})
}

// wake tells the readers that delay or holds changed; called with mu held.
func (l *WatchLag) wake() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// RoundTrip sends req on; the answer to a watch of the resource comes back
// through a lagging body.
func (l *WatchLag) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.rt.RoundTrip(req)
	if err != nil || !l.isWatch(req) {
		return resp, err
	}
	b := &lagBody{lag: l, upstream: resp.Body, arrived: make(chan struct{}, 1), closed: make(chan struct{})}
	go b.pull() // owned by the body: ends when the upstream body ends or Close closes it
	resp.Body = b
	return resp, nil
}

// isWatch reports whether req watches the resource: GET …/RESOURCE?watch=true,
// in a namespace or across all.
func (l *WatchLag) isWatch(req *http.Request) bool {
	w := req.URL.Query().Get("watch")
	p := req.URL.Path
	return req.Method == http.MethodGet && (w == "true" || w == "1") && strings.HasPrefix(p, l.prefix) && strings.HasSuffix(p, "/"+l.res)
}

// lagBody hands a watch's bytes to the client once they are due.
type lagBody struct {
	lag      *WatchLag
	upstream io.ReadCloser

	mu      sync.Mutex
	chunks  []chunk // arrived, not yet read
	err     error   // how upstream ended, after the chunks
	arrived chan struct{}
	closed  chan struct{}
	once    sync.Once
}

// chunk is bytes as they arrived, and when.
type chunk struct {
	data []byte
	at   time.Time
}

// pull reads upstream as it comes, stamping each read with its arrival.
func (b *lagBody) pull() {
	for {
		buf := make([]byte, 32<<10)
		n, err := b.upstream.Read(buf)
		b.mu.Lock()
		if n > 0 {
			b.chunks = append(b.chunks, chunk{buf[:n], time.Now()})
		}
		if err != nil {
			b.err = err
		}
		b.mu.Unlock()
		select {
		case b.arrived <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

// Read waits until the first chunk is due and nothing holds the lag, then
// reads from it.
func (b *lagBody) Read(p []byte) (int, error) {
	for {
		l := b.lag
		l.mu.Lock()
		delay, held, changed := l.delay, l.holds > 0, l.changed
		l.mu.Unlock()
		b.mu.Lock()
		var timer *time.Timer
		var due <-chan time.Time
		switch {
		case len(b.chunks) == 0 && b.err != nil:
			b.mu.Unlock()
			return 0, b.err
		case len(b.chunks) == 0 || held:
		default:
			wait := time.Until(b.chunks[0].at.Add(delay))
			if wait <= 0 {
				n := copy(p, b.chunks[0].data)
				if b.chunks[0].data = b.chunks[0].data[n:]; len(b.chunks[0].data) == 0 {
					b.chunks = b.chunks[1:]
				}
				b.mu.Unlock()
				return n, nil
			}
			timer = time.NewTimer(wait)
			due = timer.C
		}
		b.mu.Unlock()
		select {
		case <-b.arrived:
		case <-changed:
		case <-due:
		case <-b.closed:
			return 0, io.ErrClosedPipe
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// Close ends the body and the upstream one.
func (b *lagBody) Close() error {
	b.once.Do(func() { close(b.closed) })
	return b.upstream.Close()
}
