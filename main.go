// Command kubewire runs Kubernetes controllers from scratch, on raw HTTP: see
// README.md. This file only wires the process to package cli.
package main

import (
	"context"
	"os"

	"github.com/kubewire/kubewire/controller/cli"
)

func main() {
	// Ctrl-C and SIGTERM cancel the context; every command shuts down cleanly
	// from there, and exits 130 or 143 if its work was not done (cli.NotifyContext).
	ctx, stop := cli.NotifyContext(context.Background())
	code := cli.Main(ctx, os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr})
	stop()
	os.Exit(code)
}
