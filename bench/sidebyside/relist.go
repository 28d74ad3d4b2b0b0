package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// The relist phase measures what an informer's memory does when its watch is
// answered 410 Gone and it must list everything again while it still holds the
// cache: the "relist peak" users of informers complain about.
//
// Both programs run against a proxy in front of the real API server (plain HTTP
// on loopback, no credentials: the proxy adds the kubeconfig's own). The proxy
// passes everything through, and on demand ends every watch in flight and answers
// the next watch that resumes from a resourceVersion with HTTP 410 and a Status
// "Expired", as kube-apiserver does when the version has left its watch cache.
// Each program then lists again from the real server, as it would in production.
//
// One run, for one program:
//  1. start it (kubewire `sync pods --watch`; clientgo `sync -until-events` a
//     count it never reaches) through the proxy;
//  2. wait until the proxy has passed the end of its first list, then until the
//     process is idle (under 2% of a CPU for a second): the steady state. Read
//     VmRSS, and reset the kernel's peak (VmHWM) by writing 5 to
//     /proc/PID/clear_refs;
//  3. expire its watch; wait until the proxy has passed the end of the second
//     list and the process is idle again;
//  4. read VmHWM (the peak since the reset: the relist peak) and the CPU spent
//     since step 3, then stop it with SIGTERM.
//
// The measure is a black box: it reads /proc and the bytes on the wire, nothing
// either program reports about itself, so it asks the same of both.

// relistSample is one run of one program.
type relistSample struct {
	prog              string
	steady, peak, end int64         // VmRSS before, VmHWM during, VmRSS after the relist (bytes)
	cpu               time.Duration // CPU spent from the 410 to idle
	took              time.Duration // from the 410 to the end of the second list on the wire
}

func (s relistSample) String() string {
	return fmt.Sprintf("%-9s steady %7.1f MiB  relist peak %7.1f MiB (%.2f×)  after %7.1f MiB  cpu %5.2fs  listed again in %v",
		s.prog, mib(s.steady), mib(s.peak), float64(s.peak)/float64(s.steady), mib(s.end), s.cpu.Seconds(), s.took.Round(time.Millisecond))
}

// relistRuns runs -relist-runs pairs, kubewire first in each, against the cluster
// c whose namespace ns holds the pods.
func relistRuns(ctx context.Context, cfg config, bins binaries, c *cluster) ([]relistSample, error) {
	kc, err := kubeconfig.Load(kubeconfig.Options{Path: c.kubeconfig})
	if err != nil {
		return nil, err
	}
	p, err := startProxy(kc)
	if err != nil {
		return nil, err
	}
	defer p.close()
	kcPath := filepath.Join("bin", "relist.kubeconfig")
	if err := writeServeKubeconfig(kcPath, "http://"+p.addr); err != nil {
		return nil, err
	}
	argv := map[string][]string{
		kubewire: {bins.kubewire, "--kubeconfig", kcPath, "sync", "pods", "-n", cfg.ns, "--watch"},
		clientgo: {bins.clientgo, "sync", "-kubeconfig", kcPath, "-n", cfg.ns, "-until-events", "1000000000"},
	}
	var out []relistSample
	for i := 0; i < cfg.relistRuns; i++ {
		for _, prog := range []string{kubewire, clientgo} {
			s, err := relistOnce(ctx, prog, argv[prog], p, cfg.timeout)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(os.Stderr, "relist run %d/%d %s\n", i+1, cfg.relistRuns, s)
			out = append(out, s)
		}
	}
	return out, nil
}

// relistOnce is steps 1–4 above.
func relistOnce(ctx context.Context, prog string, argv []string, p *proxy, timeout time.Duration) (relistSample, error) {
	s := relistSample{prog: prog}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.Command(argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	lists := p.listsEnded()
	if err := cmd.Start(); err != nil {
		return s, err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}()
	fail := func(step string, err error) (relistSample, error) {
		return s, fmt.Errorf("%s: %s: %w\n%s", strings.Join(argv, " "), step, err, tail(stderr.String(), 10))
	}
	pid := cmd.Process.Pid
	if err := p.waitLists(ctx, exited, lists+1); err != nil {
		return fail("first list", err)
	}
	if err := waitIdle(ctx, exited, pid); err != nil {
		return fail("idle after the first list", err)
	}
	var err error
	if s.steady, err = procStatus(pid, "VmRSS"); err != nil {
		return fail("steady state", err)
	}
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		return fail("reset the peak", err)
	}
	cpu0, err := procCPU(pid)
	if err != nil {
		return fail("cpu", err)
	}
	expired := time.Now()
	p.expire()
	if err := p.waitLists(ctx, exited, lists+2); err != nil {
		return fail("relist", err)
	}
	s.took = time.Since(expired)
	if err := waitIdle(ctx, exited, pid); err != nil {
		return fail("idle after the relist", err)
	}
	if s.peak, err = procStatus(pid, "VmHWM"); err != nil {
		return fail("peak", err)
	}
	if s.end, err = procStatus(pid, "VmRSS"); err != nil {
		return fail("end", err)
	}
	cpu1, err := procCPU(pid)
	if err != nil {
		return fail("cpu", err)
	}
	s.cpu = cpu1 - cpu0
	return s, nil
}

// waitIdle returns once pid spent under 20 ms of CPU in the last second,
// looking every 100 ms.
func waitIdle(ctx context.Context, exited <-chan struct{}, pid int) error {
	const window = 10 // samples of 100 ms
	var last []time.Duration
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-exited:
			return errors.New("the program exited")
		case <-tick.C:
		}
		c, err := procCPU(pid)
		if err != nil {
			return err
		}
		last = append(last, c)
		if len(last) > window {
			last = last[1:]
			if last[window-1]-last[0] < 20*time.Millisecond {
				return nil
			}
		}
	}
}

