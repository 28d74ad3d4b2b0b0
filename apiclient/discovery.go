package apiclient

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Discovery asks the server what it serves: every group, version and resource, custom
// resources included. It is how "po", "deploy" or "crontabs.stable.example.com" become
// a Resource with a URL path, without any generated code.
//
// Two protocols exist. Aggregated discovery (GA in 1.30) answers with everything in
// two requests, /api and /apis, when the Accept header asks for an
// APIGroupDiscoveryList. Legacy discovery needs /api, /apis, then one request per
// group-version. kubewire asks for the first and falls back to the second, as
// kubectl does.

// aggregatedAccept asks for aggregated discovery, accepting plain JSON (legacy) as a
// fallback; the response's Content-Type says which came back.
const aggregatedAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList," +
	"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"

// discoveryCache is what discovery learned: resources in the server's priority order
// (core first, then groups as /apis lists them, preferred versions first).
type discoveryCache struct {
	// read is the bytes of the legacy protocol's documents so far, and asked
	// the group-versions its roots named: one bound for discovery as a whole
	// (maxGroupVersions), as a list's pages share one.
	read, asked int64
	resources   []Resource
	preferred   map[string]string // group → preferred version
	unread      map[string]error  // group-version → why its document could not be read
}

// PartialDiscoveryError says some group-versions could not be read: an
// aggregated API whose server is down (metrics-server: 503 on
// metrics.k8s.io/v1beta1) is the usual one. Discovery goes on without them, as
// kubectl does, so a command on a resource served fine still works (issue 16:
// one broken group failed every command); ServerResources and
// PreferredResources return what they found together with this error.
type PartialDiscoveryError struct {
	Unread map[string]error // group-version → why
}

func (e *PartialDiscoveryError) Error() string {
	gvs := make([]string, 0, len(e.Unread))
	for gv := range e.Unread {
		gvs = append(gvs, gv)
	}
	sort.Strings(gvs)
	parts := make([]string, len(gvs))
	for i, gv := range gvs {
		parts[i] = gv + ": " + e.Unread[gv].Error()
	}
	return fmt.Sprintf("discovery: %d group-version(s) could not be read, their resources are missing: %s", len(gvs), strings.Join(parts, "; "))
}

// partial is the PartialDiscoveryError of d, or nil.
func (d *discoveryCache) partial() error {
	if len(d.unread) == 0 {
		return nil
	}
	return &PartialDiscoveryError{Unread: d.unread}
}

// ServerResources returns every resource the server serves, subresources left out,
// in the server's order: core first, then groups as /apis lists them. The answer is
// cached on the Client; Invalidate forgets it (after creating a CRD, say). When
// some group-versions could not be read, it returns the rest and a
// *PartialDiscoveryError.
func (c *Client) ServerResources(ctx context.Context) ([]Resource, error) {
	d, err := c.discover(ctx)
	if err != nil {
		return nil, err
	}
	return d.resources, d.partial()
}

// PreferredResources is ServerResources restricted to each group's preferred version:
// what kubectl api-resources shows.
func (c *Client) PreferredResources(ctx context.Context) ([]Resource, error) {
	d, err := c.discover(ctx)
	if err != nil {
		return nil, err
	}
	var out []Resource
	for _, r := range d.resources {
		if d.preferred[r.Group] == r.Version {
			out = append(out, r)
		}
	}
	return out, d.partial()
}

// Invalidate forgets what discovery learned, so the next call asks again.
func (c *Client) Invalidate() {
	c.shared.discoveryMu.Lock()
	c.shared.discovery = nil
	c.shared.discoveryMu.Unlock()
}

func (c *Client) discover(ctx context.Context) (*discoveryCache, error) {
	c.shared.discoveryMu.Lock()
	defer c.shared.discoveryMu.Unlock()
	if c.shared.discovery != nil {
		return c.shared.discovery, nil
	}
	d := &discoveryCache{preferred: map[string]string{}, unread: map[string]error{}}
	for _, root := range []string{"/api", "/apis"} {
		if err := c.discoverRoot(ctx, root, d); err != nil {
			return nil, fmt.Errorf("discovery: %w", err)
		}
	}
	if ctx.Err() != nil && len(d.unread) > 0 {
		return nil, fmt.Errorf("discovery: %w", ctx.Err()) // not a broken group: we gave up
	}
	c.shared.discovery = d
	return d, nil
}

