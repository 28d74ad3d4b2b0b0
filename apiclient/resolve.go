package apiclient

import (
	"context"
	"fmt"
	"strings"
)

// ErrUnknownResource is wrapped by Resolve when no served resource has the name.
type ErrUnknownResource struct {
	Name string
	// Partial, when set, says discovery could not read every group-version:
	// the resource may be served by one of those.
	Partial error
}

func (e *ErrUnknownResource) Error() string {
	if e.Partial != nil {
		return fmt.Sprintf("the server doesn't have a resource type %q that could be read (%v)", e.Name, e.Partial)
	}
	return fmt.Sprintf("the server doesn't have a resource type %q", e.Name)
}

// Resolve turns a name as a kubectl user types it into a Resource, using discovery:
//
//	pods, pod, po, Pod             the plural, the singular, a short name, the kind
//	deployments.apps, deploy.apps  a name qualified by its group
//	deployments.v1.apps            … and by its version
//	crontabs.stable.example.com    custom resources alike, once their CRD is served
//
// Like kubectl, it matches case-insensitively, prefers each group's preferred
// version, tries plural, singular and kind names before short names, and when two
// groups serve the same name takes the one the server lists first (the core group
// before any other).
func (c *Client) Resolve(ctx context.Context, name string) (Resource, error) {
	d, err := c.discover(ctx)
	if err != nil {
		return Resource{}, err
	}
	if r, ok := d.resolve(name); ok {
		return r, nil // whatever else could not be read
	}
	if d.partial() != nil {
		// The name may be in a group that could not be read: ask once more.
		c.Invalidate()
		if d, err = c.discover(ctx); err != nil {
			return Resource{}, err
		}
		if r, ok := d.resolve(name); ok {
			return r, nil
		}
	}
	return Resource{}, &ErrUnknownResource{Name: name, Partial: d.partial()}
}

func (d *discoveryCache) resolve(name string) (Resource, bool) {
	name = strings.ToLower(name)
	// Every way to read the name: "res", "res.group", "res.version.group".
	type reading struct{ res, version, group string }
	readings := []reading{{res: name}}
	if res, rest, ok := strings.Cut(name, "."); ok {
		if res == "" || rest == "" {
			return Resource{}, false
		}
		readings = append(readings, reading{res: res, group: rest})
		if version, group, ok := strings.Cut(rest, "."); ok && version != "" && group != "" {
			readings = append(readings, reading{res: res, version: version, group: group})
		}
	}
	for _, byShortName := range []bool{false, true} {
		for _, preferredOnly := range []bool{true, false} {
			for _, rd := range readings {
				for _, r := range d.resources {
					if preferredOnly && d.preferred[r.Group] != r.Version {
						continue
					}
					if rd.group != "" && rd.group != r.Group || rd.version != "" && rd.version != r.Version {
						continue
					}
					if matches(r, rd.res, byShortName) {
						return r, true
					}
				}
			}
		}
	}
	return Resource{}, false
}

func matches(r Resource, name string, byShortName bool) bool {
	if byShortName {
		for _, s := range r.ShortNames {
			if s == name {
				return true
			}
		}
		return false
	}
	return name == r.Name || name == r.Singular || name == strings.ToLower(r.Kind)
}
