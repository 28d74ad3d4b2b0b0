package kubeconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Error is one problem with one field of one kubeconfig entry. It prints as one line
// that says where to look:
//
//	kubeconfig /home/u/.kube/config: user "admin": client-key-data: illegal base64 data at input byte 4
//
// Load, Parse, Transport and the transport's requests return an *Error (possibly
// wrapped; errors.As finds it) for everything that is the kubeconfig's fault or its
// exec plugin's. Its text never holds a credential: the messages built in this
// package quote names and keys, never the values of secret fields, never anything
// a plugin printed (its stdout holds the credential; its stderr, which may hold a
// refresh token, goes to Config.Stderr as it runs and is not kept).
//
// An error made while sending a request — an exec plugin's run, a token file read
// again — is where a credential problem meets everything else: it travels up
// through apiclient into logs, the Reflector's Health, the trace, /readyz, the
// live page, Events. Its message is made safe for all of them: it names the entry
// and the field, and leaves out the kubeconfig's path (Source still holds it, for
// a program to read) and every other path (a token file's):
//
//	kubeconfig: user "admin": exec: plugin "aws" failed (exit status 1)
//
// The zero value prints as "kubeconfig"; an *Error is immutable once returned.
type Error struct {
	Source string // the file (or list of files), or "in-cluster"
	Entry  string // `user "admin"`, `cluster "kind"`, `context "dev"`; "" for the file as a whole
	Field  string // the key inside the entry, e.g. "client-key-data"; "" for the entry itself
	Err    error  // what is wrong

	sending bool // made while sending a request: the message leaves Source out
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("kubeconfig")
	if e.Source != "" && !e.sending {
		b.WriteString(" ")
		b.WriteString(e.Source)
	}
	for _, part := range []string{e.Entry, e.Field} {
		if part != "" {
			b.WriteString(": ")
			b.WriteString(part)
		}
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	// One line, always: the command prints errors as one line on stderr, and a YAML
	// or TLS message with a newline in it would break that.
	return oneLine(b.String())
}

// Unwrap lets errors.Is see the cause (fs.ErrNotExist, base64.CorruptInputError, ...).
func (e *Error) Unwrap() error { return e.Err }

// entryName is how an error names an entry: `user "admin"`.
func entryName(kind, name string) string { return fmt.Sprintf("%s %q", kind, name) }

// oneLine folds runs of whitespace, newlines included, into single spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// sendError is the *Error of a credential that failed while a request was being
// sent, for the user entry of c: its message leaves out the kubeconfig's path
// and any path in err (an *os.PathError's, a token file's).
func sendError(source, user, field string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return &Error{Source: source, Entry: named("user", user), Field: field, Err: err, sending: true}
}
