package informer

import (
	"context"
	"log/slog"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/listwatch"
	"github.com/kubewire/kubewire/store"
)

// Options tune an Informer.
type Options struct {
	// Name is for logs and metrics ("pods"); "" means Resource.String().
	Name string
	// MetadataOnly caches each object's metadata alone: the Reflector lists and
	// watches as PartialObjectMetadata (apiclient.ResourceClient.MetadataOnly), so
	// the server sends kind, apiVersion and metadata, nothing of spec or status, and
	// the cache holds a few hundred bytes an object. For a controller that needs
	// names, labels, owners or finalizers of many objects it never reads in full
	// (client-go's metadatainformer, controller-runtime's OnlyMetadata). A Source
	// of your own ignores it.
	MetadataOnly bool
	// DeltaFIFO picks client-go's classic DeltaFIFO over the in-order FIFO (its
	// RealFIFO, which client-go 1.36's informers use: InOrderInformers is GA). The in-order FIFO is the default:
	// after each watch event the cache stands at a resourceVersion the server
	// was at, so a handler that reads several objects together does not see
	// one's future beside another's past — but while a relist's entries pop,
	// when the cache is part old list, part new (package fifo's doc, "Why
	// client-go moved to the in-order FIFO").
	// DeltaFIFO hands each object's changes over in one Pop, which is all a
	// level-based Reconciler needs; it is kept to teach the difference (package
	// fifo's doc works one relist through both).
	DeltaFIFO bool
	// List is how the default Source lists (listwatch.ListMethod). The zero
	// value, listwatch.ListCheapest, asks the server's release once per Client
	// and lists the way that costs that server least: LIST from Kubernetes 1.33,
	// whose LIST answers stream their JSON, and before it a streaming list (a
	// watch with sendInitialEvents), which spares the server the whole list in
	// one buffer. listwatch.ListPaged always lists with LIST (client-go's
	// KUBE_FEATURE_WatchListClient=false, which the command honours);
	// listwatch.ListStreaming always with a streaming list (client-go's default
	// since v0.35; the command's --watch-list). A server that refuses a streaming
	// list, or ignores it, gets LIST instead (listwatch's fallBack).
	List listwatch.ListMethod
	// Transform reshapes objects before they are cached (strip what you will never
	// read). It runs once per object that enters the FIFO, before it enters: each
	// watch add, update and delete, and every object of a list (sink.go). The FIFO,
	// the store and every handler, OnDelete included, see only its result. It
	// runs on the source's goroutine, one call at a time, outside any lock of the
	// informer. A relist's delete and a resync replay the cached object, which is
	// not transformed again.
	//
	// It must be idempotent (Transform(Transform(o)) equals Transform(o)) and
	// leave name, namespace and resourceVersion alone (the FIFO keys on the first
	// two, the Reflector resumes from the third). Nothing here transforms an
	// object twice, but a source other than the Reflector (a test's script) may
	// hand in an object taken from the cache, and client-go, whose resync
	// transforms again, asks the same. It may change the object it is given in
	// place and return it: the Reflector decodes a new object for every event and
	// list item and keeps no reference to it past the call, so nobody else holds
	// it yet. It must not change an object it returned earlier, nor keep one to
	// change later: from the FIFO on, objects are shared by the cache and every
	// handler without a lock. An error refuses the object; for a list, the whole
	// list (the cache keeps what it had). Objects arrive with managedFields
	// already stripped unless the source was told to keep them.
	Transform func(*apiclient.Object) (*apiclient.Object, error)
	// OwnWrites, when set, tells WaitForOwnWrites what to wait for: once every
	// write of this informer's objects that the process began before the call is
	// over, what of them the cache must still show, asked again as it moves
	// (Awaited, ownwrites.go). controller.Manager sets it from its client's
	// writes (apiclient.Observer's Write); an error ends the wait.
	OwnWrites func(ctx context.Context) (Awaited, error)
	// Indexers are added to the store.
	Indexers store.Indexers[*apiclient.Object]
	// Source builds what fills the FIFO, given the FIFO as its sink. When nil,
	// it is a listwatch Reflector on Client and Resource (source.go); without
	// those either, Run fails.
	Source func(sink fifo.Sink[*apiclient.Object]) Runner
	// Client, Resource, Namespace ("" for all namespaces), LabelSelector and
	// FieldSelector say what the default Source lists and watches; Logger is
	// its logger (nil: slog.Default()). A Source that is set ignores them.
	Client        *apiclient.Client
	Resource      apiclient.Resource
	Namespace     string
	LabelSelector string
	FieldSelector string
	Logger        *slog.Logger
	// Clock times resyncs, and the default Source's backoffs and watch timeouts;
	// nil means the wall clock.
	Clock apiclient.Clock
	// Trace, when set, receives one Event per hop through fifo, store and
	// handler (package trace).
	Trace func(trace.Event)
}
