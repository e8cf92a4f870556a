package relayout

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/tilecopy/tilecopy/internal/kernel"
	"github.com/tilecopy/tilecopy/tiling"
)

// mixed is the plan of a relayout between two layouts of 4-bit fields
// that pair the fields into bytes along different dims: the source's
// bytes hold two values of dim a (its fastest), the destination's two of
// dim b. Unpacked, every byte of such a pair takes three passes of twice
// the packed size (unpack, byte plan, pack). Here a byte plan moves the
// source's bytes as they are, each holding values 2i and 2i+1 of a at
// one value of b, to the destination bytes of values 2i and 2i+1 of a at
// values 2j and 2j+1 of b (the byte of value 2j+e of b to the place of
// value 2i+e of a); each two such bytes, h apart, then hold a 2×2 block
// of fields turned around, which kernel.TransposeNibblePairs turns back
// in place: s4[91,384,4,704] from T(16,64) to T(8,128)(8,1) tiles moves
// its 188 MiB of source as bytes, where the stages would unpack them to
// 375 MiB and pack the byte plan's 188 MiB of destination bytes again.
//
// The byte plan is a Plan of its own between byte shapes of one more
// dim: a and b halved, and e, the low bit of b on the source side (of a
// on the destination's), a dim of 2 (pairShape).
type mixed struct {
	q      *Plan // the byte plan
	h      int64 // bytes between the two bytes of a block
	blocks int64 // blocks of 2h bytes in the destination
	a, b   int   // the dims the source's and the destination's bytes pair
	// odd says whether a and b are odd: the byte plan then fills places
	// of the destination from the source's padding, the fields of their
	// last values past the array's end (oddFill). digits are the byte
	// plan's destination digits, pat a byte of the padding's fields.
	odd    [2]bool
	digits []tiling.Digit
	pat    []byte
	// inBox says that the byte plan, blocked, turns the pairs in its
	// gathered blocks (blocked.nibbles), in the caches: no pass after.
	inBox bool
	*parallelism
}

// mixed returns p, a plan between packed 4-bit layouts, as a mixed plan,
// or nil where the layouts do not pair fields along two dims that
// pairShape can halve on both sides.
func (p *Plan) mixed(opts *Options) *Plan {
	if !p.from.isPacked() || !p.to.isPacked() || p.fm.ElementBits() != 4 || p.tm.ElementBits() != 4 ||
		p.dtype.Bits() != 4 || opts != nil && opts.Pad.Widths != nil || p.fm.LogicalCount() == 0 {
		return nil
	}
	a, ok1 := pairDim(p.fm)
	b, ok2 := pairDim(p.tm)
	if !ok1 || !ok2 || a == b {
		return nil
	}
	src, ok1 := pairShape(p.from, p.fm, a, b)
	dst, ok2 := pairShape(p.to, p.tm, b, a)
	if !ok1 || !ok2 {
		return nil
	}
	o := Options{}
	if opts != nil {
		o = *opts
	}
	f := p.padPat[0] & 0x0f
	o.Pad = Padding{raw: []byte{f<<4 | f}}
	digits, _ := p.tm.Digits()
	var h int64
	for _, g := range digits {
		if g.Dim == a && g.Weight == 1 {
			h = g.Stride / 2
		}
	}
	q, err := Compile(src, dst, &o)
	if err != nil || q.srcBytes != p.srcBytes || q.dstBytes != p.dstBytes || h < 1 {
		return nil
	}
	if w := q.walk(); w != nil && w.tinyBlocks() && !o.forceMixed {
		// Tiny blocks that no blocked plan took move an element at a
		// time: u4[1408,1,4,2,9344] to T(8,128)(8,1), whose destination
		// pads a dim of 2 to 8, moves 2×4 byte blocks, each a byte and
		// three of padding, slower than slices of the fields would.
		return nil
	}
	m := &mixed{q: q, h: h, blocks: product(p.tm.PhysicalDims()) / 2 / (2 * h), a: a, b: b, pat: o.Pad.raw, parallelism: &p.parallelism}
	m.odd = [2]bool{p.from.dims[a]%2 != 0, p.from.dims[b]%2 != 0}
	if m.odd[0] || m.odd[1] {
		m.digits, _ = q.tm.Digits()
	} else if bl, ok := q.exec.(*blocked); ok {
		// The pairs of a gathered block turn in it, where it holds them.
		if n := bl.pairStride(src.Rank() - 1); n > 0 {
			bl.nibbles, m.inBox = n, true
		}
	}
	p.exec = m
	return p
}

// pairDim returns the dim whose digit of weight 1 is the map's fastest,
// of an even number of values: the dim whose values the bytes pair.
func pairDim(m *tiling.Map) (int, bool) {
	digits, ok := m.Digits()
	if !ok {
		return 0, false
	}
	for _, g := range digits {
		if g.Stride == 1 && g.Size > 1 {
			return g.Dim, g.Dim >= 0 && g.Weight == 1 && g.Size%2 == 0
		}
	}
	return 0, false
}

