package kubeconfig

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Internal fuzz targets, for the parsers of outside input that are not reached
// through Parse: what an exec plugin prints, and a token file. Seeds are in
// testdata/fuzz/<Target>.

// fuzzSecret stands for a credential in the fuzzed input: the seeds hold the
// placeholder SECRET, which is replaced by it before decoding, so that a message
// that repeats the plugin's output is caught wherever the secret sits.
const fuzzSecret = "kw-fuzz-s3cr3t-7f3a"

// FuzzExecCredential: whatever a plugin prints, decode gives a credential or a
// one-line error, never a panic; the error never repeats the output; a credential
// is usable (its Authorization value is a valid header value, a certificate comes
// with its key).
func FuzzExecCredential(f *testing.F) {
	p := &execPlugin{cfg: ExecConfig{Command: "plugin", APIVersion: "client.authentication.k8s.io/v1"}, source: "config", user: "u"}
	f.Fuzz(func(t *testing.T, stdout []byte) {
		stdout = []byte(strings.ReplaceAll(string(stdout), "SECRET", fuzzSecret))
		cred, err := p.decode(stdout)
		if err != nil {
			msg := p.fail(err).Error()
			if strings.Contains(msg, fuzzSecret) || strings.Contains(msg, "s3cr3t") {
				t.Fatalf("the error repeats the plugin's output: %s", msg)
			}
			if strings.ContainsAny(msg, "\r\n") {
				t.Fatalf("error %q spans several lines", msg)
			}
			return
		}
		if cred.authz == "" && cred.cert == nil {
			t.Fatal("a credential with neither token nor certificate")
		}
		if cred.authz != "" && !validHeaderValue(cred.authz) {
			t.Fatalf("token %q is not a valid header value", cred.authz)
		}
	})
}

// FuzzTokenFile: whatever a token file holds, readToken gives a token that can be
// sent as a header, or an error naming the file, never a panic.
func FuzzTokenFile(f *testing.F) {
	path := filepath.Join(f.TempDir(), "token")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		token, err := readToken(path)
		if err != nil {
			var pe *os.PathError
			if !errors.As(err, &pe) || pe.Path != path || strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error %q does not name the file on one line", err)
			}
			return
		}
		if token == "" || token != strings.TrimSpace(token) || !validHeaderValue("Bearer "+token) {
			t.Fatalf("token %q from %q cannot be sent", token, data)
		}
		tf := &tokenFile{path: path, now: func() time.Time { return time.Unix(0, 0) }}
		if authz, err := tf.authorization(context.Background()); err != nil || authz != "Bearer "+token {
			t.Fatalf("authorization() = %q, %v", authz, err)
		}
	})
}

// validHeaderValue is net/http's rule for a field value (httpguts.ValidHeaderFieldValue):
// no control characters but horizontal tab.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
