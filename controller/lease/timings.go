package lease

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"
)

// The timings client-go's users (kube-controller-manager, kube-scheduler,
// controller-runtime) default to, for leader election and sharding alike.
const (
	// DefaultLeaseDuration is how long an observer waits, after it last saw a
	// Lease change, before it counts the Lease expired.
	DefaultLeaseDuration = 15 * time.Second
	// DefaultRenewDeadline is how long a holder keeps trying to renew before it
	// stops acting. The 5 s left of the lease duration are the time its work has
	// to stop before anyone else may start.
	DefaultRenewDeadline = 10 * time.Second
	// DefaultRetryPeriod is the time between tries: renewals, and an observer's
	// reads.
	DefaultRetryPeriod = 2 * time.Second
)

// JitterFactor stretches each of a waiting candidate's waits by up to this
// fraction of RetryPeriod (2 s becomes 2 s to 4.4 s), client-go's value:
// replicas started together drift apart instead of asking the server in
// lockstep.
const JitterFactor = 1.2

// Timings fills in the defaults of a Lease's three timings (0 means the
// default) and checks the rule between them: a LeaseDuration a Lease can
// express, and LeaseDuration > RenewDeadline > RetryPeriod·JitterFactor — a
// holder must stop acting before anyone may count its Lease expired, and must
// get more than one try before it stops. Leader election and sharding both
// take their timings through it.
func Timings(lease, renew, retry time.Duration) (time.Duration, time.Duration, time.Duration, error) {
	lease, renew, retry = cmp.Or(lease, DefaultLeaseDuration), cmp.Or(renew, DefaultRenewDeadline), cmp.Or(retry, DefaultRetryPeriod)
	switch {
	case lease < time.Second:
		return lease, renew, retry, fmt.Errorf("LeaseDuration %s is under the 1 s a Lease can express", lease)
	case lease > maxDuration:
		return lease, renew, retry, fmt.Errorf("LeaseDuration %s is over the %s a Lease can express", lease, maxDuration)
	case lease <= renew:
		return lease, renew, retry, fmt.Errorf("LeaseDuration %s must be longer than RenewDeadline %s", lease, renew)
	case retry <= 0:
		return lease, renew, retry, fmt.Errorf("RetryPeriod %s must be positive", retry)
	case float64(renew) <= JitterFactor*float64(retry):
		return lease, renew, retry, fmt.Errorf("RenewDeadline %s must be longer than RetryPeriod %s × %v", renew, retry, JitterFactor)
	}
	return lease, renew, retry, nil
}

// maxDuration is the longest leaseDurationSeconds an int32 holds.
const maxDuration = (1<<31 - 1) * time.Second

// Seconds is d as a Lease writes it, in whole seconds rounded UP: an observer
// must never count a Lease expired sooner than its holder's LeaseDuration, or
// it could start before the holder's renew deadline. Truncating 2.9 s to 2 s
// (what leader election did) let a standby take over half a second before a
// cut-off leader stopped.
func Seconds(d time.Duration) int32 {
	s := d / time.Second
	if d%time.Second > 0 {
		s++
	}
	return int32(min(s, maxDuration/time.Second))
}

// DefaultIdentity returns the host name, an underscore and eight random hex
// digits ("web-7d9f_3fa1c2b4"): readable in kubectl get lease, and unique even when
// two replicas share a host name, as two containers in one pod would.
func DefaultIdentity() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "kubewire"
	}
	return host + "_" + random(4)
}

// random is n random bytes in hex.
func random(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail on supported platforms
	return hex.EncodeToString(b)
}