// discoverRoot reads /api or /apis, aggregated if the server offers it.
func (c *Client) discoverRoot(ctx context.Context, root string, d *discoveryCache) error {
	body, contentType, err := c.getRaw(ctx, root, aggregatedAccept)
	if err != nil {
		return err
	}
	if strings.Contains(contentType, "as=APIGroupDiscoveryList") {
		return readAggregated(body, d)
	}
	return c.readLegacy(ctx, root, body, d)
}

// getRaw GETs a path and returns the body and its Content-Type. The body is
// bounded by maxDocument.
func (c *Client) getRaw(ctx context.Context, path, accept string) ([]byte, string, error) {
	return c.getRawWithin(ctx, path, accept, maxDocument)
}

// getRawWithin is getRaw with a bound of the caller's: what is left of one
// that several documents share. On an error it returns what it read, which
// counts against that bound.
func (c *Client) getRawWithin(ctx context.Context, path, accept string, limit int64) ([]byte, string, error) {
	resp, err := c.do(ctx, request{verb: "GET", path: path, accept: accept})
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(limitBody(resp.Body, limit))
	if err != nil {
		return body, "", fmt.Errorf("GET %s: %w", path, gaveUp(ctx, err)) // what was read counts, for the caller's bound
	}
	return body, resp.Header.Get("Content-Type"), nil
}

// The aggregated document: groups → versions → resources.
type groupDiscoveryList struct {
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Versions []struct {
			Version   string `json:"version"`
			Resources []struct {
				Resource     string `json:"resource"`
				ResponseKind struct {
					Kind string `json:"kind"`
				} `json:"responseKind"`
				Scope            string   `json:"scope"`
				SingularResource string   `json:"singularResource"`
				Verbs            []string `json:"verbs"`
				ShortNames       []string `json:"shortNames"`
				Categories       []string `json:"categories"`
			} `json:"resources"`
		} `json:"versions"`
	} `json:"items"`
}

func readAggregated(body []byte, d *discoveryCache) error {
	var list groupDiscoveryList
	if err := Unmarshal(body, &list); err != nil {
		return fmt.Errorf("aggregated discovery: %w", err)
	}
	for _, g := range list.Items {
		if err := checkName("group", g.Metadata.Name); err != nil && g.Metadata.Name != "" {
			d.refuse(g.Metadata.Name, "", err)
			continue
		}
		for _, v := range g.Versions {
			if err := checkName("version", v.Version); err != nil {
				d.refuse(g.Metadata.Name, v.Version, err)
				continue
			}
			if _, ok := d.preferred[g.Metadata.Name]; !ok { // versions come in preference order
				d.preferred[g.Metadata.Name] = v.Version
			}
			for _, r := range v.Resources {
				if err := checkResourceNames(r.Resource, r.SingularResource); err != nil {
					d.refuse(g.Metadata.Name, v.Version, err)
					continue
				}
				d.resources = append(d.resources, Resource{
					Group: g.Metadata.Name, Version: v.Version, Name: r.Resource,
					Singular: r.SingularResource, Kind: r.ResponseKind.Kind,
					Namespaced: r.Scope == "Namespaced", Verbs: r.Verbs,
					ShortNames: r.ShortNames, Categories: r.Categories,
				})
			}
		}
	}
	return nil
}

// The legacy protocol reads one document per group-version, each named by
// the root's: a server could name a million of them, or answer each with a
// document as large as one may be. So the documents of one
// discovery share one byte bound, maxDocument (64 MiB; a real cluster's, with
// a few hundred CRDs, hold a few MiB together), as the aggregated protocol's
// one document has, and a root may name at most maxGroupVersions (a real one
// names a few hundred). A group-version past the bytes is not asked for, and
// is unread (a *PartialDiscoveryError says so); a root past the count fails
// discovery. The aggregated document is bounded by maxDocument alone.
const maxGroupVersions = 5000

