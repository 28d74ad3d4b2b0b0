package listwatch

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"sync/atomic"

	"github.com/kubewire/kubewire/apiclient"
)

// A split list reads one large list as several requests at once, all at one
// resourceVersion, so that the server encodes them on several cores and the
// client decodes them on several: the parts together are exactly the list at
// that version, and the watch starts from it as after any list.
//
//	probe    LIST ?limit=1
//	         → the latest resourceVersion X and how many objects there are
//	         (once per Reflector, LIST ?limit=1&shardSelector=the whole hash
//	         space: whether the server serves shardSelector, which it says by
//	         echoing it in shardInfo; it cannot count objects then)
//	parts    LIST ?resourceVersion=X&resourceVersionMatch=Exact, one per hash
//	         range of the objects' UIDs (shardSelector), or, in all namespaces
//	         of a server without it, one per namespace that exists at X
//	Replace  every part's objects, at X
//
// resourceVersionMatch=Exact asks for the state at X and nothing else, so parts
// read at different moments still add up to one snapshot: a change after X is
// in none of them and reaches the Sink through the watch from X. A pod cannot
// exist in a namespace that does not (the namespace lifecycle admits none, and
// a namespace goes only once empty), so the namespaces at X hold every pod at X.
// A server older than 1.34 answers Exact from etcd, not from its watch cache's
// snapshots, which costs it more than the one LIST: the split is for servers
// that serve snapshots, and clients with cores to decode on (Options.Split).
//
// The parts must add up to the probe's count, exactly: both are the list at X.
// A server that ignored a part's selector would send the whole list in every
// part; the count catches that, and the list is read whole instead. (v1.37.2
// filters a PartialObjectMetadata list by shardSelector without echoing it in
// shardInfo, so a metadata-only Reflector splits by namespace there, or not at
// all: a split by hash is only for a server that says it serves one.)

// split is what the probe found: how to cut the list.
type split struct {
	rv    string
	count int64  // objects in the list at rv, as the probe counted them
	by    string // "uid hash" or "namespace"
	parts []part
}

// part is one request of a split list.
type part struct {
	rc   apiclient.ResourceClient
	opts apiclient.ListOptions
}

// Splitting below minPerPart objects a part costs more in requests than it
// saves (a variable so that a test on a real server can split forty pods); a
// split by namespace sends one request for each, up to maxNamespaces.
var minPerPart int64 = 2000

const maxNamespaces = 1000

var errTooManyNamespaces = errors.New("more namespaces than a split takes")

// splitWays is how many parts a list may be split into: Options.Split, or by
// default the cores this process runs on, up to 8, where the server serves
// lists at an exact resourceVersion from its watch cache (1.34 and later). One
// or fewer: never.
func (r *Reflector) splitWays(ctx context.Context) int {
	switch {
	case r.unsplittable:
		return 1
	case r.opts.Split != 0:
		return r.opts.Split
	}
	if r.opts.ServerVersion == nil || runtime.GOMAXPROCS(0) < 4 {
		return 1
	}
	v, err := r.opts.ServerVersion(ctx)
	if err != nil || !v.AtLeast(1, 34) {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), 8)
}

// planSplit probes the list and says how to split it, or nil to list it
// whole: a small list, a list already narrowed to a hash range, a server that
// can cut it neither by hash nor (in all namespaces) by namespace. A server
// that cannot is not asked again.
func (r *Reflector) planSplit(ctx context.Context) *split {
	ways := r.splitWays(ctx)
	if ways < 2 || r.opts.ShardSelector != "" {
		return nil
	}
	probe := r.listOptions()
	probe.Limit = 1
	meta, err := r.rc.ListEach(ctx, probe, r.opts.Decode, func(*apiclient.Object) error { return nil })
	if err != nil || meta.RemainingItemCount == nil {
		return nil // the LIST after says what failed; a count unknown (a label selector) is no reason to split
	}
	ways = min(ways, int((*meta.RemainingItemCount+1)/minPerPart))
	if ways < 2 {
		return nil
	}
	s := &split{rv: meta.ResourceVersion, count: *meta.RemainingItemCount + 1}
	exact := r.listOptions()
	exact.ResourceVersion, exact.ResourceVersionMatch = s.rv, "Exact"
	switch {
	case r.servesShards(ctx):
		s.by = "uid hash"
		for i := range ways {
			o := exact
			o.ShardSelector = hashRange(i, ways)
			s.parts = append(s.parts, part{r.rc, o})
		}
	case r.rc.AllNamespaces():
		s.by = "namespace"
		var names []string
		nsOpts := apiclient.ListOptions{ResourceVersion: s.rv, ResourceVersionMatch: "Exact"}
		namespaces := r.rc.Client().Resource(apiclient.Namespaces).MetadataOnly()
		_, err := namespaces.ListEach(ctx, nsOpts, apiclient.DecodeOptions{}, func(o *apiclient.Object) error {
			if names = append(names, o.Metadata.Name); len(names) > maxNamespaces {
				return errTooManyNamespaces // no need to read the rest
			}
			return nil
		})
		if err != nil && !errors.Is(err, errTooManyNamespaces) || len(names) < 2 || len(names) > maxNamespaces {
			r.unsplittable = err == nil || errors.Is(err, errTooManyNamespaces) // namespaces refused (403) may be a passing thing; too few or many is not
			return nil
		}
		for _, ns := range names {
			s.parts = append(s.parts, part{r.rc.Namespace(ns), exact})
		}
	default:
		r.unsplittable = true
		return nil
	}
	return s
}

