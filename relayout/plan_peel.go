package relayout

import (
	"fmt"
	"strings"
)

// peeled is the plan of a relayout that copies but for the last tiles of
// the dim slowest on both sides: u4[41015,2176] in T(8,128)(8,1)E(4)
// tiles to itself, whose last row of tiles holds 7 rows and a row of
// padding. Whole, the plan walks 8-value runs a tile column at a time to
// keep that padding apart from the rows; the first 41008 rows, whole tiles
// on both sides, are one copy of the buffers' first bytes, and the last 7
// a plan of their own over the bytes after them.
type peeled struct {
	dim   int      // the dim cut, slowest on both sides
	parts [2]*Plan // its first values (the copy), then the rest
	src   [2]int64 // where each part starts in the source, in bytes
	dst   [2]int64 // and in the destination
}

// peel returns p, a plan Compile has just compiled whole, as a peeled
// plan, or nil where it does not take one: where the dim slowest on both
// sides ends in tiles that hold padding on either side, and its values
// before them, whole tiles on both sides, copy as they are while the
// pair does not.
func (p *Plan) peel(opts *Options) *Plan {
	from, to := p.from, p.to
	d, m, ok := peelAt(from, to)
	if !ok || opts != nil && opts.Pad.Widths != nil || p.copies() {
		return nil
	}
	bulk, err := Compile(from.withDim(d, m), to.withDim(d, m), opts)
	if err != nil || !bulk.copies() {
		return nil
	}
	n := from.dims[d]
	rest, err := Compile(from.withDim(d, n-m), to.withDim(d, n-m), opts)
	if err != nil {
		return nil
	}
	// The parts must tile both buffers, each starting on a byte: the
	// bulk's elements fill whole bytes on both sides.
	if bulk.srcBytes+rest.srcBytes != p.srcBytes || bulk.dstBytes+rest.dstBytes != p.dstBytes ||
		bulk.fm.Elements()*bulk.fm.ElementBits()%8 != 0 || bulk.tm.Elements()*bulk.tm.ElementBits()%8 != 0 {
		return nil
	}
	p.exec = &peeled{dim: d, parts: [2]*Plan{bulk, rest}, src: [2]int64{0, bulk.srcBytes}, dst: [2]int64{0, bulk.dstBytes}}
	return p
}

// peelAt returns the dim slowest on both sides and how many of its first
// values make whole tiles on both, where there is such a dim, it ends in
// a partial tile on one side at least, and the layouts place its values
// in order, a tile row after another: a dim no tile covers, or that
// the first tile covers with an extent of its own; later tiles within
// the first; no combined dims, tail alignment or dynamic dims.
func peelAt(from, to Shape) (d int, m int64, ok bool) {
	if from.IsTuple() || to.IsTuple() || from.HasDynamicDims() || to.HasDynamicDims() || from.Rank() == 0 || from.Rank() != to.Rank() {
		return 0, 0, false
	}
	step := int64(1)
	for i, s := range [2]Shape{from, to} {
		l, has := s.Layout()
		if !has || l.TailPaddingAlignment > 1 || len(l.MinorToMajor) != s.Rank() {
			return 0, 0, false
		}
		slowest := l.MinorToMajor[len(l.MinorToMajor)-1]
		if i == 0 {
			d = slowest
		} else if slowest != d {
			return 0, 0, false
		}
		t, fine := tileExtent(l, s.Rank())
		if !fine {
			return 0, 0, false
		}
		step = step / gcd(step, t) * t
	}
	n := from.dims[d]
	m = n / step * step
	return d, m, m > 0 && m < n
}

// tileExtent returns the extent along the slowest physical dim of the
// first of l's tiles for an array of rank dims (1 where that tile does
// not reach it), and false where the tiles do not keep that dim's tile
// rows in order: a combined dim, a first tile of more dims than the
// array, or a later tile of more dims than the first.
func tileExtent(l Layout, rank int) (int64, bool) {
	if len(l.Tiles) == 0 {
		return 1, true
	}
	first := l.Tiles[0]
	for _, t := range l.Tiles {
		if len(t) > len(first) {
			return 0, false
		}
		for _, e := range t {
			if e == CombineDim || e < 1 {
				return 0, false
			}
		}
	}
	if len(first) > rank {
		return 0, false
	}
	if len(first) < rank {
		return 1, true
	}
	return first[0], true
}

// withDim returns s with dimension d of size n.
func (s Shape) withDim(d int, n int64) Shape {
	c := s.clone()
	c.dims[d] = n
	return c
}

// run runs both parts, each over its bytes of the buffers.
func (p *peeled) run(dst, src []byte) error {
	for i, q := range p.parts {
		if err := q.exec.run(p.dstOf(dst, i), p.srcOf(src, i)); err != nil {
			return err
		}
	}
	return nil
}

// dstOf and srcOf return part i's bytes of the buffers.
func (p *peeled) dstOf(dst []byte, i int) []byte {
	return dst[p.dst[i] : p.dst[i]+p.parts[i].dstBytes]
}

func (p *peeled) srcOf(src []byte, i int) []byte {
	return src[p.src[i] : p.src[i]+p.parts[i].srcBytes]
}

// chunks is the chunks of both parts, the bulk's first.
func (p *peeled) chunks() int64 { return p.parts[0].Chunks() + p.parts[1].Chunks() }

// inParts calls f with each part that chunks [lo, hi) reach, and the
// range of its own chunks they take.
func (p *peeled) inParts(lo, hi int64, f func(i int, q *Plan, a, b int64)) {
	base := int64(0)
	for i, q := range p.parts {
		n := q.Chunks()
		if a, b := max(lo-base, 0), min(hi-base, n); a < b {
			f(i, q, a, b)
		}
		base += n
	}
}

// runChunks runs chunks [lo, hi): of each part, those in the range.
func (p *peeled) runChunks(dst, src []byte, lo, hi int64) {
	p.inParts(lo, hi, func(i int, q *Plan, a, b int64) {
		d, s := p.dstOf(dst, i), p.srcOf(src, i)
		if q.Chunks() == 1 {
			q.exec.run(d, s) // the buffers are checked, a part's run has no error of its own
			return
		}
		q.exec.runChunks(d, s, a, b)
	})
}

// chunkRange returns the destination bytes that chunks [lo, hi) write
// into: from the first one's start to the last one's end.
func (p *peeled) chunkRange(lo, hi int64) (from, to int64) {
	from = -1
	p.inParts(lo, hi, func(i int, q *Plan, a, b int64) {
		f, t := q.DestinationRange(a, b)
		if from < 0 {
			from = p.dst[i] + f
		}
		to = p.dst[i] + t
	})
	return from, to
}

// padding is the bulk's, the same as the rest's.
func (p *peeled) padding() string { return p.parts[0].exec.padding() }

// explain says where the plan cuts, then explains both parts.
func (p *peeled) explain(b *strings.Builder) {
	bulk, rest := p.parts[0], p.parts[1]
	fmt.Fprintf(b, "  peeled: d%d, the slowest dim on both sides, in two: its first %d values, whole tiles on both sides, copy as they are (part 1); the last %d, in tiles that hold padding, are a plan of their own over the bytes after them (part 2)\n",
		p.dim, bulk.from.dims[p.dim], rest.from.dims[p.dim])
	for i, q := range p.parts {
		fmt.Fprintf(b, "  part %d, bytes from %d (source) and %d (destination):\n", i+1, p.src[i], p.dst[i])
		for line := range strings.Lines(q.String()) {
			b.WriteString("    " + line)
		}
	}
}
