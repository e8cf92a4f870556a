package relayout

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

// blocked runs a strided walk as blocks that the caches hold. Each block
// is a box of the array's index space, made of the lightest digits of
// some dims: those that hold the source's runs and those that hold the
// destination's, so that one block reads whole runs of the source and
// writes whole runs of the destination, however tiny each side's
// fastest digits are. A block goes through two buffers: gathered from
// the source a run at a time in an order whose innermost digits are the
// source's runs, turned in the caches by batched 2-D transposes (each
// moves a group of digits past another, elements as wide as the digits
// inside them) into an order whose innermost digits are the
// destination's runs, and scattered to the destination a run at a time.
// Padding is the box's edges: a block that the array's edge cuts gathers
// only its valid elements into a buffer of padding values and scatters
// every place the destination holds.
//
// It serves the pairs whose walk moves tiny blocks: both sides' fastest
// digits a few elements long (a (2,1) tile's rows against a permutation
// that keeps another dim fastest), where the walk calls a kernel for a
// handful of elements and reads each source line in many visits.
type blocked struct {
	*walkPlan // the walk it was built from: the header, dims, width, padding and tail
	// digits are the block's digits; outer the loops over blocks,
	// outermost first (the destination's order).
	digits []ploop
	outer  []ploop
	span   []int64 // per planner dim: the block's extent in it (1 where it has no digit)
	// solid says, per planner dim, that the buffers hold only the
	// dim's held places (solidDims).
	solid  []bool
	elems  int64 // elements (units) in a block
	gather boxOrder
	// ops turn the gathered order into the scattered one.
	ops     []turn
	scatter boxOrder
	stream  bool  // the destination is past the caches: scattered with non-temporal stores
	ahead   int64 // bytes from a block's source to the next block's, which its gather prefetches
	bufs    sync.Pool
	pads    []byte // a block of padding elements, for blocks that hold no element
}

// boxOrder is an order of a block's digits in a buffer, outermost
// first, with each digit's stride (in elements) in the buffer and on
// the side the buffer is copied from or to.
type boxOrder struct {
	at     []int   // digit indices, outermost first
	buf    []int64 // per position: the buffer stride (compact)
	side   []int64 // per position: the stride in the source (gather) or destination (scatter)
	runs   []boxRun
	toSide bool // scatter: copy from the buffer to the side
}

// boxRun says, for a position of a boxOrder, whether the digits from it
// inward can move as one run: contiguous on both sides, the position's
// dim's digits first (heaviest first, down to weight 1) and the other
// dims' after it. Its elements are then the dim's count times inner.
type boxRun struct {
	ok    bool
	span  int64 // the extent of the position's dim from it inward
	inner int64 // elements of the digits after the dim's
	rest  []dimSpan
	// whole says that the digits from the position inward are
	// contiguous on the side (interleaving dims, perhaps): where every
	// dim of all has its span in the budgets, they move as one run of
	// elems elements.
	whole bool
	all   []dimSpan
	elems int64
}

// turn is one batched 2-D transpose of a buffer: batch × [x][y] blocks
// of elements of width bytes become batch × [y][x].
type turn struct {
	batch, x, y, width int64
	bytes              []byte // the byte permutation of one block, where it holds at most 64 bytes
}

// blockTargetBytes is how long a run a block gives each side, where the
// side's fastest digits reach that far.
const blockTargetBytes = 256

// blockBytes returns the sizes a block grows to where it can (min:
// enough to pay for the kernel calls a block makes) and may not outgrow
// (max): its two buffers make a group of the tuning's GridGroup, which
// the L2 holds beside the lines in flight, and the smallest block is a
// quarter of the largest.
func blockBytes() (minBytes, maxBytes int64) {
	g := int64(currentTuning().GridGroup)
	return g / 8, g / 2
}

// tinyBlocksElems bounds the kernel blocks a walk moves that make it
// take a blocked plan: blocks that small are moved an element at a time
// in a loop over the grid (kernel.TransposeBlocks' tiny grids), and
// the walk reads each source line in many visits far apart.
const tinyBlocksElems = 32

// tinyBlocks reports whether the walk's block transposes are of at most
// tinyBlocksElems elements.
func (w *walkPlan) tinyBlocks() bool {
	return w.mode == modeStrided && w.kern == kernTranspose && w.outer != nil && w.outer.size*w.inner.size <= tinyBlocksElems
}

