package relayout

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

// The run of a blocked plan (plan_blocked.go): the loops over blocks,
// each block's gather, turns and scatter, and what String says of it.

// run runs the blocks, the values of the outermost loop over them
// shared among the plan's goroutines.
func (b *blocked) run(dst, src []byte) error {
	n, g := b.chunks(), int64(b.goroutines())
	if k, m := b.sharedLoops(2 * g); g > 1 && n < 2*g && k > 0 {
		// Fewer chunks than two a goroutine (one for RunRange, whose
		// chunks write contiguous parts of the destination): each
		// block writes places of its own all the same, interleaved
		// with the others', and a Run shares out the values of the
		// outermost loops over blocks, as many of them as make two a
		// goroutine (s8[128,128,48,17,3] to {0,2,1,4,3:T(8,128)(4,1)},
		// one chunk, and bf16[257,128,142,1,3] from T(8,128)(2,1) to
		// {2,0,4,1,3:T(8,8)}, whose outermost loop has 3 values, ran on
		// one goroutine of two).
		shareOut(m, g, func(lo, hi int64) { b.runShared(dst, src, k, lo, hi) })
	} else if g := min(g, n); g > 1 {
		shareOut(n, g, func(lo, hi int64) { b.runChunks(dst, src, lo, hi) })
	} else {
		b.runChunks(dst, src, 0, n)
	}
	return nil
}

// sharedLoops returns the fewest outermost loops over blocks, k of
// them, whose values together, m, number at least want; or 0 where all
// of them number fewer.
func (b *blocked) sharedLoops(want int64) (k int, m int64) {
	m = 1
	for i, l := range b.outer {
		if m *= l.size; m >= want {
			return i + 1, m
		}
	}
	return 0, 0
}

// runShared runs values [lo, hi) of the first k loops over blocks taken
// together, the last of them the fastest, and the loops inside each, on
// the calling goroutine; the last value writes the tail padding.
func (b *blocked) runShared(dst, src []byte, k int, lo, hi int64) {
	bb := b.getBufs()
	clear(bb.base)
	last := int64(1)
	for _, l := range b.outer[:k] {
		last *= l.size
	}
	for v := lo; v < hi; v++ {
		var dOff, sOff int64
		in, rest := true, v
		for i := k - 1; i >= 0; i-- {
			l := b.outer[i]
			x := rest % l.size
			rest /= l.size
			bb.base[l.dim] += x * l.w
			dOff, sOff = dOff+x*l.dst, sOff+x*l.src
		}
		for _, l := range b.outer[:k] {
			in = in && bb.base[l.dim] < b.dims[l.dim].e
		}
		if in {
			b.outerLevel(dst, src, k, dOff, sOff, bb)
		}
		clear(bb.base)
	}
	b.finish(dst, bb, hi == last)
}

// chunks is the number of values of the outermost loop over blocks,
// where each writes a part of the destination of its own; else 1.
func (b *blocked) chunks() int64 { return b.nchunks }

// countChunks counts chunks() when the plan is built.
func (b *blocked) countChunks() int64 {
	if len(b.outer) == 0 || b.reachInside() > b.outer[0].dst {
		return 1
	}
	return b.outer[0].size
}

// reachInside is how many destination elements one value of the
// outermost loop over blocks spans: one plus, for each dim, the offset
// of its last index that the destination holds within that value, where
// each dim's heavier digits step further (else the sum over its digits
// of their last held values' offsets).
func (b *blocked) reachInside() int64 {
	n := int64(1)
	rest := slices.Concat(b.outer[1:], b.digits)
	for d, dm := range b.dims {
		var ds []ploop
		for _, l := range rest {
			if l.dim == d {
				ds = append(ds, l)
			}
		}
		if len(ds) == 0 {
			continue
		}
		slices.SortFunc(ds, func(x, y ploop) int { return cmp.Compare(y.w, x.w) })
		last := min(dm.e, ds[0].w*ds[0].size)
		if d == b.outer[0].dim {
			last = min(last, b.outer[0].w)
		}
		monotone := true
		for k := 1; k < len(ds); k++ {
			monotone = monotone && ds[k].dst*ds[k].size <= ds[k-1].dst
		}
		for _, l := range ds {
			if monotone {
				n += (last - 1) / l.w % l.size * l.dst
			} else {
				n += (max(1, min(l.size, ceilDiv(dm.e, l.w))) - 1) * l.dst
			}
		}
	}
	return n
}

