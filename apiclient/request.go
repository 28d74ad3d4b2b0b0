package apiclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
)

// request is one call, before it is sent. Every verb builds one and hands it to do.
type request struct {
	verb        string // GET, POST, PUT, PATCH, DELETE
	path        string // /api/v1/namespaces/default/pods
	query       url.Values
	body        []byte
	contentType string
	accept      string
	// watch requests skip the rate limiter (a watch is one long request, and
	// client-go does not count it either). Like any request, a watch answered 429
	// or 5xx with Retry-After is sent again by do; a watch that fails otherwise, or
	// ends after it started, is restarted by the Reflector (listwatch).
	watch bool
	// on is what the request is about, as the caller knew it before it built
	// path: the zero value for a path of no resource (discovery, /version).
	// RequestInfo carries it, so that nobody parses the URL back.
	on target
}

// target is the resource a request is about, and where: what the API server's
// authorizer is asked about the request (kube-apiserver's RequestInfo).
type target struct {
	res         Resource
	namespace   string // "" for a cluster-scoped resource, or all namespaces
	name        string // "" for a collection
	subresource string
}

// action is the verb the API server authorizes the request as: what an RBAC
// rule names. kube-apiserver maps them so (its RequestInfoFactory): a GET of
// one object is get, of a collection list, with watch=true watch; POST create,
// PUT update, PATCH (server-side apply included) patch, DELETE of one object
// delete, of a collection deletecollection. "" for a request to no resource.
func (r request) action() string {
	if r.on.res.Name == "" {
		return ""
	}
	one := r.on.name != ""
	switch r.verb {
	case "GET":
		switch {
		case r.watch:
			return "watch"
		case one:
			return "get"
		}
		return "list"
	case "POST":
		return "create"
	case "PUT":
		return "update"
	case "PATCH":
		return "patch"
	case "DELETE":
		if one {
			return "delete"
		}
		return "deletecollection"
	}
	return strings.ToLower(r.verb)
}

// info is what the Observer's Sent and Answered are told of r, sent to u on host.
func (r request) info(host, u string) RequestInfo {
	return RequestInfo{Verb: r.verb, URL: u, Host: host, Action: r.action(), Resource: r.on.res,
		Namespace: r.on.namespace, Name: r.on.name, Subresource: r.on.subresource}
}

// maxErrorBody bounds how much of a failed response is read: enough for any Status.
const maxErrorBody = 1 << 20

// do sends r and returns the response of a 2xx answer, whose body the caller must
// close. Everything else becomes an error:
//
//   - a transport failure: "GET https://host/api/v1/pods: dial tcp …: connection refused"
//     (IsUnreachable: no answer came);
//   - a non-2xx answer: a *StatusError carrying the server's Status (or, when the
//     body is not a Status, the code and a trimmed line of the body).
//
// 429 and 5xx answers that carry Retry-After are retried after the time the server
// asks for, at most maxRetries times; the body is a []byte, so every retry can
// resend it. The context bounds everything, waits included.
func (c *Client) do(ctx context.Context, r request) (*http.Response, error) {
	// r.path is escaped already (Resource.Path escapes names and namespaces): it
	// becomes RawPath as written, and Path its unescaped form, so that the URL
	// is not escaped a second time ("a/b" went out as a%252Fb, issue 16).
	u := *c.base
	u.RawPath = c.base.EscapedPath() + r.path
	p, err := url.PathUnescape(u.RawPath)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.verb, r.path, err)
	}
	u.Path = p
	u.RawQuery = r.query.Encode()
	where := u.Redacted()
	set := c.set.Load() // one request, one set of settings, even if Adopt comes in between
	for attempt := 0; ; attempt++ {
		if set.limiter != nil && !r.watch {
			if err := set.limiter.Wait(ctx); err != nil {
				return nil, fmt.Errorf("%s %s: %w", r.verb, where, err)
			}
		}
		resp, err := c.send(ctx, set, r, u.String())
		if err != nil {
			err = unwrapURLError(gaveUp(ctx, err))
			if ctx.Err() == nil && noAnswer(err) {
				err = &noAnswerError{err} // IsUnreachable
			}
			return nil, fmt.Errorf("%s %s: %w", r.verb, where, err)
		}
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			return resp, nil
		}
		wait, retry := retryAfter(resp)
		if retry && attempt < c.maxRetries {
			drain(resp.Body)
			if wait >= time.Second {
				set.log.Info("the server asked to retry later; waiting", "request", r.verb+" "+where, "code", resp.StatusCode, "wait", wait)
			}
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("%s %s: %w", r.verb, where, ctx.Err())
			case <-set.clock.After(wait):
			}
			continue
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		return nil, errorFromResponse(r.verb, where, resp.StatusCode, body)
	}
}