// block makes p blocked where its walk moves tiny blocks (or, for
// tests, wherever it can with opts.forceBlocked). Compile calls it on
// the plans it returns; the byte plans of stages and conversions stay
// walks, whose loops their slabs read.
func (p *Plan) block(opts *Options) {
	w, ok := p.exec.(*walkPlan)
	if !ok || !w.tinyBlocks() && (opts == nil || !opts.forceBlocked) {
		return
	}
	if b := newBlocked(w); b != nil {
		p.exec = b
	}
}

// newBlocked returns a blocked plan for the strided walk w, or nil where
// w does not take one: no digit to gather or scatter runs of, or a
// block that would outgrow blockBytes' max.
func newBlocked(w *walkPlan) *blocked {
	if w.mode != modeStrided || w.swap != nil || w.step != 1 || w.part != 0 || w.unit != 1 {
		return nil
	}
	all := slices.Clone(w.loops)
	if w.outer != nil {
		all = append(all, *w.outer)
	}
	all = append(all, w.inner)
	for _, l := range all {
		if l.scale != 1 || l.size < 1 {
			return nil
		}
	}
	for target := int64(blockTargetBytes); target >= w.width; target /= 2 {
		if b := w.blockOf(all, target); b != nil {
			return b
		}
	}
	return nil
}

// blockOf builds a blocked plan whose block gives each side runs of
// about target bytes, or returns nil where that block is too large or
// turns nothing.
func (w *walkPlan) blockOf(all []ploop, target int64) *blocked {
	// Each side's loops, fastest first.
	orders := [2][]int{byStride(all, srcOf), byStride(all, dstOf)}
	part := make([]int64, len(all)) // how many values of each loop the block takes
	for i := range part {
		part[i] = 1
	}
	// Each side's fastest loops, until they cover target bytes: the last
	// one taken as far as its first divisor that gets there.
	for _, order := range orders {
		covered := int64(1)
		for _, i := range order {
			if covered*w.width >= target {
				break
			}
			k := all[i].size
			for d := int64(1); d <= k; d++ {
				if k%d == 0 && covered*d*w.width >= target {
					k = d
					break
				}
			}
			part[i] = max(part[i], k)
			covered *= k
		}
	}
	part = w.suffixParts(all, part)
	sizeOf := func(part []int64) int64 {
		n := w.width
		for _, k := range part {
			n *= k
		}
		return n
	}
	// Grow the block to minBytes, a loop at a time along each side's
	// order in turn: the side's fastest loop not yet whole takes its next
	// divisor of values, unless that outgrows maxBytes.
	minBytes, maxBytes := blockBytes()
	stuck := [2]bool{}
	for s := 0; sizeOf(part) < minBytes && !(stuck[0] && stuck[1]); s = 1 - s {
		if stuck[s] {
			continue
		}
		k := slices.IndexFunc(orders[s], func(i int) bool { return part[i] < all[i].size })
		if k < 0 {
			stuck[s] = true
			continue
		}
		i := orders[s][k]
		next := slices.Clone(part)
		next[i] = nextDivisor(all[i].size, part[i])
		next = w.suffixParts(all, next)
		if sizeOf(next) > maxBytes {
			stuck[s] = true
			continue
		}
		part = next
	}
	b := &blocked{walkPlan: w, span: make([]int64, len(w.dims))}
	for d := range b.span {
		b.span[d] = 1
	}
	b.elems = 1
	for i, l := range all {
		if part[i] > 1 {
			in := l
			in.size = part[i]
			b.digits = append(b.digits, in)
			b.elems *= in.size
			b.span[l.dim] = max(b.span[l.dim], l.w*in.size)
		}
		if part[i] < l.size {
			out := ploop{dim: l.dim, w: l.w * part[i], size: l.size / part[i], scale: 1, dst: l.dst * part[i], src: l.src * part[i]}
			b.outer = append(b.outer, out)
		}
	}
	if len(b.digits) < 2 || b.elems*w.width > maxBytes {
		return nil
	}
	slices.SortStableFunc(b.outer, func(x, y ploop) int { return cmp.Compare(y.dst, x.dst) })
	b.outer = heaviestFirst(b.outer)
	// The gather order: the digits the source's runs hold innermost
	// (in the source's order), the others outside them in the
	// destination's; the scatter order: the destination's run digits
	// innermost, the others as the gather has them.
	srcRun := b.runDigits(srcOf)
	dstRun := b.runDigits(dstOf)
	byDst := reversed(byStride(b.digits, dstOf))
	gather := b.heaviestFirst(append(without(byDst, srcRun), reversed(srcRun)...))
	scatter := b.heaviestFirst(append(without(gather, dstRun), reversed(dstRun)...))
	if slices.Equal(gather, scatter) {
		return nil // nothing to turn: the walk's run copies do as well
	}
	groups := turns(gather, scatter)
	b.solidDims([][]int{gather, scatter}, groups)
	for _, g := range groups {
		b.ops = append(b.ops, b.turnOf(g))
	}
	b.gather = b.boxOrder(gather, srcOf, false)
	b.scatter = b.boxOrder(scatter, dstOf, true)
	b.stream = w.pastCaches() && kernel.Streaming()
	b.pads = bytes.Repeat(w.pat, int(b.elems))
	if n := len(b.outer); n > 0 {
		b.ahead = b.outer[n-1].src * w.width
	}
	return b
}

