package queue

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The ring is unexported, so this one test is white-box: it checks the ring against
// a plain slice under a long random mix of pushes and pops, through growth, wrap-around
// and shrinking.
func TestRing_behaves_like_a_slice_FIFO(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		rng := rand.New(rand.NewPCG(seed, 0))
		var r ring[int]
		var model []int
		next := 0
		for step := range 100_000 {
			// Phases of mostly pushing then mostly popping make the ring grow past
			// a thousand keys and shrink back.
			pushBias := 3
			if step/5000%2 == 1 {
				pushBias = 1
			}
			if len(model) == 0 || rng.IntN(4) < pushBias {
				r.push(next)
				model = append(model, next)
				next++
			} else {
				got, want := r.pop(), model[0]
				model = model[1:]
				if got != want {
					t.Fatalf("seed %d step %d: pop = %d, want %d", seed, step, got, want)
				}
			}
			if r.len() != len(model) {
				t.Fatalf("seed %d step %d: len = %d, want %d", seed, step, r.len(), len(model))
			}
			if len(r.buf) > minRing && r.len() < len(r.buf)/4 {
				t.Fatalf("seed %d step %d: %d keys in a buffer of %d: it did not shrink", seed, step, r.len(), len(r.buf))
			}
		}
		var rest []int
		for r.len() > 0 {
			rest = append(rest, r.pop())
		}
		if !slices.Equal(rest, model) {
			t.Fatalf("seed %d: drained %d keys, want %d in order", seed, len(rest), len(model))
		}
	}
}

func TestRing_pop_clears_the_slot(t *testing.T) {
	var r ring[*int]
	r.push(new(int))
	r.pop()
	for i, p := range r.buf {
		if p != nil {
			t.Fatalf("slot %d still points at a popped key: the collector cannot free it", i)
		}
	}
}
