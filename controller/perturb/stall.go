package perturb

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"time"
)

// An execution's driver waits in synctest.Wait until every goroutine of its
// bubble is durably blocked: on a channel, a select, a timer of the bubble.
// A goroutine blocked on anything else — a sync.Mutex, a channel made outside
// the bubble, a system call — keeps the bubble from ever being idle, and fake
// time stands still with it, so no deadline inside the bubble can end the
// wait. (A controller that deadlocks on a mutex does that; so did a worker
// this package held while the controller kept its trace lock.)
//
// So a watchdog stands outside the bubble, on the real clock: when an
// execution's driver has not moved for stallBound, it panics, naming the
// execution and the goroutines of the bubble that are not durably blocked. A
// panic, because nothing outside a bubble can wake a goroutine inside it: the
// test binary ends with the reason, not at the 10-minute test timeout.

// stallBound is how long, in real time, a driver may go without moving: far
// more than a step takes under -race on a loaded machine (milliseconds).
var stallBound = time.Minute

// watchdog watches moves, which the driver adds to each time it takes a
// turn, until stop is called.
func watchdog(id string, moves *atomic.Int64) (stop func()) {
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(stallBound / 4)
		defer tick.Stop()
		last, since := moves.Load(), time.Now()
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				if n := moves.Load(); n != last {
					last, since = n, now
				} else if now.Sub(since) >= stallBound {
					panic(stalled(id))
				}
			}
		}
	}()
	return func() { close(done) }
}

// stalled is the watchdog's message: what stopped, and the stacks of the
// bubble's goroutines that synctest.Wait does not count as blocked.
func stalled(id string) string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var stuck []string
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		head, _, _ := strings.Cut(string(g), "\n")
		if strings.Contains(head, "synctest bubble") && !strings.Contains(head, "durable") {
			stuck = append(stuck, string(g))
		}
	}
	return fmt.Sprintf("perturb: execution %s stalled: its driver has not moved for %s of real time, "+
		"waiting for goroutines blocked where synctest.Wait does not count them as blocked (a sync.Mutex held "+
		"for good, a channel made outside the bubble); %d such goroutine(s):\n\n%s",
		id, stallBound, len(stuck), strings.Join(stuck, "\n\n"))
}
