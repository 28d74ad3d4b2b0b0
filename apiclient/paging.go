package apiclient

import (
	"context"
	"fmt"
	"hash/maphash"
	"io"
	"sync/atomic"
)

// ListLimits bound what one list may bring in, whatever the server sends: its
// objects and its bytes, all pages together (a LIST in pages, one unpaged LIST,
// the pages of a Table, a streaming list's initial events). A server that makes up
// a new continue token for every page, or sends a small gzip page that inflates
// to gigabytes, would otherwise fill memory with a list that never ends (issues
// 16 and 29). Give them in Options; the zero value of each field is its default.
//
// The defaults are far above any real list, and they bound what a hostile
// server can cost: one list's worth of memory, once, where it was gigabytes and
// counting (figures: `kubewire sync` against listwatch/internal/hostile, peak RSS,
// 2 cores, 2026-11-25).
//
//	Bytes    1 GiB, counted after decompression. The largest clusters Kubernetes
//	         supports hold 150,000 pods; at the 5.2 KB of the recorded pod in
//	         testdata (managedFields included) that is 780 MB, 73% of the bound;
//	         pods of up to 7 KB on average fit. A server that never ended its
//	         list of such pods was stopped after 207,257 of them at 738 MB
//	         (managedFields are dropped: 0.7 byte of memory a byte read). Objects
//	         with nothing to drop cost more, 1.35 bytes a byte: 500,842 pods of
//	         2.1 KB held 1.44 GB, the most these defaults allow.
//	Objects  500,000: 150,000 pods three times over. It is the bound for small
//	         objects, whose memory is mostly per object: 500,000 pods of 1 KB
//	         held 868 MB, and a gzip page of 1.2 MB that inflates to two
//	         million 150-byte pods stops at 500,000 (a million held 776 MB).
//
// A bound that kept every hostile list under 300 MB would refuse a real
// cluster: 150,000 real pods need about 540 MB themselves.
//
// A list that needs more — a cluster past Kubernetes' limits, or pods of 10 KB
// on average at its limits — says so in its error; raise the limits here, or with
// the command's --max-list-mib and --max-list-objects.
//
// Each page is bounded by what its list has left, not by a bound of its own: a
// server may answer a paged request with the whole list in one page
// (kube-apiserver before 1.33 does so for resourceVersion=0 from its watch
// cache), so a real page can be as large as a real list.
type ListLimits struct {
	// Bytes bounds a list's bytes after decompression; 0 means DefaultListBytes.
	Bytes int64
	// Objects bounds a list's objects; 0 means DefaultListObjects.
	Objects int
}

const (
	DefaultListBytes   = 1 << 30
	DefaultListObjects = 500_000
	// MaxPages bounds the pages of one list: 100,000 pages is 50 million objects
	// at the default page size of 500. It stops a server that sends pages with
	// nothing in them, which the other bounds would take long to notice.
	MaxPages = 100_000
)

func (l ListLimits) withDefaults() ListLimits {
	if l.Bytes <= 0 {
		l.Bytes = DefaultListBytes
	}
	if l.Objects <= 0 {
		l.Objects = DefaultListObjects
	}
	return l
}

// ErrListLimit is wrapped by every error of a list that a PageGuard stopped: over
// its ListLimits, past MaxPages, or a continue token that came before. No real
// server sends such a list, and the same request would be stopped the same way:
// errors.Is(err, ErrListLimit) tells a caller that trying again will not help.
var ErrListLimit error = listLimitError("the list is refused")

type listLimitError string

func (e listLimitError) Error() string        { return string(e) }
func (e listLimitError) Is(target error) bool { return target == ErrListLimit }

// PageGuard follows one list and refuses what no real server sends: more
// objects or bytes than its Limits, more than MaxPages pages, and a continue
// token already seen in this list, in any position (the same token twice in a
// row, or A, B, A, B). ResourceClient.PageGuard makes one with the client's
// ListLimits; the zero value has the defaults. One list, one goroutine — except
// for the guards Part hands out, each of which may be used on a goroutine of its
// own while the others are.
//
// Its memory is 8 bytes and a map entry per page: it keeps a hash of each token
// (hash/maphash, with a seed of its own, so that a server cannot choose tokens
// that collide), never the token.
type PageGuard struct {
	Resource Resource // what is listed, for the errors of whoever wraps the guard's
	Limits   ListLimits

	// spent is what the whole list has read, this guard and its parts together;
	// own is this guard's share of it, which Restart gives back.
	spent *listSpent
	own   struct {
		items int
		bytes int64
	}
	pages int
	seen  map[uint64]int // hash of a continue token → the page that sent it
	seed  maphash.Seed
}

// listSpent is what one list has read, counted by every guard that reads a
// part of it at once.
type listSpent struct{ items, bytes atomic.Int64 }

// PageGuard returns a guard for one list of this resource, with the client's
// ListLimits.
func (r ResourceClient) PageGuard() *PageGuard {
	return &PageGuard{Resource: r.res, Limits: r.c.listLimits}
}

// Part returns a guard for a part of the list g follows that is read as a
// request of its own, at the same time as other parts (a split list: one LIST per
// hash range or per namespace, all at one resourceVersion). Its objects and bytes
// count against g's Limits together with g's own and every other part's — the
// parts of one list share one bound, never one bound each; its pages and continue
// tokens are its own. Call Part on g's goroutine, before the parts start; each
// part may then be used on a goroutine of its own.
//
// Parts read at once are stopped at the bytes bound together: a read is cut to
// what is left before it, and a read that others meanwhile carried past the
// bound fails. A part whose last read was the one to pass it may not see that
// failure (its decoder had what it needed), so whoever read the parts asks the
// whole list's guard at the end (Over).
func (g *PageGuard) Part() *PageGuard {
	return &PageGuard{Resource: g.Resource, Limits: g.Limits, spent: g.list()}
}