// suffixParts makes each dim's part of a block a suffix of its digits:
// all of those lighter than the heaviest it takes, and of that one a
// divisor of its values.
func (w *walkPlan) suffixParts(all []ploop, part []int64) []int64 {
	part = slices.Clone(part)
	top := make([]int64, len(w.dims))
	for i, l := range all {
		if part[i] > 1 {
			top[l.dim] = max(top[l.dim], l.w*part[i])
		}
	}
	for i, l := range all {
		t := top[l.dim]
		switch {
		case t == 0 || l.w >= t:
			part[i] = 1
		case l.w*l.size <= t:
			part[i] = l.size
		case t%l.w == 0 && l.size%(t/l.w) == 0:
			part[i] = t / l.w
		default:
			part[i] = l.size
		}
	}
	return part
}

// nextDivisor returns the smallest divisor of n above k (n itself at
// most).
func nextDivisor(n, k int64) int64 {
	for d := k + 1; d < n; d++ {
		if n%d == 0 {
			return d
		}
	}
	return n
}

// byStride returns the indices of loops by stride, smallest first.
func byStride(loops []ploop, stride func(ploop) int64) []int {
	order := make([]int, len(loops))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(stride(loops[x]), stride(loops[y])) })
	return order
}

// srcOf and dstOf are a loop's strides, for byStride.
func srcOf(l ploop) int64 { return l.src }
func dstOf(l ploop) int64 { return l.dst }

// runDigits returns the digits that make one side's runs inside the
// block, fastest first: the digit of stride 1, then each digit whose
// stride is the product of the sizes before it.
func (b *blocked) runDigits(stride func(ploop) int64) []int {
	var run []int
	n := int64(1)
	for _, i := range byStride(b.digits, stride) {
		if stride(b.digits[i]) != n {
			break
		}
		run = append(run, i)
		n *= b.digits[i].size
	}
	return run
}

// without returns order without the entries in drop.
func without(order, drop []int) []int {
	var out []int
	for _, i := range order {
		if !slices.Contains(drop, i) {
			out = append(out, i)
		}
	}
	return out
}

// reversed returns a reversed copy of order.
func reversed(order []int) []int {
	out := slices.Clone(order)
	slices.Reverse(out)
	return out
}

// heaviestFirst keeps the dims' pattern over the positions of order (of
// digit indices) but puts each dim's digits heaviest first, as the
// budget walk needs.
func (b *blocked) heaviestFirst(order []int) []int {
	loops := make([]ploop, len(order))
	for k, i := range order {
		loops[k] = b.digits[i]
	}
	sorted := heaviestFirst(loops)
	out := make([]int, len(order))
	for k, l := range sorted {
		out[k] = order[slices.Index(loops, l)]
	}
	return out
}

// heaviestFirst returns loops with the pattern of dims over the
// positions kept and each dim's loops heaviest first (orderWithinDims).
func heaviestFirst(loops []ploop) []ploop {
	sorted := slices.Clone(loops)
	slices.SortStableFunc(sorted, func(a, b ploop) int {
		if a.dim != b.dim {
			return cmp.Compare(a.dim, b.dim)
		}
		return cmp.Compare(b.w, a.w)
	})
	next := map[int]int{}
	for i, l := range sorted {
		if _, ok := next[l.dim]; !ok {
			next[l.dim] = i
		}
	}
	out := make([]ploop, len(loops))
	for i, l := range loops {
		out[i] = sorted[next[l.dim]]
		next[l.dim]++
	}
	return out
}

