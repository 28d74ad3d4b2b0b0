package apitest

import "github.com/kubewire/kubewire/apiclient/clock"

// Clock is the module's one fake clock, clock.Fake, named here too because a
// test that builds a Server usually steps a clock beside it.
type Clock = clock.Fake

// NewClock returns clock.NewFake(): a Clock set to 2026-01-01 00:00:00 UTC.
func NewClock() *Clock { return clock.NewFake() }
