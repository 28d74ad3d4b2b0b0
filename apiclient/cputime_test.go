//go:build unix

package apiclient_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU this process has spent, all threads, user and system: what
// the decode benchmarks divide by, since on a shared machine the wall time of a
// benchmark says as much about the neighbours as about the code.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
