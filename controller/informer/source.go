package informer

import (
	"context"
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/listwatch"
)

// source is what fills the FIFO when Options.Source is nil: a listwatch Reflector
// on Options.ResourceClient with Options.ReflectorOptions. Without a Client or a
// Resource there is nothing to list: the Runner returned fails Run with an error
// that says so, rather than New panicking.
func source(opts Options) func(fifo.Sink[*apiclient.Object]) Runner {
	if opts.Source != nil {
		return opts.Source
	}
	if opts.Client == nil || opts.Resource.Name == "" {
		return func(fifo.Sink[*apiclient.Object]) Runner { return noSource{opts.Name} }
	}
	rc, lw := opts.ResourceClient(), opts.ReflectorOptions()
	return func(sink fifo.Sink[*apiclient.Object]) Runner { return listwatch.New(rc, sink, lw) }
}

// ResourceClient is what the default Source lists and watches: Client's client
// for Resource, in Namespace (in all namespaces for a cluster-scoped resource),
// asking for PartialObjectMetadata when MetadataOnly is set. controller.Manager
// builds its informers' Reflectors on it too.
func (o Options) ResourceClient() apiclient.ResourceClient {
	ns := o.Namespace
	if !o.Resource.Namespaced {
		ns = ""
	}
	rc := o.Client.Resource(o.Resource).Namespace(ns)
	if o.MetadataOnly {
		rc = rc.MetadataOnly()
	}
	return rc
}

// ReflectorOptions are the listwatch.Options of the default Source's Reflector:
// the informer's name, selectors, clock and logger, its List method with the
// Client's ServerVersion to choose by, and listwatch's defaults for the rest.
// controller.Manager starts from them too.
func (o Options) ReflectorOptions() listwatch.Options {
	lw := listwatch.Options{
		Name:          o.Name,
		LabelSelector: o.LabelSelector,
		FieldSelector: o.FieldSelector,
		Clock:         o.Clock,
		Logger:        o.Logger,
		List:          o.List,
	}
	if o.Client != nil {
		lw.ServerVersion = o.Client.ServerVersion
	}
	return lw
}

// noSource is the Source of an informer given nothing to build one from.
type noSource struct{ name string }

func (s noSource) Run(context.Context) error {
	return fmt.Errorf("informer %s: Options has no Source, nor a Client and Resource to build a Reflector from", s.name)
}