// pairShape returns s, a layout of 4-bit fields whose bytes pair values
// of dim pair, as a shape of bytes, each a pair: dims pair and split
// halved (an odd one rounded up, where s's tiles hold a place for its
// last value's pair), and a dim of 2 after the others, e, the low bit of
// split. Its byte at (…, i of pair, …, j of split, …, e) is s's byte of
// values 2i and 2i+1 of pair at value 2j+e of split. The layout is s's with the
// dims halved in the tiles that hold them, e just inside split; of the
// ways to halve them, the first whose digits are the ones wanted
// (pairDigits).
func pairShape(s Shape, m *tiling.Map, pair, split int) (Shape, bool) {
	l, _ := s.Layout()
	rank := s.Rank()
	if l.TailPaddingAlignment > 1 && l.TailPaddingAlignment%2 != 0 {
		return Shape{}, false
	}
	want, ok := pairDigits(m, pair, split, rank)
	if !ok {
		return Shape{}, false
	}
	pp, ps := slices.Index(l.MinorToMajor, pair), slices.Index(l.MinorToMajor, split)
	if pp < 0 || ps < 0 {
		return Shape{}, false
	}
	// An odd dim's last pair holds a place of padding; the digits say
	// whether s holds it (a tile's padding does).
	dims := append(slices.Clone(s.dims), 2)
	dims[pair] = (dims[pair] + 1) / 2
	dims[split] = (dims[split] + 1) / 2
	out := Layout{MinorToMajor: slices.Insert(slices.Clone(l.MinorToMajor), ps, rank), TailPaddingAlignment: l.TailPaddingAlignment / 2}
	// Each level that covers pair may halve its extent or keep it; each
	// that covers split may give e 2 of its extent or none.
	levels := len(l.Tiles)
	for choice := range 1 << (2 * levels) {
		out.Tiles = out.Tiles[:0]
		fine := true
		for i, t := range l.Tiles {
			k := len(t)
			if slices.Contains(t, CombineDim) || i > 0 && k > len(l.Tiles[i-1]) {
				return Shape{}, false
			}
			nt := slices.Clone(t)
			if pp < k && choice>>(2*i)&1 != 0 {
				fine = fine && nt[k-1-pp]%2 == 0
				nt[k-1-pp] /= 2
			}
			if ps < k {
				x, e := nt[k-1-ps], int64(1)
				if choice>>(2*i+1)&1 != 0 {
					fine = fine && x%2 == 0
					x, e = x/2, 2
				}
				nt[k-1-ps] = x
				nt = slices.Insert(nt, k-ps, e)
			}
			out.Tiles = append(out.Tiles, nt)
		}
		if !fine {
			continue
		}
		c := NewShape(U8, dims, &out)
		cm, err := c.denseMap()
		if err != nil || cm.Bytes() != m.Bytes() {
			continue
		}
		if got, ok := cm.Digits(); ok && slices.Equal(canonDigits(got), want) {
			return c, true
		}
	}
	return Shape{}, false
}

// pairDigits returns the digits, in bytes, that pairShape's shape must
// have (canonDigits): m's, strides halved, with pair's digit of weight 1
// (stride 1, even size) holding half the values, a pair each, and
// split's digit of weight 1 cut in two, its low bit a digit of dim rank.
func pairDigits(m *tiling.Map, pair, split, rank int) ([]tiling.Digit, bool) {
	digits, ok := m.Digits()
	if !ok {
		return nil, false
	}
	var out []tiling.Digit
	for _, g := range digits {
		switch {
		case g.Size == 1:
			continue
		case g.Dim < 0 || g.Stride%2 != 0 && g.Stride != 1:
			return nil, false
		case g.Dim == pair && g.Weight == 1:
			if g.Stride != 1 || g.Size%2 != 0 {
				return nil, false
			}
			out = append(out, tiling.Digit{Dim: pair, Weight: 1, Size: g.Size / 2, Stride: 1})
		case g.Dim == split && g.Weight == 1:
			if g.Size%2 != 0 {
				return nil, false
			}
			out = append(out, tiling.Digit{Dim: rank, Weight: 1, Size: 2, Stride: g.Stride / 2},
				tiling.Digit{Dim: split, Weight: 1, Size: g.Size / 2, Stride: g.Stride})
		case g.Dim == pair || g.Dim == split:
			if g.Weight%2 != 0 {
				return nil, false
			}
			out = append(out, tiling.Digit{Dim: g.Dim, Weight: g.Weight / 2, Size: g.Size, Stride: g.Stride / 2})
		default:
			out = append(out, tiling.Digit{Dim: g.Dim, Weight: g.Weight, Size: g.Size, Stride: g.Stride / 2})
		}
	}
	return canonDigits(out), true
}

