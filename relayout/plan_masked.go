package relayout

import (
	"fmt"
	"strings"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

// maskedCopy is the executor of a relayout of a tiled layout to itself
// whose tiles hold padding: s4[4,4,2320768] in T(8,128)(8,1)E(4) tiles,
// whose every 4 bytes hold 2 of elements and 2 of padding, or u4 and u8
// arrays whose tiled dim of 2 or 3 fills a quarter of each tile. Walked,
// such a plan moves a few bytes a run between padding; it is rather a
// copy of the whole buffer in which each byte keeps the source's bits of
// elements and takes the padding's (kernel.Mask), one pass at the speed
// of a copy.
//
// The buffer is a sequence of units, all of one size: the tiles of the
// layout's minor tiled dims from some one on, as many dims as keep a unit
// within maxMaskUnit bytes (a slice of all of them, a row of tiles, a
// tile). Which of the unit's other dims (the grid's first ones) end in
// it, at their last tile, where that is partial, sets its padding, so
// that the units fall into few kinds; segs lists the runs of units of
// one kind in buffer order, and each kind's mask comes from compiling
// the unit's own relayout and running it on sources of ones and of
// zeros.
type maskedCopy struct {
	executor           // the plan it was compiled as, whose chunks RunRange runs
	*parallelism       // the plan's
	unit         int64 // bytes
	tiles        int64 // tiles a unit
	masks        []*kernel.Mask
	segs         []maskSeg
	stream       bool // the buffer is large enough for non-temporal stores (kernel.Tuning.CopyStreamBytes)
}

// A maskSeg is n bytes from off, units of kind mask.
type maskSeg struct {
	off, n int64
	mask   int
}

// maxMaskUnit bounds the unit of a masked copy: its mask and pattern
// stay in the L2 (kernel.Mask).
const maxMaskUnit = 64 << 10

// maxMaskSegs bounds a masked copy's segments: beyond, the units alternate
// so often that the walk's own plan serves as well.
const maxMaskSegs = 1 << 14

// masked returns p, a plan Compile has just compiled whole, as a masked
// copy, or nil where it does not take one: where the relayout is not of
// a layout to itself, copies already, stores elements wider than their
// type, or its layout is not one whose tiles it can count (maskedGrid),
// or whose units alternate too often (maxMaskSegs).
func (p *Plan) masked(opts *Options) *Plan {
	if !p.from.Equal(p.to) || opts != nil && opts.Pad.Widths != nil || p.copies() {
		return nil
	}
	// The masks hold where a unit's relayout moves bits as they are,
	// which it does where an element is stored in its own width: s2 in
	// E(4) fields, say, is sign-extended from its 2 bits.
	if p.to.elementBits() != int64(p.to.dtype.Bits()) {
		return nil
	}
	g, ok := maskedGrid(p.to)
	if !ok || g.tileBits%8 != 0 {
		return nil
	}
	tile := g.tileBits / 8
	outer := int64(1)
	for _, d := range g.outer {
		outer *= p.to.dims[d]
	}
	total := outer * tile
	for _, c := range g.counts {
		total *= c
	}
	if total != p.dstBytes {
		return nil
	}
	// The grid dims before grid number the units, the rest tile them.
	grid := len(g.dims)
	for grid > 0 && g.units(grid-1, len(g.dims))*tile <= maxMaskUnit {
		grid--
	}
	m := &maskedCopy{parallelism: &p.parallelism, tiles: g.units(grid, len(g.dims)), stream: p.dstBytes > int64(currentTuning().CopyStreamBytes)}
	if m.unit = m.tiles * tile; m.unit > maxMaskUnit {
		return nil
	}
	kinds := map[string]int{}
	var fail bool
	// emit appends n units of the kind whose dims (the grid's first,
	// each at its tile's extent or the array's) are ext, joining it to
	// the last segment where that is of the same kind.
	emit := func(ext []int64, n int64) {
		key := fmt.Sprint(ext)
		i, seen := kinds[key]
		if !seen {
			mask, err := maskOfUnit(p, opts, g, ext[:grid], m.unit)
			if err != nil {
				fail = true
				return
			}
			i = len(m.masks)
			kinds[key] = i
			m.masks = append(m.masks, mask)
		}
		off := int64(0)
		if l := len(m.segs); l > 0 {
			last := &m.segs[l-1]
			if last.mask == i {
				last.n += n * m.unit
				return
			}
			off = last.off + last.n
		}
		m.segs = append(m.segs, maskSeg{off: off, n: n * m.unit, mask: i})
	}
	// walk emits the units from grid dim j on, those before at ext;
	// whole sets the dims from j on at their tiles' extents (or their
	// own, where smaller), as their units have them where every value
	// of those dims is alike.
	ext := make([]int64, grid)
	whole := func(j int) {
		for i := j; i < grid; i++ {
			ext[i] = min(g.tiles[i], p.to.dims[g.dims[i]])
		}
	}
	var walk func(j int)
	walk = func(j int) {
		if fail || len(m.segs) > maxMaskSegs {
			fail = true
			return
		}
		if j == grid {
			emit(ext, 1)
			return
		}
		c, t, n := g.counts[j], g.tiles[j], p.to.dims[g.dims[j]]
		ext[j] = min(t, n)
		switch {
		case c == 1 || n%t == 0:
			// Every value of the dim alike: its units repeat.
			if g.uniform(j+1, grid, p.to.dims) {
				whole(j + 1)
				emit(ext, g.units(j, grid))
				return
			}
			for range c {
				walk(j + 1)
			}
		default:
			// Every value but the last alike, the last partial.
			if g.uniform(j+1, grid, p.to.dims) {
				whole(j + 1)
				emit(ext, g.units(j+1, grid)*(c-1))
			} else {
				for range c - 1 {
					walk(j + 1)
				}
			}
			ext[j] = n - (c-1)*t
			walk(j + 1)
		}
	}
	if g.uniform(0, grid, p.to.dims) {
		whole(0)
		emit(ext, outer*g.units(0, grid))
	} else {
		for o := int64(0); o < outer && !fail; o++ {
			walk(0)
		}
	}
	if fail {
		return nil
	}
	m.executor = p.exec
	p.exec = m
	return p
}

// A tileGrid is how a layout's first tile cuts its array: the dims it
// tiles, major to minor, with the tile's extent along each and the
// count of tiles; the dims before them, which no tile reaches; and the
// bits of a tile.
type tileGrid struct {
	outer    []int
	dims     []int
	tiles    []int64
	counts   []int64
	tileBits int64
}

// maskedGrid returns the grid of s's first tile, where s is a static
// array whose layout has tiles, no combined dims, no tail alignment, a
// first tile of no more dims than the array and later tiles of no more
// dims than the first.
func maskedGrid(s Shape) (tileGrid, bool) {
	l, ok := s.Layout()
	if s.IsTuple() || s.HasDynamicDims() || !ok || len(l.Tiles) == 0 || l.TailPaddingAlignment > 1 || len(l.MinorToMajor) != s.Rank() {
		return tileGrid{}, false
	}
	if _, fine := tileExtent(l, s.Rank()); !fine {
		return tileGrid{}, false
	}
	first := l.Tiles[0]
	k := len(first)
	var g tileGrid
	for i := s.Rank() - 1; i >= 0; i-- { // major to minor
		d := l.MinorToMajor[i]
		if i >= k {
			g.outer = append(g.outer, d)
			continue
		}
		t := first[k-1-i]
		g.dims = append(g.dims, d)
		g.tiles = append(g.tiles, t)
		g.counts = append(g.counts, ceilDiv(s.dims[d], t))
	}
	g.tileBits = s.elementBits()
	for _, t := range first {
		g.tileBits *= t
	}
	return g, true
}

// uniform reports whether the grid dims [from, to) hold units of one
// kind: each has one tile or whole tiles.
func (g tileGrid) uniform(from, to int, dims []int64) bool {
	for j := from; j < to; j++ {
		if g.counts[j] > 1 && dims[g.dims[j]]%g.tiles[j] != 0 {
			return false
		}
	}
	return true
}

// units returns the units the grid dims [from, to) number.
func (g tileGrid) units(from, to int) int64 {
	n := int64(1)
	for j := from; j < to; j++ {
		n *= g.counts[j]
	}
	return n
}

// maskOfUnit returns the mask of a unit whose grid dims before its own
// are at ext (its own at the array's): the relayout of such an array to itself,
// compiled (as a walk, not as a masked copy again) and run on sources of
// ones and of zeros, gives the bits it keeps and the padding it writes.
func maskOfUnit(p *Plan, opts *Options, g tileGrid, ext []int64, unit int64) (*kernel.Mask, error) {
	s := p.to.clone()
	for _, d := range g.outer {
		s.dims[d] = 1
	}
	for j, d := range g.dims {
		if j < len(ext) {
			s.dims[d] = ext[j]
		}
	}
	o := Options{Threads: 1}
	if opts != nil {
		o.Pad = opts.Pad
	}
	q, err := compile(s, s, &o, int64(currentTuning().RunStreamBytes), true)
	if err != nil {
		return nil, err
	}
	if q.dstBytes != unit {
		return nil, fmt.Errorf("relayout: unit %s holds %d bytes, want %d", s, q.dstBytes, unit)
	}
	ones, zeros := make([]byte, unit), make([]byte, unit)
	for i := range ones {
		ones[i] = 0xff
	}
	a, b := make([]byte, unit), make([]byte, unit)
	if err := q.Run(a, ones); err != nil {
		return nil, err
	}
	if err := q.Run(b, zeros); err != nil {
		return nil, err
	}
	for i := range a {
		a[i] ^= b[i]
	}
	return kernel.NewMask(a, b)
}

// run copies the buffer through the masks, a segment at a time, on as
// many goroutines as the plan may use, each on its share of pages.
func (m *maskedCopy) run(dst, src []byte) error {
	n := int64(len(dst))
	shareOut(ceilDiv(n, copyPiece), min(m.goroutines(), ceilDiv(n, copyPiece)), func(lo, hi int64) {
		a, e := lo*copyPiece, min(hi*copyPiece, n)
		for _, s := range m.segs {
			from, to := max(s.off, a), min(s.off+s.n, e)
			if from < to {
				m.masks[s.mask].Copy(dst[from:to], src[from:to], int((from-s.off)%m.unit), m.stream)
			}
		}
	})
	return nil
}

// explain says that a Run copies through masks, then explains the plan
// it was compiled as.
func (m *maskedCopy) explain(b *strings.Builder) {
	fmt.Fprintf(b, "  masked copy: the layout to itself, its tiles holding padding: a Run copies the buffer whole, each byte keeping the bits of elements and taking the padding's (kernel.Mask), over %d segments of units of %d bytes (%d tiles) of %d kinds%s\n",
		len(m.segs), m.unit, m.tiles, len(m.masks), explainThreads(m.goroutines()))
	m.executor.explain(b)
}

// explainThreads says how many goroutines a Run shares its pages among,
// where more than one.
func explainThreads(g int64) string {
	if g > 1 {
		return fmt.Sprintf(", in %d shares of pages on as many goroutines", g)
	}
	return ""
}
