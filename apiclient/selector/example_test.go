package selector_test

import (
	"fmt"

	"github.com/kubewire/kubewire/apiclient/selector"
)

// A label selector as kubectl -l takes it: parsed, matched, written canonically.
func ExampleParse() {
	sel, err := selector.Parse("app=web, tier in (fe, be), !legacy")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sel)
	fmt.Println(sel.Matches(map[string]string{"app": "web", "tier": "fe"}))
	fmt.Println(sel.Matches(map[string]string{"app": "web", "tier": "fe", "legacy": "true"}))
	// Output:
	// app=web,!legacy,tier in (be,fe)
	// true
	// false
}

// A mistake is reported with the offset where it starts.
func ExampleParse_error() {
	_, err := selector.Parse("app=web,tier in (fe be)")
	fmt.Println(err)
	_, err = selector.Parse("Example.com/app=web")
	fmt.Println(err)
	// Output:
	// invalid label selector "app=web,tier in (fe be)": at offset 20: found 'be', want ',' or ')'
	// invalid label selector "Example.com/app=web": at offset 0: key "Example.com/app": prefix "Example.com": must be a lowercase DNS subdomain (labels of a-z, 0-9 and '-' separated by '.', each starting and ending with a-z or 0-9)
}

// A field selector: a backslash escapes ',' '=' and itself in a value.
func ExampleParseFields() {
	f, err := selector.ParseFields(`status.phase!=Failed,metadata.annotations.note=a\,b`)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range f.Terms() {
		fmt.Printf("%s %s %q\n", t.Field, t.Op, t.Value)
	}
	fmt.Println(f.Matches(map[string]string{"status.phase": "Running", "metadata.annotations.note": "a,b"}))
	_, err = selector.ParseFields("metadata.name=a=b")
	fmt.Println(err)
	// Output:
	// metadata.annotations.note = "a,b"
	// status.phase != "Failed"
	// true
	// invalid field selector "metadata.name=a=b": at offset 15: value of "metadata.name": '=' in a value must be escaped as \=
}
