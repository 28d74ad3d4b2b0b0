package listwatch

import (
	"context"

	"github.com/kubewire/kubewire/apiclient"
)

// ListMethod is how a Reflector lists: what the Listing state sends.
type ListMethod int

const (
	// ListCheapest lists the way that costs the server least, by its release
	// (Options.ServerVersion, asked once per Reflector, before its first list):
	// LIST from Kubernetes 1.33, a streaming list before (the package doc says
	// why, with the measurements, under "Choosing how to list"). Without Options.ServerVersion it lists with LIST; when the
	// release cannot be read, with a streaming list, as client-go does by default.
	// The zero value.
	ListCheapest ListMethod = iota
	// ListPaged lists with LIST requests in pages of PageSize: client-go's
	// Reflector with its WatchListClient feature off.
	ListPaged
	// ListStreaming lists with a streaming list (a watch with
	// sendInitialEvents=true), falling back to LIST where the server refuses one
	// or ignores the parameter: client-go's default since v0.35.
	ListStreaming
)

func (m ListMethod) String() string {
	switch m {
	case ListCheapest:
		return "cheapest"
	case ListPaged:
		return "LIST"
	case ListStreaming:
		return "streaming list"
	}
	return "ListMethod(?)"
}

// choose is the first Listing's decision under ListCheapest: whether this
// server gets streaming lists, and whether its latest state is cheap to LIST
// (latestCheap: list.go). It asks once; what it decides holds for the
// Reflector's life (a fallBack may still turn streaming off).
func (r *Reflector) choose(ctx context.Context) {
	if r.chosen {
		return
	}
	r.chosen = true
	switch {
	case r.opts.List == ListStreaming:
		r.streaming = true
	case r.opts.List != ListCheapest || r.opts.ServerVersion == nil:
		r.streaming = false
	default:
		v, err := r.opts.ServerVersion(ctx)
		r.streaming = err != nil || !streamsListEncoding(v)
		r.latestCheap = err == nil && streamsListEncoding(v) && !r.opts.FirstListAtZero
		r.log.Debug("list method chosen", "server", v.GitVersion, "err", err, "streaming", r.streaming, "latest", r.latestCheap)
	}
}

// streamsListEncoding reports whether a server writes its LIST answers out one
// item at a time (KEP-5116, StreamingCollectionEncodingToJSON, beta and on by
// default from Kubernetes 1.33), rather than encoding the whole list into one
// buffer first.
func streamsListEncoding(v apiclient.ServerVersion) bool {
	return v.AtLeast(1, 33)
}
