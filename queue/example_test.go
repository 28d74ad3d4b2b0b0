package queue_test

import (
	"fmt"
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/queue"
)

// A worker reconciles what event handlers added. Three events for default/web before
// the worker gets to it cost one reconcile.
func Example() {
	q := queue.New(queue.Config[string]{})

	// Event handlers: they only say which object changed.
	q.Add("default/web")
	q.Add("default/db")
	q.Add("default/web")
	q.Add("default/web")

	stopped := make(chan struct{})
	go func() { // the worker
		defer close(stopped)
		for {
			key, quit := q.Get() // blocks until there is a key, or the queue is shut down and empty
			if quit {
				return
			}
			fmt.Println("reconcile", key) // look the object up in the store by key, act on it
			q.Forget(key)                 // it worked: a later failure backs off from the start
			q.Done(key)                   // always: until then no other worker may take key
		}
	}()

	q.ShutDownWithDrain() // returns when every queued key has been reconciled
	<-stopped
	// Output:
	// reconcile default/web
	// reconcile default/db
}

// Adding a key that is already waiting does nothing: the queue holds keys, not events.
func ExampleQueue_Add() {
	q := queue.New(queue.Config[string]{})
	q.Add("default/web")
	q.Add("default/web")
	q.Add("default/db")
	fmt.Println("queued:", q.Len())
	// Output:
	// queued: 2
}

// A key added while a worker holds it waits until that worker is Done, then comes
// out again, so the change that caused the second Add is not lost and no two workers
// ever reconcile the same object at once.
func ExampleQueue_Done() {
	q := queue.New(queue.Config[string]{})
	q.Add("default/web")
	key, _ := q.Get()
	fmt.Println("worker 1 holds", key)

	q.Add("default/web") // the object changed again meanwhile
	fmt.Println("queued while held:", q.Len())

	q.Done(key)
	fmt.Println("queued after Done:", q.Len())
	key, _ = q.Get()
	fmt.Println("worker 2 holds", key)
	// Output:
	// worker 1 holds default/web
	// queued while held: 0
	// queued after Done: 1
	// worker 2 holds default/web
}

// A key that keeps failing comes back later each time; once it succeeds, Forget
// resets its backoff. The fake clock stands in for time passing.
func ExampleQueue_AddRateLimited() {
	clock := clock.NewFake()
	q := queue.New(queue.Config[string]{Clock: clock})
	q.Add("default/web")

	for attempt := 1; attempt <= 5; attempt++ {
		key, _ := q.Get()
		if attempt < 5 {
			q.AddRateLimited(key) // reconcile failed: retry later
			q.Done(key)
			waited := time.Duration(0)
			for q.Len() == 0 { // let time pass until the retry is due
				clock.Step(time.Millisecond)
				waited += time.Millisecond
			}
			fmt.Printf("attempt %d failed; retried after %v\n", attempt, waited)
			continue
		}
		q.Forget(key) // reconcile succeeded
		q.Done(key)
		fmt.Printf("attempt %d succeeded; requeues remembered: %d\n", attempt, q.NumRequeues(key))
	}
	// Output:
	// attempt 1 failed; retried after 5ms
	// attempt 2 failed; retried after 10ms
	// attempt 3 failed; retried after 20ms
	// attempt 4 failed; retried after 40ms
	// attempt 5 succeeded; requeues remembered: 0
}

// After a restart every listed object is a key at low priority; a real change
// goes first, even to a key that was already waiting.
func ExampleQueue_AddLowPriority() {
	q := queue.New(queue.Config[string]{})
	for _, key := range []string{"default/a", "default/b", "default/c"} {
		q.AddLowPriority(key) // the informer's initial list
	}
	q.Add("default/c") // c changed: it moves up
	for q.Len() > 0 {
		key, _ := q.Get()
		fmt.Print(key, " ")
		q.Done(key)
	}
	// Output: default/c default/a default/b
}
