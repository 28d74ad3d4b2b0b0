package webhook

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/builtin"
)

// The serving certificate comes from one of two places:
//
//   - A Secret (the default): the first replica to start makes a
//     certificate authority and a certificate signed by it, and creates the
//     Secret; a replica that finds it reads it. Two starting at once both
//     make one, both create, one create wins (the other gets 409
//     AlreadyExists and reads the winner's), so every replica ends serving
//     the same certificate, and the caBundle every replica applies is the
//     same. The CA's key is not kept: nothing is signed after the start, and
//     deleting the Secret makes a new CA at the next start.
//   - Files (Options.CertFile): made elsewhere, and read again when their
//     modification time changes, so a rotation by cert-manager or a kubelet
//     updating a mounted Secret needs no restart.
//
// Both use ECDSA P-256; certificates made here last ten years (nothing here
// rotates them: use files for rotation).

// certs is the serving certificate, and the caBundle that trusts it.
type certs struct {
	caBundle []byte
	get      func(*tls.ClientHelloInfo) (*tls.Certificate, error)
}

// certificates gets the certificate by Options: files, or the Secret.
func (s *Server) certificates(ctx context.Context, url string) (certs, error) {
	if s.opts.CertFile != "" {
		return fileCerts(s.opts.CertFile, s.opts.KeyFile, s.opts.CAFile)
	}
	hosts := s.hosts(url)
	secret, err := createOrRead(ctx, s.client, s.opts.SecretNamespace, s.opts.Name+"-tls", hosts)
	if err != nil {
		return certs{}, err
	}
	pair, err := tls.X509KeyPair(secret.Data["tls.crt"], secret.Data["tls.key"])
	if err != nil {
		return certs{}, fmt.Errorf("secret %s/%s: %w", secret.Namespace, secret.Name, err)
	}
	for _, h := range hosts {
		if err := pair.Leaf.VerifyHostname(h); err != nil {
			return certs{}, fmt.Errorf("secret %s/%s: its certificate is not for %s (%v): delete the Secret, and the next start makes one that is", secret.Namespace, secret.Name, h, err)
		}
	}
	return certs{caBundle: secret.Data["ca.crt"], get: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return &pair, nil }}, nil
}

// hosts are the names the certificate is for: Options.Hosts, else the
// Service's DNS names, else url's host.
func (s *Server) hosts(base string) []string {
	switch {
	case len(s.opts.Hosts) > 0:
		return s.opts.Hosts
	case s.opts.Service != nil:
		return serviceHosts(*s.opts.Service)
	}
	if u, err := url.Parse(base); err == nil && u.Hostname() != "" {
		return []string{u.Hostname()}
	}
	return []string{"127.0.0.1"}
}

// serviceHosts are the names a Service is reached by in its cluster.
func serviceHosts(svc Service) []string {
	n := svc.Name + "." + svc.Namespace
	return []string{n + ".svc", n + ".svc.cluster.local", n, svc.Name}
}

// createOrRead returns the Secret name in ns, made (with a new CA and a
// certificate for hosts) when missing. Race-safe: see the top of the file.
func createOrRead(ctx context.Context, c *apiclient.Client, ns, name string, hosts []string) (*builtin.Secret, error) {
	secrets := apiclient.NewTyped[builtin.Secret](c).Namespace(ns)
	got, err := secrets.Get(ctx, name)
	if err == nil {
		return got, nil
	}
	if !apiclient.IsNotFound(err) {
		return nil, fmt.Errorf("read the certificate's secret %s/%s: %w", ns, name, err)
	}
	mine, err := NewCertificateSecret(ns, name, hosts, time.Now())
	if err != nil {
		return nil, err
	}
	created, err := secrets.Create(ctx, mine, apiclient.WriteOptions{})
	if apiclient.IsAlreadyExists(err) {
		// Another replica made it first: serve its certificate, not ours.
		created, err = secrets.Get(ctx, name)
	}
	if err != nil {
		return nil, fmt.Errorf("create the certificate's secret %s/%s: %w", ns, name, err)
	}
	return created, nil
}

// NewCertificateSecret makes a certificate authority and a serving
// certificate for hosts (DNS names or IP addresses), signed by it, valid
// from an hour before now for ten years, and returns them as the
// kubernetes.io/tls Secret the Server reads: tls.crt, tls.key and ca.crt.
func NewCertificateSecret(namespace, name string, hosts []string, now time.Time) (*builtin.Secret, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	notBefore, notAfter := now.Add(-time.Hour), now.Add(10*365*24*time.Hour)
	caTmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "kubewire webhook CA " + namespace + "/" + name},
		NotBefore: notBefore, NotAfter: notAfter, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: hosts[0]},
		NotBefore: notBefore, NotAfter: notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &builtin.Secret{
		TypeMeta:   apiclient.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: apiclient.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{"app.kubernetes.io/managed-by": "kubewire"}},
		Type:       "kubernetes.io/tls",
		Data: map[string][]byte{
			"tls.crt": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			"tls.key": pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
			"ca.crt":  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		},
	}, nil
}

// serial is a random certificate serial number, as RFC 5280 asks (≤ 20 bytes).
func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n
}

// fileCerts reads a certificate from files, again whenever the modification
// time of either changes; a read that fails keeps the last good one (and
// fails the handshake only when there has never been one).
func fileCerts(certFile, keyFile, caFile string) (certs, error) {
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return certs{}, fmt.Errorf("the CA bundle: %w", err)
	}
	if !bytes.Contains(ca, []byte("-----BEGIN CERTIFICATE-----")) {
		return certs{}, fmt.Errorf("the CA bundle %s holds no PEM certificate", caFile)
	}
	r := &reloader{certFile: certFile, keyFile: keyFile}
	if _, err := r.get(nil); err != nil {
		return certs{}, err
	}
	return certs{caBundle: ca, get: r.get}, nil
}

// reloader is a key pair read from files, re-read on a change of mtime.
type reloader struct {
	certFile, keyFile string

	mu     sync.Mutex
	mtimes [2]time.Time
	pair   *tls.Certificate
}

func (r *reloader) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var now [2]time.Time
	for i, f := range []string{r.certFile, r.keyFile} {
		st, err := os.Stat(f)
		if err != nil {
			return r.keep(err)
		}
		now[i] = st.ModTime()
	}
	if r.pair != nil && now == r.mtimes {
		return r.pair, nil
	}
	pair, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		return r.keep(err)
	}
	r.pair, r.mtimes = &pair, now
	return r.pair, nil
}

// keep is the last good pair after a failed read, or the error if none.
func (r *reloader) keep(err error) (*tls.Certificate, error) {
	if r.pair != nil {
		return r.pair, nil
	}
	return nil, errors.Join(errors.New("webhook certificate"), err)
}
