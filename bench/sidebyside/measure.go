package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The two programs, by the names the report uses.
const (
	kubewire = "kubewire"
	clientgo = "client-go"
	stripped = "client-go stripped" // with the managedFields-stripping transform (-strip-managed-fields)
	floor    = "LIST floor"         // one plain LIST (floor.go)
)

// A sample is one run of one program: what the kernel says it cost and what it
// says it did.
type sample struct {
	prog   string // kubewire or clientgo
	mode   string // the sync phase's way of listing (modes); "" elsewhere
	warmup bool   // left out of the medians

	wall time.Duration // start to exit, as seen from here
	cpu  time.Duration // ru_utime + ru_stime
	rss  int64         // peak resident set in bytes (ru_maxrss)

	// What the API server spent meanwhile (proc.go), when its process is known.
	server serverCost

	// From "synced N objects in T; heap after GC X MiB".
	objects  int
	syncTook time.Duration
	heapMiB  float64
	// From "N events after sync in T"; zero without --until-events.
	events     int
	eventsTook time.Duration

	dump      []byte // stdout: the --dump lines, when asked for
	dumpSum   [32]byte
	dumpLines int
}

// eventsPerSec is the rate at which the program's handler saw the events after
// its sync: what issue 9 calls watch-event throughput.
func (s sample) eventsPerSec() float64 {
	if s.eventsTook <= 0 {
		return 0
	}
	return float64(s.events) / s.eventsTook.Seconds()
}

// The two lines both programs print on stderr (see doc.go).
var (
	syncedLine = regexp.MustCompile(`(?m)^synced (\d+) objects in (\S+); heap after GC ([0-9.]+) MiB$`)
	eventsLine = regexp.MustCompile(`(?m)^(\d+) events after sync in (\S+)$`)
)

// measure runs argv once, directly (no shell: the rusage must be the program's
// own), and reads its stderr; srv measures the API server meanwhile. A failed run,
// or one that printed no "synced" line, is an error carrying the end of its
// stderr: a measurement with a hole in it is no measurement.
func measure(ctx context.Context, prog string, argv []string, timeout time.Duration, srv serverMeter) (sample, error) {
	s := sample{prog: prog}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	stop := srv.start()
	start := time.Now()
	err := cmd.Run()
	s.wall = time.Since(start)
	s.server = stop()
	switch {
	case ctx.Err() != nil:
		return s, fmt.Errorf("%s: %w", strings.Join(argv, " "), ctx.Err())
	case runCtx.Err() != nil:
		return s, fmt.Errorf("%s: killed after -timeout %v\n%s", strings.Join(argv, " "), timeout, tail(stderr.String(), 10))
	case err != nil:
		return s, fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, tail(stderr.String(), 10))
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return s, fmt.Errorf("no rusage on %s", runtime.GOOS)
	}
	s.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	s.rss = ru.Maxrss * 1024 // KiB on Linux
	if runtime.GOOS == "darwin" {
		s.rss = ru.Maxrss // bytes there
	}
	if err := s.parse(stderr.String()); err != nil {
		return s, fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, tail(stderr.String(), 10))
	}
	s.dump = stdout.Bytes()
	s.dumpSum = sha256.Sum256(s.dump)
	s.dumpLines = bytes.Count(s.dump, []byte("\n"))
	return s, nil
}

// parse fills the sample from the program's stderr.
func (s *sample) parse(stderr string) error {
	m := syncedLine.FindStringSubmatch(stderr)
	if m == nil {
		return fmt.Errorf(`no "synced N objects in T; heap after GC X MiB" line on stderr`)
	}
	var err error
	if s.objects, err = strconv.Atoi(m[1]); err != nil {
		return err
	}
	if s.syncTook, err = time.ParseDuration(m[2]); err != nil {
		return err
	}
	if s.heapMiB, err = strconv.ParseFloat(m[3], 64); err != nil {
		return err
	}
	if m := eventsLine.FindStringSubmatch(stderr); m != nil {
		if s.events, err = strconv.Atoi(m[1]); err != nil {
			return err
		}
		if s.eventsTook, err = time.ParseDuration(m[2]); err != nil {
			return err
		}
	}
	return nil
}

// String is the one progress line a run leaves on stderr.
func (s sample) String() string {
	line := fmt.Sprintf("%-9s %-13s wall %6.2fs  cpu %6.2fs  rss %7.1f MiB  heap %6.1f MiB  %d objects synced in %v",
		s.prog, s.mode, s.wall.Seconds(), s.cpu.Seconds(), mib(s.rss), s.heapMiB, s.objects, s.syncTook.Round(time.Millisecond))
	if s.server.measured {
		line += fmt.Sprintf("  server cpu %.2fs rss +%.1f MiB", s.server.cpu.Seconds(), mib(s.server.rssGrowth))
	}
	if s.events > 0 {
		line += fmt.Sprintf("  %d events in %v (%.0f/s)", s.events, s.eventsTook.Round(time.Millisecond), s.eventsPerSec())
	}
	return line
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// tail is the last n lines of s, for error messages.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
