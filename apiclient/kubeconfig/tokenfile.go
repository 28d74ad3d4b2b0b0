package kubeconfig

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// tokenFileTTL is how long a token read from a file is used before the file is read
// again. The kubelet rewrites a projected service-account token when 80% of its
// lifetime (an hour at least) has passed, so a minute is plenty fresh and keeps the
// file system out of the request path.
const tokenFileTTL = time.Minute

// tokenFile is a bearer token that lives in a file and may be replaced at any time
// (tokenFile in a kubeconfig; the in-cluster service-account token).
//
// The zero value is not usable: path and now must be set. Safe for concurrent use.
type tokenFile struct {
	path string
	now  func() time.Time

	mu     sync.Mutex
	authz  string // "Bearer <token>", built once per read rather than per request
	readAt time.Time
}

// authorization returns the Authorization header value, reading the file again when
// the last read is older than tokenFileTTL.
//
// Cost: a mutex; one file read per tokenFileTTL.
func (f *tokenFile) authorization(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	if f.authz != "" && now.Sub(f.readAt) < tokenFileTTL {
		return f.authz, nil
	}
	token, err := readToken(f.path)
	switch {
	case err == nil:
		f.authz = "Bearer " + token
	case f.authz == "":
		return "", err
	default:
		// The file may be between two writes of a rotation; the token we have stays
		// valid for a while after a new one is issued, so keep it and try again later.
	}
	f.readAt = now
	return f.authz, nil
}

// readToken reads a token file; surrounding whitespace (a final newline) is not part of
// the token. Every error is an *os.PathError, so that one made at request time can
// leave the path out (sendError).
func readToken(path string) (string, error) {
	data, err := readFile(path)
	if err != nil {
		return "", err
	}
	token := strings.TrimSpace(string(data))
	if token == "" {
		return "", &os.PathError{Op: "read", Path: path, Err: errors.New("empty token file")}
	}
	if msg := tokenProblem(token); msg != "" {
		return "", &os.PathError{Op: "read", Path: path, Err: errors.New("token " + msg)}
	}
	return token, nil
}

// tokenProblem says why a bearer token cannot be sent in an Authorization header,
// or "". net/http refuses a header value holding a control character other than
// tab, but only when the request is sent, and its message names the header, not
// where the token came from; every source of tokens (kubeconfig token, token file,
// exec plugin) checks here instead, when it reads one. (Found by FuzzTokenFile and
// FuzzExecCredential: a NUL byte passed the newline check.)
func tokenProblem(token string) string {
	for i := 0; i < len(token); i++ {
		switch c := token[i]; {
		case c == '\r' || c == '\n':
			// Sending half a token helps no one.
			return "spans several lines; a header cannot carry it"
		case c < ' ' && c != '\t' || c == 0x7f:
			return fmt.Sprintf("holds a control character (byte %d); a header cannot carry it", i)
		}
	}
	return ""
}
