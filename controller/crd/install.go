package crd

import (
	"context"
	"fmt"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// InstallOptions say how Install writes and how long it waits. The zero value
// is field manager "kubewire", a minute, the wall clock.
type InstallOptions struct {
	FieldManager string
	Timeout      time.Duration
	Clock        apiclient.Clock // for tests: clock.Fake (package apiclient/clock)
}

// Install applies crd (server-side apply, forced: the caller owns its CRD) and
// waits until the server serves its resource, for at most opts.Timeout:
//
//  1. the CRD's conditions NamesAccepted and Established are True: its names
//     are free and its storage is ready;
//  2. a LIST of each served version is answered. On a real server the
//     handler comes a moment after Established, and a request in between is
//     a 404; a LIST answered is the thing itself.
//
// It polls, 10 ms apart doubling to a second: the conditions come within a
// second on a healthy server, and the wait is short and bounded. It fails
// with one line naming the CRD and what it lacked ("crd x.example.com:
// Established is False (Installing: …) after 1m0s").
//
// Re-applying a changed CRD returns as soon as the old version serves: the
// conditions carry no generation to tell the new schema from the old, and the
// server swaps its handler a moment later.
func Install(ctx context.Context, c *apiclient.Client, crd *CustomResourceDefinition, opts InstallOptions) error {
	if opts.FieldManager == "" {
		opts.FieldManager = "kubewire"
	}
	if opts.Timeout == 0 {
		opts.Timeout = time.Minute
	}
	if opts.Clock == nil {
		opts.Clock = apiclient.RealClock{}
	}
	crds := c.Resource(apiclient.CRDs)
	if _, err := crds.Apply(ctx, crd, apiclient.WriteOptions{FieldManager: opts.FieldManager, Force: true}); err != nil {
		return fmt.Errorf("crd %s: apply: %w", crd.Name, err)
	}
	deadline := opts.Clock.Now().Add(opts.Timeout)
	wait := 10 * time.Millisecond
	for {
		lacks, err := served(ctx, c, crd)
		if lacks == "" && err == nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("crd %s: %w", crd.Name, err)
		}
		if !opts.Clock.Now().Before(deadline) {
			return fmt.Errorf("crd %s: %s after %v", crd.Name, lacks, opts.Timeout)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("crd %s: %s when the wait was cancelled: %w", crd.Name, lacks, ctx.Err())
		case <-opts.Clock.After(min(wait, deadline.Sub(opts.Clock.Now()))):
		}
		wait = min(2*wait, time.Second)
	}
}

// served says what crd lacks to be served, "" when nothing; an error is one
// that waiting will not cure.
func served(ctx context.Context, c *apiclient.Client, crd *CustomResourceDefinition) (lacks string, err error) {
	got, err := c.Resource(apiclient.CRDs).Get(ctx, crd.Name)
	if err != nil {
		return "", fmt.Errorf("read it back: %w", err)
	}
	conds, _ := got.Field("status", "conditions")
	for _, want := range []string{"NamesAccepted", "Established"} {
		if status, why := condition(conds, want); status != "True" {
			return fmt.Sprintf("%s is %s%s", want, status, why), nil
		}
	}
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		res := apiclient.Resource{Group: crd.Spec.Group, Version: v.Name, Name: crd.Spec.Names.Plural,
			Kind: crd.Spec.Names.Kind, Namespaced: crd.Spec.Scope == "Namespaced"}
		if _, err := c.Resource(res).List(ctx, apiclient.ListOptions{Limit: 1}); apiclient.IsNotFound(err) {
			return fmt.Sprintf("Established, but a LIST of %s/%s is still 404", res.GroupVersion(), res.Name), nil
		} else if err != nil {
			return "", fmt.Errorf("list %s/%s: %w", res.GroupVersion(), res.Name, err)
		}
	}
	return "", nil
}

// condition finds the condition of type want among conds (the status's
// conditions, decoded): its status ("missing" when absent) and, unless True,
// " (reason: message)".
func condition(conds any, want string) (status, why string) {
	list, _ := conds.([]any)
	for _, c := range list {
		m, _ := c.(map[string]any)
		if m["type"] != want {
			continue
		}
		status, _ = m["status"].(string)
		if status != "True" {
			why = fmt.Sprintf(" (%v: %v)", m["reason"], m["message"])
		}
		return status, why
	}
	return "missing", ""
}
