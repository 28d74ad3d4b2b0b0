package apitest

// webhookCaller is what calls the webhooks a server stores: the admission
// chain (admission.go) and conversion (conversion.go). A Server made by
// NewServer or NewHandlerWith has one; one made by NewPlainServer has none,
// so that a program that starts only plain servers (the kubewire command's
// demo and rbac workouts, which store no webhook configuration) links none of
// the calling: 0.06e6 bytes of its binary (issue 42). It is reached through
// this interface for that reason: a direct call would link it whether a
// server has it or not.
type webhookCaller interface {
	mutate(l *liveState, a admissionAttrs) (object, error)
	validate(l *liveState, a admissionAttrs) error
	converterFor(l *liveState, t target) *converter
}

// callWebhooks calls them, as kube-apiserver does.
type callWebhooks struct{}

func (callWebhooks) mutate(l *liveState, a admissionAttrs) (object, error) { return l.mutate(a) }
func (callWebhooks) validate(l *liveState, a admissionAttrs) error         { return l.validate(a) }
func (callWebhooks) converterFor(l *liveState, t target) *converter        { return l.converterFor(t) }

// mutating is the mutating admission chain, or a's object as it is when the
// server calls no webhooks. Called with l.mu held.
func (l *liveState) mutating(a admissionAttrs) (object, error) {
	if l.caller == nil {
		return a.obj, nil
	}
	return l.caller.mutate(l, a)
}

// validating is the validating admission chain; nothing when the server calls
// no webhooks. Called with l.mu held.
func (l *liveState) validating(a admissionAttrs) error {
	if l.caller == nil {
		return nil
	}
	return l.caller.validate(l, a)
}

// converter is t's conversion webhook, nil where none converts its objects
// or the server calls no webhooks. Called with l.mu held.
func (l *liveState) converter(t target) *converter {
	if l.caller == nil {
		return nil
	}
	return l.caller.converterFor(l, t)
}
