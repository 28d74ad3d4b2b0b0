package apiclient_test

import (
	"errors"
	"fmt"

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
