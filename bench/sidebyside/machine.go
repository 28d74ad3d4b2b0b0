package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
)

// machine is what the report says about where it ran. Everything is read from
// /proc and `go env`; what cannot be read is left empty.
type machine struct {
	cores  int
	cpu    string // /proc/cpuinfo's first "model name"
	memGiB float64
	kernel string
	goVer  string   // the toolchain that built both programs
	goEnv  []string // GOMAXPROCS, GOGC, GOMEMLIMIT, GODEBUG when set: both programs inherit them
}

func describeMachine(ctx context.Context) machine {
	m := machine{cores: runtime.NumCPU(), goVer: runtime.Version()}
	if out, err := exec.CommandContext(ctx, "go", "env", "GOVERSION").Output(); err == nil {
		m.goVer = strings.TrimSpace(string(out))
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				kib, _ := strconv.ParseFloat(f[1], 64)
				m.memGiB = kib / (1 << 20)
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.kernel = "Linux " + strings.TrimSpace(string(b))
	}
	for _, k := range []string{"GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GODEBUG"} {
		if v := os.Getenv(k); v != "" {
			m.goEnv = append(m.goEnv, k+"="+v)
		}
	}
	return m
}

func (m machine) String() string {
	parts := []string{fmt.Sprintf("%d cores (nproc)", m.cores)}
	if m.cpu != "" {
		parts = append(parts, m.cpu)
	}
	if m.memGiB > 0 {
		parts = append(parts, fmt.Sprintf("%.0f GiB", m.memGiB))
	}
	if m.kernel != "" {
		parts = append(parts, m.kernel)
	}
	parts = append(parts, m.goVer)
	if len(m.goEnv) > 0 {
		parts = append(parts, strings.Join(m.goEnv, " "))
	}
	return strings.Join(parts, ", ")
}

// loadAverage is /proc/loadavg's first three fields, or "?".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}
