package apiclient

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Table is the server's own rendering of objects as rows and columns — what kubectl
// get prints. The server knows the columns of every resource (READY, STATUS and
// RESTARTS for pods, the additionalPrinterColumns of a CRD), so a client that asks
// for a Table prints any resource correctly without knowing it.
type Table struct {
	Columns []TableColumn `json:"columnDefinitions"`
	Rows    []TableRow    `json:"rows"`
}

// TableColumn describes one column. Priority 0 columns are the default view; higher
// ones appear with -o wide.
type TableColumn struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Format   string `json:"format"`
	Priority int    `json:"priority"`
}

// TableRow is one object's cells, and its metadata (namespace, name) for the
// NAMESPACE column.
type TableRow struct {
	Cells  []any `json:"cells"`
	Object struct {
		Metadata ObjectMeta `json:"metadata"`
	} `json:"object"`
}

const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

// Table fetches name (or, with name "", the list that opts selects, every page,
// through Pages) as a Table. ok is false when the server answered with plain
// JSON instead, which an aggregated API server may do; the caller then has to
// make its own columns.
func (r ResourceClient) Table(ctx context.Context, name string, opts ListOptions) (*Table, bool, error) {
	t := &Table{}
	if name != "" {
		_, ok, err := r.tablePage(ctx, r.PageGuard(), name, opts, t)
		if err != nil || !ok {
			return nil, false, err
		}
		return t, true, nil
	}
	ok := true
	_, err := r.Pages(ctx, opts, func(error) { t.Rows = t.Rows[:0] }, func(g *PageGuard, opts ListOptions, _ int) (ListMeta, error) {
		meta, table, err := r.tablePage(ctx, g, "", opts, t)
		ok = ok && table
		return meta, err // not a Table: meta is empty, and the paging ends
	})
	if err != nil || !ok {
		return nil, false, err
	}
	return t, true, nil
}

// tablePage reads one page (or the one object name) as a Table into t: its
// columns the first time, its rows added; it returns the page's ListMeta.
// false: the server answered with plain JSON, not a Table.
func (r ResourceClient) tablePage(ctx context.Context, g *PageGuard, name string, opts ListOptions, t *Table) (ListMeta, bool, error) {
	q := opts.values()
	q.Set("includeObject", "Metadata")
	resp, err := r.c.do(ctx, r.request("GET", name, nil, request{query: q, accept: tableAccept}))
	if err != nil {
		return ListMeta{}, false, err
	}
	var page struct {
		Table
		Kind     string   `json:"kind"`
		Metadata ListMeta `json:"metadata"`
	}
	// A page is read whole, so it is a document (64 MiB at most) as well as a
	// part of the list.
	dec := json.NewDecoder(g.Body(limitBody(resp.Body, maxDocument)))
	dec.UseNumber()
	err = dec.Decode(&page)
	resp.Body.Close()
	if err != nil {
		return ListMeta{}, false, fmt.Errorf("table %s: %w", r.res, err)
	}
	if page.Kind != "Table" || !strings.Contains(resp.Header.Get("Content-Type"), "as=Table") && page.Columns == nil {
		return ListMeta{}, false, nil
	}
	if t.Columns == nil {
		t.Columns = page.Columns
	}
	t.Rows = append(t.Rows, page.Rows...)
	if err := cmp.Or(g.Items(len(page.Rows)), g.Page(page.Metadata.Continue)); err != nil {
		return ListMeta{}, false, fmt.Errorf("table %s: %w", r.res, err)
	}
	return page.Metadata, true, nil
}
