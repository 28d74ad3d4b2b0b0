package controller

import (
	"context"
	"log/slog"
)

// logKey is the context key of a Reconcile's logger.
type logKey struct{}

// LogFrom returns the logger of a Reconcile's context: the controller's (the
// Manager's, ManagerOptions.Log; NewController's log argument for a controller
// run alone), with the controller's name and the Request it is for
// (controller=NAME request=namespace/name), so that a Reconciler's lines say
// which object they are about without passing anything. Controller-runtime's
// log.FromContext is the same idea. Outside a Reconcile, it returns
// slog.Default().
func LogFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(logKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// withLog returns ctx carrying l, for LogFrom.
func withLog(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, logKey{}, l)
}
