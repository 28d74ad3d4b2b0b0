package apiclient_test

import (
	"errors"
	"fmt"
	"sync"

	"github.com/kubewire/kubewire/apiclient"
)

// A PageGuard follows one list: listwatch.Pager tells it of every page, as
// ResourceClient.ListPage does. Here a server whose continue tokens go A, B, A —
// no real list does that, and this one would never end.
func ExamplePageGuard() {
	g := apiclient.PageGuard{Limits: apiclient.ListLimits{Objects: 1000}}
	for _, next := range []string{"A", "B", "A"} {
		if err := g.Page(next); err != nil {
			fmt.Println(err)
			fmt.Println("trying again would help:", !errors.Is(err, apiclient.ErrListLimit))
		}
	}
	fmt.Println(g.Items(1001))
	// Output:
	// page 3 has the continue token of page 1: the list would never end
	// trying again would help: false
	// more than 1000 objects in one list: refused (ListLimits.Objects, --max-list-objects)
}

// A list read as parts at once (listwatch's split list: one LIST per hash range)
// is still one list: each part's guard comes from the whole list's, and the
// parts count against one bound together. Each part may run on a goroutine of
// its own; a part that starts over gives back only what it read.
func ExamplePageGuard_Part() {
	whole := apiclient.PageGuard{Limits: apiclient.ListLimits{Objects: 10}}
	a, b := whole.Part(), whole.Part()
	var wg sync.WaitGroup
	for _, part := range []*apiclient.PageGuard{a, b} {
		wg.Add(1)
		go func() { defer wg.Done(); _ = part.Items(4) }() // 4 objects each, 8 in all
	}
	wg.Wait()
	fmt.Println(a.Items(3)) // 11 in all
	a.Restart()             // a's 7 are dropped: b's 4 are left
	fmt.Println(b.Items(6))
	// Output:
	// more than 10 objects in one list: refused (ListLimits.Objects, --max-list-objects)
	// <nil>
}
