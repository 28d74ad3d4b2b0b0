package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes after a signal. A command stopped by Ctrl-C or SIGTERM before its
// work was done exits 128 + the signal's number, as kubectl (and every shell)
// does: 130 for SIGINT, 143 for SIGTERM. A command whose designed end is the
// signal (run; watch, sync --watch and record without a limit once their first
// list is complete; demo --ui once its story is told) exits 0.
//
//	ctx, stop := cli.NotifyContext(context.Background())
//	code := cli.Main(ctx, os.Args[1:], env)
//
// Main learns which signal it was from the context's cause (an *Interrupt); a
// context cancelled some other way (a test's cancel) counts as Ctrl-C.

// Interrupt is the cause of NotifyContext's context: the signal that stopped
// the command.
type Interrupt struct{ Signal os.Signal }

func (i *Interrupt) Error() string { return i.Signal.String() + " signal received" }

// NotifyContext returns a context that is cancelled, with an *Interrupt as its
// cause, at the first SIGINT or SIGTERM; stop releases the signals. It is
// os/signal.NotifyContext with the signal kept where Main can read it (the
// standard library's cause is a string).
func NotifyContext(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() { // owned by the returned stop, which ends it
		select {
		case sig := <-ch:
			cancel(&Interrupt{Signal: sig})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(context.Canceled)
	}
}

// errStopped is what a command returns when a signal stopped it before its
// work was done and it has already said so in its own summary line ("interrupted
// after 1.2s: 340 objects cached"): Main prints nothing more and exits
// stopCode.
var errStopped = errors.New("stopped before the work was done")

// stopCode is the exit code of a command stopped by ctx before its work was
// done: 128 + the signal's number, 130 when no signal is known.
func stopCode(ctx context.Context) int {
	var in *Interrupt
	if errors.As(context.Cause(ctx), &in) {
		if s, ok := in.Signal.(syscall.Signal); ok && s > 0 && s < 128 {
			return 128 + int(s)
		}
	}
	return 128 + int(syscall.SIGINT)
}