// boxOrder lays the block's digits out in order, compactly, against
// their strides on one side, and finds where runs start.
func (b *blocked) boxOrder(order []int, stride func(ploop) int64, toSide bool) boxOrder {
	o := boxOrder{at: order, buf: make([]int64, len(order)), side: make([]int64, len(order)), runs: make([]boxRun, len(order)), toSide: toSide}
	for k := len(order) - 1; k >= 0; k-- {
		o.buf[k], o.side[k] = 1, stride(b.digits[order[k]])
		if k+1 < len(order) {
			o.buf[k] = b.spanFrom(o.buf, o, k+1)
		}
	}
	for k := range order {
		o.runs[k] = b.runAt(o, k)
	}
	return o
}

// spanFrom is how far, in steps of the strides s (the buffer's or, where
// the digits run, the side's), the digits from position k inward reach:
// k's stride times its size; or, where k is the heaviest digit of a
// solid dim, the stride of the dim's lightest digit times the dim's held
// count.
func (b *blocked) spanFrom(s []int64, o boxOrder, k int) int64 {
	l := b.digits[o.at[k]]
	if !b.solid[l.dim] || k > 0 && b.digits[o.at[k-1]].dim == l.dim {
		return s[k] * l.size
	}
	m := k
	for m+1 < len(o.at) && b.digits[o.at[m+1]].dim == l.dim {
		m++
	}
	return s[m] * b.dims[l.dim].e
}

// runAt finds whether the digits from position k of o inward move as
// one run (see boxRun).
func (b *blocked) runAt(o boxOrder, k int) boxRun {
	r := b.leadingRun(o, k)
	if !b.contiguous(o, k) {
		return boxRun{}
	}
	r.whole, r.elems = true, b.spanFrom(o.buf, o, k)
	for j := k; j < len(o.at); j++ {
		l := b.digits[o.at[j]]
		if !slices.ContainsFunc(r.all, func(s dimSpan) bool { return s.dim == l.dim }) {
			span := l.w * l.size
			if b.solid[l.dim] {
				span = b.dims[l.dim].e
			}
			r.all = append(r.all, dimSpan{l.dim, span})
		}
	}
	return r
}

// contiguous reports whether the digits from position k of o inward
// are contiguous on o's side: each stride is the next position's times
// its extent, down to 1 (the buffer is compact by construction).
func (b *blocked) contiguous(o boxOrder, k int) bool {
	for j := k; j < len(o.at); j++ {
		want := int64(1)
		if j+1 < len(o.at) {
			want = b.spanFrom(o.side, o, j+1)
		}
		if o.side[j] != want {
			return false
		}
	}
	return true
}

// leadingRun finds whether the digits from position k of o inward move
// as one run where the budget of k's dim cuts them: its digits first,
// heaviest first down to weight 1, the other dims' after (see boxRun).
// The caller checks contiguity.
func (b *blocked) leadingRun(o boxOrder, k int) boxRun {
	d := b.digits[o.at[k]].dim
	m := k // the last position of d's leading digits
	for m+1 < len(o.at) && b.digits[o.at[m+1]].dim == d {
		m++
	}
	span := func(j int) int64 { // a dim's extent from its heaviest digit at j
		l := b.digits[o.at[j]]
		if b.solid[l.dim] {
			return b.dims[l.dim].e
		}
		return l.w * l.size
	}
	r := boxRun{inner: 1}
	for j := m + 1; j < len(o.at); j++ {
		l := b.digits[o.at[j]]
		if l.dim == d {
			return boxRun{}
		}
		if j == m+1 || b.digits[o.at[j-1]].dim != l.dim {
			r.rest = append(r.rest, dimSpan{l.dim, span(j)})
		}
	}
	if b.digits[o.at[m]].w != 1 {
		return boxRun{}
	}
	for j := k; j < m; j++ {
		if a, c := b.digits[o.at[j]], b.digits[o.at[j+1]]; a.w != c.w*c.size {
			return boxRun{}
		}
	}
	r.inner = o.buf[m]
	r.ok, r.span = true, span(k)
	return r
}

// turnGroups are the digits of one turn: the batch's, x's, y's and
// those inside (which make its elements).
type turnGroups struct{ batch, x, y, inner []int }

