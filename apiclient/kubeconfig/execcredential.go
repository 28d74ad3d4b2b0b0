package kubeconfig

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"time"
)

// execCredential is the client.authentication.k8s.io ExecCredential, v1 and v1beta1
// alike (they differ only in what is required). We send it with a spec in the
// KUBERNETES_EXEC_INFO environment variable; the plugin prints it back with a status.
// These wire types are plain data, built and read by one goroutine.
type execCredential struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Spec       execSpec    `json:"spec"`
	Status     *execStatus `json:"status,omitempty"`
}

type execSpec struct {
	Cluster     *execCluster `json:"cluster,omitempty"`
	Interactive bool         `json:"interactive"`
}

// execCluster mirrors a kubeconfig cluster, except that the CA is always inline.
type execCluster struct {
	Server                string          `json:"server"`
	TLSServerName         string          `json:"tls-server-name,omitempty"`
	InsecureSkipTLSVerify bool            `json:"insecure-skip-tls-verify,omitempty"`
	CAData                []byte          `json:"certificate-authority-data,omitempty"`
	ProxyURL              string          `json:"proxy-url,omitempty"`
	DisableCompression    bool            `json:"disable-compression,omitempty"`
	Config                json.RawMessage `json:"config,omitempty"`
}

type execStatus struct {
	ExpirationTimestamp   string `json:"expirationTimestamp,omitempty"` // RFC 3339
	Token                 string `json:"token,omitempty"`
	ClientCertificateData string `json:"clientCertificateData,omitempty"` // PEM, not base64
	ClientKeyData         string `json:"clientKeyData,omitempty"`
}

// maxPluginOutput caps what we keep of a plugin's stdout; an ExecCredential is a few KiB.
const maxPluginOutput = 1 << 20

// How long a plugin may take. pluginTimeout bounds a whole run, a person typing a
// password or approving in a browser included; client-go sets no bound, and a
// plugin stuck on a network call then holds every request forever. pluginWaitDelay
// is how long, once the plugin has exited (or was killed), we wait for its stdout
// and stderr to close: a child it left behind may hold them open for as long as it
// lives (`sleep 120 &`), and what the plugin printed before exiting is in the pipe
// already. Variables so that tests can shorten them.
var (
	pluginTimeout   = 2 * time.Minute
	pluginWaitDelay = 2 * time.Second
)

// stdin is what an interactive plugin reads; a variable so tests can swap it.
var stdin = os.Stdin

// run starts the plugin and turns its stdout into a credential.
//
// Interactive mode: we do not drive a terminal ourselves. With Always or IfAvailable,
// when our stdin is a terminal, the plugin gets it (its stderr, where it prompts,
// goes to ours, as always) and spec.interactive is true. Otherwise its stdin is
// empty and spec.interactive is false; Always then fails before starting anything.
//
// Its stderr goes to Config.Stderr as it comes (os.Stderr by default), as
// client-go's does, and is not kept: a plugin that fails may print a refresh token
// there, and an error travels to logs and pages. Its stdout never appears in an
// error either: it holds the credential.
//
// Ending it: a run lasts at most pluginTimeout, and ends when ctx does (Ctrl-C).
// Either way the plugin is killed with its whole process group (a shell script's
// children too; processGroup, unix only), and the wait for its pipes is bounded by
// pluginWaitDelay. A non-interactive plugin gets a process group of its own for
// that; an interactive one stays in ours, as a process in a background group that
// reads the terminal is stopped (SIGTTIN), so only it is killed. A plugin that
// printed its credential and exited leaving a child holding stdout is a success:
// the credential is read from what it printed (exec.ErrWaitDelay).
func (p *execPlugin) run(ctx context.Context) (*credential, error) {
	interactive := p.cfg.InteractiveMode != InteractiveNever && isTerminal(stdin)
	if p.cfg.InteractiveMode == InteractiveAlways && !interactive {
		return nil, p.fail(errors.New("interactiveMode is Always but standard input is not a terminal"))
	}
	info, err := json.Marshal(execCredential{
		APIVersion: p.cfg.APIVersion,
		Kind:       "ExecCredential",
		Spec:       execSpec{Cluster: p.cluster, Interactive: interactive},
	})
	if err != nil {
		return nil, p.fail(err)
	}

	ctx, cancel := context.WithTimeoutCause(ctx, pluginTimeout, errPluginTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.cfg.Command, p.cfg.Args...)
	cmd.WaitDelay = pluginWaitDelay
	cmd.Env = append(os.Environ(), "KUBERNETES_EXEC_INFO="+string(info))
	names := make([]string, 0, len(p.cfg.Env))
	for name := range p.cfg.Env {
		names = append(names, name)
	}
	sort.Strings(names) // a stable environment: same input, same process
	for _, name := range names {
		cmd.Env = append(cmd.Env, name+"="+p.cfg.Env[name]) // later wins in exec.Cmd
	}
	stdout := &capped{max: maxPluginOutput}
	cmd.Stdout, cmd.Stderr = stdout, p.stderr
	if interactive {
		cmd.Stdin = stdin
	} else {
		processGroup(cmd)
	}

	if err := cmd.Run(); err != nil && !(errors.Is(err, exec.ErrWaitDelay) && ctx.Err() == nil) {
		return nil, p.fail(p.runError(ctx, err))
	}
	if stdout.over {
		return nil, p.fail(fmt.Errorf("plugin %q printed more than %d MiB", p.cfg.Command, maxPluginOutput>>20))
	}
	cred, err := p.decode(stdout.Bytes())
	if err != nil {
		return nil, p.fail(fmt.Errorf("plugin %q: %w", p.cfg.Command, err))
	}
	return cred, nil
}

