package difftest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// Target is a server a sequence runs on: an apitest.Server of its own, or a
// real kube-apiserver shared with others (each run then works in a namespace
// of its own). Requests are raw HTTP, with the User-Agent userAgent, so both
// servers name the field manager of a write without fieldManager the same.
//
// Safe for concurrent use by several runs, each in its own namespace.
type Target struct {
	Name string // "apitest", or the real server's version ("v1.37.2")
	// Minor is the server's minor version (37); apitest models the newest.
	Minor int

	base   string
	client *http.Client
	fake   *apitest.Server // nil on a real server
}

const userAgent = "difftest/1.0"

// NewApitest starts an apitest.Server for one run (Close it), with the
// widgets CRD stored as on the real server.
func NewApitest(ctx context.Context) (*Target, error) {
	srv := apitest.NewServer(nil)
	t, err := newTarget("apitest", srv.Config())
	if err != nil {
		srv.Close()
		return nil, err
	}
	t.fake, t.Minor = srv, 37
	if err := t.ensureCRD(ctx); err != nil {
		srv.Close()
		return nil, err
	}
	return t, nil
}

// NewReal is a Target for the real server cfg names; it installs the widgets
// CRD there if it is missing, and waits until it is served.
func NewReal(ctx context.Context, cfg *kubeconfig.Config) (*Target, error) {
	t, err := newTarget("", cfg)
	if err != nil {
		return nil, err
	}
	var v struct{ Major, Minor string }
	if code, body, err := t.do(ctx, "GET", "/version", "", nil); err != nil || code != 200 {
		return nil, fmt.Errorf("difftest: GET /version: %d %v", code, err)
	} else if err := json.Unmarshal(body, &v); err != nil {
		return nil, fmt.Errorf("difftest: GET /version: %w", err)
	}
	// Servers built from source report gitVersion v0.0.0-master; major and
	// minor are always right.
	t.Name = "kube-apiserver v" + v.Major + "." + strings.TrimRight(v.Minor, "+")
	fmt.Sscanf(strings.TrimRight(v.Minor, "+"), "%d", &t.Minor)
	if err := t.ensureCRD(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

func newTarget(name string, cfg *kubeconfig.Config) (*Target, error) {
	rt, err := cfg.Transport()
	if err != nil {
		return nil, err
	}
	return &Target{Name: name, base: cfg.Server, client: &http.Client{Transport: rt}}, nil
}

// Close ends an apitest Target's server; it does nothing for a real one.
func (t *Target) Close() {
	if t.fake != nil {
		t.fake.Close()
	}
}

// Namespace creates namespace ns, where runs on t work.
func (t *Target) Namespace(ctx context.Context, ns string) error {
	if t.fake != nil {
		t.fake.CreateNamespaces(ns)
		return nil
	}
	body := `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + ns + `"}}`
	code, out, err := t.do(ctx, "POST", "/api/v1/namespaces", "application/json", []byte(body))
	if err != nil || code != 201 {
		return fmt.Errorf("difftest: create namespace %s: %d %v %s", ns, code, err, out)
	}
	return nil
}

// ensureCRD creates the widgets and sprockets CRDs unless they exist, and
// waits for each resource to be served (a real server takes a moment after
// the create).
func (t *Target) ensureCRD(ctx context.Context) error {
	for _, c := range []struct {
		body string
		res  apiclient.Resource
	}{{crd, widgets}, {sprocketCRD, sprockets}} {
		code, out, err := t.do(ctx, "POST", apiclient.CRDs.Path("", "", ""), "application/json", []byte(c.body))
		if err != nil || (code != 201 && code != 409) {
			return fmt.Errorf("difftest: create the %s CRD: %d %v %s", c.res.Name, code, err, out)
		}
		for {
			code, _, err := t.do(ctx, "GET", c.res.Path("default", "", "")+"?limit=1", "", nil)
			if err != nil {
				return err
			}
			if code == 200 {
				break
			}
			if err := t.waitCRD(ctx, c.res.Name+"."+c.res.Group); err != nil {
				return err
			}
		}
	}
	return nil
}

// waitCRD waits for a change of the CRD name (its Established condition), by
// a watch, so that it never polls.
func (t *Target) waitCRD(ctx context.Context, name string) error {
	req, err := http.NewRequestWithContext(ctx, "GET", t.base+apiclient.CRDs.Path("", "", "")+"?watch=1&fieldSelector=metadata.name%3D"+name+"&timeoutSeconds=5", nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := t.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	for {
		var ev struct {
			Object struct {
				Status struct {
					Conditions []struct{ Type, Status string } `json:"conditions"`
				} `json:"status"`
			} `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			return nil // the watch ended: look again
		}
		for _, c := range ev.Object.Status.Conditions {
			if c.Type == "Established" && c.Status == "True" {
				return nil
			}
		}
	}
}

// do sends one request and reads the whole answer.
func (t *Target) do(ctx context.Context, method, path, contentType string, body []byte) (int, []byte, error) {
	resp, err := t.send(ctx, method, path, contentType, body)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: read: %w", method, path, err)
	}
	return resp.StatusCode, out, nil
}

// send sends one request and returns the response unread (for watches).
func (t *Target) send(ctx context.Context, method, path, contentType string, body []byte) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.base+path, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return resp, nil
}