// servesShards reports whether the server filters lists by shardSelector
// (KEP-5866): it asks once, with a list of one object.
func (r *Reflector) servesShards(ctx context.Context) bool {
	if r.shards == 0 {
		probe := r.listOptions()
		probe.Limit, probe.ShardSelector = 1, hashRange(0, 1)
		meta, err := r.rc.ListEach(ctx, probe, r.opts.Decode, func(*apiclient.Object) error { return nil })
		if err != nil {
			return false // ask again next time
		}
		r.shards = map[bool]int8{true: 1, false: -1}[meta.ShardInfo != nil]
	}
	return r.shards > 0
}

// listSplit reads the parts, ways at a time, and returns their objects in the
// order of the parts. Each part is read and decoded on a goroutine of its own;
// what the Sink and OnStep are told — Held, ITEM — is told here, on the Run
// goroutine, part after part as they complete. The first failure cancels the
// parts still to come and is returned.
func (r *Reflector) listSplit(ctx context.Context, s *split, ways int) ([]*apiclient.Object, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		i     int
		items []*apiclient.Object
		err   error
	}
	results := make(chan result, len(s.parts))
	whole, guards := s.guards(r.rc)
	decode := r.opts.Decode
	if p, ok := r.sink.(Packer); ok && decode.Pack == nil {
		decode.Pack = p.Pack // on the parts' goroutines: a Packer is safe for concurrent use
	}
	var next, total atomic.Int64
	for range min(ways, len(s.parts)) { // owned here: each sends one result per part it takes, and returns
		go func() {
			for i := int(next.Add(1) - 1); i < len(s.parts); i = int(next.Add(1) - 1) {
				res := result{i: i, err: ctx.Err()}
				if res.err == nil {
					p := s.parts[i]
					_, res.err = p.rc.ListPage(ctx, guards[i], p.opts, decode, func(o *apiclient.Object) error {
						if total.Add(1) > s.count {
							return &splitMismatch{fmt.Sprintf("the parts hold more than the %d objects of the list at %s", s.count, s.rv)}
						}
						res.items = append(res.items, o)
						return nil
					})
				}
				results <- res
			}
		}()
	}
	var items []*apiclient.Object
	var err error
	done := make([]*result, len(s.parts))
	for inOrder, got := 0, 0; got < len(s.parts); got++ {
		res := <-results
		if err == nil && res.err != nil {
			err = res.err
			cancel()
		}
		done[res.i] = &res
		for ; err == nil && inOrder < len(done) && done[inOrder] != nil; inOrder++ {
			for _, o := range done[inOrder].items {
				items = append(items, r.held(o))
				if r.tracing {
					r.step(Step{Op: OpItem, Key: o.Key(), ResourceVersion: o.Metadata.ResourceVersion})
				}
			}
			done[inOrder] = &result{} // its objects are in items now
		}
	}
	if err == nil {
		if err = whole.Over(); err != nil { // a part's last read may have passed the bound unseen
			err = fmt.Errorf("list %s: %w", whole.Resource, err)
		}
	}
	if err == nil && int64(len(items)) != s.count {
		err = &splitMismatch{fmt.Sprintf("the parts hold %d objects, the list at %s %d", len(items), s.rv, s.count)}
	}
	return items, err
}

// guards are the parts' PageGuards: parts of one guard of the whole list, so
// that the parts together are bound by the client's ListLimits as one list read
// whole would be — whatever the number of parts (by namespace, up to
// maxNamespaces), and whatever count the probe was told. The probe's count only
// ever stops a split sooner (listSplit's mismatch), never lets more in.
func (s *split) guards(rc apiclient.ResourceClient) (whole *apiclient.PageGuard, parts []*apiclient.PageGuard) {
	whole = rc.PageGuard()
	parts = make([]*apiclient.PageGuard, len(s.parts))
	for i := range parts {
		parts[i] = whole.Part()
	}
	return whole, parts
}

// splitMismatch is a split whose parts do not add up to the list: the server
// did not cut it as asked.
type splitMismatch struct{ msg string }

func (e *splitMismatch) Error() string { return e.msg }

// hashRange is the shardSelector of the i-th of n equal ranges of the 64-bit
// hash of the objects' UIDs (KEP-5866's shardRange, ends in 16 hex digits, the
// last range ending at 2^64 in 17).
func hashRange(i, n int) string {
	bound := func(k int) string {
		if k == n {
			return "0x10000000000000000"
		}
		hi, _ := bits.Div64(uint64(k), 0, uint64(n)) // k·2^64 / n
		return fmt.Sprintf("0x%016x", hi)
	}
	return fmt.Sprintf("shardRange(object.metadata.uid, '%s', '%s')", bound(i), bound(i+1))
}
