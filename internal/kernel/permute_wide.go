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
	// perm: byte j of a destination block is byte perm[j] of its source
	// block, or where that is negative byte j%64 of pad.
	perm []int32
	pad  [64]byte
	// table is permuteWideAVX512's: for each destination line its 64
	// indexes into its two source lines, their offsets (int64s), then
	// the mask of its bytes that take pad's (an uint64).
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
// byte perm[j] of its source block, or where perm[j] is negative byte
// j%64 of pad (a destination's padding: pad is its pattern along a line,
// nil where perm has no such byte), as a WidePerm, or false where it is
// none: a block that is not whole lines (or more than wideLinesMax of
// them), perm's other bytes not distinct indexes into the block, or a
// destination line that draws on three source lines or more.
func NewWidePerm(perm []int32, pad []byte) (*WidePerm, bool) {
	n := len(perm)
	if n == 0 || n%64 != 0 || n/64 > wideLinesMax || pad != nil && len(pad) != 64 {
		return nil, false
	}
	seen := make([]bool, n)
	for _, p := range perm {
		if p < 0 && pad != nil {
			continue
		}
		if p < 0 || int(p) >= n || seen[p] {
			return nil, false
		}
		seen[p] = true
	}
	table := make([]byte, 2*n)
	for k := range n / 64 {
		line := perm[64*k : 64*k+64]
		a, b := int32(-1), int32(-1)
		var mask uint64
		for j, p := range line {
			switch l := p / 64; {
			case p < 0:
				mask |= 1 << j
			case a < 0 || l == a:
				a = l
			case b < 0 || l == b:
				b = l
			default:
				return nil, false
			}
		}
		a = max(a, 0) // a line all padding reads the block's first
		if b < 0 {
			b = a
		}
		t := table[128*k : 128*k+128]
		for j, p := range line {
			if p >= 0 {
				t[j] = byte(p % 64)
				if p/64 != a {
					t[j] |= 64
				}
			}
		}
		binary.LittleEndian.PutUint64(t[64:], uint64(64*a))
		binary.LittleEndian.PutUint64(t[72:], uint64(64*b))
		binary.LittleEndian.PutUint64(t[80:], mask)
	}
	w := &WidePerm{perm: append([]int32(nil), perm...), table: table}
	copy(w.pad[:], pad)
	return w, true
}

// Bytes returns the bytes of p's blocks.
func (p *WidePerm) Bytes() int { return len(p.perm) }

// PermuteWide permutes n blocks of p.Bytes() bytes, block i of dst (at
// i*p.Bytes()) from block i of src: byte j of a destination block is
// byte perm[j] of its source block, or of the padding (NewWidePerm).
// With stream, for a destination past the caches, it writes with
// non-temporal stores where the level has them and dst starts on a line,
// not fenced: the caller calls StoreFence after its last such call, as
// it would after a Stream{Unfenced: true} one. dst and src must not
// overlap.
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
	permuteWideGeneric(dst, src, p, n)
}

// permuteWideGeneric is PermuteWide a byte at a time.
func permuteWideGeneric(dst, src []byte, p *WidePerm, n int) {
	bs := len(p.perm)
	for i := range n {
		d, s := dst[i*bs:(i+1)*bs], src[i*bs:(i+1)*bs]
		for j, q := range p.perm {
			if q < 0 {
				d[j] = p.pad[j%64]
			} else {
				d[j] = s[q]
			}
		}
	}
}