// chunkRange returns the destination bytes that chunks [lo, hi) write
// into.
func (b *blocked) chunkRange(lo, hi int64) (from, to int64) {
	l := b.outer[0]
	from = min(lo*l.dst*b.width, b.dstBytes)
	to = min(((hi-1)*l.dst+b.reachInside())*b.width, b.dstBytes)
	if hi == b.chunks() {
		to = b.dstBytes
	}
	return from, to
}

// blockBufs are one goroutine's block buffers and budgets.
type blockBufs struct {
	a, c   []byte
	base   []int64
	budget []int64
}

// runChunks runs chunks [lo, hi) on the calling goroutine; the last
// chunk writes the tail padding.
func (b *blocked) runChunks(dst, src []byte, lo, hi int64) {
	if len(b.outer) > 0 && b.chunks() == 1 {
		lo, hi = 0, b.outer[0].size // one chunk: every value
	}
	b.runValues(dst, src, lo, hi)
}

// runValues runs values [lo, hi) of the outermost loop over blocks (all
// of a plan without loops) on the calling goroutine; the last value
// writes the tail padding.
func (b *blocked) runValues(dst, src []byte, lo, hi int64) {
	bb := b.getBufs()
	clear(bb.base)
	if len(b.outer) == 0 {
		b.block(dst, src, 0, 0, bb)
	} else {
		l := b.outer[0]
		for i := lo; i < hi; i++ {
			bb.base[l.dim] = i * l.w
			if bb.base[l.dim] >= b.dims[l.dim].e {
				break
			}
			b.outerLevel(dst, src, 1, i*l.dst, i*l.src, bb)
		}
		bb.base[l.dim] = 0
	}
	b.finish(dst, bb, len(b.outer) == 0 || hi == b.outer[0].size)
}

// getBufs returns block buffers for one goroutine: the pool's, or new
// ones.
func (b *blocked) getBufs() *blockBufs {
	if bb, _ := b.bufs.Get().(*blockBufs); bb != nil {
		return bb
	}
	n := b.elems * b.width
	return &blockBufs{a: make([]byte, n), c: make([]byte, n), base: make([]int64, len(b.dims)), budget: make([]int64, len(b.dims))}
}

// finish ends a goroutine's share of the blocks: puts its buffers back,
// fences its streamed stores, and, where its share ends the walk (last),
// writes the tail padding.
func (b *blocked) finish(dst []byte, bb *blockBufs, last bool) {
	b.bufs.Put(bb)
	if b.stream {
		kernel.StoreFence()
	}
	if last && b.tail[1] > b.tail[0] {
		b.fillElements(dst, b.tail[0], b.tail[1])
	}
}

// outerLevel walks loop k over blocks and those inside it.
func (b *blocked) outerLevel(dst, src []byte, k int, dOff, sOff int64, bb *blockBufs) {
	if k == len(b.outer) {
		b.block(dst, src, dOff, sOff, bb)
		return
	}
	l := b.outer[k]
	base := bb.base[l.dim]
	for i := range l.size {
		if base+i*l.w >= b.dims[l.dim].e {
			break
		}
		bb.base[l.dim] = base + i*l.w
		b.outerLevel(dst, src, k+1, dOff+i*l.dst, sOff+i*l.src, bb)
	}
	bb.base[l.dim] = base
}

