//go:build !unix

package apiclient_test

import "time"

// cpuTime is not read here: the benchmarks report no CPU figures.
func cpuTime() time.Duration { return 0 }
