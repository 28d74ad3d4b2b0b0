package kubeconfig_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// writeFile writes content to dir/name (making directories) and returns the path.
func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// env is a fake environment for Options.Getenv: nothing of the real machine's.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// load is Load in a sealed environment: no real HOME, KUBECONFIG or service account.
func load(t testing.TB, opts kubeconfig.Options) (*kubeconfig.Config, error) {
	t.Helper()
	if opts.Getenv == nil {
		opts.Getenv = env(nil)
	}
	if opts.HomeDir == "" {
		opts.HomeDir = t.TempDir()
	}
	if opts.ServiceAccountDir == "" {
		opts.ServiceAccountDir = filepath.Join(t.TempDir(), "no-service-account")
	}
	return kubeconfig.Load(opts)
}

// mustParse parses a kubeconfig held in a string, as if it were dir/config.
func mustParse(t testing.TB, dir, yaml string) *kubeconfig.Config {
	t.Helper()
	cfg, err := kubeconfig.Parse([]byte(yaml), filepath.Join(dir, "config"))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return cfg
}

func mustTransport(t testing.TB, cfg *kubeconfig.Config) http.RoundTripper {
	t.Helper()
	tr, err := cfg.Transport()
	if err != nil {
		t.Fatalf("Transport: %v", err)
	}
	if c, ok := tr.(interface{ CloseIdleConnections() }); ok {
		t.Cleanup(c.CloseIdleConnections)
	}
	return tr
}

// get does a GET through tr and returns the status and body.
func get(t testing.TB, tr http.RoundTripper, url string) (int, string) {
	t.Helper()
	resp, err := (&http.Client{Transport: tr}).Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading the body: %v", url, err)
	}
	return resp.StatusCode, string(body)
}

// kerror extracts the *kubeconfig.Error from err, failing the test if there is none.
func kerror(t testing.TB, err error) *kubeconfig.Error {
	t.Helper()
	var kerr *kubeconfig.Error
	if !errors.As(err, &kerr) {
		t.Fatalf("error %v (%T) is not a *kubeconfig.Error", err, err)
	}
	return kerr
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// serverCAPEM is the PEM of an httptest TLS server's certificate, to trust it.
func serverCAPEM(ts *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
}

// fakeClock is a clock that moves only when told. Safe for concurrent use.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *fakeClock {
	return &fakeClock{now: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// testCA is a certificate authority made in the test, for client certificates.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	PEM  []byte
}

func newCA(t testing.TB) *testCA {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kubewire test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{cert: cert, key: key, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issueClient returns a client certificate for cn signed by the CA, and its key, in PEM.
func (ca *testCA) issueClient(t testing.TB, cn string) (certPEM, keyPEM []byte) {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: cn, Organization: []string{"system:masters"}},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// clientCertServer is a TLS server that requires a client certificate from ca and
// answers with its common name.
func clientCertServer(t testing.TB, ca *testCA) *httptest.Server {
	t.Helper()
	return clientCertServerWith(t, ca, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(r.TLS.PeerCertificates[0].Subject.CommonName))
	})
}

// clientCertServerWith is a TLS server that requires a client certificate
// signed by ca, and answers with h.
func clientCertServerWith(t testing.TB, ca *testCA, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	return tlsServer(t, &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}, h)
}

// tlsServer starts an httptest TLS server with conf (nil: httptest's) that does not
// log the handshake failures some tests cause on purpose.
func tlsServer(t testing.TB, conf *tls.Config, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	ts := httptest.NewUnstartedServer(h)
	ts.TLS = conf
	ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	ts.StartTLS()
	t.Cleanup(ts.Close)
	return ts
}

// recorder is a plain-http loopback server that records the requests it gets and
// answers 401 to the tokens in reject.
type recorder struct {
	*httptest.Server
	mu     sync.Mutex
	seen   []*http.Request
	bodies []string
	reject map[string]bool
}

func newRecorder(t testing.TB, reject ...string) *recorder {
	t.Helper()
	rec := &recorder{reject: map[string]bool{}}
	for _, token := range reject {
		rec.reject["Bearer "+token] = true
	}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.seen = append(rec.seen, r)
		rec.bodies = append(rec.bodies, string(body))
		rejected := rec.reject[r.Header.Get("Authorization")]
		rec.mu.Unlock()
		if rejected {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(rec.Close)
	return rec
}

// authorizations lists the Authorization headers received, in order.
func (rec *recorder) authorizations() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []string
	for _, r := range rec.seen {
		out = append(out, r.Header.Get("Authorization"))
	}
	return out
}

func (rec *recorder) last() *http.Request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.seen[len(rec.seen)-1]
}
