package listwatch

import "github.com/kubewire/kubewire/apiclient"

// Sink is where a Reflector writes what the API server said: Add, Update and Delete
// for watch events, Replace after every LIST (or streaming list). Its method set is
// fifo.Sink[*apiclient.Object], so a DeltaFIFO or an InOrderFIFO over
// *apiclient.Object is a Sink, and so is a store.Store; listwatch declares its own
// interface so that it imports neither.
//
// The Reflector calls every method from its Run goroutine, one at a time. Each
// object it hands over was decoded for that call alone (but for the ones a Holder
// handed back, below), and once the call returns
// the Reflector reads only its key and resourceVersion: a Sink may reshape an
// object in place before keeping it (the informer's Transform may), as long as
// name, namespace and resourceVersion stay as they are. What a Sink keeps is
// shared with whoever reads it later, and must not change after that.
//
// Replace comes only after a list that completed: a LIST that read its last page,
// or a streaming list that reached its initial-events-end bookmark. A list that
// failed, however far it got, is never handed over.
//
// There is no Resync here: resyncing (handing handlers the cached objects again) is
// the informer's job, which calls its FIFO's Resync on its own timer (package
// controller/informer); the Reflector only reports what the server said.
type Sink interface {
	Add(obj *apiclient.Object) error
	Update(obj *apiclient.Object) error
	Delete(obj *apiclient.Object) error
	// Replace says: list is everything that exists, as of resourceVersion. Whatever
	// the Sink holds that list does not name was deleted while nobody watched.
	Replace(list []*apiclient.Object, resourceVersion string) error
}

// A Bookmarker is a Sink that wants to hear of the watch's BOOKMARK events: the
// server's word that the watch has reached resourceVersion though none of the
// watched objects changed. A Sink that tracks the version it stands at (the
// informer does) needs them: without them it would stand still while the server
// moves on. The Reflector calls Bookmark, when the Sink has it, with every bookmark's
// resourceVersion, in order with the other calls; a streaming list's
// initial-events-end bookmark is not one of them (its version comes with Replace).
type Bookmarker interface {
	Bookmark(resourceVersion string) error
}

// A Holder is a Sink that can say it already holds an object, unchanged: Held
// returns the Sink's own object of obj's key when it is at obj's resourceVersion.
// While a list arrives, the Reflector asks for every object as soon as its
// metadata is decoded (decodeHeld); when the Sink holds it, the list keeps the
// held object and the bytes of the one being decoded are never copied. So a
// relist of a cache that mostly did not change costs the memory of what changed,
// not of a second copy of everything: without it, the whole new list and the
// whole old cache are alive together until Replace (the relist peak informers
// are known for). Held may see an object whose Raw is not there yet: it reads
// the key and the resourceVersion.
//
// An object Held returns is the Sink's own, already shared with its readers: it
// comes back to the Sink in Replace, and the Sink must not reshape it again.
type Holder interface {
	Held(obj *apiclient.Object) (*apiclient.Object, bool)
}

// A Packer is a Sink that keeps objects packed (apiclient.Object.Pack): Pack
// is given each object of a list as soon as it is decoded, before the next is
// read, so that the list's bytes are never alive unpacked together (a list
// of 10,000 pods peaked about a tenth higher than before packing when the
// Sink packed them at Replace, 36% lower when packed as decoded). It
// may change obj in place: nothing shares obj yet. A split list (split.go)
// decodes its parts on goroutines of their own and calls Pack from them, so
// Pack must be safe for concurrent use.
type Packer interface {
	Pack(obj *apiclient.Object)
}

// decodeHeld is Options.Decode, asking the Sink, when it is a Holder, for each
// object it holds unchanged before the decoded one's bytes are copied
// (apiclient.DecodeOptions.Reuse): a relist of a cache that mostly did not
// change then allocates a fifth of what it would. When the Sink is a Packer,
// each object decoded is handed to its Pack (apiclient.DecodeOptions.Pack).
// Held and Pack are called on the Run goroutine, as the decoding of a LIST
// runs there (a split list's parts call Pack on their own: listSplit).
func (r *Reflector) decodeHeld() apiclient.DecodeOptions {
	d := r.opts.Decode
	if p, ok := r.sink.(Packer); ok && d.Pack == nil {
		d.Pack = p.Pack
	}
	if _, ok := r.sink.(Holder); ok {
		d.Reuse = func(o *apiclient.Object) *apiclient.Object {
			if same := r.held(o); same != o {
				return same
			}
			return nil
		}
	}
	return d
}

// held is o, or the Sink's own copy of it when the Sink is a Holder that holds it
// unchanged.
func (r *Reflector) held(o *apiclient.Object) *apiclient.Object {
	h, ok := r.sink.(Holder)
	if !ok || o.Metadata.ResourceVersion == "" {
		return o
	}
	if same, ok := h.Held(o); ok {
		return same
	}
	return o
}
