package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/kubewire/kubewire/apiclient/internal/jsonwire"
)

// List is one LIST response: the objects, and the resourceVersion of the snapshot
// they are from — the point a watch continues from.
type List struct {
	TypeMeta
	ListMeta
	Items []*Object
}

// ListMeta is a list's metadata (meta.k8s.io/v1 ListMeta).
type ListMeta struct {
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Continue is the token for the next page; "" on the last one.
	Continue string `json:"continue,omitempty"`
	// RemainingItemCount estimates the items after this page, when the server knows.
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
	// ShardInfo is set when the server applied the request's ShardSelector: the
	// list is that hash range of the collection, not all of it.
	ShardInfo *ShardInfo `json:"shardInfo,omitempty"`
}

// ShardInfo is the shard selector a server applied to a list, echoed back
// (meta.k8s.io/v1 ShardInfo, KEP-5866).
type ShardInfo struct {
	Selector string `json:"selector"`
}

// List reads one page (all of it when opts.Limit is 0).
func (r ResourceClient) List(ctx context.Context, opts ListOptions) (*List, error) {
	list := &List{}
	err := r.listPage(ctx, r.PageGuard(), opts, DecodeOptions{KeepManagedFields: true}, list, func(o *Object) error {
		list.Items = append(list.Items, o)
		return nil
	})
	return list, err
}

// ListEach reads one page and hands each object to fn as soon as it is decoded,
// so a page of 10,000 pods is never held as one buffer or one slice: memory stays
// at one object plus what fn keeps. It returns the page's ListMeta. The page is
// bounded as a list of its own (the client's ListLimits); the pages of one list
// go through ListPage with one PageGuard.
func (r ResourceClient) ListEach(ctx context.Context, opts ListOptions, dopts DecodeOptions, fn func(*Object) error) (ListMeta, error) {
	return r.ListPage(ctx, r.PageGuard(), opts, dopts, fn)
}

// ListPage is ListEach for one page of the list that g follows: the page's
// objects, its bytes and its continue token count against the list, and the
// first bound it passes ends the page with an error wrapping ErrListLimit.
func (r ResourceClient) ListPage(ctx context.Context, g *PageGuard, opts ListOptions, dopts DecodeOptions, fn func(*Object) error) (ListMeta, error) {
	var header List
	err := r.listPage(ctx, g, opts, dopts, &header, fn)
	return header.ListMeta, err
}

// listPage fills header's TypeMeta and ListMeta and hands each item to fn,
// reading the body, counting the items and checking the token through g.
func (r ResourceClient) listPage(ctx context.Context, g *PageGuard, opts ListOptions, dopts DecodeOptions, header *List, fn func(*Object) error) error {
	req := r.request("GET", "", nil, request{query: opts.values(), accept: r.accept(true)})
	reqCtx, abort := context.WithCancel(ctx)
	defer abort()
	resp, err := r.c.do(reqCtx, req)
	if err != nil {
		return err
	}
	body := newReadAhead(resp.Body, abort) // read (and inflate) while the objects are decoded
	defer body.Close()
	err = decodeList(g.Body(body), dopts, header, func(o *Object) error {
		if err := g.Items(1); err != nil {
			return err
		}
		return fn(o)
	})
	if err == nil {
		err = g.Page(header.Continue)
	}
	if err == nil {
		body.Drain(64 << 10) // the newline after the JSON, and the body's end
	}
	var limit listLimitError
	if errors.As(err, &limit) {
		err = limit // the bound says it all; where in the body it was met does not matter
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", r.res, gaveUp(ctx, err))
	}
	return nil
}

// decodeList reads a list body, {"kind":…,"metadata":{…},"items":[…]}, one item at a
// time (jsonwire.Reader): only the items in its buffer — 256 KiB, about fifty pods
// — are ever in memory as JSON.
func decodeList(body io.Reader, opts DecodeOptions, header *List, fn func(*Object) error) error {
	f := jsonwire.NewReaderSize(body, listBuffer, maxEvent)
	if err := listMembers(f, opts, header, fn); err != nil {
		return fmt.Errorf("decode list: %w", err)
	}
	return nil
}

func listMembers(f *jsonwire.Reader, opts DecodeOptions, header *List, fn func(*Object) error) error {
	if err := f.Expect('{'); err != nil {
		return err
	}
	for first := true; ; first = false {
		if more, err := f.More('}', first); !more || err != nil {
			return cutShort(f, err)
		}
		lit, err := f.Value()
		if err != nil {
			return cutShort(f, err)
		}
		if lit[0] != '"' {
			return &jsonwire.SyntaxError{Offset: int(f.Offset()) - len(lit), Msg: "expected a member name"}
		}
		key, err := jsonwire.Unquote(lit)
		if err != nil {
			return err
		}
		if err := f.Expect(':'); err != nil {
			return err
		}
		if key == "items" {
			if err := listItems(f, opts, fn); err != nil {
				return fmt.Errorf("items: %w", err)
			}
			continue
		}
		value, err := f.Value()
		if err != nil {
			return cutShort(f, err)
		}
		switch key {
		case "kind":
			err = json.Unmarshal(value, &header.Kind)
		case "apiVersion":
			err = json.Unmarshal(value, &header.APIVersion)
		case "metadata":
			err = json.Unmarshal(value, &header.ListMeta)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
}

// listItems reads the items array, decoding and handing on one item at a time:
// each is validated and decoded in one pass over the Reader's buffer
// (jsonwire.Reader.Walk), and copied once, into its Object.
func listItems(f *jsonwire.Reader, opts DecodeOptions, fn func(*Object) error) error {
	if c, err := f.Peek(); err != nil {
		return cutShort(f, err)
	} else if c == 'n' {
		v, err := f.Value()
		if err == nil && string(v) != "null" {
			err = fmt.Errorf("want an array, got %.20s", v)
		}
		return err
	}
	if err := f.Expect('['); err != nil {
		return err
	}
	for n := 0; ; n++ {
		if more, err := f.More(']', n == 0); !more || err != nil {
			if err = cutShort(f, err); err != nil && n > 0 {
				err = fmt.Errorf("after item %d: %w", n-1, err)
			}
			return err
		}
		var obj *Object
		at, err := f.Walk(func(data []byte) (end int, err error) {
			obj, end, err = opts.decodeAt(data, 0)
			return end, err
		})
		if err != nil {
			return fmt.Errorf("item %d: %w", n, cutShort(f, jsonwire.Locate(err, at)))
		}
		if err := fn(obj); err != nil {
			return err
		}
	}
}

// listBuffer is the size of a LIST body's read buffer: few reads, and few items
// cut by its end (each costs a second pass, jsonwire.Reader.Walk); one buffer per
// list in flight.
const listBuffer = 256 << 10

// cutShort names a body that ended before the list did.
func cutShort(f *jsonwire.Reader, err error) error {
	if err == io.EOF {
		return fmt.Errorf("the body ended early, at byte %d: %w", f.Offset(), io.ErrUnexpectedEOF)
	}
	return err
}
