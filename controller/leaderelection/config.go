package leaderelection

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// The timings client-go's users (kube-controller-manager, kube-scheduler,
// controller-runtime) default to.
const (
	// DefaultLeaseDuration is how long a standby waits, after it last saw the
	// lease change, before it takes the lease over.
	DefaultLeaseDuration = 15 * time.Second
	// DefaultRenewDeadline is how long the leader keeps trying to renew before it
	// stops leading. The 5 s left of the lease duration are the time its work has to
	// stop before a standby may start.
	DefaultRenewDeadline = 10 * time.Second
	// DefaultRetryPeriod is the time between tries: renewals, and a standby's reads.
	DefaultRetryPeriod = 2 * time.Second
)

// JitterFactor stretches each of a standby's waits by up to this fraction of
// RetryPeriod (2 s becomes 2 s to 4.4 s), client-go's value: replicas started
// together drift apart instead of asking the server in lockstep.
const JitterFactor = 1.2

// Config says which Lease to compete for and how.
//
// The zero value is not usable: Client and Name are required. New reads the Config
// once and keeps its own copy.
type Config struct {
	// Client reaches the API server.
	Client *apiclient.Client
	// Namespace and Name locate the Lease; every replica of one controller must use
	// the same. Namespace "" means the client's namespace. The Lease is created if
	// it does not exist.
	Namespace, Name string
	// Identity is what this replica writes as holderIdentity. It must differ from
	// every other replica's; "" means DefaultIdentity().
	Identity string

	// LeaseDuration, RenewDeadline and RetryPeriod default to 15 s, 10 s and 2 s.
	// They must satisfy LeaseDuration > RenewDeadline > RetryPeriod·JitterFactor:
	// the leader must give up before anyone else may take over, and must get more
	// than one try before it gives up. LeaseDuration is written to the Lease in
	// whole seconds, rounded up (2.9 s is written as 3 s: truncated to 2 s, a
	// standby could take over before this leader's renew deadline).
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration

	// ReleaseOnCancel makes Run, once its ctx is done and the work it started has
	// returned, clear the holder so that a standby takes over at its next try
	// instead of waiting out the lease.
	ReleaseOnCancel bool

	// OnNewLeader, when set, is called with the holder's identity whenever Run sees
	// it change (this replica's own included), on Run's goroutine: it must not
	// block. It is not called when the lease is released (no holder).
	OnNewLeader func(identity string)

	// Clock is the time source; nil means the wall clock. Tests pass a fake one.
	Clock apiclient.Clock
	// Logger receives what the elector does (acquired, lost, released at Info;
	// every failed request to read or write the Lease at Warn, Status.Failures
	// counting them); nil logs nothing.
	Logger *slog.Logger
}

// DefaultIdentity returns the host name, an underscore and eight random hex
// digits ("web-7d9f_3fa1c2b4"): readable in kubectl get lease, and unique even when
// two replicas share a host name, as two containers in one pod would.
func DefaultIdentity() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "kubewire"
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail on supported platforms
	return host + "_" + hex.EncodeToString(b)
}

// withDefaults returns cfg with every default filled in, or an error saying what is
// missing or inconsistent.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Client == nil {
		return cfg, errors.New("leaderelection: Config.Client is required")
	}
	if cfg.Name == "" {
		return cfg, errors.New("leaderelection: Config.Name (the Lease's name) is required")
	}
	if cfg.Namespace == "" {
		cfg.Namespace = cfg.Client.Namespace()
	}
	if cfg.Identity == "" {
		cfg.Identity = DefaultIdentity()
	}
	var err error
	if cfg.LeaseDuration, cfg.RenewDeadline, cfg.RetryPeriod, err = Timings(cfg.LeaseDuration, cfg.RenewDeadline, cfg.RetryPeriod); err != nil {
		return cfg, fmt.Errorf("leaderelection: %w", err)
	}
	if cfg.Clock == nil {
		cfg.Clock = apiclient.RealClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg, nil
}

// Timings fills in the defaults of a Lease's three timings (0 means the
// default) and checks the rule between them: a LeaseDuration a Lease can
// express, and LeaseDuration > RenewDeadline > RetryPeriod·JitterFactor. The
// members of a sharded group (package sharding) renew their Leases by the
// same rule.
func Timings(lease, renew, retry time.Duration) (time.Duration, time.Duration, time.Duration, error) {
	lease, renew, retry = cmp.Or(lease, DefaultLeaseDuration), cmp.Or(renew, DefaultRenewDeadline), cmp.Or(retry, DefaultRetryPeriod)
	switch {
	case lease < time.Second:
		return lease, renew, retry, fmt.Errorf("LeaseDuration %s is under the 1 s a Lease can express", lease)
	case lease <= renew:
		return lease, renew, retry, fmt.Errorf("LeaseDuration %s must be longer than RenewDeadline %s", lease, renew)
	case retry <= 0:
		return lease, renew, retry, fmt.Errorf("RetryPeriod %s must be positive", retry)
	case float64(renew) <= JitterFactor*float64(retry):
		return lease, renew, retry, fmt.Errorf("RenewDeadline %s must be longer than RetryPeriod %s × %v", renew, retry, JitterFactor)
	}
	return lease, renew, retry, nil
}
