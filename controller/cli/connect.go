package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/listwatch"
)

// connect loads the kubeconfig the flags point at and builds a client; at -v 6 and
// above, every request is logged with its code and duration.
func (s *session) connect() (*apiclient.Client, *kubeconfig.Config, error) {
	cfg, err := kubeconfig.Load(kubeconfig.Options{Path: s.str("kubeconfig"), Context: s.str("context"), Getenv: s.env.Getenv})
	if err != nil {
		return nil, nil, err
	}
	// An exec plugin's stderr is the plugin talking to the user: it goes to
	// ours as it comes, and never into an error (which may reach the page).
	cfg.Stderr = s.env.Stderr
	// No client-side rate limit: the server's Priority and Fairness decides, and
	// the client waits out its 429s (apiclient.Options). The server's warnings go
	// to the command's log, on stderr, each once. Lists are bounded as
	// apiclient.ListLimits says, or as --max-list-mib and --max-list-objects do.
	limits := apiclient.ListLimits{Bytes: int64(min(s.integer("max-list-mib", 0), math.MaxInt64>>20)) << 20, Objects: s.integer("max-list-objects", 0)}
	c, err := apiclient.New(cfg, apiclient.Options{Log: s.log, ListLimits: limits})
	if err != nil {
		return nil, nil, err
	}
	if s.integer("v", 0) >= 6 {
		c = c.Derive(apiclient.Derived{Observer: apiclient.Observer{Answered: func(_ context.Context, r apiclient.RequestInfo) {
			s.log.Debug("request", "verb", r.Verb, "url", r.URL, "code", r.Code, "took", r.Took)
		}}})
	}
	return c, cfg, nil
}

// namespace is where a command acts: "" for -A, else -n, else the context's.
func (s *session) namespace(cfg *kubeconfig.Config) string {
	switch {
	case s.boolean("all-namespaces"):
		return ""
	case s.str("namespace") != "":
		return s.str("namespace")
	case cfg.Namespace != "":
		return cfg.Namespace
	}
	return "default"
}

// target connects and resolves the RESOURCE argument by discovery, for the
// commands that act on one resource (get, watch, sync, record): the client, the
// kubeconfig it was built from, and the resource. What the command needs the
// server to offer for it (list, watch) the command checks.
func (s *session) target(ctx context.Context) (*apiclient.Client, *kubeconfig.Config, apiclient.Resource, error) {
	c, cfg, err := s.connect()
	if err != nil {
		return nil, nil, apiclient.Resource{}, err
	}
	if len(s.args) == 0 {
		return nil, nil, apiclient.Resource{}, usagef("you must specify the type of resource, e.g. pods")
	}
	res, err := c.Resolve(ctx, s.args[0])
	return c, cfg, res, err
}

// listedAndWatched says why res cannot be done ("synced", "recorded") by a
// command that runs a Reflector on it, which needs both list and watch; nil
// when it can.
func listedAndWatched(res apiclient.Resource, done string) error {
	if !res.Has("list") || !res.Has("watch") {
		return fmt.Errorf("%s cannot be %s: the server does not offer list and watch for it", res, done)
	}
	return nil
}

// listOptions carries -l and --field-selector.
func (s *session) listOptions() apiclient.ListOptions {
	return apiclient.ListOptions{LabelSelector: s.str("selector"), FieldSelector: s.str("field-selector")}
}

// noResources says, as kubectl does, that a listing came back empty.
func noResources(w io.Writer, ns string) {
	if ns == "" {
		fmt.Fprintln(w, "No resources found")
		return
	}
	fmt.Fprintf(w, "No resources found in %s namespace.\n", ns)
}

// tracer returns where the pipeline's trace goes: the --trace printer (one
// line at a time on stderr) and, with --ui, the live page; nil for neither.
func (s *session) tracer() func(trace.Event) {
	return s.page.trace(s.traceLine())
}

// traceLine returns what prints one trace line on stderr with --trace, nil
// without: the pipeline's hops (tracer) and the command's own lines (record's).
func (s *session) traceLine() func(string) {
	if !s.boolean("trace") {
		return nil
	}
	var mu sync.Mutex
	return func(line string) {
		line = metrics.Printable(line) // its keys and errors are the server's
		mu.Lock()
		fmt.Fprintln(s.env.Stderr, line)
		mu.Unlock()
	}
}

// listMethod is how informers list: with a streaming list when --watch-list
// asks for one; with paged LIST requests when the environment says
// KUBE_FEATURE_WatchListClient=false, client-go's own switch; else the cheaper
// way for the server (listwatch.ListCheapest).
func (s *session) listMethod() listwatch.ListMethod {
	switch {
	case s.boolean("watch-list"):
		return listwatch.ListStreaming
	case s.env.Getenv("KUBE_FEATURE_WatchListClient") == "false":
		return listwatch.ListPaged
	}
	return listwatch.ListCheapest
}
