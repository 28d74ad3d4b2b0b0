package difftest

import "context"

// Shrink looks for the smallest sequence that still diverges: it drops runs of
// steps, halves first, then quarters, down to single steps, keeping each drop
// after which the sequence still diverges (in any way: a smaller sequence may
// show a simpler symptom of the same bug). Each try runs both servers, so a
// sequence of n steps costs O(n log n) runs at worst. It returns d itself when
// nothing can go.
func Shrink(ctx context.Context, real *Target, ns string, d *Divergence) (*Divergence, error) {
	best := d
	for size := len(best.Seq.Steps) / 2; size >= 1; size /= 2 {
		for i := 0; i+size <= len(best.Seq.Steps); {
			steps := append(append([]Step{}, best.Seq.Steps[:i]...), best.Seq.Steps[i+size:]...)
			try, err := Check(ctx, real, ns, Sequence{Seed: d.Seq.Seed, Steps: steps})
			if err != nil {
				return nil, err
			}
			if try != nil {
				best = try
				continue // the same i now names the next run of steps
			}
			i++
		}
	}
	best.Shrunk = best != d
	best.OriginalSteps = len(d.Seq.Steps)
	return best, nil
}
