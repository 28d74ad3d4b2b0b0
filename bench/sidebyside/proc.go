package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// What the API server spends on a sync, read from /proc: its CPU time
// (utime + stime of /proc/PID/stat) before the program starts and after it exits,
// and its resident set (VmRSS of /proc/PID/status) sampled every 10 ms meanwhile,
// whose highest value less the value at the start is the sync's peak RSS growth.
// Sampling rather than the kernel's high-water mark (VmHWM, reset through
// /proc/PID/clear_refs) leaves the server as it is: it is shared, and other
// measurements may read that mark. A peak shorter than 10 ms may be missed.
//
// The server does other work meanwhile — etcd's watch, its own controllers, other
// clients of a shared server — and all of it is counted: the report gives the
// load average, and medians over alternating runs spread it over both programs.

// serverMeter measures one kube-apiserver process. The zero value (pid 0)
// measures nothing.
type serverMeter struct {
	pid int
}

// serverCost is what one run cost the server.
type serverCost struct {
	measured  bool
	cpu       time.Duration
	rssGrowth int64 // bytes: peak VmRSS during the run less VmRSS before it
}

// serverPID finds the kube-apiserver of a cluster from its up.sh directory
// (DIR/apiserver.pid, which apiserver.sh's exec keeps valid), or "" for none.
func serverPID(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, "apiserver.pid"))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	if _, err := procCPU(pid); err != nil {
		return 0
	}
	return pid
}

// start begins one measure; the function it returns ends it. The sampling
// goroutine is owned by that function: it stops and is waited for there.
func (m serverMeter) start() func() serverCost {
	if m.pid == 0 {
		return func() serverCost { return serverCost{} }
	}
	cpu0, err0 := procCPU(m.pid)
	rss0, err1 := procStatus(m.pid, "VmRSS")
	if err0 != nil || err1 != nil {
		return func() serverCost { return serverCost{} }
	}
	var mu sync.Mutex
	peak := rss0
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
			if rss, err := procStatus(m.pid, "VmRSS"); err == nil {
				mu.Lock()
				peak = max(peak, rss)
				mu.Unlock()
			}
		}
	}()
	return func() serverCost {
		close(quit)
		<-done
		cpu1, err := procCPU(m.pid)
		if err != nil {
			return serverCost{}
		}
		mu.Lock()
		defer mu.Unlock()
		return serverCost{measured: true, cpu: cpu1 - cpu0, rssGrowth: peak - rss0}
	}
}

// procStatus is one "VmXXX: N kB" field of /proc/PID/status, in bytes.
func procStatus(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// procCPU is utime + stime of pid, from /proc/PID/stat (in clock ticks of 10 ms:
// USER_HZ is 100 on Linux).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}
