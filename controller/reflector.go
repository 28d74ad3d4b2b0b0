package controller

import (
	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/listwatch"
)

// reflector builds an informer's Reflector on rc with lw, the informer's own
// (informer.Options.ReflectorOptions: name, selectors, clock, logger, streaming or
// paged list), and what the Manager adds: every step to OnStep and, with a trace,
// as a Reflector Event.
func (m *Manager) reflector(rc apiclient.ResourceClient, lw listwatch.Options, sink fifo.Sink[*apiclient.Object]) informer.Runner {
	emit, onStep := m.opts.Trace, m.opts.OnStep
	if emit != nil || onStep != nil {
		lw.OnStep = func(s listwatch.Step) {
			if onStep != nil {
				onStep(s)
			}
			if emit != nil {
				emit(trace.Event{Stage: trace.Reflector, Verb: string(s.Op), Key: s.Key, Informer: lw.Name, Step: s})
			}
		}
	}
	return listwatch.New(rc, sink, lw)
}