// Over returns the error of a list over its bounds — its parts' bytes and
// objects together — and nil for one within them: the last word on a list
// read in parts at once.
func (g *PageGuard) Over() error {
	spent := g.list()
	if n := spent.bytes.Load(); n > g.Limits.withDefaults().Bytes {
		return g.overBytes()
	}
	if max := g.Limits.withDefaults().Objects; spent.items.Load() > int64(max) {
		return listLimitError(fmt.Sprintf("more than %d objects in one list: refused (ListLimits.Objects, --max-list-objects)", max))
	}
	return nil
}

// list is what the whole list has read, made on first use (the zero PageGuard).
func (g *PageGuard) list() *listSpent {
	if g.spent == nil {
		g.spent = &listSpent{}
	}
	return g.spent
}

// Items is told of n more objects read; it returns an error past Limits.Objects.
// Call it per object where a page streams, so that one endless page is stopped too.
func (g *PageGuard) Items(n int) error {
	max := g.Limits.withDefaults().Objects
	g.own.items += n
	if g.list().items.Add(int64(n)) > int64(max) {
		return listLimitError(fmt.Sprintf("more than %d objects in one list: refused (ListLimits.Objects, --max-list-objects)", max))
	}
	return nil
}

// Body returns body bounded by the bytes the list has left: reading past them
// is an error that says the list is over Limits.Bytes. What is read counts
// against the list. Use it for every page of the list, one after the other.
func (g *PageGuard) Body(body io.Reader) io.Reader {
	spent := g.list()
	return &limitedBody{r: body, over: g.overBytes,
		left: func() int64 { return g.Limits.withDefaults().Bytes - spent.bytes.Load() },
		read: func(n int64) { g.own.bytes += n; spent.bytes.Add(n) },
	}
}

// Bytes is told of n more bytes read outside Body (a streaming list's events);
// it returns an error past Limits.Bytes.
func (g *PageGuard) Bytes(n int64) error {
	g.own.bytes += n
	if g.list().bytes.Add(n) > g.Limits.withDefaults().Bytes {
		return g.overBytes()
	}
	return nil
}

func (g *PageGuard) overBytes() error {
	return listLimitError(fmt.Sprintf("the list is over %s (decompressed) after %d objects: refused (ListLimits.Bytes, --max-list-mib)", size(g.Limits.withDefaults().Bytes), g.list().items.Load()))
}

// size writes n in MiB, or in bytes when under one.
func size(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// Page is told of each page read and its continue token ("" on the last). It
// returns an error when the list must stop, for the caller to wrap with what
// was listed.
func (g *PageGuard) Page(next string) error {
	g.pages++
	if next == "" {
		return nil
	}
	if g.pages >= MaxPages {
		return listLimitError(fmt.Sprintf("more than %d pages: the server does not end the list", MaxPages))
	}
	if g.seen == nil {
		g.seen, g.seed = map[uint64]int{}, maphash.MakeSeed()
	}
	h := maphash.String(g.seed, next)
	if p, ok := g.seen[h]; ok {
		return listLimitError(fmt.Sprintf("page %d has the continue token of page %d: the list would never end", g.pages, p))
	}
	g.seen[h] = g.pages
	return nil
}

// Restart forgets the objects and bytes this guard read so far: the list starts
// over (after an expired continue token), and the objects are dropped. The pages
// and the tokens seen still count: a server that makes a list start over again
// and again is still stopped. What other parts of the list read still counts.
func (g *PageGuard) Restart() {
	spent := g.list()
	spent.items.Add(-int64(g.own.items))
	spent.bytes.Add(-g.own.bytes)
	g.own.items, g.own.bytes = 0, 0
}

// Pages is the one paging loop of the module: every list read in pages goes
// through it — listwatch's Pager (a Reflector's LIST, ListAll, `kubewire get -o
// json`) and Table (`kubewire get`'s default output). It asks for the first page
// with opts, follows each continue token to the last page, and reads every page
// through one PageGuard: the list's bounds, its pages, and no token twice.
// page reads the n-th page (1 for the first) with the options given, counting
// what it reads against g, and returns the page's ListMeta.
//
// The pages of one list are one snapshot, at the first page's resourceVersion:
// the server encodes that version in the continue token, and a continuation
// request carries no resourceVersion of its own (the API refuses one next to a
// token). A token lives as long as etcd keeps that version; once compaction has
// removed it, the next page is a 410 Gone, and nothing can finish the snapshot.
// Pages then tells restart (so that whoever kept the objects read so far drops
// them) and starts over once, with one request of everything at the first
// page's options without a limit, as client-go's pager (tools/pager) does; a
// second expired token is returned as it is.
//
// It returns the snapshot's resourceVersion. Cost: one request per page, plus the
// failed page and one unpaged request after an expired token.
func (r ResourceClient) Pages(ctx context.Context, opts ListOptions, restart func(error), page func(g *PageGuard, opts ListOptions, n int) (ListMeta, error)) (string, error) {
	first, rv := opts, ""
	g := r.PageGuard()
	restarted := false
	for n := 1; ; n++ {
		meta, err := page(g, opts, n)
		if IsGone(err) && opts.Continue != "" && !restarted {
			if restart != nil {
				restart(err)
			}
			g.Restart()
			opts, rv, n, restarted = first, "", 0, true
			opts.Limit = 0
			continue
		}
		if err != nil {
			return "", err
		}
		if rv == "" {
			rv = meta.ResourceVersion
		}
		if meta.Continue == "" {
			return rv, nil
		}
		opts.Continue, opts.ResourceVersion, opts.ResourceVersionMatch = meta.Continue, "", ""
	}
}
