// Package queuetest helps test code that uses package queue: a Clock that moves only
// when the test says so.
//
// Build the queue with queue.Config{Clock: c}, call AddAfter or AddRateLimited, then
// c.Step(d): when Step returns, every key due by then is in the queue. Nothing
// sleeps, and nothing waits for a goroutine to notice.
//
//	clock := queuetest.NewClock(time.Unix(0, 0))
//	q := queue.New(queue.Config[string]{Clock: clock})
//	q.AddAfter("default/web", time.Second)
//	clock.Step(time.Second)
//	// q.Len() == 1
//
// # Compared with client-go
//
// k8s.io/utils/clock/testing's FakeClock plays this part for client-go's workqueue.
// Its timers deliver on channels that the delaying queue's goroutine reads, so a test
// must poll until that goroutine has caught up; this clock calls AfterFunc callbacks
// inside Step instead, so there is nothing to poll for.
package queuetest
