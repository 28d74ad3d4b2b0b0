package difftest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// Replay is the body of a test printed for a divergence (Divergence.GoTest):
// it plays seq on apitest and compares the transcript with want, the real
// server's (of minor version minor); with KUBEWIRE_TEST_KUBECONFIG set it also
// plays seq on that server and compares apitest with it.
func Replay(t *testing.T, seq Sequence, minor int, want string) {
	t.Helper()
	ctx := context.Background()
	got, err := RunFake(ctx, "replay", seq, Profile{Minor: minor, Unexpired: unexpired(strings.Split(want, "\n"))})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Split(want, "\n"); !equal(got, w) {
		t.Errorf("apitest differs from the recorded transcript (- recorded, + apitest):\n%s", Diff(w, got))
	}
	path := os.Getenv("KUBEWIRE_TEST_KUBECONFIG")
	if path == "" {
		return
	}
	cfg, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	real, ns := RealTarget(t, cfg)
	if d, err := Check(ctx, real, ns, seq); err != nil {
		t.Fatal(err)
	} else if d != nil {
		t.Errorf("%s", d)
	}
}

// RealTarget is a Target for cfg's server and a fresh namespace on it, for a
// test. (Package realtest does the same for other tests; a package that
// imports testing may not import it.)
func RealTarget(t testing.TB, cfg *kubeconfig.Config) (*Target, string) {
	t.Helper()
	real, err := NewReal(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4)
	rand.Read(b)
	ns := "difftest-" + hex.EncodeToString(b)
	if err := real.Namespace(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { real.do(context.Background(), "DELETE", "/api/v1/namespaces/"+ns, "", nil) })
	return real, ns
}

// unexpired reads, from a real server's transcript, the expired steps it did
// not answer with 410 (Profile.Unexpired): those told as notCompared.
func unexpired(transcript []string) map[int]bool {
	steps := map[int]bool{}
	for _, line := range transcript {
		var n int
		if _, err := fmt.Sscanf(line, "%d expired ", &n); err == nil && strings.HasSuffix(line, " → "+notCompared) {
			steps[n] = true
		}
	}
	return steps
}
