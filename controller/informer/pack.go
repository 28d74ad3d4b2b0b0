package informer

import (
	"sync"

	"github.com/kubewire/kubewire/apiclient"
)

// packer keeps cached objects' bodies packed against a Dictionary
// (apiclient.Object.Pack): the pods of one Deployment differ in a name, a uid
// and a few values, so each is kept as its difference from one of them.
// Measured with `kubewire sync pods -n bench10k` on 10,000 realistic pods
// (v1.37.2, 2026-11-28): 30.6 → 10.2 MiB of heap after GC, 3.2 → 1.07 KB a
// pod, where the server sent 2.53 KB a pod without managedFields; peak RSS
// 59.4 → 37.9 MiB, client CPU 0.54 → 0.61 s (README's benchmark section,
// bench/results/2026-11-28-denser-cache.md).
//
// The Dictionary is the body of the first object large enough to be worth
// packing. When objects stop resembling it — packMisses in a row do not
// shrink by a quarter — the next one becomes the Dictionary; the old one's
// body lives on in the objects packed against it, its index does not. A
// list's objects are packed as they are decoded (entrySink.Pack, a
// listwatch.Packer), so that a whole list is never alive unpacked; any other
// object as it enters the FIFO, before anything shares it (sink.go), as
// labels are shared.
//
// What it costs: one pass over each body as it enters (2.5 µs for a pod,
// internal/delta's BenchmarkEncode), and a copy of the body more for each
// read that writes the object out (Raw, Decode; Field reads from a buffer
// used again). A Lister decodes an object once and then copies its value:
// packing does not reach its Get.
//
// client-go keeps every object whole.
type packer struct {
	mu     sync.Mutex
	dict   *apiclient.Dictionary
	misses int // objects in a row that did not pack against dict
}

// packMisses is how many objects in a row may fail to pack before the
// Dictionary is replaced.
const packMisses = 64

// pack packs obj against the Dictionary, choosing or replacing it first when
// that is due.
func (p *packer) pack(obj *apiclient.Object) {
	if obj.Packed() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dict == nil || p.misses >= packMisses {
		d := apiclient.NewDictionary(obj)
		if d == nil { // too small to be worth it
			return
		}
		p.dict, p.misses = d, 0
	}
	if obj.Pack(p.dict) {
		p.misses = 0
	} else {
		p.misses++
	}
}
