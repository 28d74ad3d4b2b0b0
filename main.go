// Command kubewire runs Kubernetes controllers from scratch, on raw HTTP: see
// README.md. This file only wires the process to package cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/kubewire/kubewire/controller/cli"
)

func main() {
	// Ctrl-C and SIGTERM cancel the context; every command shuts down cleanly
	// from there and exits 0.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr})
	stop()
	os.Exit(code)
}
