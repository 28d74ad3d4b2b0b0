package listwatch

import "github.com/kubewire/kubewire/apiclient"

// Sink is where a Reflector writes what the API server said: Add, Update and Delete
// for watch events, Replace after every LIST (or streaming list). Its method set is
// fifo.Sink[*apiclient.Object], so a DeltaFIFO or an InOrderFIFO over
// *apiclient.Object is a Sink, and so is a store.Store; listwatch declares its own
// interface so that it imports neither.
//
// The Reflector calls every method from its Run goroutine, one at a time. Each
// object it hands over was decoded for that call alone, and once the call returns
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
// controller); the Reflector only reports what the server said.
type Sink interface {
	Add(obj *apiclient.Object) error
	Update(obj *apiclient.Object) error
	Delete(obj *apiclient.Object) error
	// Replace says: list is everything that exists, as of resourceVersion. Whatever
	// the Sink holds that list does not name was deleted while nobody watched.
	Replace(list []*apiclient.Object, resourceVersion string) error
}
