package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

func obj(name, rv string) *apiclient.Object {
	o, err := apiclient.DecodeObject([]byte(fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"ns","resourceVersion":%q}}`, name, rv)))
	if err != nil {
		panic(err)
	}
	return o
}

// A relist prints only what changed since the last list, as events.
func TestWatchPrinter_turns_a_relist_into_the_events_it_implies(t *testing.T) {
	var out bytes.Buffer
	p := &printer{w: bufio.NewWriter(&out), rv: map[string]string{}}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(p.Replace([]*apiclient.Object{obj("a", "1"), obj("b", "2"), obj("c", "3")}, "3"))
	must(p.Update(obj("a", "4")))
	// The watch broke; meanwhile b changed, c was deleted, d was created.
	must(p.Replace([]*apiclient.Object{obj("a", "4"), obj("b", "5"), obj("d", "6")}, "6"))
	want := "ADDED ns/a 1\nADDED ns/b 2\nADDED ns/c 3\nMODIFIED ns/a 4\nDELETED ns/c 3\nMODIFIED ns/b 5\nADDED ns/d 6\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}
