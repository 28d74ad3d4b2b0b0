package apiclient

import "fmt"

// Limits on one paged list (a LIST in pages, a Table in pages), whatever the
// server sends. A server that hands back the continue token it was given, or
// makes up a new one for every page, would otherwise keep a client paging — and
// holding what it read — forever (issue 16). The numbers are far above any real
// cluster: 100,000 pages is 50 million objects at the default page size of 500;
// the largest clusters Kubernetes supports hold 150,000 pods.
const (
	MaxPages     = 100_000
	MaxListItems = 10_000_000
)

// PageGuard follows one paged list and refuses what no real server sends: the
// same continue token twice in a row, more than MaxPages pages, more than
// MaxListItems objects. Its zero value is ready; one list, one goroutine.
type PageGuard struct {
	Resource     Resource // named in errors
	last         string
	pages, items int
}

// Items is told of n more objects read; it returns an error past
// MaxListItems. Call it per object where a page streams, so that one endless
// page is stopped too.
func (g *PageGuard) Items(n int) error {
	if g.items += n; g.items > MaxListItems {
		return fmt.Errorf("more than %d objects in one list: refused", MaxListItems)
	}
	return nil
}

// Page is told of each page read and its continue token ("" on the last). It
// returns an error when the list must stop, for the caller to wrap with what
// was listed.
func (g *PageGuard) Page(next string) error {
	g.pages++
	switch {
	case next != "" && next == g.last:
		return fmt.Errorf("the server sent the same continue token twice (page %d): the list would never end", g.pages)
	case next != "" && g.pages >= MaxPages:
		return fmt.Errorf("more than %d pages: the server does not end the list", MaxPages)
	}
	g.last = next
	return nil
}

// Restart forgets the pages read so far: the list starts over (after an expired
// continue token).
func (g *PageGuard) Restart() { g.last, g.pages, g.items = "", 0, 0 }
