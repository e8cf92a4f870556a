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

// TestTransposeGridPermuted runs grids of blocks whose rows lie end to
// end on both sides (tiles transposed into tiles), 32 to 128 bytes a
// block, through TransposeGrid and TransposeBlocks at every level
// (permuteGrid where the level has the kernels) against an element loop,
// with blocks beside each other or apart, blocks of whole lines on lines
// (streamed), in buffers flush against guard pages.
func TestTransposeGridPermuted(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(8, 9))
		for k := range 200 {
			w := []int{1, 2, 4, 8, 16}[r.IntN(5)]
			var rows, cols int
			for {
				rows, cols = 2+r.IntN(15), 2+r.IntN(15)
				if bs := rows * cols * w; bs >= 32 && bs <= 128 {
					break
				}
			}
			lines := k%3 == 0 // blocks of whole lines on lines, which TransposeGrid streams
			if lines {
				rows, cols = 8, 8
				w = 1 + r.IntN(2)
			}
			bs := rows * cols * w
			g := Grid{Inner: 1 + r.IntN(24), Outer: 1 + r.IntN(3)} // permuteGrid takes 16 blocks or more
			g.SrcInner, g.DstInner = bs+r.IntN(2)*r.IntN(70), bs+r.IntN(2)*r.IntN(70)
			g.SrcOuter, g.DstOuter = span(g.Inner, g.SrcInner, bs)+r.IntN(40), span(g.Inner, g.DstInner, bs)+r.IntN(40)
			if lines {
				g.DstInner = bs + 64*r.IntN(2)
				g.DstOuter = g.Inner*g.DstInner + 64*r.IntN(2)
			}
			src := guarded(t, span(g.Outer, g.SrcOuter, span(g.Inner, g.SrcInner, bs)), k%2 == 0)
			randomize(r, src)
			n := span(g.Outer, g.DstOuter, span(g.Inner, g.DstInner, bs))
			want := make([]byte, n)
			randomize(r, want)
			for a := range g.Outer {
				for b := range g.Inner {
					d, s := want[a*g.DstOuter+b*g.DstInner:], src[a*g.SrcOuter+b*g.SrcInner:]
					for i := range rows {
						for j := range cols {
							copy(d[(i*cols+j)*w:][:w], s[(j*rows+i)*w:])
						}
					}
				}
			}
			for _, blocks := range []bool{false, true} {
				dst := guarded(t, n, k%2 == 1 && !lines) // a page's start: on a line
				copy(dst, want)                          // the bytes between blocks stay
				for a := range g.Outer {
					for b := range g.Inner {
						clear(dst[a*g.DstOuter+b*g.DstInner:][:bs])
					}
				}
				if blocks {
					TransposeBlocks(w, dst, cols*w, src, rows*w, rows, cols, g)
				} else {
					TransposeGrid(w, dst, cols*w, src, rows*w, rows, cols, g)
				}
				if !bytes.Equal(dst, want) {
					t.Fatalf("case %d: %d×%d blocks of %d-byte elements, grid %+v, TransposeBlocks %v: wrong bytes", k, rows, cols, w, g, blocks)
				}
			}
		}
	})
}
