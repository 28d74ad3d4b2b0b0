package listwatch

import (
	"context"

	"github.com/kubewire/kubewire/apiclient"
)

// Pager reads a LIST that may come in pages, object by object: it hands each
// object to a function as soon as it is decoded. The paging itself — following the
// continue tokens, the list's bounds, starting over once with one unpaged LIST
// when a token has expired — is apiclient's ResourceClient.Pages, the one paging
// loop of the module, which Table pages through too; its doc says what the pages
// of one list are (a snapshot) and why a 410 starts over.
//
// The zero value reads with the default decoding and no hooks. A Pager is a plain
// value with no state of its own: one may serve several lists at once, if its hooks
// allow.
type Pager struct {
	// Decode says how each object is decoded; the zero value drops managedFields.
	Decode apiclient.DecodeOptions
	// OnPage, when set, is called before each request with the page's number (1 for
	// the first, and 1 again for the LIST that starts over) and its options.
	OnPage func(page int, opts apiclient.ListOptions)
	// OnExpired, when set, is called with the 410 when a continue token has
	// expired. The objects fn has been given so far belong to a snapshot that will
	// not be finished; the LIST that follows hands fn every object again, so
	// whoever kept them drops them here.
	OnExpired func(err error)
}

// List reads every page of rc's LIST with opts and calls fn with each object, in
// the order the server sends them; it returns the resourceVersion of the snapshot.
// opts.Limit sets the page size (0: one response with everything). An error from
// the server or from fn ends the list and is returned as it is.
//
// The whole list, its pages and the LIST after an expired token together, is
// bounded by one apiclient.PageGuard with the client's ListLimits: its objects,
// its bytes after decompression, its pages, and a continue token seen before
// (in any position) end it with an error wrapping apiclient.ErrListLimit. It
// starts over once: a second expired token is returned as it is.
//
// Cost: one request per page, plus the failed page and one unpaged LIST after an
// expired token; memory for one object at a time plus what fn keeps.
func (p Pager) List(ctx context.Context, rc apiclient.ResourceClient, opts apiclient.ListOptions, fn func(*apiclient.Object) error) (string, error) {
	return rc.Pages(ctx, opts, p.OnExpired, func(g *apiclient.PageGuard, opts apiclient.ListOptions, page int) (apiclient.ListMeta, error) {
		if p.OnPage != nil {
			p.OnPage(page, opts)
		}
		return rc.ListPage(ctx, g, opts, p.Decode, fn)
	})
}

// ListAll reads every page of rc's LIST with opts (a Pager with managedFields kept)
// and returns the objects with the resourceVersion of the snapshot: the version a
// watch of the same objects starts from. It holds the whole list in memory; a
// caller that can consume objects one by one uses Pager.List instead.
func ListAll(ctx context.Context, rc apiclient.ResourceClient, opts apiclient.ListOptions) ([]*apiclient.Object, string, error) {
	var items []*apiclient.Object
	p := Pager{
		Decode:    apiclient.DecodeOptions{KeepManagedFields: true},
		OnExpired: func(error) { items = items[:0] },
	}
	rv, err := p.List(ctx, rc, opts, func(o *apiclient.Object) error {
		items = append(items, o)
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return items, rv, nil
}
