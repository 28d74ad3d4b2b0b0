package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
)

// runAPIResources is `kubewire api-resources`: what discovery found, each group's
// preferred version, sorted as kubectl sorts it (by group, core first, then name).
func runAPIResources(ctx context.Context, s *session) error {
	c, _, err := s.connect()
	if err != nil {
		return err
	}
	// A group that could not be read leaves the rest to print; the error comes
	// after the table, and the command exits 1, as kubectl's does.
	resources, err := c.PreferredResources(ctx)
	var partial *apiclient.PartialDiscoveryError
	if err != nil && !errors.As(err, &partial) {
		return err
	}
	sort.SliceStable(resources, func(i, j int) bool {
		a, b := resources[i], resources[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		return a.Name < b.Name
	})
	tw := newTabWriter(s.env.Stdout)
	resourceCells(tw, resources)
	if ferr := tw.Flush(); ferr != nil {
		return ferr
	}
	return err
}

// resourceCells writes the table's lines to tw, their cells separated by tabs.
func resourceCells(tw io.Writer, resources []apiclient.Resource) {
	fmt.Fprintln(tw, "NAME\tSHORTNAMES\tAPIVERSION\tNAMESPACED\tKIND")
	for _, r := range resources {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\n", r.Name, strings.Join(r.ShortNames, ","), r.GroupVersion(), r.Namespaced, r.Kind)
	}
}
