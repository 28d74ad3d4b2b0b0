package sharding

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Range is the hashes First to Last, both included. Inclusive ends let one
// Range cover the whole space (0 to MaxUint64), which a half-open uint64 pair
// cannot; on the wire it becomes the half-open [First, Last+1) the API server
// reads.
type Range struct{ First, Last uint64 }

// Full is every hash: a replica that is the only member owns it.
var Full = Range{0, math.MaxUint64}

// Contains reports whether h is in r.
func (r Range) Contains(h uint64) bool { return r.First <= h && h <= r.Last }

// String is how a Range is written in a member's Lease and on /readyz:
// "0000000000000000-7fffffffffffffff", both ends included.
func (r Range) String() string { return fmt.Sprintf("%016x-%016x", r.First, r.Last) }

// selector is r as one shardRange term of a shardSelector: start and end as
// 16 hex digits, the end excluded, so the top of the space ends at 2^64,
// written with 17 digits as the server expects.
func (r Range) selector(k Key) string {
	end := fmt.Sprintf("0x%016x", r.Last+1)
	if r.Last == math.MaxUint64 {
		end = "0x10000000000000000"
	}
	return fmt.Sprintf("shardRange(%s, '0x%016x', '%s')", k, r.First, end)
}

// Set is a set of hashes as ranges, sorted, apart and not touching (Normalize
// makes any list so). The zero value is the empty set.
type Set []Range

// Contains reports whether h is in s.
func (s Set) Contains(h uint64) bool {
	for _, r := range s {
		if r.Contains(h) {
			return true
		}
	}
	return false
}

// Empty reports whether s has no hashes.
func (s Set) Empty() bool { return len(s) == 0 }

// Equal reports whether s and t are the same set (both normalized).
func (s Set) Equal(t Set) bool { return slices.Equal(s, t) }

// Intersect is the hashes in both s and t.
func (s Set) Intersect(t Set) Set {
	var out Set
	for _, a := range s {
		for _, b := range t {
			first, last := max(a.First, b.First), min(a.Last, b.Last)
			if first <= last {
				out = append(out, Range{first, last})
			}
		}
	}
	return Normalize(out)
}

// Overlaps reports whether s and t share a hash.
func (s Set) Overlaps(t Set) bool { return !s.Intersect(t).Empty() }

// Minus is the hashes of s that are not in t.
func (s Set) Minus(t Set) Set {
	out := append(Set(nil), s...)
	for _, b := range t {
		var next Set
		for _, a := range out {
			if b.Last < a.First || b.First > a.Last {
				next = append(next, a)
				continue
			}
			if a.First < b.First {
				next = append(next, Range{a.First, b.First - 1})
			}
			if a.Last > b.Last {
				next = append(next, Range{b.Last + 1, a.Last})
			}
		}
		out = next
	}
	return Normalize(out)
}

// Union is the hashes in s or t.
func (s Set) Union(t Set) Set { return Normalize(append(append(Set(nil), s...), t...)) }

// Normalize sorts rs and merges ranges that overlap or touch.
func Normalize(rs []Range) Set {
	if len(rs) == 0 {
		return nil
	}
	// sort.Slice, not slices.SortedFunc: each struct type given to the generic sort
	// compiles a pdqsort of its own into the binary (issue 42); both sort alike.
	sorted := slices.Clone(rs)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].First < sorted[j].First })
	out := Set{sorted[0]}
	for _, r := range sorted[1:] {
		last := &out[len(out)-1]
		if last.Last == math.MaxUint64 || r.First <= last.Last+1 {
			last.Last = max(last.Last, r.Last)
			continue
		}
		out = append(out, r)
	}
	return out
}

// Size is the fraction of the hash space s covers, 0 to 1.
func (s Set) Size() float64 {
	var f float64
	for _, r := range s {
		f += (float64(r.Last-r.First) + 1) / (math.MaxUint64 + 1.0)
	}
	return f
}

// String writes s as its ranges joined by commas ("" for the empty set); Parse
// reads it back.
func (s Set) String() string {
	parts := make([]string, len(s))
	for i, r := range s {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// Selector is s as the shardSelector a list or watch sends: its ranges' terms
// joined by ||. The empty set has no selector; callers do not list it.
func (s Set) Selector(k Key) string {
	parts := make([]string, len(s))
	for i, r := range s {
		parts[i] = r.selector(k)
	}
	return strings.Join(parts, " || ")
}

// maxRanges bounds what Parse accepts: a Set read from another replica's Lease
// is input, and one of a million ranges would cost every reader a million
// comparisons a round.
const maxRanges = 1024

// Parse reads what String writes: "" or ranges "first-last" of 16 hex digits
// each, first ≤ last, joined by commas. It is how a replica reads the ranges
// another claims in its Lease, where anything may have been written, so it
// names what is wrong instead of guessing.
func Parse(text string) (Set, error) {
	if text == "" {
		return nil, nil
	}
	if n := strings.Count(text, ",") + 1; n > maxRanges { // before Split allocates them
		return nil, fmt.Errorf("shard ranges: %d ranges, more than %d", n, maxRanges)
	}
	parts := strings.Split(text, ",")
	rs := make([]Range, 0, len(parts))
	for _, p := range parts {
		first, last, ok := strings.Cut(p, "-")
		if !ok || len(first) != 16 || len(last) != 16 {
			return nil, fmt.Errorf("shard ranges: %.60q is not first-last in 16 hex digits each", p)
		}
		f, err1 := strconv.ParseUint(first, 16, 64)
		l, err2 := strconv.ParseUint(last, 16, 64)
		if err1 != nil || err2 != nil || f > l {
			return nil, fmt.Errorf("shard ranges: %.60q is not first-last in 16 hex digits each, first not after last", p)
		}
		rs = append(rs, Range{f, l})
	}
	return Normalize(rs), nil
}
