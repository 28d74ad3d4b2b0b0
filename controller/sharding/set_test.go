package sharding_test

import (
	"hash/fnv"
	"math"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/controller/sharding"
)

// The hash is the API server's: these UIDs were listed from kube-apiserver
// v1.37.2 (ShardedListAndWatch on) with shardRange(object.metadata.uid,
// '0x0000000000000000', '0x8000000000000000'); the first two came back, the
// last two did not.
// serverHalves: UID → whether the server put it in the first half.
var serverHalves = map[string]bool{
	"e74b717a-3729-43ff-891b-a8b2b8a2f9bf": true,
	"48422d0f-c6c5-4ea2-9065-88e5fda2e74e": true,
	"bd493f81-5713-4020-9a1b-95cb17fba530": false,
	"76305aad-b50e-4afc-9611-3ed95b0da034": false,
}

func TestHash_puts_objects_where_the_API_server_does(t *testing.T) {
	for uid, firstHalf := range serverHalves {
		if got := sharding.Hash(uid) < 1<<63; got != firstHalf {
			t.Errorf("Hash(%s) in the first half = %v, the server says %v", uid, got, firstHalf)
		}
	}
}

func TestHash_is_hash_fnv_New64a(t *testing.T) {
	for _, v := range []string{"", "a", "e74b717a-3729-43ff-891b-a8b2b8a2f9bf", "kube-system"} {
		h := fnv.New64a()
		h.Write([]byte(v))
		if got, want := sharding.Hash(v), h.Sum64(); got != want {
			t.Errorf("Hash(%q) = %016x, hash/fnv says %016x", v, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { sharding.Hash("e74b717a-3729-43ff-891b-a8b2b8a2f9bf") }); n != 0 {
		t.Errorf("Hash allocates %v times a call", n)
	}
}

func TestAssign_splits_the_space_evenly_and_the_same_for_every_order(t *testing.T) {
	a := sharding.Assign([]string{"r3", "r1", "r2"})
	b := sharding.Assign([]string{"r2", "r3", "r1", "r2"})
	var all sharding.Set
	for _, id := range []string{"r1", "r2", "r3"} {
		if !a[id].Equal(b[id]) {
			t.Errorf("%s: %v in one order, %v in another", id, a[id], b[id])
		}
		if got := a[id].Size(); math.Abs(got-1.0/3) > 1e-9 {
			t.Errorf("%s has %v of the space, want 1/3", id, got)
		}
		if all.Overlaps(a[id]) {
			t.Errorf("%s overlaps another member: %v", id, a[id])
		}
		all = all.Union(a[id])
	}
	if !all.Equal(sharding.Set{sharding.Full}) {
		t.Errorf("the members cover %v, not the whole space", all)
	}
	if one := sharding.Assign([]string{"solo"})["solo"]; !one.Equal(sharding.Set{sharding.Full}) {
		t.Errorf("a lone member gets %v, want everything", one)
	}
}

func TestSet_algebra(t *testing.T) {
	r := func(f, l uint64) sharding.Range { return sharding.Range{First: f, Last: l} }
	s := sharding.Set{r(0, 9), r(20, 29)}
	if got, want := s.Minus(sharding.Set{r(5, 24)}), (sharding.Set{r(0, 4), r(25, 29)}); !got.Equal(want) {
		t.Errorf("Minus = %v, want %v", got, want)
	}
	if got, want := s.Intersect(sharding.Set{r(5, 24)}), (sharding.Set{r(5, 9), r(20, 24)}); !got.Equal(want) {
		t.Errorf("Intersect = %v, want %v", got, want)
	}
	if got, want := s.Union(sharding.Set{r(10, 19)}), (sharding.Set{r(0, 29)}); !got.Equal(want) {
		t.Errorf("Union of touching ranges = %v, want %v", got, want)
	}
	if !(sharding.Set{sharding.Full}).Minus(sharding.Set{sharding.Full}).Empty() {
		t.Error("Full minus Full is not empty")
	}
	if s.Contains(15) || !s.Contains(29) {
		t.Error("Contains is wrong at 15 or 29")
	}
}

func TestSelector_writes_half_open_ranges_as_the_server_reads_them(t *testing.T) {
	two := sharding.Assign([]string{"a", "b"})
	got := two["a"].Union(sharding.Set{{First: math.MaxUint64 - 15, Last: math.MaxUint64}}).Selector(sharding.ByUID)
	want := "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0xfffffffffffffff0', '0x10000000000000000')"
	if got != want {
		t.Errorf("Selector =\n %s\nwant\n %s", got, want)
	}
}

func TestParse_reads_what_String_writes_and_names_what_is_wrong(t *testing.T) {
	s := sharding.Assign([]string{"a", "b", "c"})["b"].Union(sharding.Set{{First: 0, Last: 0}})
	back, err := sharding.Parse(s.String())
	if err != nil || !back.Equal(s) {
		t.Fatalf("Parse(%q) = %v, %v", s.String(), back, err)
	}
	for _, bad := range []string{"x", "0-1", "ffffffffffffffff-0000000000000000", "000000000000000g-0000000000000001", strings.Repeat("0000000000000000-0000000000000000,", 1025)} {
		if _, err := sharding.Parse(bad); err == nil || !strings.HasPrefix(err.Error(), "shard ranges: ") {
			t.Errorf("Parse(%.40q) = %v, want an error saying what is wrong", bad, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("0000000000000000-7fffffffffffffff")
	f.Add("0000000000000000-0000000000000001,aaaaaaaaaaaaaaaa-ffffffffffffffff")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := sharding.Parse(text)
		if err != nil {
			return
		}
		// What is read is normalized and writes back to itself.
		again, err := sharding.Parse(s.String())
		if err != nil || !again.Equal(s) {
			t.Fatalf("Parse(%q) = %v, which reads back as %v, %v", text, s, again, err)
		}
		if !sharding.Normalize(s).Equal(s) {
			t.Fatalf("Parse(%q) = %v is not normalized", text, s)
		}
	})
}
