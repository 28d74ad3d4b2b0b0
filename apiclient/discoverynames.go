package apiclient

import "fmt"

// Names from discovery become URL paths as they are (Resource.Path does not
// escape them: they cannot need it), so each is checked first, as the API
// server checks them when a CRD or an APIService is made: a group is a DNS
// subdomain (lowercase letters, digits, '-' and '.', at most 253), a version
// and a resource's plural and singular names are DNS labels (at most 63, no
// '.'). A name that is not is refused with its group-version, which a
// *PartialDiscoveryError then names; it is never asked for (issue 29: a group
// "../../evil?x=" made `GET /apis/../../evil%3Fx=/v1`).

// checkName says why name cannot be a group (kind "group") or a version or
// resource name, or nil.
func checkName(kind, name string) error {
	limit, dots := 63, false
	if kind == "group" {
		limit, dots = 253, true
	}
	ok := name != "" && len(name) <= limit
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		edge := i == 0 || i == len(name)-1
		ok = alnum || !edge && (c == '-' || dots && c == '.')
	}
	if !ok {
		return fmt.Errorf("%s %.80q is not a valid name; skipped", kind, name)
	}
	return nil
}

// checkResourceNames checks a resource's plural name and, when it has one,
// its singular name.
func checkResourceNames(plural, singular string) error {
	if err := checkName("resource", plural); err != nil {
		return err
	}
	if singular != "" {
		return checkName("resource", singular)
	}
	return nil
}

// refuse notes that something of group/version was not taken, and why, in
// d.unread (the first reason for each, for at most maxRefused of them). A
// group or version that is not a valid name is quoted, so the key prints.
func (d *discoveryCache) refuse(group, version string, err error) {
	gv := version
	if group != "" {
		gv = group + "/" + version
	}
	if checkName("group", group) != nil && group != "" || version != "" && checkName("version", version) != nil {
		gv = fmt.Sprintf("%.80q", gv)
	}
	if _, ok := d.unread[gv]; !ok && len(d.unread) < maxRefused {
		d.unread[gv] = err // the first reason: one is enough to look for
	}
}

// maxRefused bounds the group-versions a PartialDiscoveryError names: a
// server that sends a million bad names gets a line, not a megabyte.
const maxRefused = 64
