package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ServerVersion is what GET /version answers: the build of the API server. Clients
// rarely need it — discovery says what is served, and that is what to go by — but
// where two releases read the same request differently (a label selector grammar,
// say), a test or a tool has to know which one it talks to.
type ServerVersion struct {
	Major      string `json:"major"`      // "1"
	Minor      string `json:"minor"`      // "37"; some vendors add a "+": "32+"
	GitVersion string `json:"gitVersion"` // "v1.37.2", "v1.32.4-gke.1200"
}

// ServerVersion asks the server which release it runs: one GET /version, which
// every authenticated user may read (and, by default, anonymous ones too). The
// first answer is kept and returned from then on, so that every Reflector of a
// Client may ask (listwatch.ListCheapest) for the price of one request (two
// that ask at once may both send it); a failure is not kept.
func (c *Client) ServerVersion(ctx context.Context) (ServerVersion, error) {
	if v := c.version.Load(); v != nil {
		return *v, nil
	}
	v, err := c.askVersion(ctx)
	if err == nil {
		c.version.Store(&v)
	}
	return v, err
}

// askVersion is the GET /version itself.
func (c *Client) askVersion(ctx context.Context) (ServerVersion, error) {
	body, _, err := c.getRaw(ctx, "/version", "application/json")
	if err != nil {
		return ServerVersion{}, err
	}
	var v ServerVersion
	if err := json.Unmarshal(body, &v); err != nil {
		return ServerVersion{}, fmt.Errorf("GET /version: %w", err)
	}
	if _, _, ok := v.numbers(); !ok {
		return ServerVersion{}, fmt.Errorf("GET /version: major %q, minor %q are not release numbers", v.Major, v.Minor)
	}
	return v, nil
}

// AtLeast reports whether the server's release is major.minor or later.
func (v ServerVersion) AtLeast(major, minor int) bool {
	ma, mi, _ := v.numbers()
	return ma > major || ma == major && mi >= minor
}

// numbers reads Major and Minor, allowing the vendor's trailing "+".
func (v ServerVersion) numbers() (major, minor int, ok bool) {
	ma, err1 := strconv.Atoi(v.Major)
	mi, err2 := strconv.Atoi(strings.TrimSuffix(v.Minor, "+"))
	return ma, mi, err1 == nil && err2 == nil
}
