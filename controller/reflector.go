package controller

import (
	"context"
	"errors"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/fifo"
)

// reflectorSource builds each informer's Reflector (package listwatch).
// TODO(listwatch): wire the Reflector here once package listwatch lands.
func reflectorSource(trace func(string)) func(InformerKey, apiclient.ResourceClient, fifo.Sink[*apiclient.Object]) Runner {
	return func(InformerKey, apiclient.ResourceClient, fifo.Sink[*apiclient.Object]) Runner { return notYet{} }
}

type notYet struct{}

func (notYet) Run(context.Context) error {
	return errors.New("the listwatch Reflector is not wired yet")
}