var errDiscoveryOver = fmt.Errorf("not read: the discovery documents are over %d MiB together (the server's answers may not be)", maxDocument>>20)

// readLegacy follows the old protocol: the root names group-versions, and each
// group-version is one more request.
func (c *Client) readLegacy(ctx context.Context, root string, body []byte, d *discoveryCache) error {
	var doc struct {
		Versions []string `json:"versions"` // /api
		Groups   []struct {
			Name     string `json:"name"`
			Versions []struct {
				GroupVersion string `json:"groupVersion"`
				Version      string `json:"version"`
			} `json:"versions"`
			PreferredVersion struct {
				Version string `json:"version"`
			} `json:"preferredVersion"`
		} `json:"groups"` // /apis
	}
	if err := Unmarshal(body, &doc); err != nil {
		return fmt.Errorf("GET %s: %w", root, err)
	}
	asked := 0
	for _, g := range doc.Groups {
		asked += len(g.Versions)
	}
	if asked += len(doc.Versions); d.asked+int64(asked) > maxGroupVersions {
		return fmt.Errorf("GET %s: more than %d group-versions: refused (no real server serves so many)", root, maxGroupVersions)
	}
	d.asked += int64(asked)
	if root == "/api" {
		for i, v := range doc.Versions {
			if i == 0 {
				d.preferred[""] = v
			}
			c.readGroupVersion(ctx, "", v, d)
		}
		return nil
	}
	for _, g := range doc.Groups {
		if err := checkName("group", g.Name); err != nil {
			d.refuse(g.Name, "", err)
			continue
		}
		d.preferred[g.Name] = g.PreferredVersion.Version
		for _, v := range g.Versions {
			c.readGroupVersion(ctx, g.Name, v.Version, d)
		}
	}
	return nil
}

// readGroupVersion reads one group-version's document into d; one that cannot
// be read is noted in d.unread, and discovery goes on without it.
func (c *Client) readGroupVersion(ctx context.Context, group, version string, d *discoveryCache) {
	if err := checkName("version", version); err != nil {
		d.refuse(group, version, err) // not a request: it would be a path of the server's choosing
		return
	}
	gv := version
	path := "/api/" + version
	if group != "" {
		gv = group + "/" + version
		path = "/apis/" + gv
	}
	if err := c.readGroupVersionAt(ctx, path, group, version, d); err != nil {
		d.unread[gv] = err
	}
	if d.read >= maxDocument {
		d.unread[gv] = errDiscoveryOver
	}
}

func (c *Client) readGroupVersionAt(ctx context.Context, path, group, version string, d *discoveryCache) error {
	if d.read >= maxDocument {
		return errDiscoveryOver
	}
	body, _, err := c.getRawWithin(ctx, path, "application/json", maxDocument-d.read)
	d.read += int64(len(body))
	if err != nil {
		return err
	}
	var list struct {
		Resources []struct {
			Name         string   `json:"name"`
			SingularName string   `json:"singularName"`
			Namespaced   bool     `json:"namespaced"`
			Kind         string   `json:"kind"`
			Verbs        []string `json:"verbs"`
			ShortNames   []string `json:"shortNames"`
			Categories   []string `json:"categories"`
		} `json:"resources"`
	}
	if err := Unmarshal(body, &list); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	for _, r := range list.Resources {
		if strings.Contains(r.Name, "/") {
			continue // a subresource, such as pods/status
		}
		if err := checkResourceNames(r.Name, r.SingularName); err != nil {
			d.refuse(group, version, err)
			continue
		}
		d.resources = append(d.resources, Resource{
			Group: group, Version: version, Name: r.Name, Singular: r.SingularName,
			Kind: r.Kind, Namespaced: r.Namespaced, Verbs: r.Verbs,
			ShortNames: r.ShortNames, Categories: r.Categories,
		})
	}
	return nil
}