// turns plans the batched transposes that take the block from the
// gather order to the scatter order: each moves the next digits the
// scatter order wants (going outward from its innermost) from where
// they are to just outside the digits already in place.
func turns(from, to []int) []turnGroups {
	cur := slices.Clone(from)
	var ops []turnGroups
	for {
		q := 0 // digits in place at the inside
		for q < len(cur) && cur[len(cur)-1-q] == to[len(to)-1-q] {
			q++
		}
		if q == len(cur) {
			return ops
		}
		want := to[len(to)-1-q]
		p := slices.Index(cur, want)
		// Take with it the digits before it that come before it in the
		// scatter order too.
		s := p
		for s > 0 && len(to)-1-q-(p-s+1) >= 0 && cur[s-1] == to[len(to)-1-q-(p-s+1)] {
			s--
		}
		g := turnGroups{batch: cur[:s], x: cur[s : p+1], y: cur[p+1 : len(cur)-q], inner: cur[len(cur)-q:]}
		ops = append(ops, g)
		cur = slices.Concat(g.batch, g.y, g.x, g.inner)
	}
}

// solidDims finds the dims whose every digit is in the block and stays
// together, heaviest first, in the gather and scatter orders and in
// each group of each turn: such a dim can take in the buffers only the
// places the destination holds of it (its held count), not its digits'
// product, so that runs that the dim's padding-free edge ends on one
// side and the next digit continues there (98 bytes of a row, the next
// row 98 bytes on) stay runs in the buffers too.
func (b *blocked) solidDims(orders [][]int, ops []turnGroups) {
	b.solid = make([]bool, len(b.dims))
	for d := range b.dims {
		if slices.ContainsFunc(b.outer, func(l ploop) bool { return l.dim == d }) || b.span[d] <= b.dims[d].e {
			continue
		}
		mine := func(i int) bool { return b.digits[i].dim == d }
		together := func(list []int) bool {
			first, last, n := -1, -1, 0
			for k, i := range list {
				if mine(i) {
					if first < 0 {
						first = k
					}
					last, n = k, n+1
				}
			}
			all := 0
			for i := range b.digits {
				if mine(i) {
					all++
				}
			}
			return n == 0 || n == all && last-first+1 == n
		}
		ok := true
		for _, o := range orders {
			ok = ok && together(o)
		}
		for _, g := range ops {
			for _, list := range [][]int{g.batch, g.x, g.y, g.inner} {
				ok = ok && together(list)
			}
		}
		b.solid[d] = ok
	}
}

// size is the elements a list of the block's digits spans in the
// buffers: their sizes' product, with a solid dim's digits together
// spanning its held count.
func (b *blocked) size(list []int) int64 {
	n := int64(1)
	var seen []int
	for _, i := range list {
		l := b.digits[i]
		if !b.solid[l.dim] {
			n *= l.size
		} else if !slices.Contains(seen, l.dim) {
			seen = append(seen, l.dim)
			n *= b.dims[l.dim].e
		}
	}
	return n
}

// turnOf sizes the turn of groups g.
func (b *blocked) turnOf(g turnGroups) turn {
	t := turn{batch: b.size(g.batch), x: b.size(g.x), y: b.size(g.y), width: b.size(g.inner) * b.width}
	if t.x*t.y*t.width <= 64 {
		t.bytes = t.perm()
	}
	return t
}

// run runs the blocks, the values of the outermost loop over them
// shared among the plan's goroutines.
func (b *blocked) run(dst, src []byte) error {
	n := b.chunks()
	if g := min(int64(b.goroutines()), n); g > 1 {
		shareOut(n, g, func(lo, hi int64) { b.runChunks(dst, src, lo, hi) })
	} else {
		b.runChunks(dst, src, 0, n)
	}
	return nil
}

