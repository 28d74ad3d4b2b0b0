package sharding_test

import (
	"fmt"

	"github.com/kubewire/kubewire/controller/sharding"
)

// Every replica that reads the same members computes the same split, and an
// object's range follows from its UID alone: no replica needs to ask another
// whose an object is.
func ExampleAssign() {
	split := sharding.Assign([]string{"web-2", "web-0", "web-1"})
	for _, id := range []string{"web-0", "web-1", "web-2"} {
		fmt.Println(id, split[id])
	}
	uid := "e74b717a-3729-43ff-891b-a8b2b8a2f9bf"
	for id, ranges := range split {
		if ranges.Contains(sharding.Hash(uid)) {
			fmt.Printf("%s hashes to %016x: %s's\n", uid, sharding.Hash(uid), id)
		}
	}
	// Output:
	// web-0 0000000000000000-5555555555555554
	// web-1 5555555555555555-aaaaaaaaaaaaaaa9
	// web-2 aaaaaaaaaaaaaaaa-ffffffffffffffff
	// e74b717a-3729-43ff-891b-a8b2b8a2f9bf hashes to 7154f6c5a754ae3a: web-1's
}

// What a replica asks the API server for: its ranges, half-open, the top of
// the space written as 2^64.
func ExampleSet_Selector() {
	mine := sharding.Assign([]string{"a", "b"})["b"]
	fmt.Println(mine.Selector(sharding.ByUID))
	// Output:
	// shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')
}