// proxy is the reverse proxy in front of the API server.
type proxy struct {
	addr string
	srv  *http.Server

	mu      sync.Mutex
	ended   int                      // lists whose end passed through
	changed chan struct{}            // closed and replaced when ended grows
	expired bool                     // the next resuming watch gets 410
	watches map[*http.Request]func() // watches in flight, to end them
}

func startProxy(kc *kubeconfig.Config) (*proxy, error) {
	rt, err := kc.Transport()
	if err != nil {
		return nil, err
	}
	upstream, err := url.Parse(kc.Server)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &proxy{addr: l.Addr().String(), changed: make(chan struct{}), watches: map[*http.Request]func(){}}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(upstream)
			r.Out.Host = upstream.Host
		},
		Transport:      rt,
		FlushInterval:  -1, // watch streams pass through as they come
		ModifyResponse: p.spy,
	}
	p.srv = &http.Server{Handler: p.handler(rp)}
	go p.srv.Serve(l)
	return p, nil
}

func (p *proxy) close() { p.srv.Close() }

// handler answers a resuming watch with 410 after expire, and keeps a way to
// end every watch in flight.
func (p *proxy) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("watch") != "true" && q.Get("watch") != "1" {
			next.ServeHTTP(w, r)
			return
		}
		resuming := q.Get("sendInitialEvents") != "true" && q.Get("resourceVersion") != "" && q.Get("resourceVersion") != "0"
		p.mu.Lock()
		if resuming && p.expired {
			p.expired = false
			p.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusGone)
			fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: %s","reason":"Expired","code":410}`, q.Get("resourceVersion"))
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		r = r.WithContext(ctx)
		p.watches[r] = cancel
		p.mu.Unlock()
		defer func() {
			p.mu.Lock()
			delete(p.watches, r)
			p.mu.Unlock()
			cancel()
		}()
		next.ServeHTTP(w, r)
	})
}

// expire ends every watch in flight and arms the 410.
func (p *proxy) expire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expired = true
	for _, cancel := range p.watches {
		cancel()
	}
}

// spy wraps a list's body (a LIST, or a watch asking for initial events) so that
// the proxy knows when its end has gone through.
func (p *proxy) spy(resp *http.Response) error {
	q := resp.Request.URL.Query()
	var spy *endSpy
	switch {
	case resp.StatusCode != http.StatusOK:
		return nil
	case q.Get("sendInitialEvents") == "true":
		spy = &endSpy{mark: []byte("k8s.io/initial-events-end"), done: p.listEnded}
	case q.Get("watch") == "" && strings.HasSuffix(resp.Request.URL.Path, "/pods"):
		spy = &endSpy{page: true, done: p.listEnded}
	default:
		return nil
	}
	if resp.Header.Get("Content-Encoding") != "gzip" {
		spy.ReadCloser = resp.Body
		resp.Body = spy
		return nil
	}
	// The client asked for gzip and gets it; the spy reads a decompressed copy.
	pr, pw := io.Pipe()
	resp.Body = &teeBody{ReadCloser: resp.Body, copy: pw}
	go func() {
		if gz, err := gzip.NewReader(pr); err == nil {
			spy.ReadCloser = io.NopCloser(gz)
			io.Copy(io.Discard, spy)
		}
		io.Copy(io.Discard, pr) // whatever is left, so that the tee never blocks
	}()
	return nil
}

// teeBody writes what the client reads into copy, and closes it at the end.
type teeBody struct {
	io.ReadCloser
	copy *io.PipeWriter
}

func (t *teeBody) Read(b []byte) (int, error) {
	n, err := t.ReadCloser.Read(b)
	t.copy.Write(b[:n])
	if err != nil {
		t.copy.CloseWithError(err)
	}
	return n, err
}

func (t *teeBody) Close() error {
	t.copy.Close()
	return t.ReadCloser.Close()
}

func (p *proxy) listEnded() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended++
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *proxy) listsEnded() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ended
}

// waitLists returns once n lists have ended.
func (p *proxy) waitLists(ctx context.Context, exited <-chan struct{}, n int) error {
	for {
		p.mu.Lock()
		ended, changed := p.ended, p.changed
		p.mu.Unlock()
		if ended >= n {
			return nil
		}
		select {
		case <-changed:
		case <-exited:
			return errors.New("the program exited")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// endSpy calls done once: for a streaming list when mark has passed (it may span
// two reads), for a LIST page at EOF when the page has no continue token.
type endSpy struct {
	io.ReadCloser
	mark []byte
	page bool
	head []byte // a LIST page's first bytes, where its metadata is
	tail []byte // the last len(mark)-1 bytes read, for a mark across reads
	said bool
	done func()
}

func (e *endSpy) Read(b []byte) (int, error) {
	n, err := e.ReadCloser.Read(b)
	if e.said {
		return n, err
	}
	if e.page {
		if len(e.head) < 4096 {
			e.head = append(e.head, b[:min(n, 4096-len(e.head))]...)
		}
		if err == io.EOF && !bytes.Contains(e.head, []byte(`"continue":"`)) || err == io.EOF && bytes.Contains(e.head, []byte(`"continue":""`)) {
			e.said = true
			e.done()
		}
		return n, err
	}
	buf := append(e.tail, b[:n]...)
	if bytes.Contains(buf, e.mark) {
		e.said = true
		e.done()
	}
	if keep := len(e.mark) - 1; len(buf) > keep {
		buf = buf[len(buf)-keep:]
	}
	e.tail = append(e.tail[:0], buf...)
	return n, err
}
