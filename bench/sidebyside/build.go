package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// binaries are the two programs under test, built for this run.
type binaries struct {
	kubewire, clientgo         string // paths, absolute
	kubewireSize, clientgoSize int64  // bytes
	commit                     string // kubewire's `git describe --always --dirty`, or "unknown"
}

// build compiles both programs the same way — plain `go build -o`, no -ldflags,
// no -trimpath — so their sizes compare: kubewire from the repository root (the
// main module; bench's go.mod is not involved), clientgo from ./clientgo (this
// module, with client-go).
func build(ctx context.Context) (binaries, error) {
	var b binaries
	abs, err := filepath.Abs("bin")
	if err != nil {
		return b, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return b, err
	}
	b.kubewire, b.clientgo = filepath.Join(abs, "kubewire"), filepath.Join(abs, "clientgo")
	fmt.Fprintln(os.Stderr, "sidebyside: building bin/kubewire and bin/clientgo")
	if err := goBuild(ctx, "..", b.kubewire, "."); err != nil {
		return b, err
	}
	if err := goBuild(ctx, ".", b.clientgo, "./clientgo"); err != nil {
		return b, err
	}
	if b.kubewireSize, err = fileSize(b.kubewire); err != nil {
		return b, err
	}
	if b.clientgoSize, err = fileSize(b.clientgo); err != nil {
		return b, err
	}
	b.commit = "unknown"
	if out, err := exec.CommandContext(ctx, "git", "-C", "..", "describe", "--always", "--dirty").Output(); err == nil {
		b.commit = strings.TrimSpace(string(out))
	}
	return b, nil
}

func goBuild(ctx context.Context, dir, out, pkg string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build -o %s %s (in %s): %w", out, pkg, dir, err)
	}
	return nil
}

func fileSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