// block moves the block whose first element sits at dOff and sOff and
// whose box starts at bb.base: gathered into bb.a, turned, scattered.
func (b *blocked) block(dst, src []byte, dOff, sOff int64, bb *blockBufs) {
	pad, empty, whole, padOnly := false, false, true, true
	for d, dm := range b.dims {
		sp := b.span[d]
		h := min(max(dm.e-bb.base[d], 0), sp)
		if h == 0 {
			return // no place of the destination: nothing to do
		}
		v := min(max(dm.n-bb.base[d], 0), sp)
		empty = empty || v == 0
		pad = pad || v < h
		whole = whole && v == sp
		padOnly = padOnly && h == sp && (v == sp || b.widePad != nil && b.padDims[d])
		bb.budget[d] = v
	}
	W := b.width
	if b.direct && b.nibbles == 0 && (whole || padOnly && b.widePad != nil) {
		// One run each side: permuted straight across, the padding
		// that every box holds from its pattern (read from the source's
		// own padding, which a source that holds fewer places than the
		// destination may not have at its end).
		p := b.wide
		if !whole {
			p = b.widePad
		}
		if n := int64(b.wideBlocks * p.Bytes()); sOff*W+n <= int64(len(src)) && dOff*W+n <= int64(len(dst)) {
			kernel.PermuteWide(dst[dOff*W:], src[sOff*W:], p, b.wideBlocks, b.stream)
			return
		}
	}
	a, c := bb.a, bb.c
	if empty {
		a = b.pads
	} else {
		if pad {
			kernel.FillRuns(a, 0, len(a), 1, b.pat)
		}
		b.copyBox(&b.gather, src, sOff, a, bb.budget)
		if n := b.nibbles; n > 0 {
			kernel.TransposeNibblePairs(a, int(n), int(b.elems*b.width/(2*n)))
		}
		if b.wide != nil {
			kernel.PermuteWide(c, a, b.wide, b.wideBlocks, false)
			a, c = c, a
		} else {
			for _, t := range b.ops {
				t.run(c, a)
				a, c = c, a
			}
		}
	}
	for d, dm := range b.dims {
		bb.budget[d] = min(max(dm.e-bb.base[d], 0), b.span[d])
	}
	b.copyBox(&b.scatter, dst, dOff, a, bb.budget)
}

// run turns batch blocks of [x][y] elements of src into [y][x] in dst.
func (t turn) run(dst, src []byte) {
	xy := t.x * t.y * t.width
	if t.bytes != nil {
		kernel.PermuteBlocks(dst, src, t.bytes, int(t.batch))
		return
	}
	if t.width <= 16 {
		kernel.TransposeBlocks(int(t.width), dst, int(t.x*t.width), src, int(t.y*t.width), int(t.y), int(t.x),
			kernel.Grid{Inner: 1, Outer: int(t.batch), DstOuter: int(xy), SrcOuter: int(xy)})
		return
	}
	// Elements wider than the kernels' move as runs: element (i, j)
	// from (i*y + j) to (j*x + i) elements, in a grid over the batch
	// for each value of the smaller of x and y, so that each call moves
	// as many runs as it can (a turn of [16][2] 32-byte elements called
	// CopyRuns for two runs at a time).
	w, n := int(t.width), int(t.batch)
	if t.x <= t.y {
		for i := range t.x {
			kernel.CopyRunsGrid(dst[i*t.width:], int(t.x)*w, int(xy), src[i*t.y*t.width:], w, int(xy), w, int(t.y), n)
		}
		return
	}
	for j := range t.y {
		kernel.CopyRunsGrid(dst[j*t.x*t.width:], w, int(xy), src[j*t.width:], int(t.y)*w, int(xy), w, int(t.x), n)
	}
}

// perm is the byte permutation of one [x][y] block that the turn makes:
// element (i, j) of the turned block, at (i*x + j) elements, is element
// (j, i) of the block, at (j*y + i).
func (t turn) perm() []byte {
	p := make([]byte, t.x*t.y*t.width)
	for q := range p {
		p[q] = byte(t.from(int64(q)))
	}
	return p
}

// from returns the byte of the buffer t turns that byte q of its result
// comes from: in each block, byte c of element (i, j) of the [y][x]
// result is byte c of element (j, i) of the [x][y] source.
func (t turn) from(q int64) int64 {
	bs := t.x * t.y * t.width
	r := q % bs
	i, j, c := r/(t.x*t.width), r/t.width%t.x, r%t.width
	return q - r + (j*t.y+i)*t.width + c
}

