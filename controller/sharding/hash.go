package sharding

import (
	"github.com/kubewire/kubewire/apiclient"
)

// Key says what an object is sharded by. The API server's shardSelector
// accepts these two fields, and hashes them the same way Hash does.
type Key string

const (
	// ByUID spreads objects evenly whatever their namespace: the default.
	ByUID Key = "object.metadata.uid"
	// ByNamespace keeps a namespace's objects on one replica, for a controller
	// that reads or writes across a namespace in one reconcile.
	ByNamespace Key = "object.metadata.namespace"
)

// Of is the value of obj that k hashes: its UID or its namespace.
func (k Key) Of(obj *apiclient.Object) string {
	if k == ByNamespace {
		return obj.Metadata.Namespace
	}
	return obj.Metadata.UID
}

// Hash is the 64-bit FNV-1a hash of value's bytes, the hash KEP-5866 has the
// API server compute for shardRange: a replica filtering on its own side and a
// server filtering for it put every object in the same range.
//
// It is FNV-1a written out, as hash/fnv's New64a computes it but without its
// allocation: a replica filtering on its own side hashes every object of every
// list and event, and the gate hashes one per reconcile.
func Hash(value string) uint64 {
	const (
		offset64 = 14695981039346656037 // FNV's 64-bit offset basis
		prime64  = 1099511628211        // FNV's 64-bit prime
	)
	h := uint64(offset64)
	for i := 0; i < len(value); i++ {
		h ^= uint64(value[i]) // FNV-1a: xor the byte in, then multiply
		h *= prime64
	}
	return h
}
