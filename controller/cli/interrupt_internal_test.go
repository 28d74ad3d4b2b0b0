package cli

import (
	"context"
	"testing"
)

// A request cut by Ctrl-C does not always fail with the context's error: when
// the server answers the closing connection in time, net/http hands back that
// answer, and decoding its empty body fails with EOF ("error: table pods: EOF",
// exit 1, seen in CI). Whatever the error, a command that failed after the stop
// was asked for is the user's stop: the summary line and 130 or 143, not
// "error: …" and 1.
func TestInterrupted_is_the_stop_whatever_error_the_cut_request_made(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if !interrupted(ctx) {
		t.Error("a command that failed after the stop was asked for: not taken for an interruption")
	}
	if interrupted(context.Background()) {
		t.Error("a command that failed with no stop asked for: taken for an interruption")
	}
}
