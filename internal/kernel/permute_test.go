package kernel

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPermuteBlocks checks PermuteBlocks against the generic loop at
// every level, for every block size up to 128 bytes and block counts
// around a step's, in buffers flush against guard pages at either end.
func TestPermuteBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	forEachLevel(t, func(t *testing.T) {
		for bs := 1; bs <= 128; bs++ {
			perm := make([]byte, bs)
			for j, p := range rng.Perm(bs) {
				perm[j] = byte(p)
			}
			per := max(64/bs, 1)
			for _, n := range []int{0, 1, per - 1, per, per + 1, 3*per + 2, 100} {
				for k := range 2 {
					name := fmt.Sprintf("bs=%d/n=%d/guard=%d", bs, n, k)
					src := guarded(t, n*bs, k == 0)
					for i := range src {
						src[i] = byte(rng.Uint32())
					}
					dst := guarded(t, n*bs, k == 1)
					want := make([]byte, n*bs)
					permuteBlocksGeneric(want, src, perm, n)
					PermuteBlocks(dst, src, perm, n)
					if !bytes.Equal(dst, want) {
						t.Fatalf("%s: differs from the generic permute", name)
					}
				}
			}
		}
	})
}

// TestPermuteBlocksErrors checks that bad arguments panic with a message.
func TestPermuteBlocksErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		perm []byte
		n    int
		size int
	}{
		{"no permutation", []byte{0, 0}, 1, 2},
		{"index past the block", []byte{0, 2}, 1, 2},
		{"empty", nil, 1, 2},
		{"too long", make([]byte, 129), 1, 129},
		{"short buffer", []byte{1, 0}, 3, 5},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.name)
				}
			}()
			PermuteBlocks(make([]byte, c.size), make([]byte, c.size), c.perm, c.n)
		}()
	}
}