// canonDigits returns digits in one form for each offset function: no
// digits of one value, by dim and weight, and each dim's digits that
// continue one another (the next's weight and stride the last's times
// its size) joined.
func canonDigits(digits []tiling.Digit) []tiling.Digit {
	var out []tiling.Digit
	for _, g := range digits {
		if g.Size > 1 {
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(x, y tiling.Digit) int {
		return cmp.Or(cmp.Compare(x.Dim, y.Dim), cmp.Compare(x.Weight, y.Weight))
	})
	j := 0
	for _, g := range out {
		if j > 0 {
			if last := &out[j-1]; last.Dim == g.Dim && g.Weight == last.Weight*last.Size && g.Stride == last.Stride*last.Size {
				last.Size *= g.Size
				continue
			}
		}
		out[j] = g
		j++
	}
	return out[:j]
}

// run runs the byte plan, then turns the blocks around, shared among the
// plan's goroutines.
func (m *mixed) run(dst, src []byte) error {
	if err := m.q.exec.run(dst, src); err != nil {
		return err
	}
	if m.inBox {
		return nil
	}
	m.oddFill(dst, 1)
	shareOut(m.blocks, min(m.goroutines(), m.blocks), func(lo, hi int64) {
		kernel.TransposeNibblePairs(dst[2*lo*m.h:2*hi*m.h], int(m.h), int(hi-lo))
	})
	m.oddFill(dst, 0)
	return nil
}

// oddFill writes the padding over the places of the destination that
// the byte plan filled from the source's padding where dim a (side 0) or
// b (side 1) is odd: the byte plan's places of that dim's last pair and
// of value 1 of e. Of an odd b, they hold fields of b's last value + 1
// (past the end) beside fields of its last, in the bytes of one value
// of a, the second of each block: written before the blocks turn, so
// that turned they give each byte of b's last value its padding field.
// Of an odd a, the blocks once turned, they hold whole bytes of a's
// value past the end, written after.
func (m *mixed) oddFill(dst []byte, side int) {
	if !m.odd[side] {
		return
	}
	d := [2]int{m.a, m.b}[side]
	fillPlane(dst, m.digits, d, m.q.to.dims[d]-1, m.q.to.Rank()-1, 1, m.pat)
}

// fillPlane writes pat (a byte) into every byte of buf, laid out by
// digits, whose index of dim d is v and of dim e is w: for each value of
// the other digits (those past their dims' ends too, which hold
// padding), a run of the digit of stride 1 among them, or a byte, the
// runs of their digit of the next stride one fill call.
func fillPlane(buf []byte, digits []tiling.Digit, d int, v int64, e int, w int64, pat []byte) {
	var base int64
	var free []tiling.Digit
	for _, g := range digits {
		switch g.Dim {
		case d:
			base += v / g.Weight % g.Size * g.Stride
		case e:
			base += w / g.Weight % g.Size * g.Stride
		default:
			if g.Size > 1 {
				free = append(free, g)
			}
		}
	}
	slices.SortFunc(free, func(x, y tiling.Digit) int { return cmp.Compare(y.Stride, x.Stride) })
	run, rows, stride := int64(1), int64(1), int64(0)
	if n := len(free); n > 0 && free[n-1].Stride == 1 {
		run, free = free[n-1].Size, free[:n-1]
	}
	if n := len(free); n > 0 {
		rows, stride, free = free[n-1].Size, free[n-1].Stride, free[:n-1]
	}
	idx := make([]int64, len(free))
	for {
		off := base
		for i, g := range free {
			off += idx[i] * g.Stride
		}
		kernel.FillRuns(buf[off:], int(stride), int(run), int(rows), pat)
		i := len(free) - 1
		for ; i >= 0; i-- {
			if idx[i]++; idx[i] < free[i].Size {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// chunks is 1: a block's two bytes may lie in two chunks of the byte
// plan.
func (m *mixed) chunks() int64 { return 1 }

// runChunks runs the one chunk.
func (m *mixed) runChunks(dst, src []byte, lo, hi int64) { _ = m.run(dst, src) }

// chunkRange is the whole destination.
func (m *mixed) chunkRange(lo, hi int64) (from, to int64) { return 0, m.dstBytes }

// padding is the byte plan's, a pair of the plan's.
func (m *mixed) padding() string { return m.q.exec.padding() }

// explain says how the bytes pair, then explains the byte plan.
func (m *mixed) explain(b *strings.Builder) {
	fmt.Fprintf(b, "  mixed: the source's bytes pair values of d%d, the destination's of d%d: a byte plan moves the source's bytes (d%d and d%d halved, the low bit of d%d a dim of its own), then each two bytes %d apart turn their 2×2 fields around (kernel.TransposeNibblePairs)\n",
		m.a, m.b, m.a, m.b, m.b, m.h)
	if m.inBox {
		fmt.Fprintf(b, "  the byte plan turns the pairs in its blocks, in the caches\n")
	}
	fmt.Fprintf(b, "  the byte plan:\n")
	for line := range strings.Lines(m.q.String()) {
		b.WriteString("    " + line)
	}
}
