package difftest

import (
	"context"
	"fmt"
	"strings"
)

// Divergence is a sequence whose transcripts differ, with both.
type Divergence struct {
	Seq           Sequence
	Server        string // the real server's name
	Minor         int    // and its minor version
	Fake, Real    []string
	Shrunk        bool // Seq is the minimal one Shrink found
	OriginalSteps int  // how many steps the generated sequence had
}

// Check plays seq on a fresh apitest server and on real (in namespace ns,
// which must be empty and is left empty), and returns the divergence, or nil
// when the transcripts agree. An error is the harness failing.
func Check(ctx context.Context, real *Target, ns string, seq Sequence) (*Divergence, error) {
	p := Profile{Minor: real.Minor}
	want, err := Run(ctx, real, ns, seq, p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", real.Name, err)
	}
	p.Unexpired = unexpired(want)
	got, err := RunFake(ctx, ns, seq, p)
	if err != nil {
		return nil, err
	}
	if equal(got, want) {
		return nil, nil
	}
	return &Divergence{Seq: seq, Server: real.Name, Minor: real.Minor, Fake: got, Real: want, OriginalSteps: len(seq.Steps)}, nil
}

// RunFake plays seq on a fresh apitest server.
func RunFake(ctx context.Context, ns string, seq Sequence, p Profile) ([]string, error) {
	fake, err := NewApitest(ctx)
	if err != nil {
		return nil, err
	}
	defer fake.Close()
	fake.Namespace(ctx, ns)
	out, err := Run(ctx, fake, ns, seq, p)
	if err != nil {
		return nil, fmt.Errorf("apitest: %w", err)
	}
	return out, nil
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// String shows the divergence: the sequence as Go, and the transcripts' diff
// (- the real server, + apitest).
func (d *Divergence) String() string {
	var b strings.Builder
	what := "generated"
	if d.Shrunk {
		what = fmt.Sprintf("shrunk from %d steps", d.OriginalSteps)
	}
	fmt.Fprintf(&b, "apitest and %s differ on seed %d (%s):\n", d.Server, d.Seq.Seed, what)
	b.WriteString(Diff(d.Real, d.Fake))
	b.WriteString("\nReplay it with this test (the transcript is the real server's):\n\n")
	b.WriteString(d.GoTest())
	return b.String()
}

// GoTest is a Go test that replays the divergence: it runs the sequence on
// apitest and compares with the real server's transcript, and with
// KUBEWIRE_TEST_KUBECONFIG set also on that server.
func (d *Divergence) GoTest() string {
	var b strings.Builder
	fmt.Fprintf(&b, "func TestReplay_seed_%d(t *testing.T) {\n", d.Seq.Seed)
	fmt.Fprintf(&b, "\tseq := %s\n", strings.ReplaceAll(d.Seq.GoString(), "\n", "\n\t"))
	fmt.Fprintf(&b, "\t// The transcript of %s.\n", d.Server)
	fmt.Fprintf(&b, "\twant := %s\n", goQuote(strings.Join(d.Real, "\n")))
	fmt.Fprintf(&b, "\tdifftest.Replay(t, seq, %d, want)\n}\n", d.Minor)
	return b.String()
}

// Diff is a line diff of two transcripts: "-" lines only in a, "+" only in b,
// "  " in both.
func Diff(a, b []string) string {
	// The longest common subsequence, by dynamic programming: transcripts are
	// a few hundred lines at most.
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out.WriteString("  " + a[i] + "\n")
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			out.WriteString("+ " + b[j] + "\n")
			j++
		default:
			out.WriteString("- " + a[i] + "\n")
			i++
		}
	}
	return out.String()
}
