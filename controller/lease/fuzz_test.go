package lease_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/lease"
)

// FuzzLease: whatever Lease the server (or a person with kubectl edit) stored, it is
// read or refused, never a panic; and what is read is written back (an Update, a
// renewal) as JSON that reads again to the same record, times to the microsecond.
//
//	go test ./controller/lease -run '^$' -fuzz '^FuzzLease$' -fuzztime 1000000x
func FuzzLease(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"kubewire-podrestart","namespace":"demo","resourceVersion":"812"},"spec":{"holderIdentity":"pod-a_3f9c","leaseDurationSeconds":15,"acquireTime":"2026-11-22T09:54:22.000000Z","renewTime":"2026-11-22T09:56:40.123456Z","leaseTransitions":3}}`,
		`{"spec":{"holderIdentity":"","renewTime":null,"acquireTime":"2026-11-22T09:54:22Z"}}`,
		`{"spec":{"renewTime":"2026-11-22T10:54:22.123456789+01:00","strategy":"OldestEmulationVersion","preferredHolder":"b"}}`,
		`{"spec":{"renewTime":"0000-01-01T00:00:00+01:00"}}`,
		`{"spec":{"leaseDurationSeconds":2147483648}}`,
		`{"spec":{"renewTime":15}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var l lease.Lease
		if err := apiclient.Unmarshal(data, &l); err != nil {
			return
		}
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatalf("read %q; cannot write it back: %v", data, err)
		}
		var back lease.Lease
		if err := apiclient.Unmarshal(b, &back); err != nil {
			t.Fatalf("read %q; written back as %s, it does not read: %v", data, b, err)
		}
		if !sameSpec(l.Spec, back.Spec) {
			t.Fatalf("read %+v; written back and read again: %+v", l.Spec, back.Spec)
		}
	})
}

func sameSpec(a, b lease.Spec) bool {
	return a.HolderIdentity == b.HolderIdentity && a.LeaseDurationSeconds == b.LeaseDurationSeconds &&
		a.LeaseTransitions == b.LeaseTransitions && a.Strategy == b.Strategy && a.PreferredHolder == b.PreferredHolder &&
		sameMicro(a.AcquireTime, b.AcquireTime) && sameMicro(a.RenewTime, b.RenewTime)
}

// sameMicro: equal to the microsecond (what the server keeps); nil and zero alike,
// since a zero time is written as null.
func sameMicro(a, b *lease.MicroTime) bool {
	var ta, tb lease.MicroTime
	if a != nil {
		ta = *a
	}
	if b != nil {
		tb = *b
	}
	return ta.Truncate(1000).Equal(tb.Truncate(1000))
}

// FuzzObserver: whatever object a LIST of Leases holds, an Observer makes a
// Sighting of it, never a panic and never an error of the read: decoded, or
// judged by its resourceVersion; the duration it honours is positive and at
// most twice its own.
//
//	go test ./controller/lease -run '^$' -fuzz '^FuzzObserver$' -fuzztime 1000000x
func FuzzObserver(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"g-shard-a","namespace":"ops","resourceVersion":"9"},"spec":{"holderIdentity":"a","leaseDurationSeconds":3600,"renewTime":"2026-11-22T09:56:40.123456Z"}}`,
		`{"metadata":{"name":"g-shard-x","resourceVersion":"10"},"spec":{"holderIdentity":"x","renewTime":"yesterday"}}`,
		`{"metadata":{"name":"x"},"spec":{"leaseDurationSeconds":-5}}`,
		`{"metadata":{"name":"x"},"spec":[]}`,
	} {
		f.Add([]byte(s))
	}
	const own = 15 * time.Second
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := apiclient.DecodeObject(data)
		if err != nil {
			return
		}
		o := lease.NewObserver(own, nil)
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for range 2 {
			s := o.SeeObject(obj, now)
			if s.Lease == nil || s.Honoured <= 0 || s.Honoured > 2*own || s.Since.After(now) {
				t.Fatalf("%q: sighting %+v", data, s)
			}
			_ = s.Held(now)
			now = now.Add(time.Second)
		}
	})
}
