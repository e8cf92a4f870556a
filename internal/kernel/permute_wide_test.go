package kernel

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// pairedPerm returns a random permutation of lines lines in which each
// destination line draws on at most two source lines: the lines paired
// at random on each side, each pair's 128 bytes shuffled into the other
// side's pair (the last line of an odd count shuffled within itself).
func pairedPerm(r *rand.Rand, lines int) []int32 {
	perm := make([]int32, 64*lines)
	src, dst := r.Perm(lines), r.Perm(lines)
	for i := 0; i < lines; i += 2 {
		var from, to []int
		for _, l := range src[i:min(i+2, lines)] {
			for b := range 64 {
				from = append(from, 64*l+b)
			}
		}
		for _, l := range dst[i:min(i+2, lines)] {
			for b := range 64 {
				to = append(to, 64*l+b)
			}
		}
		for j, k := range r.Perm(len(to)) {
			perm[to[j]] = int32(from[k])
		}
	}
	return perm
}

// tilingPerm returns the permutation that turns 8×128 bytes in T(8,8)
// tiles (16 tiles of 64 bytes, side by side) into one T(8,128)(4,1)
// tile (two groups of 4 rows, each column's 4 bytes together).
func tilingPerm() []int32 {
	perm := make([]int32, 1024)
	for r := range 8 {
		for c := range 128 {
			perm[r/4*512+c*4+r%4] = int32(c/8*64 + r*8 + c%8)
		}
	}
	return perm
}

// padded returns perm with its bytes of every fourth destination line
// but one in each 8 taken from a padding line instead (rows of a tile
// past the array's edge), and that line.
func padded(r *rand.Rand, perm []int32) ([]int32, []byte) {
	perm = append([]int32(nil), perm...)
	for j := range perm {
		if j/64%4 == 3 && j%8 != 0 {
			perm[j] = -1
		}
	}
	pad := make([]byte, 64)
	for j := range pad {
		pad[j] = byte(r.Uint32())
	}
	return perm, pad
}

// TestPermuteWide checks PermuteWide against the generic permute at every
// level, in guard-paged buffers: tiling turns and random paired
// permutations of 1 to 64 lines, with padding bytes and without, with
// and without streaming, to destinations on and off lines.
func TestPermuteWide(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 21))
	type wide struct {
		perm []int32
		pad  []byte
	}
	perms := []wide{{tilingPerm(), nil}}
	for _, lines := range []int{1, 2, 3, 5, 16, 17, 64} {
		perm := pairedPerm(r, lines)
		perms = append(perms, wide{perm, nil})
		q, pad := padded(r, perm)
		perms = append(perms, wide{q, pad})
	}
	forEachLevel(t, func(t *testing.T) {
		for i, w := range perms {
			p, ok := NewWidePerm(w.perm, w.pad)
			if !ok {
				t.Fatalf("perm %d: not a WidePerm", i)
			}
			bs := p.Bytes()
			for _, n := range []int{0, 1, 3, 20} {
				for k := range 4 {
					name := fmt.Sprintf("perm %d (%d bytes)/n=%d/case %d", i, bs, n, k)
					src := guarded(t, n*bs, k%2 == 0)
					for j := range src {
						src[j] = byte(r.Uint32())
					}
					off := 0
					if k == 3 {
						off = 8 // a destination off lines
					}
					dst := guarded(t, n*bs+off, k%2 == 1)[off:]
					want := make([]byte, n*bs)
					permuteWideGeneric(want, src, p, n)
					PermuteWide(dst, src, p, n, k >= 2)
					StoreFence()
					if !bytes.Equal(dst, want) {
						t.Fatalf("%s: differs from the generic permute", name)
					}
				}
			}
		}
	})
}

// TestNewWidePerm checks the permutations NewWidePerm refuses.
func TestNewWidePerm(t *testing.T) {
	three := make([]int32, 192) // line 0 draws on all three source lines
	for j := range three {
		three[j] = int32(j)
	}
	three[0], three[1], three[64], three[128] = 64, 128, 0, 1
	seq := func(n int) []int32 {
		p := make([]int32, n)
		for j := range p {
			p[j] = int32(j)
		}
		return p
	}
	dup := seq(64)
	dup[1] = 0
	holes := seq(128)
	holes[5], holes[70] = -1, -1
	line := make([]byte, 64)
	for _, c := range []struct {
		name string
		perm []int32
		pad  []byte
		ok   bool
	}{
		{"identity", seq(128), nil, true},
		{"tiling", tilingPerm(), nil, true},
		{"padding", holes, line, true},
		{"padding, no line", holes, nil, false},
		{"padding line short", holes, line[:32], false},
		{"three source lines", three, nil, false},
		{"part line", seq(96), nil, false},
		{"empty", nil, nil, false},
		{"too many lines", seq(64 * (wideLinesMax + 1)), nil, false},
		{"no permutation", dup, nil, false},
		{"index past the block", append(seq(63), 64), nil, false},
	} {
		if _, ok := NewWidePerm(c.perm, c.pad); ok != c.ok {
			t.Errorf("%s: NewWidePerm reports %v, want %v", c.name, ok, c.ok)
		}
	}
}

// FuzzPermuteWide checks PermuteWide against the generic permute on
// random paired permutations of 1 to 64 lines, with padding bytes or
// without, streamed or not, to destinations on lines or off, in
// guard-paged buffers.
func FuzzPermuteWide(f *testing.F) {
	f.Add(uint8(16), uint8(3), uint8(0), uint64(1))
	f.Add(uint8(1), uint8(1), uint8(1), uint64(2))
	f.Add(uint8(63), uint8(7), uint8(3), uint64(3))
	f.Fuzz(func(t *testing.T, lines, n, flags uint8, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 13))
		perm, pad := pairedPerm(r, 1+int(lines)%wideLinesMax), []byte(nil)
		if flags&8 != 0 {
			perm, pad = padded(r, perm)
		}
		p, ok := NewWidePerm(perm, pad)
		if !ok {
			t.Fatalf("%d lines: not a WidePerm", len(perm)/64)
		}
		bs, blocks := p.Bytes(), int(n)%9
		src := guarded(t, blocks*bs, flags&1 != 0)
		randomize(r, src)
		off := 0
		if flags&2 != 0 {
			off = 1 + r.IntN(63)
		}
		dst := guarded(t, blocks*bs+off, flags&1 == 0)[off:]
		want := make([]byte, blocks*bs)
		permuteWideGeneric(want, src, p, blocks)
		PermuteWide(dst, src, p, blocks, flags&4 != 0)
		StoreFence()
		if !bytes.Equal(dst, want) {
			t.Fatalf("%d blocks of %d lines: differs from the generic permute", blocks, len(perm)/64)
		}
	})
}
