package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/listwatch"
)

// runGet is `kubewire get RESOURCE [NAME...]`: kubectl get, with the same flags.
// Tables come from the server itself (it knows every resource's columns, CRDs'
// included); name, json and yaml are printed here.
func runGet(ctx context.Context, s *session) error {
	format := s.str("output")
	switch format {
	case "", "table", "wide", "name", "json", "yaml":
	default:
		return usagef("unable to match a printer suitable for the output format %q, allowed formats are: json,name,table,wide,yaml", format)
	}
	c, cfg, res, err := s.target(ctx)
	if err != nil {
		return err
	}
	if !res.Has("get") && !res.Has("list") {
		return fmt.Errorf("%s cannot be read: the server allows only %s", res, strings.Join(res.Verbs, ", "))
	}
	ns := s.namespace(cfg)
	names := s.args[1:]
	if len(names) > 0 && ns == "" && res.Namespaced {
		return usagef("a resource cannot be retrieved by name across all namespaces")
	}
	rc := c.Resource(res).Namespace(ns)
	switch format {
	case "", "table", "wide":
		return s.printTable(ctx, rc, res, ns, names, format == "wide")
	}
	objs, err := fetch(ctx, rc, res, names, s.listOptions())
	if err != nil {
		return err
	}
	// Nothing found is not an error, and, as kubectl, not a message either here:
	// -o name prints nothing and -o json|yaml an empty List, so that a script
	// reading the output gets what it parses (only the table says "No resources
	// found").
	switch format {
	case "name":
		for _, o := range objs {
			fmt.Fprintln(s.env.Stdout, printable(qualifiedName(res, o.Metadata.Name)))
		}
		return nil
	case "json":
		return printJSON(s.env.Stdout, objs, len(names) == 1)
	default:
		return printYAML(s.env.Stdout, objs, len(names) == 1)
	}
}

// fetch gets the named objects, or lists them all when none is named: in pages of
// 500, as kubectl does, through listwatch's Pager (which starts over with one LIST
// if a continue token expires on the way).
func fetch(ctx context.Context, rc apiclient.ResourceClient, res apiclient.Resource, names []string, opts apiclient.ListOptions) ([]*apiclient.Object, error) {
	var objs []*apiclient.Object
	if len(names) == 0 {
		opts.Limit = 500 // kubectl's chunk size
		p := listwatch.Pager{OnExpired: func(error) { objs = objs[:0] }}
		_, err := p.List(ctx, rc, opts, func(o *apiclient.Object) error {
			o.APIVersion, o.Kind = res.GroupVersion(), res.Kind // items of a list come without them
			objs = append(objs, o)
			return nil
		})
		return objs, err
	}
	for _, n := range names {
		o, err := rc.Get(ctx, n)
		if err != nil {
			return nil, err
		}
		if o, err = apiclient.DecodeObject(o.Raw()); err != nil { // drop managedFields, as kubectl hides them
			return nil, err
		}
		objs = append(objs, o)
	}
	return objs, nil
}

// printTable asks the server for a Table and prints its default columns (all of
// them with wide), with NAMESPACE in front across namespaces.
func (s *session) printTable(ctx context.Context, rc apiclient.ResourceClient, res apiclient.Resource, ns string, names []string, wide bool) error {
	opts := s.listOptions()
	opts.Limit = 500
	var table apiclient.Table
	var ok bool
	for i, n := range append(names, "")[:max(len(names), 1)] {
		t, served, err := rc.Table(ctx, n, opts)
		if err != nil {
			return err
		}
		if !served {
			return s.printNames(ctx, rc, res, ns, names, opts)
		}
		if i == 0 {
			table.Columns = t.Columns
		}
		table.Rows = append(table.Rows, t.Rows...)
		ok = true
	}
	if !ok || len(table.Rows) == 0 {
		noResources(s.env.Stderr, nsIf(res, ns))
		return nil
	}
	withNamespace := ns == "" && res.Namespaced
	return writeTable(s.env.Stdout, &table, withNamespace, wide)
}

// printNames is the table of last resort, for servers that do not render tables.
func (s *session) printNames(ctx context.Context, rc apiclient.ResourceClient, res apiclient.Resource, ns string, names []string, opts apiclient.ListOptions) error {
	objs, err := fetch(ctx, rc, res, names, opts)
	if err != nil {
		return err
	}
	if len(objs) == 0 {
		noResources(s.env.Stderr, nsIf(res, ns))
		return nil
	}
	t := apiclient.Table{Columns: []apiclient.TableColumn{{Name: "Name"}}}
	for _, o := range objs {
		row := apiclient.TableRow{Cells: []any{o.Metadata.Name}}
		row.Object.Metadata = o.Metadata
		t.Rows = append(t.Rows, row)
	}
	return writeTable(s.env.Stdout, &t, false, false)
}

// qualifiedName is kubectl's -o name: "pod/web-1", "deployment.apps/web".
func qualifiedName(res apiclient.Resource, name string) string {
	kind := strings.ToLower(res.Kind)
	if res.Group != "" {
		kind += "." + res.Group
	}
	return kind + "/" + name
}

// nsIf is ns for a namespaced resource and "" for a cluster-scoped one, for the
// "No resources found" message.
func nsIf(res apiclient.Resource, ns string) string {
	if res.Namespaced {
		return ns
	}
	return ""
}
