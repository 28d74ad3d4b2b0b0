package informer

import (
	"context"
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/listwatch"
)

// source is what fills the FIFO when Options.Source is nil: a listwatch Reflector
// on Options.Client and Options.Resource, in Options.Namespace ("" for all), with
// the Options' selectors, clock and logger, and otherwise listwatch's defaults.
// Without a Client or a Resource there is nothing to list: the Runner returned
// fails Run with an error that says so, rather than New panicking.
func source(opts Options) func(fifo.Sink[*apiclient.Object]) Runner {
	if opts.Source != nil {
		return opts.Source
	}
	if opts.Client == nil || opts.Resource.Name == "" {
		return func(fifo.Sink[*apiclient.Object]) Runner { return noSource{opts.Name} }
	}
	ns := opts.Namespace
	if !opts.Resource.Namespaced {
		ns = ""
	}
	rc := opts.Client.Resource(opts.Resource).Namespace(ns)
	if opts.MetadataOnly {
		rc = rc.MetadataOnly()
	}
	lw := listwatch.Options{
		Name:          opts.Name,
		LabelSelector: opts.LabelSelector,
		FieldSelector: opts.FieldSelector,
		Clock:         opts.Clock,
		Logger:        opts.Logger,
	}
	return func(sink fifo.Sink[*apiclient.Object]) Runner { return listwatch.New(rc, sink, lw) }
}

// noSource is the Source of an informer given nothing to build one from.
type noSource struct{ name string }

func (s noSource) Run(context.Context) error {
	return fmt.Errorf("informer %s: Options has no Source, nor a Client and Resource to build a Reflector from", s.name)
}
