package listwatch

import "github.com/kubewire/kubewire/apiclient"

// Sink is where a Reflector writes what the API server said: Add, Update and Delete
// for watch events, Replace after every LIST (or streaming list). Its method set is
// fifo.Sink[*apiclient.Object], so a DeltaFIFO or an InOrderFIFO over
// *apiclient.Object is a Sink, and so is a store.Store; listwatch declares its own
// interface so that it imports neither.
//
// The Reflector calls every method from its Run goroutine, one at a time. Objects
// handed over are shared from then on: a Sink must not change them.
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