// send makes one HTTP request and reports it to the Observer: Sent as it goes,
// Answered once answered.
func (c *Client) send(ctx context.Context, set *settings, r request, u string) (*http.Response, error) {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.verb, u, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", c.userAgent)
	accept := r.accept
	if accept == "" {
		accept = "application/json"
	}
	req.Header.Set("Accept", accept)
	if r.body != nil {
		ct := r.contentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	if set.observer.Sent != nil {
		set.observer.Sent(ctx, r.info(c.base.Host, req.URL.Redacted()))
	}
	start := set.clock.Now()
	resp, err := c.http.Do(req)
	if resp != nil {
		for _, h := range resp.Header.Values("Warning") {
			set.onWarning(parseWarning(h))
		}
	}
	if set.observer.Answered != nil {
		code := 0
		if resp != nil {
			code = resp.StatusCode
		}
		info := r.info(c.base.Host, req.URL.Redacted())
		info.Code, info.Took = code, set.clock.Now().Sub(start)
		set.observer.Answered(ctx, info)
	}
	return resp, err
}

// retryAfter says whether a response asks to be retried, and after how long:
// 429 or 5xx with a Retry-After header in seconds.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
		return 0, false
	}
	h := resp.Header.Get("Retry-After")
	if h == "" {
		return 0, false
	}
	secs, err := strconv.Atoi(h)
	// More seconds than a Duration holds (292 years) is no real request; unchecked,
	// it overflowed into a negative wait, retried at once (found by FuzzRetryAfter).
	if err != nil || secs < 0 || int64(secs) > math.MaxInt64/int64(time.Second) {
		return 0, false
	}
	return min(time.Duration(secs)*time.Second, maxRetryAfter), true
}

// maxRetryAfter caps the wait a Retry-After asks for. An API server throttling
// with Priority and Fairness asks for a second or a few; a value of hours is a
// broken or hostile server (issue 16: Retry-After: 1000000 waited 11 days), and
// waiting a minute then asking again costs one request. client-go has no cap.
const maxRetryAfter = time.Minute

// drain reads what is left of a body so the connection can be reused.
func drain(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, maxErrorBody))
	body.Close()
}

// noAnswer reports whether a transport failure means that the server did not
// answer: the connection could not be made, or broke before a response came
// (refused, reset, closed, timed out). A failure on this side — credentials an
// exec plugin could not make, a certificate that does not verify, a TLS alert
// the server sent — is not: the server may be well, and asking it again soon
// would not help.
func noAnswer(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Op != "remote error"
	}
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) && ne.Timeout()
}

// unwrapURLError drops the *url.Error wrapper, whose message repeats the method
// and URL that do already puts in front.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// tokenBucket is client-side rate limiting: a bucket holds up to burst tokens and
// refills at qps tokens a second; each request takes one, waiting for it if the
// bucket is empty. It protects the API server from a controller in a hot loop.
// client-go uses the same shape (flowcontrol.NewTokenBucketRateLimiter, QPS 5,
// burst 10 by default). The arithmetic is the module's one token bucket,
// clock.Bucket (a clock set back refills nothing); this adds the lock and the wait.
//
// Safe for concurrent use. Waiters are served in the order they reserve, because
// each reserves its token (possibly going into debt) before waiting.
type tokenBucket struct {
	clock Clock

	mu     sync.Mutex
	bucket clock.Bucket
}

func newTokenBucket(qps float64, burst int, c Clock) *tokenBucket {
	return &tokenBucket{clock: c, bucket: clock.NewBucket(qps, burst, c.Now())}
}

// Wait takes one token, blocking until it is available or ctx is done. A wait that
// is cancelled still consumes its reservation; that only makes the next caller
// slightly more patient, never the server busier.
func (b *tokenBucket) Wait(ctx context.Context) error {
	d := b.reserve()
	if d <= 0 {
		return ctx.Err()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-b.clock.After(d):
		return nil
	}
}

// reserve takes a token now and says how long until it is really there.
func (b *tokenBucket) reserve() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, _ := b.bucket.Reserve(b.clock.Now(), -1)
	return d
}

// gaveUp returns ctx's error once ctx is done, and err otherwise. When the caller
// has given up, what the transport or a body read saw after that — a broken
// connection, an unexpected EOF — is its consequence, not a failure of the server:
// reporting the cause lets errors.Is(err, context.Canceled) tell a stop from a
// failure. Every read of a response goes through it: do, and the verbs that read a
// body after do returned (call, listEach).
func gaveUp(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// maxDocument bounds a response that is read whole rather than streamed — a
// discovery document, a page of a Table, /version — counted after
// decompression, so that a small gzip body that inflates to gigabytes stops
// here too. The largest real discovery documents are a few MiB. (One object, as
// a GET or a write answers, is bounded like a watch event: maxEvent.)
const maxDocument = 64 << 20

// limitBody reads body up to limit bytes, then fails rather than reading on. It is
// the one byte bound of the package: a document here, every page of a list
// through PageGuard.Body.
func limitBody(body io.Reader, limit int64) io.Reader {
	read := int64(0)
	return &limitedBody{r: body,
		left: func() int64 { return limit - read },
		read: func(n int64) { read += n },
		over: func() error { return fmt.Errorf("the response is over %d MiB (decompressed): refused", limit>>20) },
	}
}

// limitedBody reads r while left says there are bytes left, and tells read of
// each read; once none are left, only the end of r may follow, and anything
// more is the error over makes. (left and read are a count of this body's own,
// or of a whole list's: PageGuard.Body.)
type limitedBody struct {
	r    io.Reader
	left func() int64
	read func(n int64)
	over func() error
}

func (l *limitedBody) Read(p []byte) (int, error) {
	left := l.left()
	if left <= 0 {
		var probe [1]byte
		if n, err := l.r.Read(probe[:]); n == 0 && err != nil {
			return 0, err
		}
		return 0, l.over()
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := l.r.Read(p)
	l.read(int64(n))
	if l.left() < 0 { // another body sharing the count read meanwhile: the read that passes the bound fails
		return n, l.over()
	}
	return n, err
}
