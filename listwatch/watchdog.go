package listwatch

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// ErrWatchIdle is the error of a watch the watchdog dropped: nothing, not even a
// bookmark, came for the watch's timeout plus Options.IdleMargin. Health().LastError
// holds it after such a drop.
var ErrWatchIdle = errors.New("watch idle for too long: connection presumed dead")

// watchdog cancels a watch that has been silent for idle: it is the one liveness
// check of the watch layer (apiclient's Watcher has none). It runs on the
// reflector's Clock, so a test moves it with a fake clock, where a timer inside the
// HTTP client would need real time.
//
// Its goroutine is owned by the watch that started it: stop ends it and waits for
// it, and it never calls cancel after stop returns.
type watchdog struct {
	clock apiclient.Clock
	idle  atomic.Int64 // the silence it allows, in nanoseconds (setIdle)
	last  atomic.Int64 // UnixNano of the last sign of life
	fired atomic.Bool
	quit  chan struct{}
	done  chan struct{}
}

// startWatchdog arms the first timer before returning, so the watch's request goes
// out with the watchdog already counting.
func startWatchdog(clock apiclient.Clock, idle time.Duration, cancel context.CancelFunc) *watchdog {
	d := &watchdog{clock: clock, quit: make(chan struct{}), done: make(chan struct{})}
	d.idle.Store(int64(idle))
	d.last.Store(clock.Now().UnixNano())
	first := clock.After(idle)
	go d.run(first, cancel)
	return d
}

// touch records a sign of life at now. It costs an atomic store: it runs once per
// event.
func (d *watchdog) touch(now time.Time) { d.last.Store(now.UnixNano()) }

// setIdle changes the silence allowed from now on: a streaming list's initial
// events are allowed less than the watch after them. A longer idle takes effect
// when the timer armed for the shorter one fires and finds time left.
func (d *watchdog) setIdle(idle time.Duration) { d.idle.Store(int64(idle)) }

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
		idle := time.Duration(d.idle.Load())
		if quiet >= idle {
			d.fired.Store(true)
			cancel()
			return
		}
		timer = d.clock.After(idle - quiet)
	}
}

func (d *watchdog) stop() {
	close(d.quit)
	<-d.done
}
