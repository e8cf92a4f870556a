package kernel

import (
	"encoding/binary"
	"fmt"
)

// A WidePerm is a byte permutation of blocks of whole lines in which each
// destination line draws on at most two lines of its source block: the
// turns between two tilings of one order (a T(8,8) tile of bytes and
// the (4,1) rows of T(8,128)(4,1) make 1 KiB blocks whose every 64
// destination bytes come from two source lines). PermuteWide runs it a
// VPERMI2B a line where the level has AVX-512 VBMI.
type WidePerm struct {
	perm []int32 // byte j of a destination block is byte perm[j] of its source block
	// table is permuteWideAVX512's: for each destination line its 64
	// indexes into its two source lines, then their offsets (int64s).
	table []byte
}

// wideLinesMax bounds the lines of a WidePerm's block: its table (128
// bytes a line) then stays in the L1 beside the blocks it permutes.
const wideLinesMax = 64

// WidePermMaxBytes is the largest block of a WidePerm.
const WidePermMaxBytes = 64 * wideLinesMax

// PermutesWide reports whether PermuteWide has a vector kernel at the
// level in use (AVX-512 VBMI): without one it moves a byte at a time.
func PermutesWide() bool { return permutesRuns() }

// NewWidePerm returns perm, in which byte j of a destination block is
// byte perm[j] of its source block, as a WidePerm, or false where it is
// none: a block that is not whole lines (or more than wideLinesMax of
// them), perm no permutation of its indexes, or a destination line that
// draws on three source lines or more.
func NewWidePerm(perm []int32) (*WidePerm, bool) {
	n := len(perm)
	if n == 0 || n%64 != 0 || n/64 > wideLinesMax {
		return nil, false
	}
	seen := make([]bool, n)
	for _, p := range perm {
		if p < 0 || int(p) >= n || seen[p] {
			return nil, false
		}
		seen[p] = true
	}
	table := make([]byte, 2*n)
	for k := range n / 64 {
		line := perm[64*k : 64*k+64]
		a, b := line[0]/64, int32(-1)
		for _, p := range line {
			switch l := p / 64; {
			case l == a:
			case b < 0 || l == b:
				b = l
			default:
				return nil, false
			}
		}
		if b < 0 {
			b = a
		}
		t := table[128*k : 128*k+128]
		for j, p := range line {
			t[j] = byte(p % 64)
			if p/64 != a {
				t[j] |= 64
			}
		}
		binary.LittleEndian.PutUint64(t[64:], uint64(64*a))
		binary.LittleEndian.PutUint64(t[72:], uint64(64*b))
	}
	return &WidePerm{perm: append([]int32(nil), perm...), table: table}, true
}

// Bytes returns the bytes of p's blocks.
func (p *WidePerm) Bytes() int { return len(p.perm) }

// PermuteWide permutes n blocks of p.Bytes() bytes, block i of dst (at
// i*p.Bytes()) from block i of src: byte j of a destination block is
// byte perm[j] of its source block (NewWidePerm). With stream, for a
// destination past the caches, it writes with non-temporal stores where
// the level has them and dst starts on a line, not fenced: the caller
// calls StoreFence after its last such call, as it would after a
// Stream{Unfenced: true} one. dst and src must not overlap.
func PermuteWide(dst, src []byte, p *WidePerm, n int, stream bool) {
	bs := p.Bytes()
	if n < 0 || len(dst) < n*bs || len(src) < n*bs {
		panic(fmt.Sprintf("tilecopy: wide permute of %d blocks of %d bytes between %d and %d bytes", n, bs, len(dst), len(src)))
	}
	if n == 0 {
		return
	}
	if permuteWideFast(dst, src, p, n, stream) {
		return
	}
	permuteWideGeneric(dst, src, p.perm, n)
}

// permuteWideGeneric is PermuteWide a byte at a time.
func permuteWideGeneric(dst, src []byte, perm []int32, n int) { permuteBytes(dst, src, perm, n) }
