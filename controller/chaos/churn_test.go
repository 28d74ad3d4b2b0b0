package chaos_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// churn writes pods straight to the apiserver (never through the proxy): creates,
// label updates and deletes, drawn from a seeded source over a pool of names, so a
// name is created, changed, deleted and created again. Every op is retried until the
// server has done it: errors while the server is down or starting are expected and
// counted. An op whose answer was lost may already have happened; a create that
// finds the pod (AlreadyExists) or a delete that does not (NotFound) is done.
//
// Owned by one goroutine; read the counts after run returns.
type churn struct {
	rc     apiclient.ResourceClient
	rand   *rand.Rand
	names  []string
	live   map[string]bool
	every  time.Duration // pace: one op at most this often
	before func(op int)  // called before op number op (0-based): the fault schedule

	creates, updates, deletes int
	retries                   int // failed attempts, retried
	lastWrite                 time.Time
}

const (
	poolSize       = 300 // names to draw from
	lowLive        = 20  // below this many live pods, create
	highLive       = 150 // above, delete
	churnPace      = 6 * time.Millisecond
	retryWait      = 50 * time.Millisecond
	opGivesUpAfter = 60 * time.Second
)

func newChurn(rc apiclient.ResourceClient, seed uint64, before func(int)) *churn {
	c := &churn{rc: rc, rand: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), live: map[string]bool{}, every: churnPace, before: before}
	for i := range poolSize {
		c.names = append(c.names, fmt.Sprintf("pod-%03d", i))
	}
	return c
}

// run performs n ops, paced, and returns the first op that could not be done
// within opGivesUpAfter (or ctx's error).
func (c *churn) run(ctx context.Context, n int) error {
	tick := time.NewTicker(c.every)
	defer tick.Stop()
	for op := range n {
		c.before(op)
		if err := c.one(ctx, op); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}

// one draws an op and does it.
func (c *churn) one(ctx context.Context, op int) error {
	live := c.liveNames()
	roll := c.rand.IntN(100)
	switch {
	case len(live) < lowLive || (len(live) < highLive && roll < 35):
		name := c.deadName()
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"labels":{"op":"%d"}},"spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}}`, name, op)
		c.creates++
		c.live[name] = true
		return c.retry(ctx, "create "+name, func() error {
			_, err := c.rc.Create(ctx, []byte(body), apiclient.WriteOptions{})
			if apiclient.IsAlreadyExists(err) {
				return nil
			}
			return err
		})
	case len(live) > highLive || roll >= 75:
		name := live[c.rand.IntN(len(live))]
		c.deletes++
		delete(c.live, name)
		return c.retry(ctx, "delete "+name, func() error {
			err := c.rc.Delete(ctx, name, apiclient.DeleteOptions{GracePeriodSeconds: new(int64)})
			if apiclient.IsNotFound(err) {
				return nil
			}
			return err
		})
	}
	name := live[c.rand.IntN(len(live))]
	patch := fmt.Sprintf(`{"metadata":{"labels":{"op":"%d"}}}`, op)
	c.updates++
	return c.retry(ctx, "update "+name, func() error {
		_, err := c.rc.Patch(ctx, name, apiclient.MergePatch, []byte(patch), apiclient.WriteOptions{})
		return err
	})
}

// retry runs do until it succeeds, waiting retryWait between attempts.
func (c *churn) retry(ctx context.Context, what string, do func() error) error {
	giveUp := time.Now().Add(opGivesUpAfter)
	for {
		err := do()
		if err == nil {
			c.lastWrite = time.Now()
			return nil
		}
		if time.Now().After(giveUp) {
			return fmt.Errorf("churn: %s: still failing after %s: %w", what, opGivesUpAfter, err)
		}
		c.retries++
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(retryWait):
		}
	}
}

// liveNames lists the live pods in pool order, so that draws are repeatable.
func (c *churn) liveNames() []string {
	var out []string
	for _, n := range c.names {
		if c.live[n] {
			out = append(out, n)
		}
	}
	return out
}

// deadName draws a name that is not live.
func (c *churn) deadName() string {
	for {
		if n := c.names[c.rand.IntN(len(c.names))]; !c.live[n] {
			return n
		}
	}
}

func (c *churn) ops() int { return c.creates + c.updates + c.deletes }
