package informer

import (
	"slices"
	"sync"

	"github.com/kubewire/kubewire/apiclient"
)

// labelSets lets cached objects with the same labels share one map.
//
// Labels repeat: every pod of a ReplicaSet carries the same set (the template's
// labels plus pod-template-hash), and a Go map costs about 330 bytes however few
// entries it has (one group of eight slots and a header) — more than the rest of a
// pod's metadata. So as an object enters the cache, its Labels map is replaced by
// an equal map the informer has already seen, when there is one; the duplicate
// becomes garbage. Measured on 10,000 metadata-only pods in 16 label sets (as 16
// ReplicaSets would have): 12.3 → 9.2 MiB of heap, about 1.3 → 1.0 KB a pod.
//
// This is safe because cached objects are read-only: from the FIFO on, the store
// and every handler share each object without a lock, so nothing may change one
// in place (Object.Copy gives a private one, with maps of its own). Transform has
// already run: a Transform that edits the map it is given does so before the map
// is shared. The table holds at most maxLabelSets sets and then stops growing, as
// apiclient's string interning does; it keeps a set alive after the last object
// that used it has gone, which is what bounds it.
//
// client-go shares nothing between cached objects.
type labelSets struct {
	mu   sync.Mutex
	sets map[string]map[string]string // by the set's canonical form
	keys []string                     // scratch, reused
	buf  []byte                       // scratch, reused
}

// maxLabelSets bounds the table: 16,384 sets of at most maxSharedLabels labels.
const (
	maxLabelSets    = 1 << 14
	maxSharedLabels = 16
)

// share replaces obj's Labels with an equal map seen before, or remembers obj's.
// Cost: sorting the label keys and one map look-up without allocation on a hit.
func (ls *labelSets) share(obj *apiclient.Object) {
	labels := obj.Metadata.Labels
	if len(labels) == 0 || len(labels) > maxSharedLabels {
		return
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.keys = ls.keys[:0]
	for k := range labels {
		ls.keys = append(ls.keys, k)
	}
	slices.Sort(ls.keys)
	// The canonical form: key NUL value NUL, in key order. Neither a label key
	// nor a label value may contain NUL, so two different sets never meet here.
	ls.buf = ls.buf[:0]
	for _, k := range ls.keys {
		ls.buf = append(append(ls.buf, k...), 0)
		ls.buf = append(append(ls.buf, labels[k]...), 0)
	}
	if shared, ok := ls.sets[string(ls.buf)]; ok {
		obj.Metadata.Labels = shared
		return
	}
	if ls.sets == nil {
		ls.sets = make(map[string]map[string]string)
	}
	if len(ls.sets) < maxLabelSets {
		ls.sets[string(ls.buf)] = labels
	}
}