// copyBox moves a block between a side (the source, gathering, or the
// destination, scattering) at element offset off and the buffer buf,
// the elements within budget (per dim, the count from the block's
// start). A box with every dim's whole span replays the moves recorded
// for it, where there are some (recordMoves); others walk their digits.
func (b *blocked) copyBox(o *boxOrder, side []byte, off int64, buf []byte, budget []int64) {
	if o.moves != nil && slices.Equal(budget, b.span) {
		for _, m := range o.moves {
			b.moveRuns(o, side, off+m.side, m.sideStride, buf, m.buf, m.bufStride, m.n, m.rows)
		}
		return
	}
	b.boxLevel(o, 0, side, off, buf, 0, budget, nil)
}

// recordMoves records the moves of a box with every dim's whole span in
// o.moves, single runs that go on at the same strides from one to the
// next joined as rows of one move (the scatter of bf16 (2,1) tiles
// transposed: 64 runs of 128 elements, in two digits of the box, are
// one move of 64 rows). Walking the box's digits for each box cost more
// than the moves themselves where runs are short.
func (b *blocked) recordMoves(o *boxOrder) {
	var rec []boxMove
	b.boxLevel(o, 0, nil, 0, nil, 0, slices.Clone(b.span), &rec)
	if rec == nil {
		return
	}
	var joined []boxMove
	for _, m := range rec {
		if n := len(joined); n > 0 && m.rows == 1 && joined[n-1].n == m.n {
			j := &joined[n-1]
			ds, db := m.side-j.side, m.buf-j.buf
			switch {
			case j.rows == 1 && ds > 0 && db > 0:
				j.sideStride, j.bufStride, j.rows = ds, db, 2
				continue
			case j.rows > 1 && ds == j.rows*j.sideStride && db == j.rows*j.bufStride:
				j.rows++
				continue
			}
		}
		joined = append(joined, m)
		if len(joined) > maxBoxMoves {
			return
		}
	}
	o.moves = joined
}

// full reports whether each dim of rest has its whole span in budget.
func full(rest []dimSpan, budget []int64) bool {
	for _, r := range rest {
		if budget[r.dim] < r.span {
			return false
		}
	}
	return true
}

// boxLevel is copyBox from position k of o inward. With rec, it records
// its moves there instead of making them (recordMoves).
func (b *blocked) boxLevel(o *boxOrder, k int, side []byte, sOff int64, buf []byte, bOff int64, budget []int64, rec *[]boxMove) {
	move := func(sStride, bStride, n, rows int64) {
		if rec != nil {
			*rec = append(*rec, boxMove{sOff, sStride, bOff, bStride, n, rows})
			return
		}
		b.moveRuns(o, side, sOff, sStride, buf, bOff, bStride, n, rows)
	}
	if k == len(o.at) {
		move(0, 0, 1, 1)
		return
	}
	l := b.digits[o.at[k]]
	if r := &o.runs[k]; r.whole && full(r.all, budget) {
		move(0, 0, r.elems, 1)
		return
	} else if r.ok && full(r.rest, budget) {
		if n := min(budget[l.dim], r.span) * r.inner; n > 0 {
			move(0, 0, n, 1)
		}
		return
	}
	B := budget[l.dim]
	nv := min(l.size, ceilDiv(B, l.w))
	if k+1 < len(o.at) {
		// Rows of runs: the next position runs, and its run holds no
		// digit of this one's dim.
		next := b.digits[o.at[k+1]]
		r := &o.runs[k+1]
		mine := func(s dimSpan) bool { return s.dim == l.dim }
		if r.whole && full(r.all, budget) && !slices.ContainsFunc(r.all, mine) {
			move(o.side[k], o.buf[k], r.elems, nv)
			return
		}
		if r.ok && next.dim != l.dim && full(r.rest, budget) && !slices.ContainsFunc(r.rest, mine) {
			if n := min(budget[next.dim], r.span) * r.inner; n > 0 {
				move(o.side[k], o.buf[k], n, nv)
			}
			return
		}
	}
	for i := range nv {
		budget[l.dim] = min(B-i*l.w, l.w)
		b.boxLevel(o, k+1, side, sOff+i*o.side[k], buf, bOff+i*o.buf[k], budget, rec)
	}
	budget[l.dim] = B
}

