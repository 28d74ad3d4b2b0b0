package apiclient

import (
	"context"
	"io"
)

// WriteInfo names one write of one object, as the client begins it: what
// an Observer's Write is told.
type WriteInfo struct {
	Verb        string // POST, PUT, PATCH or DELETE
	Resource    Resource
	Namespace   string // "" for a cluster-scoped object
	Name        string // "" for a POST of an object named by generateName
	Subresource string // "status", "scale", or "" for the object itself
}

// beginWrite tells the Observer's Write that a write begins, and returns what to
// call with the server's answer once it is over; a no-op when the Observer has
// no Write. One write is one call of a verb, whatever retries it makes inside.
func (r ResourceClient) beginWrite(ctx context.Context, verb, name, subresource string) func(*Object, error) {
	write := r.c.set.Load().observer.Write
	if write == nil {
		return func(*Object, error) {}
	}
	done := write(ctx, WriteInfo{Verb: verb, Resource: r.res, Namespace: r.ns, Name: name, Subresource: subresource})
	if done == nil {
		return func(*Object, error) {}
	}
	return done
}

// write sends a write whose answer is one object, and tells the Observer of it.
func (r ResourceClient) write(ctx context.Context, req request, name string, subresource []string) (*Object, error) {
	sub := ""
	if len(subresource) > 0 {
		sub = subresource[0]
	}
	done := r.beginWrite(ctx, req.verb, name, sub)
	obj, err := r.call(ctx, req)
	done(obj, err)
	return obj, err
}

// deleteAnswer reads what the server answered a DELETE with, for the Observer: the
// object (with its deletionTimestamp when finalizers hold it; as it was, with
// the resourceVersion of its deletion, when it is gone), or a Status naming it
// (kind Status, its details.uid), as the resource's storage chooses. The delete
// has succeeded whatever this finds: an answer that is not an object is nil,
// never an error.
func deleteAnswer(body io.Reader) *Object {
	data, err := io.ReadAll(limitBody(body, maxEvent))
	if err != nil {
		return nil
	}
	obj, err := DecodeObject(data)
	if err != nil {
		return nil
	}
	return obj
}
