package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
)

// writeTable prints a server-rendered Table: upper-case headers, the cells as
// text, "<none>" for a null cell.
func writeTable(w io.Writer, t *apiclient.Table, withNamespace, wide bool) error {
	tw := newTabWriter(w)
	tableCells(tw, t, withNamespace, wide)
	return tw.Flush()
}

// tableCells writes writeTable's lines to tw, their cells separated by tabs.
func tableCells(tw io.Writer, t *apiclient.Table, withNamespace, wide bool) {
	var header []string
	if withNamespace {
		header = append(header, "NAMESPACE")
	}
	shown := make([]bool, len(t.Columns))
	for i, c := range t.Columns {
		if c.Priority == 0 || wide {
			shown[i] = true
			header = append(header, printable(strings.ToUpper(c.Name)))
		}
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range t.Rows {
		var cells []string
		if withNamespace {
			cells = append(cells, printable(r.Object.Metadata.Namespace))
		}
		for i, v := range r.Cells {
			if i < len(shown) && shown[i] {
				cells = append(cells, printable(cell(v)))
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
}

func cell(v any) string {
	switch v := v.(type) {
	case nil:
		return "<none>"
	case string:
		return v
	case []any:
		var parts []string
		for _, x := range v {
			parts = append(parts, cell(x))
		}
		return strings.Join(parts, ",")
	}
	return fmt.Sprint(v)
}

// printJSON prints one object, or a List of them, as kubectl does: keys sorted,
// four spaces of indent.
func printJSON(w io.Writer, objs []*apiclient.Object, single bool) error {
	tree, err := document(objs, single)
	if err != nil {
		return err
	}
	out, err := json.MarshalIndent(tree, "", "    ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// printYAML prints the same document as YAML, laid out as kubectl lays it out.
func printYAML(w io.Writer, objs []*apiclient.Object, single bool) error {
	tree, err := document(objs, single)
	if err != nil {
		return err
	}
	return writeYAML(w, tree)
}

// document is what kubectl prints, the object itself or a v1 List, as a generic
// tree (numbers kept exact as json.Number) so that the printers sort its keys.
func document(objs []*apiclient.Object, single bool) (any, error) {
	var doc []byte
	var err error
	if single && len(objs) == 1 {
		doc = objs[0].Raw()
	} else {
		// Objects in a list have no apiVersion and kind of their own on the
		// wire; fetch filled them in, and MarshalJSON writes them. An empty list
		// is "items": [], not null.
		if objs == nil {
			objs = []*apiclient.Object{}
		}
		doc, err = json.Marshal(map[string]any{"apiVersion": "v1", "items": objs, "kind": "List", "metadata": map[string]string{"resourceVersion": ""}})
		if err != nil {
			return nil, err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var tree any
	err = dec.Decode(&tree)
	return tree, err
}
