package leaderelection

import (
	"errors"
	"fmt"

	"github.com/kubewire/kubewire/controller/lease"
)

// Config says which Lease to compete for and how.
//
// The zero value is not usable: Client and Name are required. New reads the Config
// once and keeps its own copy.
type Config struct {
	// Member is the replica's server, namespace, identity, timings, clock and
	// logger (package lease documents each and its default). The elector logs
	// acquired, lost and released at Info, and every failed request to read
	// or write the Lease at Warn, Status.Failures counting them.
	lease.Member
	// Name is the Lease's; every replica of one controller must use the same.
	// The Lease is created if it does not exist.
	Name string

	// ReleaseOnCancel makes Run, once its ctx is done and the work it started has
	// returned, clear the holder so that a standby takes over at its next try
	// instead of waiting out the lease.
	ReleaseOnCancel bool

	// OnNewLeader, when set, is called with the holder's identity whenever Run sees
	// it change (this replica's own included), on Run's goroutine: it must not
	// block. It is not called when the lease is released (no holder).
	OnNewLeader func(identity string)
}

// ForLease is the Config of the usual case, in one call of one package: compete
// for the Lease named name in namespace as identity ("" for package lease's
// default, the host name and a random suffix), and hand the Lease over on a
// clean stop (ReleaseOnCancel). A controller.Manager given it
// (ManagerOptions.LeaderElection) fills in its client, clock and logger;
// timings are package lease's defaults — set them, or OnNewLeader, on the
// Config returned where they matter.
//
//	m, err := controller.NewManager(c, controller.ManagerOptions{LeaderElection: leaderelection.ForLease("ops", "kubewire-foo", "")})
func ForLease(namespace, name, identity string) *Config {
	return &Config{Member: lease.Member{Namespace: namespace, Identity: identity}, Name: name, ReleaseOnCancel: true}
}

// withDefaults returns cfg with every default filled in, or an error saying what is
// missing or inconsistent.
func (cfg Config) withDefaults() (Config, error) {
	var err error
	if cfg.Member, err = cfg.Member.WithDefaults(); err != nil {
		return cfg, fmt.Errorf("leaderelection: %w", err)
	}
	if cfg.Name == "" {
		return cfg, errors.New("leaderelection: Config.Name (the Lease's name) is required")
	}
	return cfg, nil
}
