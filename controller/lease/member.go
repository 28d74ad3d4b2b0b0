package lease

import (
	"errors"
	"log/slog"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// Member is what a replica that holds a Lease is configured with, in leader
// election and in sharding alike: the server, the namespace of the Leases,
// who it is, the three timings, its clock and its logger. Both packages'
// Configs embed it, so its fields read as theirs (cfg.Identity,
// cfg.LeaseDuration); each adds what is its own, the Lease's or the group's
// Name first.
//
// A Manager fills Client, and Clock and Logger when they are nil, with its own
// (Inherit).
type Member struct {
	// Client reaches the API server. Required.
	Client *apiclient.Client
	// Namespace holds the Lease or Leases; "" means the client's namespace.
	Namespace string
	// Identity is what this replica writes as holderIdentity. It must differ
	// from every other replica's; "" means DefaultIdentity(). Two processes
	// given one identity are told apart by the instance each writes, and act
	// one at a time.
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod default to 15 s, 10 s and
	// 2 s, and must satisfy Timings' rule, LeaseDuration > RenewDeadline >
	// RetryPeriod·JitterFactor: a holder must stop acting before anyone else
	// may count its Lease expired, and must get more than one try before it
	// stops. LeaseDuration is written in whole seconds, rounded up (Seconds);
	// another holder's duration is honoured up to twice this one (Observer).
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Clock is the time source; nil means the wall clock. Tests pass a fake one.
	Clock apiclient.Clock
	// Logger receives what the protocol does; nil logs nothing.
	Logger *slog.Logger
}

// Inherit returns m with the client of the process that runs it (a Manager's),
// always, and its clock and logger where m has none of its own (a test's fake
// clock for one elector alone, say).
func (m Member) Inherit(c *apiclient.Client, clock apiclient.Clock, log *slog.Logger) Member {
	m.Client = c
	if m.Clock == nil {
		m.Clock = clock
	}
	if m.Logger == nil {
		m.Logger = log
	}
	return m
}

// WithDefaults returns m with every default filled in, or an error saying
// what is missing or inconsistent (for the caller to prefix with its
// package's name).
func (m Member) WithDefaults() (Member, error) {
	if m.Client == nil {
		return m, errors.New("Config.Client is required")
	}
	if m.Namespace == "" {
		m.Namespace = m.Client.Namespace()
	}
	if m.Identity == "" {
		m.Identity = DefaultIdentity()
	}
	var err error
	if m.LeaseDuration, m.RenewDeadline, m.RetryPeriod, err = Timings(m.LeaseDuration, m.RenewDeadline, m.RetryPeriod); err != nil {
		return m, err
	}
	if m.Clock == nil {
		m.Clock = apiclient.RealClock{}
	}
	if m.Logger == nil {
		m.Logger = slog.New(slog.DiscardHandler)
	}
	return m, nil
}
