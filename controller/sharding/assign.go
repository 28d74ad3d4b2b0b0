package sharding

import (
	"math"
	"math/bits"
	"slices"
)

// Assign splits the hash space among members: sorted by identity, the i-th of
// n gets the i-th of n equal, contiguous ranges. Every replica that sees the
// same member list computes the same assignment, with nothing to agree on but
// the list; duplicates in members count once.
//
// Equal contiguous ranges keep the load even (each replica within a fraction
// of a percent of 1/n of the objects, for objects' UIDs hash evenly) and give
// each replica one range, one shardRange term on the wire. The price is what a
// change of membership moves: ranges shift along the ring, and a join or leave
// moves up to half the hash space between replicas (consistent hashing would
// move 1/n; doc.go says when that starts to matter).
func Assign(members []string) map[string]Set {
	ids := slices.Clone(members)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := make(map[string]Set, len(ids))
	n := uint64(len(ids))
	for i, id := range ids {
		out[id] = Set{{First: boundary(uint64(i), n), Last: boundary(uint64(i)+1, n) - 1}}
	}
	if n > 0 {
		out[ids[n-1]][0].Last = math.MaxUint64 // boundary(n, n) is 2^64, which wraps
	}
	return out
}

// boundary is i·2^64/n rounded down, for i < n: where the i-th range starts.
func boundary(i, n uint64) uint64 {
	if i >= n {
		return 0 // 2^64 wrapped; Assign sets the last range's end itself
	}
	q, _ := bits.Div64(i, 0, n) // (i·2^64 + 0) / n, which fits since i < n
	return q
}