// chunks is the number of values of the outermost loop over blocks,
// where each writes a part of the destination of its own; else 1.
func (b *blocked) chunks() int64 {
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
	bb, _ := b.bufs.Get().(*blockBufs)
	if bb == nil {
		n := b.elems * b.width
		bb = &blockBufs{a: make([]byte, n), c: make([]byte, n), base: make([]int64, len(b.dims)), budget: make([]int64, len(b.dims))}
	}
	clear(bb.base)
	if len(b.outer) == 0 {
		b.block(dst, src, 0, 0, bb)
	} else {
		l := b.outer[0]
		if b.chunks() == 1 {
			lo, hi = 0, l.size // one chunk: every value
		}
		for i := lo; i < hi; i++ {
			bb.base[l.dim] = i * l.w
			if bb.base[l.dim] >= b.dims[l.dim].e {
				break
			}
			b.outerLevel(dst, src, 1, i*l.dst, i*l.src, bb)
		}
		bb.base[l.dim] = 0
	}
	b.bufs.Put(bb)
	if b.stream {
		kernel.StoreFence()
	}
	if (hi == b.chunks() || len(b.outer) > 0 && hi == b.outer[0].size) && b.tail[1] > b.tail[0] {
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
	pad, empty := false, false
	for d, dm := range b.dims {
		sp := b.span[d]
		h := min(max(dm.e-bb.base[d], 0), sp)
		if h == 0 {
			return // no place of the destination: nothing to do
		}
		v := min(max(dm.n-bb.base[d], 0), sp)
		empty = empty || v == 0
		pad = pad || v < h
		bb.budget[d] = v
	}
	a, c := bb.a, bb.c
	if empty {
		a = b.pads
	} else {
		if pad {
			kernel.FillRuns(a, 0, len(a), 1, b.pat)
		}
		b.copyBox(&b.gather, src, sOff, a, bb.budget)
		for _, t := range b.ops {
			t.run(c, a)
			a, c = c, a
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
	if xy <= 64 {
		kernel.PermuteBlocks(dst, src, t.bytes, int(t.batch))
		return
	}
	if t.width <= 16 {
		kernel.TransposeBlocks(int(t.width), dst, int(t.x*t.width), src, int(t.y*t.width), int(t.y), int(t.x),
			kernel.Grid{Inner: 1, Outer: int(t.batch), DstOuter: int(xy), SrcOuter: int(xy)})
		return
	}
	for p := range t.batch {
		for x := range t.x {
			kernel.CopyRuns(dst[p*xy+x*t.width:], int(t.x*t.width), src[p*xy+x*t.y*t.width:], int(t.width), int(t.width), int(t.y))
		}
	}
}

// perm is the byte permutation of one [x][y] block that the turn makes:
// element (i, j) of the turned block, at (i*x + j) elements, is element
// (j, i) of the block, at (j*y + i).
func (t turn) perm() []byte {
	p := make([]byte, t.x*t.y*t.width)
	for i := range t.y {
		for j := range t.x {
			for c := range t.width {
				p[(i*t.x+j)*t.width+c] = byte((j*t.y+i)*t.width + c)
			}
		}
	}
	return p
}

// copyBox moves a block between a side (the source, gathering, or the
// destination, scattering) at element offset off and the buffer buf,
// the elements within budget (per dim, the count from the block's
// start).
func (b *blocked) copyBox(o *boxOrder, side []byte, off int64, buf []byte, budget []int64) {
	b.boxLevel(o, 0, side, off, buf, 0, budget)
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

// boxLevel is copyBox from position k of o inward.
func (b *blocked) boxLevel(o *boxOrder, k int, side []byte, sOff int64, buf []byte, bOff int64, budget []int64) {
	if k == len(o.at) {
		b.moveRuns(o, side, sOff, 0, buf, bOff, 0, 1, 1)
		return
	}
	l := b.digits[o.at[k]]
	if r := &o.runs[k]; r.whole && full(r.all, budget) {
		b.moveRuns(o, side, sOff, 0, buf, bOff, 0, r.elems, 1)
		return
	} else if r.ok && full(r.rest, budget) {
		if n := min(budget[l.dim], r.span) * r.inner; n > 0 {
			b.moveRuns(o, side, sOff, 0, buf, bOff, 0, n, 1)
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
			b.moveRuns(o, side, sOff, o.side[k], buf, bOff, o.buf[k], r.elems, nv)
			return
		}
		if r.ok && next.dim != l.dim && full(r.rest, budget) && !slices.ContainsFunc(r.rest, mine) {
			if n := min(budget[next.dim], r.span) * r.inner; n > 0 {
				b.moveRuns(o, side, sOff, o.side[k], buf, bOff, o.buf[k], n, nv)
			}
			return
		}
	}
	for i := range nv {
		budget[l.dim] = min(B-i*l.w, l.w)
		b.boxLevel(o, k+1, side, sOff+i*o.side[k], buf, bOff+i*o.buf[k], budget)
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
	for _, t := range b.ops {
		fmt.Fprintf(bld, "  turn: %d × [%d][%d] → [%d][%d] of %d-byte elements\n", t.batch, t.x, t.y, t.y, t.x, t.width)
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