// errPluginTimeout is the cause of a run's context when pluginTimeout passed.
var errPluginTimeout = errors.New("exec plugin timeout")

// runError says why the process did not succeed, with neither its stdout nor its
// stderr (which went to Config.Stderr as it came).
func (p *execPlugin) runError(ctx context.Context, err error) error {
	var exit *exec.ExitError
	switch {
	case errors.Is(context.Cause(ctx), errPluginTimeout):
		return fmt.Errorf("plugin %q ran longer than %v and was stopped", p.cfg.Command, pluginTimeout)
	case ctx.Err() != nil:
		return fmt.Errorf("plugin %q: %w", p.cfg.Command, ctx.Err())
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, os.ErrNotExist):
		msg := fmt.Sprintf("plugin %q not found", p.cfg.Command)
		if hint := oneLine(p.cfg.InstallHint); hint != "" {
			msg += "; " + hint
		}
		return errors.New(msg)
	case errors.As(err, &exit):
		return fmt.Errorf("plugin %q failed (%s); what it printed on standard error went to ours", p.cfg.Command, exit.ProcessState)
	}
	return fmt.Errorf("plugin %q: %w", p.cfg.Command, err)
}

// decode checks the plugin's answer and builds the credential. No message here
// repeats anything from stdout.
func (p *execPlugin) decode(stdout []byte) (*credential, error) {
	if len(bytes.TrimSpace(stdout)) == 0 {
		return nil, errors.New("printed nothing on stdout; want an ExecCredential")
	}
	var out execCredential
	if err := json.Unmarshal(stdout, &out); err != nil {
		return nil, jsonReason(err)
	}
	switch {
	case out.Kind != "ExecCredential":
		return nil, errors.New("output is not an ExecCredential (kind)")
	case out.APIVersion != p.cfg.APIVersion:
		return nil, fmt.Errorf("output apiVersion differs from the configured %s", p.cfg.APIVersion)
	case out.Status == nil:
		return nil, errors.New("output has no status")
	}
	st, cred := out.Status, &credential{}
	if st.Token != "" {
		cred.authz = "Bearer " + st.Token
	}

	hasCert, hasKey := st.ClientCertificateData != "", st.ClientKeyData != ""
	switch {
	case st.Token == "" && !hasCert && !hasKey:
		return nil, errors.New("status has neither a token nor clientCertificateData/clientKeyData")
	case tokenProblem(st.Token) != "":
		return nil, errors.New("status.token " + tokenProblem(st.Token))
	case hasCert != hasKey:
		return nil, errors.New("status has only one of clientCertificateData and clientKeyData")
	case hasCert:
		cert, err := tls.X509KeyPair([]byte(st.ClientCertificateData), []byte(st.ClientKeyData))
		if err != nil {
			return nil, fmt.Errorf("status.clientCertificateData/clientKeyData: %w", err)
		}
		cred.cert = &cert
	}
	if st.ExpirationTimestamp != "" {
		t, err := time.Parse(time.RFC3339, st.ExpirationTimestamp)
		if err != nil {
			return nil, errors.New("status.expirationTimestamp: not an RFC 3339 time")
		}
		cred.expiry = t
	}
	return cred, nil
}

// fail is the *Error of a run: made while sending a request, so its message
// leaves the kubeconfig's path out (sendError).
func (p *execPlugin) fail(err error) error {
	return sendError(p.source, p.user, "exec", err)
}

// jsonReason describes a JSON error without the input: a SyntaxError's message
// quotes the offending character, which would be a piece of the credential.
func jsonReason(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Errorf("output is not JSON (syntax error at byte %d)", syntax.Offset)
	case errors.As(err, &typ):
		return fmt.Errorf("output field %s: want a JSON %s", typ.Field, typ.Type)
	}
	return errors.New("output is not a valid ExecCredential")
}

// isTerminal reports whether f is a terminal. The standard library has no isatty; a
// character device other than /dev/null is a good enough answer for "a person may
// be typing here" and needs no system call.
func isTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	info, err := f.Stat()
	if err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(info, null)
}

// capped keeps up to max bytes and notes whether there were more. The zero value
// keeps nothing; exec.Cmd writes to it from one goroutine, so it needs no lock.
//
// The buffer is a field, not embedded: an embedded bytes.Buffer would lend capped
// its ReadFrom, and io.Copy (which exec.Cmd uses) prefers ReadFrom to Write, so the
// cap below would never run.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(b []byte) (int, error) {
	n := len(b) // report all of it taken, or the plugin would see a broken pipe
	if room := c.max - c.buf.Len(); n > room {
		c.over = true
		b = b[:max(room, 0)]
	}
	c.buf.Write(b)
	return n, nil
}

// Bytes returns what was kept.
func (c *capped) Bytes() []byte { return c.buf.Bytes() }
