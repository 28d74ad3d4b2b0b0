package listwatch

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// watchdog cancels a watch that has been silent for idle. It runs on the
// reflector's Clock, so a test moves it with a fake clock, where a timer inside the
// HTTP client would need real time. It is the one liveness check of a watch.
//
// Its goroutine is owned by the watch that started it: stop ends it and waits for
// it, and it never calls cancel after stop returns.
type watchdog struct {
	clock apiclient.Clock
	idle  time.Duration
	last  atomic.Int64 // UnixNano of the last sign of life
	fired atomic.Bool
	quit  chan struct{}
	done  chan struct{}
}

// startWatchdog arms the first timer before returning, so the watch's request goes
// out with the watchdog already counting.
func startWatchdog(clock apiclient.Clock, idle time.Duration, cancel context.CancelFunc) *watchdog {
	d := &watchdog{clock: clock, idle: idle, quit: make(chan struct{}), done: make(chan struct{})}
	d.last.Store(clock.Now().UnixNano())
	first := clock.After(idle)
	go d.run(first, cancel)
	return d
}

// touch records a sign of life at now. It costs an atomic store: it runs once per
// event.
func (d *watchdog) touch(now time.Time) { d.last.Store(now.UnixNano()) }

// run sleeps until idle after the last sign of life, rather than resetting a timer
// on every event: one timer per idle period, however busy the watch.
func (d *watchdog) run(timer <-chan time.Time, cancel context.CancelFunc) {
	defer close(d.done)
	for {
		select {
		case <-d.quit:
			return
		case <-timer:
		}
		quiet := d.clock.Now().Sub(time.Unix(0, d.last.Load()))
		if quiet >= d.idle {
			d.fired.Store(true)
			cancel()
			return
		}
		timer = d.clock.After(d.idle - quiet)
	}
}

func (d *watchdog) stop() {
	close(d.quit)
	<-d.done
}
