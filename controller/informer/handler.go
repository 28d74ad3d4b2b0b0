package informer

import "github.com/kubewire/kubewire/apiclient"

// Handler is told what happened to the informer's objects, in the order the
// informer applied it to its cache. Each registered Handler runs on a goroutine of
// its own (listener.go), so a slow one never holds back another or the cache.
//
// Each Handler is given copies of its own (apiclient.Object.Copy, a copy of the
// metadata: the rest, the server's bytes, nobody changes): whatever it does to
// them reaches neither the cache nor another handler, and it may keep them.
// client-go hands every handler the cache's own object and asks it not to
// change it, a rule nothing enforces.
type Handler interface {
	// OnAdd: an object appeared. initialList is true for the objects of the first
	// LIST (and, for a handler added late, for the cache it is first given).
	OnAdd(obj *apiclient.Object, initialList bool)
	// OnUpdate: an object changed, or, when old and new have the same
	// resourceVersion, a periodic resync for a handler that asked for one.
	OnUpdate(old, new *apiclient.Object)
	// OnDelete: an object went. finalStateUnknown says the informer learned it from
	// a relist, not a watch event: obj is the last state the cache had, and the
	// object may have changed before it was deleted. It is a flag, not a
	// DeletedFinalStateUnknown to type-switch on: client-go's DeleteFunc receives
	// either an object or a tombstone as interface{}, and many handlers crash on the
	// second.
	OnDelete(obj *apiclient.Object, finalStateUnknown bool)
}

// HandlerFuncs adapts plain functions to Handler; nil fields ignore their event.
type HandlerFuncs struct {
	AddFunc    func(obj *apiclient.Object, initialList bool)
	UpdateFunc func(old, new *apiclient.Object)
	DeleteFunc func(obj *apiclient.Object, finalStateUnknown bool)
}

// OnAdd calls AddFunc if set.
func (h HandlerFuncs) OnAdd(obj *apiclient.Object, initialList bool) {
	if h.AddFunc != nil {
		h.AddFunc(obj, initialList)
	}
}

// OnUpdate calls UpdateFunc if set.
func (h HandlerFuncs) OnUpdate(old, new *apiclient.Object) {
	if h.UpdateFunc != nil {
		h.UpdateFunc(old, new)
	}
}

// OnDelete calls DeleteFunc if set.
func (h HandlerFuncs) OnDelete(obj *apiclient.Object, finalStateUnknown bool) {
	if h.DeleteFunc != nil {
		h.DeleteFunc(obj, finalStateUnknown)
	}
}

// notification is one call waiting for a handler.
type notification struct {
	kind     notificationKind
	old, obj *apiclient.Object
	flag     bool // initialList for an add, finalStateUnknown for a delete
}

type notificationKind uint8

const (
	addNotification notificationKind = iota
	updateNotification
	deleteNotification
	// syncedMarker is not a call: the listener reaching it means its handler has
	// been given the whole initial list (Registration.HasSynced).
	syncedMarker
)