// moveRuns moves rows runs of n elements, run r at side offset sOff +
// r*sStride and buffer offset bOff + r*bStride (elements), in o's
// direction.
func (b *blocked) moveRuns(o *boxOrder, side []byte, sOff, sStride int64, buf []byte, bOff, bStride, n, rows int64) {
	W := b.width
	s, u := side[sOff*W:], buf[bOff*W:]
	switch {
	case !o.toSide:
		kernel.CopyRunsAhead(u, int(bStride*W), s, int(sStride*W), int(n*W), int(rows), int(b.ahead))
	case rows == 1:
		copy(s[:n*W], u[:n*W])
	case b.stream:
		kernel.Stream{Unfenced: true}.CopyRuns(s, int(sStride*W), 0, u, int(bStride*W), 0, int(n*W), int(rows), 1)
	default:
		kernel.CopyRuns(s, int(sStride*W), u, int(bStride*W), int(n*W), int(rows))
	}
}

// explain says how the blocks are made and moved.
func (b *blocked) explain(bld *strings.Builder) {
	fmt.Fprintf(bld, "  mode: blocked: boxes of %d elements (%d bytes) gathered from the source a run at a time, turned in the caches, scattered to the destination a run at a time\n",
		b.elems, b.elems*b.width)
	b.explainDims(bld)
	bld.WriteString("\n")
	for i, d := range b.folded {
		fmt.Fprintf(bld, "  d%d: the full dims that d%d's loop of the walk merged in, as one dim\n", len(b.dims)-len(b.folded)+i, d)
	}
	digit := func(l ploop) string {
		return fmt.Sprintf("d%d weight %d ×%d  dst %d  src %d", l.dim, l.w, l.size, l.dst, l.src)
	}
	bld.WriteString("  loops over blocks, outermost first (counts and strides in elements):\n")
	for _, l := range b.outer {
		fmt.Fprintf(bld, "    loop  %s\n", digit(l))
	}
	order := func(name string, o boxOrder) {
		fmt.Fprintf(bld, "  %s order, outermost first:", name)
		for _, i := range o.at {
			l := b.digits[i]
			fmt.Fprintf(bld, " d%d·%d×%d", l.dim, l.w, l.size)
		}
		bld.WriteString("\n")
	}
	order("gather", b.gather)
	if b.nibbles > 0 {
		fmt.Fprintf(bld, "  turn: the 2×2 4-bit fields of each two bytes %d apart (kernel.TransposeNibblePairs)\n", b.nibbles)
	}
	for _, t := range b.ops {
		how := ""
		if t.bytes != nil && b.wide == nil {
			how = ", each block one byte permutation (kernel.PermuteBlocks)"
		}
		fmt.Fprintf(bld, "  turn: %d × [%d][%d] → [%d][%d] of %d-byte elements%s\n", t.batch, t.x, t.y, t.y, t.x, t.width, how)
	}
	if b.wide != nil {
		fmt.Fprintf(bld, "  the turns run as one: each %d bytes one byte permutation, each line of it from two lines (kernel.PermuteWide)\n", b.wide.Bytes())
		if b.direct {
			bld.WriteString("  a whole box lies in one run on each side: those whole in the array and free of padding permuted straight from the source to the destination, not gathered or scattered\n")
			if b.widePad != nil {
				bld.WriteString("  so are those whose only padding is every box's, its bytes from the padding's pattern\n")
			}
		}
	}
	order("scatter", b.scatter)
	if b.stream {
		bld.WriteString("  the destination is past the caches: rows of runs scattered with non-temporal stores where the kernels have them\n")
	}
	if w := b.walkPlan; w.tinyBlocks() {
		fmt.Fprintf(bld, "  why: the walk's kernel would move blocks of %d×%d elements, which the kernels move an element at a time\n", w.outer.size, w.inner.size)
	}
	fmt.Fprintf(bld, "  chunks: %d; a Run uses up to %d goroutines\n", b.chunks(), b.threads)
	if b.tail[1] > b.tail[0] {
		fmt.Fprintf(bld, "  tail padding: elements [%d,%d)\n", b.tail[0], b.tail[1])
	}
	bld.WriteString(planLegend)
}
