package kubeconfig

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// errMissing is the reason for a required field that is absent or empty.
var errMissing = errors.New("missing")

// resolve follows the chosen context to its cluster and user and builds the Config:
//
//	context "kind-kind" ─▶ cluster "kind-kind" (server, TLS, proxy)
//	                    └▶ user "kind-kind"    (token, certificate, exec, ...)
//
// contextName overrides current-context when not empty. Only these three entries are
// decoded; every problem found is an *Error naming the file, the entry and the field.
//
// Cost: decodes three small YAML subtrees and reads the files they name (CA,
// certificates, token file); never runs an exec plugin.
func (s *set) resolve(contextName string) (*Config, error) {
	all := strings.Join(s.sources, string(os.PathListSeparator))
	name, source := contextName, all
	if name == "" {
		if s.currentContext == "" {
			return nil, &Error{Source: all, Err: errors.New("no current-context is set; choose a context with --context")}
		}
		name, source = s.currentContext, s.currentSource
	}
	ctx, ok := s.contexts[name]
	if !ok {
		return nil, &Error{Source: source, Entry: entryName("context", name), Err: errors.New("not found")}
	}

	cfg := &Config{Context: name, Source: ctx.source}
	ctxErr := func(field string, err error) error {
		return &Error{Source: ctx.source, Entry: entryName("context", name), Field: field, Err: err}
	}
	bad, err := decodeFields(ctx.body, []field{
		{"cluster", str(&cfg.Cluster)},
		{"user", str(&cfg.User)},
		{"namespace", str(&cfg.Namespace)},
	})
	if err != nil {
		return nil, ctxErr(bad, err)
	}
	if cfg.Namespace == "" {
		cfg.Namespace = "default"
	}

	// The cluster is required: without it there is no server to talk to.
	if cfg.Cluster == "" {
		return nil, ctxErr("cluster", errMissing)
	}
	cluster, ok := s.clusters[cfg.Cluster]
	if !ok {
		return nil, ctxErr("cluster", fmt.Errorf("no cluster named %q", cfg.Cluster))
	}
	ext, err := readCluster(cfg, cluster)
	if err != nil {
		return nil, err
	}

	// The user is optional: a context without one talks to the server anonymously,
	// as kubectl does. A named user that does not exist is a mistake, though.
	if cfg.User == "" {
		return cfg, nil
	}
	user, ok := s.users[cfg.User]
	if !ok {
		return nil, ctxErr("user", fmt.Errorf("no user named %q", cfg.User))
	}
	if err := readUser(cfg, user, ext); err != nil {
		return nil, err
	}
	return cfg, nil
}
