package webhook_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller/webhook"
)

// What a broken or hostile client sends gets a clear refusal: a review that
// refuses where the request has a uid to answer, a plain 4xx where not;
// never a panic, never a hang.
func TestServer_refuses_what_is_not_a_review_clearly(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 4)
	s := serve(t, webhook.Options{MaxBodyBytes: 1 << 10, MaxReviews: 2}, func(s *webhook.Server) {
		webhook.Validate(s, webhook.Hook{TimeoutSeconds: 1}, func(ctx context.Context, r *webhook.Review[Site]) error {
			switch r.Object.Name {
			case "panics":
				panic("boom")
			case "blocks":
				entered <- struct{}{}
				<-release
			case "waits":
				<-ctx.Done() // past its TimeoutSeconds
			}
			return nil
		})
	})
	path := "/validate/webhook-test.kubewire.io/v1/sites"
	named := func(name string) *Site { return &Site{ObjectMeta: apiclient.ObjectMeta{Name: name}} }
	for _, tc := range []struct {
		name string
		body []byte
		code int
		says string
	}{
		{"not JSON", []byte("<html>"), 400, "not an AdmissionReview"},
		{"another kind", []byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"x"}}`), 400, "want an admission.k8s.io/v1 AdmissionReview"},
		{"no uid", []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}}`), 400, "its uid"},
		{"over the body bound", bytes.Repeat([]byte(" "), 2<<10), 413, "over 1024 bytes"},
	} {
		code, out := s.post(t, path, tc.body)
		if code != tc.code || !strings.Contains(string(out), tc.says) {
			t.Errorf("%s: answered %d %q, want %d saying %q", tc.name, code, out, tc.code, tc.says)
		}
	}
	if resp := s.review(t, path, admissionReview(t, webhook.Create, named("panics"), nil)); resp.Allowed || resp.Result.Code != 500 {
		t.Errorf("a panicking validator: allowed %v %+v, want refused with 500", resp.Allowed, resp.Result)
	}
	if resp := s.review(t, path, admissionReview(t, webhook.Create, named("waits"), nil)); resp.Allowed || resp.Result.Code != 504 || !strings.Contains(resp.Result.Message, "did not decide within 1s") {
		t.Errorf("a validator past its time: allowed %v %+v, want refused with 504", resp.Allowed, resp.Result)
	}
	resp, err := s.http.Get(s.URL() + path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, want := resp.StatusCode, http.StatusMethodNotAllowed; got != want {
		t.Errorf("GET answered %d, want %d", got, want)
	}

	// Two reviews held: the third is turned away at once, 429.
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { s.review(t, path, admissionReview(t, webhook.Create, named("blocks"), nil)) })
	}
	<-entered
	<-entered
	code, out := s.post(t, path, admissionReview(t, webhook.Create, named("ok"), nil))
	close(release)
	wg.Wait()
	if code != http.StatusTooManyRequests {
		t.Errorf("a review past MaxReviews: answered %d %s, want 429", code, out)
	}
	if resp := s.review(t, path, admissionReview(t, webhook.Create, named("ok"), nil)); !resp.Allowed {
		t.Errorf("after the held reviews ended: %+v", resp.Result)
	}
}

// Two replicas starting at once against one API server end serving one
// certificate, from one Secret: whoever created it first.
func TestServer_replicas_starting_together_share_one_CA(t *testing.T) {
	api := apitest.NewServer(nil)
	t.Cleanup(api.Close)
	client, err := api.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var bundles []string
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			s := serveOn(t, api, client, webhook.Options{Name: "shared"}, func(*webhook.Server) {})
			mu.Lock()
			bundles = append(bundles, string(s.CABundle()))
			mu.Unlock()
		})
	}
	wg.Wait()
	for _, b := range bundles[1:] {
		if b != bundles[0] {
			t.Fatal("two replicas serve certificates of different CAs")
		}
	}
	secret, err := client.Resource(apiclient.Secrets).Namespace("default").Get(context.Background(), "shared-tls")
	if err != nil {
		t.Fatal(err)
	}
	if ca, _ := secret.FieldString("data", "ca.crt"); ca == "" {
		t.Fatal("the Secret holds no ca.crt")
	}
}

// A certificate given as files is read again when the files change: the
// next handshake presents the new one, with no restart.
func TestServer_reloads_certificate_files_when_they_change(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, caFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"), filepath.Join(dir, "ca.crt")
	write := func(at time.Time) *x509.Certificate {
		secret, err := webhook.NewCertificateSecret("ns", "x", []string{"127.0.0.1"}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		for name, file := range map[string]string{"tls.crt": certFile, "tls.key": keyFile, "ca.crt": caFile} {
			if err := os.WriteFile(file, secret.Data[name], 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(file, at, at); err != nil {
				t.Fatal(err)
			}
		}
		block, _ := pem.Decode(secret.Data["tls.crt"])
		cert, _ := x509.ParseCertificate(block.Bytes)
		return cert
	}
	first := write(time.Unix(1_000_000, 0))
	s := serve(t, webhook.Options{CertFile: certFile, KeyFile: keyFile, CAFile: caFile}, func(*webhook.Server) {})
	presented := func() *x509.Certificate {
		conn, err := tls.Dial("tcp", strings.TrimPrefix(s.URL(), "https://"), &tls.Config{InsecureSkipVerify: true})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0]
	}
	if !presented().Equal(first) {
		t.Fatal("the server does not present the certificate in the files")
	}
	second := write(time.Unix(2_000_000, 0))
	if !presented().Equal(second) {
		t.Fatal("the server still presents the old certificate after the files changed")
	}
}

// The webhook server's /readyz says ok once it serves.
func TestServer_readyz_answers_ok_once_serving(t *testing.T) {
	s := serve(t, webhook.Options{}, func(*webhook.Server) {})
	resp, err := s.http.Get(s.URL() + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, want := resp.StatusCode, http.StatusOK; got != want {
		t.Fatalf("/readyz answered %d, want %d", got, want)
	}
}
