package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
}

// List reads one page (all of it when opts.Limit is 0).
func (r ResourceClient) List(ctx context.Context, opts ListOptions) (*List, error) {
	list := &List{}
	err := r.listEach(ctx, opts, DecodeOptions{KeepManagedFields: true}, list, func(o *Object) error {
		list.Items = append(list.Items, o)
		return nil
	})
	return list, err
}

// ListAll reads every page, following Continue tokens; the pages together form one
// consistent snapshot at the first page's resourceVersion. If a token expires
// (410) before the last page, ListAll starts over once with a single unpaged LIST,
// which is what client-go's pager does too.
func (r ResourceClient) ListAll(ctx context.Context, opts ListOptions) (*List, error) {
	all := &List{}
	for {
		page, err := r.List(ctx, opts)
		if IsGone(err) && opts.Continue != "" {
			opts.Continue, opts.Limit = "", 0
			return r.List(ctx, opts)
		}
		if err != nil {
			return nil, err
		}
		if all.ResourceVersion == "" {
			all.TypeMeta, all.ResourceVersion = page.TypeMeta, page.ResourceVersion
		}
		all.Items = append(all.Items, page.Items...)
		if page.Continue == "" {
			return all, nil
		}
		opts.Continue = page.Continue
	}
}

// ListEach reads one page and hands each object to fn as soon as it is decoded,
// so a page of 10,000 pods is never held as one buffer or one slice: memory stays
// at one object plus what fn keeps. It returns the page's ListMeta.
func (r ResourceClient) ListEach(ctx context.Context, opts ListOptions, dopts DecodeOptions, fn func(*Object) error) (ListMeta, error) {
	var header List
	err := r.listEach(ctx, opts, dopts, &header, fn)
	return header.ListMeta, err
}

// listEach fills header's TypeMeta and ListMeta and hands each item to fn.
func (r ResourceClient) listEach(ctx context.Context, opts ListOptions, dopts DecodeOptions, header *List, fn func(*Object) error) error {
	req := request{verb: "GET", path: r.path("", nil), query: opts.values()}
	resp, err := r.c.do(ctx, req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := decodeList(resp.Body, dopts, header, fn); err != nil {
		return fmt.Errorf("list %s: %w", r.res, err)
	}
	return nil
}

// decodeList reads a list body, {"kind":…,"metadata":{…},"items":[…]}, one item at a
// time with encoding/json's streaming Decoder (which also validates as it goes).
func decodeList(body io.Reader, opts DecodeOptions, header *List, fn func(*Object) error) error {
	dec := json.NewDecoder(body)
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	var item json.RawMessage // reused: the decoder copies each item into its capacity
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("decode list: %w", err)
		}
		switch tok {
		case "kind":
			err = dec.Decode(&header.Kind)
		case "apiVersion":
			err = dec.Decode(&header.APIVersion)
		case "metadata":
			err = dec.Decode(&header.ListMeta)
		case "items":
			err = decodeItems(dec, &item, opts, fn)
		default:
			err = dec.Decode(new(json.RawMessage))
		}
		if err != nil {
			return fmt.Errorf("decode list: %s: %w", tok, err)
		}
	}
	return expectDelim(dec, '}')
}

func decodeItems(dec *json.Decoder, item *json.RawMessage, opts DecodeOptions, fn func(*Object) error) error {
	if tok, err := dec.Token(); err != nil || tok == nil {
		return err // "items": null
	} else if tok != json.Delim('[') {
		return fmt.Errorf("want an array, got %v", tok)
	}
	for n := 0; dec.More(); n++ {
		*item = (*item)[:0]
		if err := dec.Decode(item); err != nil {
			return fmt.Errorf("item %d: %w", n, err)
		}
		obj, err := opts.decode(*item)
		if err != nil {
			return fmt.Errorf("item %d: %w", n, err)
		}
		if err := fn(obj); err != nil {
			return err
		}
	}
	_, err := dec.Token() // ']'
	return err
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err == io.EOF {
		return fmt.Errorf("decode list: the body ended early")
	}
	if err != nil {
		return fmt.Errorf("decode list: %w", err)
	}
	if tok != want {
		return fmt.Errorf("decode list: want %q, got %v", want, tok)
	}
	return nil
}
