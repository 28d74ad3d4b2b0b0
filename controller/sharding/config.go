package sharding

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubewire/kubewire/controller/lease"
)

// Config says which group of replicas this one joins, and how.
//
// The zero value is not usable: Client and Name are required. New reads the
// Config once and keeps its own copy.
type Config struct {
	// Member is the replica's server, namespace, identity, timings, clock and
	// logger (package lease documents each and its default), as for leader
	// election. Identity is this replica's name among the members (two given
	// one serve one at a time: the second waits, self.go). A member whose
	// Lease has not been renewed for RenewDeadline admits no new reconcile,
	// and the others take its ranges only after they have seen its Lease
	// unchanged for LeaseDuration. The Sharder logs membership changes,
	// hand-overs and waits at Info, failed Lease requests at Warn, a Lease
	// held by another process at Error.
	lease.Member
	// Name names the group: every replica of one controller uses the same, and
	// each holds the Lease "<Name>-shard-<identity>" in Namespace, labelled
	// kubewire.io/shard-group=<Name>.
	Name string
	// Key is what objects are sharded by: ByUID (the default) or ByNamespace.
	Key Key
}

// The label that finds a group's Leases and the annotation where each member
// writes the ranges it claims.
const (
	GroupLabel       = "kubewire.io/shard-group"
	RangesAnnotation = "kubewire.io/shard-ranges"
)

func (cfg Config) withDefaults() (Config, error) {
	var err error
	if cfg.Member, err = cfg.Member.WithDefaults(); err != nil {
		return cfg, fmt.Errorf("sharding: %w", err)
	}
	switch {
	case cfg.Name == "":
		return cfg, errors.New("sharding: Config.Name (the group's name) is required")
	case len(cfg.Name) > 63 || strings.Trim(cfg.Name, "abcdefghijklmnopqrstuvwxyz0123456789-.") != "":
		return cfg, fmt.Errorf("sharding: Config.Name %q must be a label value: at most 63 of a-z, 0-9, '-' and '.'", cfg.Name)
	}
	if cfg.Key == "" {
		cfg.Key = ByUID
	}
	if cfg.Key != ByUID && cfg.Key != ByNamespace {
		return cfg, fmt.Errorf("sharding: Config.Key %q is neither %s nor %s", cfg.Key, ByUID, ByNamespace)
	}
	return cfg, nil
}

// leaseName is the member's Lease: "<group>-shard-<identity>". An identity
// that is not a valid name as it stands (DefaultIdentity's underscore, a host
// name's capitals, too long) is lowercased, every other character a name may
// not hold made '-', and followed by 8 hex digits of its own hash: "Pod" and
// "pod" are two members and must not share one Lease. So is an identity that
// already ends the way such a name does, "-" and 8 hex digits: "Pod" becomes
// "pod-f406744c", and the identity "pod-f406744c" must not name that Lease too
// (issue 29: the two fought over it with 409s, each serving everything). Two
// identities can still meet on one name only through a collision of the 32-bit
// hash; the instance written in each Lease (self.go) catches that, as it
// catches two replicas given one identity.
func leaseName(group, identity string) string {
	prefix := group + "-shard-"
	b := []byte(strings.ToLower(identity))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			b[i] = '-'
		}
	}
	clean := strings.Trim(string(b), "-.")
	if clean == identity && len(prefix)+len(clean) <= 253 && !hashSuffixed(clean) {
		return prefix + clean
	}
	suffix := fmt.Sprintf("-%08x", uint32(Hash(identity)))
	if keep := 253 - len(prefix) - len(suffix); len(clean) > keep {
		clean = strings.TrimRight(clean[:keep], "-.")
	}
	return prefix + clean + suffix
}

// hashSuffixed reports whether name ends as leaseName's hashed names do: '-'
// and 8 lowercase hex digits.
func hashSuffixed(name string) bool {
	if len(name) < 9 || name[len(name)-9] != '-' {
		return false
	}
	return strings.Trim(name[len(name)-8:], "0123456789abcdef") == ""
}
