package controller

import (
	"time"

	"github.com/kubewire/kubewire/queue"
)

// Clock is the one time source of a process's controllers: it is a queue.Clock
// (the workqueue's delays and metrics, the shutdown timeout) and an
// apiclient.Clock (the informers' resyncs, their Reflectors' backoffs, leader
// election's waits). Give the same value to Options.Clock, ManagerOptions.Clock
// and apiclient.Options.Clock, and every wait in the process follows it.
// apiclient/apitest's Clock is the fake tests step; RealClock is the wall clock.
type Clock interface {
	queue.Clock
	// After is time.After, as apiclient.Clock has it.
	After(d time.Duration) <-chan time.Time
}

// RealClock is the wall clock for both halves: queue.RealClock's Now, Since and
// AfterFunc, and time.After. The zero value is ready to use.
type RealClock struct{ queue.RealClock }

// After is time.After.
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
