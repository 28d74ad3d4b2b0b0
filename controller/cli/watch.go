package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/listwatch"
)

// runWatch is `kubewire watch RESOURCE`: one line per event,
//
//	ADDED default/web-1 1201
//
// or with -o json the event as the API server sends it. It runs on the Reflector,
// so it survives what a bare ?watch=true does not: the server ending the stream,
// a dropped connection, a 410. The first LIST prints as ADDED; a relist prints the
// changes it implies (ADDED, MODIFIED, DELETED), so the output stays a faithful
// event log. A line that cannot be written (a full disk) ends the watch at once,
// with that error: a watch nobody can read is not worth keeping open.
//
// Its designed end is a signal: once the first list is printed, Ctrl-C or
// SIGTERM ends it with "watched N events" and exit 0. Stopped before that, it
// exits 130 or 143: the lines printed are not yet the state of anything.
func runWatch(ctx context.Context, s *session) error {
	format := s.str("output")
	if format != "" && format != "json" {
		return usagef("watch prints lines or -o json, not %q", format)
	}
	c, cfg, res, err := s.target(ctx)
	if err != nil {
		return err
	}
	if !res.Has("watch") {
		return fmt.Errorf("%s cannot be watched", res)
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	out := bufio.NewWriter(s.env.Stdout)
	p := &printer{w: out, json: format == "json", rv: map[string]string{}, failed: stop}
	opts := listwatch.Options{Name: res.String(), LabelSelector: s.str("selector"), FieldSelector: s.str("field-selector"), Logger: s.log}
	if emit := s.tracer(); emit != nil {
		opts.OnStep = func(st listwatch.Step) {
			emit(trace.Event{Stage: trace.Reflector, Verb: string(st.Op), Key: st.Key, Informer: opts.Name, Step: st})
		}
	}
	err = listwatch.New(c.Resource(res).Namespace(s.namespace(cfg)), p, opts).Run(ctx)
	p.mu.Lock()
	out.Flush()
	n, listed := p.events, p.listed
	p.mu.Unlock()
	var werr *writeError
	if errors.As(context.Cause(ctx), &werr) {
		return werr
	}
	if err != nil && ctx.Err() == nil {
		return err
	}
	if !listed {
		// Stopped before the first list was printed: what came out is not
		// the state of anything, and the exit status says so (130 or 143).
		fmt.Fprintf(s.env.Stderr, "interrupted before the first list was complete: watched %d events\n", n)
		return errStopped
	}
	fmt.Fprintf(s.env.Stderr, "watched %d events\n", n)
	return nil
}

// printer is the watch command's listwatch.Sink: it prints instead of caching,
// remembering only each key's resourceVersion so that a relist can be told apart
// from news.
type printer struct {
	mu     sync.Mutex
	w      *bufio.Writer
	json   bool
	rv     map[string]string // key → resourceVersion last printed
	events int
	listed bool        // the first list has been printed (Replace)
	failed func(error) // told the first write error, which ends the watch
}

// writeError is standard output refusing a line.
type writeError struct{ err error }

func (e *writeError) Error() string { return "write standard output: " + e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

func (p *printer) Add(o *apiclient.Object) error    { return p.print(apiclient.Added, o) }
func (p *printer) Update(o *apiclient.Object) error { return p.print(apiclient.Modified, o) }
func (p *printer) Delete(o *apiclient.Object) error { return p.print(apiclient.Deleted, o) }

// Replace prints what a LIST says changed since the last one: new objects as
// ADDED, changed ones as MODIFIED, vanished ones as DELETED (in key order).
func (p *printer) Replace(list []*apiclient.Object, _ string) error {
	p.mu.Lock()
	listed := map[string]bool{}
	var gone []string
	for _, o := range list {
		listed[o.Key()] = true
	}
	for k := range p.rv {
		if !listed[k] {
			gone = append(gone, k)
		}
	}
	old := make(map[string]string, len(p.rv))
	for k, v := range p.rv {
		old[k] = v
	}
	p.mu.Unlock()
	sort.Strings(gone)
	for _, k := range gone {
		ns, name := splitKey(k)
		o := &apiclient.Object{Metadata: apiclient.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: old[k]}}
		if err := p.print(apiclient.Deleted, o); err != nil {
			return err
		}
	}
	for _, o := range list {
		var err error
		rv, seen := old[o.Key()]
		switch {
		case !seen:
			err = p.print(apiclient.Added, o)
		case rv != o.Metadata.ResourceVersion:
			err = p.print(apiclient.Modified, o)
		}
		if err != nil {
			return err
		}
	}
	p.mu.Lock()
	p.listed = true
	p.mu.Unlock()
	return nil
}

func (p *printer) print(t apiclient.EventType, o *apiclient.Object) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t == apiclient.Deleted {
		delete(p.rv, o.Key())
	} else {
		p.rv[o.Key()] = o.Metadata.ResourceVersion
	}
	if p.json {
		line, err := json.Marshal(struct {
			Type   apiclient.EventType `json:"type"`
			Object json.RawMessage     `json:"object"`
		}{t, o.Raw()})
		if err != nil {
			return err
		}
		p.w.Write(append(line, '\n'))
	} else {
		fmt.Fprintf(p.w, "%s %s %s\n", t, printable(o.Key()), printable(o.Metadata.ResourceVersion))
	}
	// One event, one line, now: a watch is read as it happens.
	if err := p.w.Flush(); err != nil {
		err = &writeError{err}
		if p.failed != nil {
			p.failed(err)
		}
		return err
	}
	p.events++
	return nil
}

func splitKey(k string) (string, string) {
	for i := 0; i < len(k); i++ {
		if k[i] == '/' {
			return k[:i], k[i+1:]
		}
	}
	return "", k
}
