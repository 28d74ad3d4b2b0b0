package leaderelection

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/lease"
)

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
	// Identity is what this replica writes as holderIdentity. It should differ
	// from every other replica's ("" means lease.DefaultIdentity()); two
	// processes given one identity are told apart by the instance each writes
	// (package lease), and lead one at a time.
	Identity string

	// LeaseDuration, RenewDeadline and RetryPeriod default to 15 s, 10 s and 2 s,
	// and must satisfy lease.Timings' rule, LeaseDuration > RenewDeadline >
	// RetryPeriod·lease.JitterFactor: the leader must give up before anyone else
	// may take over, and must get more than one try before it gives up.
	// LeaseDuration is written to the Lease in whole seconds, rounded up
	// (lease.Seconds). Another holder's duration is honoured up to twice this
	// LeaseDuration (package lease says why).
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
		cfg.Identity = lease.DefaultIdentity()
	}
	var err error
	if cfg.LeaseDuration, cfg.RenewDeadline, cfg.RetryPeriod, err = lease.Timings(cfg.LeaseDuration, cfg.RenewDeadline, cfg.RetryPeriod); err != nil {
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
