package controller

import (
	"log/slog"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/listwatch"
)

// reflectorSource builds each informer's Reflector: LIST and watch with the
// informer's selectors, writing into the informer's FIFO (through its
// Transform: sink is the informer's entry to the FIFO). Every step goes to
// onStep when set, and with a trace is one "listwatch …" line; what it logs goes
// to log, the Manager's logger.
func reflectorSource(log *slog.Logger, trace func(string), onStep func(listwatch.Step), watchList bool) func(InformerKey, apiclient.ResourceClient, fifo.Sink[*apiclient.Object]) informer.Runner {
	return func(key InformerKey, rc apiclient.ResourceClient, sink fifo.Sink[*apiclient.Object]) informer.Runner {
		opts := listwatch.Options{
			Name:          key.Resource,
			LabelSelector: key.LabelSelector,
			FieldSelector: key.FieldSelector,
			WatchList:     watchList,
			Logger:        log,
		}
		if trace != nil || onStep != nil {
			opts.OnStep = func(s listwatch.Step) {
				if onStep != nil {
					onStep(s)
				}
				if trace != nil {
					trace("listwatch " + s.String())
				}
			}
		}
		return listwatch.New(rc, sink, opts)
	}
}
