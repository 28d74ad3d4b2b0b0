package sharding

import (
	"testing"

	"github.com/kubewire/kubewire/listwatch"
)

// bookmarks is a sink that keeps the bookmarks it is given.
type bookmarks struct {
	listwatch.Sink
	got []string
}

func (b *bookmarks) Bookmark(rv string) error { b.got = append(b.got, rv); return nil }

// A sharded informer's sink passes the watch's bookmarks on: without them the
// store's resourceVersion, and its gauge, stood still on a quiet sharded
// resource, though the informer's doc says bookmarks move it.
func TestShardSink_passes_bookmarks_on(t *testing.T) {
	inner := &bookmarks{}
	var sink listwatch.Sink = &shardSink{inner: inner, filter: Set{{First: 0, Last: 10}}}
	b, ok := sink.(listwatch.Bookmarker)
	if !ok {
		t.Fatal("a shard's sink is no listwatch.Bookmarker: the Reflector drops every bookmark")
	}
	if err := b.Bookmark("42"); err != nil || len(inner.got) != 1 || inner.got[0] != "42" {
		t.Fatalf("Bookmark(42): %v, the informer got %v", err, inner.got)
	}
}
