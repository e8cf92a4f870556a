package relayout

import (
	"bytes"
	"cmp"
	"math"
	"slices"
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
	ops []turn
	// wide, where not nil, is ops as one permutation of blocks of
	// whole lines, which a block runs in their place (wideTurns).
	wide       *kernel.WidePerm
	wideBlocks int // wide's blocks in a box's buffer
	// direct says that a whole box lies in one run on each side, so
	// that wide permutes the boxes whole in the array and free of
	// padding straight from the source to the destination, with no
	// gather or scatter (oneRun); false where every box holds padding
	// and widePad is nil.
	direct bool
	// widePad, where not nil, is wide with the destination's padding
	// bytes taken from its pattern, for the boxes whose only padding is
	// that of the dims they span whole, every box's (padDims):
	// paddedWide.
	widePad *kernel.WidePerm
	padDims []bool
	scatter boxOrder
	stream  bool  // the destination is past the caches: scattered with non-temporal stores
	ahead   int64 // bytes from a block's source to the next block's, which its gather prefetches
	bufs    sync.Pool
	pads    []byte // a block of padding elements, for blocks that hold no element
	nchunks int64  // chunks(), counted when the plan is built
	// nibbles, where more than 0, is the bytes between the two bytes of
	// each pair in a gathered block whose 2×2 fields turn there
	// (kernel.TransposeNibblePairs) before the block's own turns: a
	// mixed plan's pairs, turned in the caches (pairStride).
	nibbles int64
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
	// moves are the run moves of a box that holds every dim's whole
	// span (all boxes but the edges'), found once when the plan is
	// built, at offsets from the box's start (recordMoves); nil where
	// there would be more than maxBoxMoves.
	moves []boxMove
}

// boxMove is one move of rows runs of n elements between a side and a
// block buffer, at element offsets and strides from the box's start.
type boxMove struct{ side, sideStride, buf, bufStride, n, rows int64 }

// maxBoxMoves bounds the moves a box order records (recordMoves): a box
// of more moves than that (runs of an element or two) moves them as the
// walk of its digits finds them.
const maxBoxMoves = 4096

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
	bytes              []byte // the byte permutation of one block, where PermuteBlocks turns it (turnOf)
}

// blockTargetBytes is how long a run a block gives each side, where the
// side's fastest digits reach that far.
const blockTargetBytes = 256

// wholeRunBytes bounds the source runs that blockOf, asked to, takes
// whole rather than cut to the target.
const wholeRunBytes = 4 * blockTargetBytes

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
// tinyBlocksElems elements, or move rows apart from one another,
// tinyRowBytes or less of each, on either side, and come back to them
// too late:
//   - destination rows (2 bytes of each of 128 rows 4619 bytes apart)
//     that the next step does not go on along, where the walk streams
//     (source and destination past the caches for a transpose,
//     transposePast): each line goes to memory part by part; or, in
//     arrays that outgrow the L2, where more than crowdedRows of the
//     rows share a set of the L1 (214 rows 64 KiB apart): each line
//     leaves the caches before the walk comes back to it;
//   - source rows (16 bytes of each of 8 rows 3804 bytes apart) past the
//     caches for a transpose that the walk reads on along only after
//     more lines than the L2 keeps for it (linesKept): each line comes
//     from memory as many times; or, in arrays that outgrow the L2,
//     where more than crowdedRows of them share a set of the L1 (4
//     bytes of each of 384 rows 64 KiB apart, an 8-bit (4,1) tile's
//     words untiled), of elements of 1 or 2 bytes: the walk comes back
//     to them at once, but they have left the caches, whose sets they
//     crowd. (Of 4-byte elements, such walks ran as fast as their
//     blocked plans or faster: relayout bench, docs/perf.)
func (w *walkPlan) tinyBlocks() bool {
	if w.tinyRuns() {
		return true
	}
	if w.mode != modeStrided || w.kern != kernTranspose || w.outer == nil {
		return false
	}
	o, l := w.outer, &w.inner
	if o.size*l.size <= tinyBlocksElems {
		return true
	}
	B := w.offBytes()
	if w.step == 1 && (o.src == 1 && kernel.KeepsRows(int(w.width), int(w.calls(o)), int(l.src*B)) ||
		l.dst == 1 && w.calls(l) < l.size && kernel.KeepsCols(int(w.width), int(w.calls(l)), int(o.dst*B))) {
		// The first rows of the source's groups, or the first columns of
		// the destination's, the rest of each its padding (a tile's
		// partial group): the grids read, or write, the groups whole,
		// one stream.
		return false
	}
	// Blocks of a few source rows apart (each in lines of its own), in
	// arrays the caches do not hold, that are too narrow for the level's
	// kernels, which move them an element at a time: u8[3,22283110] to
	// T(8,128)(4,1) tiles, whose calls interleave the 3 rows of a tile's
	// values into groups of 4, or s8[42,473,181,4]{2,0,1,3} to
	// {3,0,1,2}, 4 rows into rows of 4 far apart. Such blocks of 1- and
	// 2-byte elements whose source rows are shorter than the L1 block of
	// a transpose (Tuning.Band) ran faster blocked; those whose source
	// lies in a line or two (u8 (4,1) tiles from T(32,32), a
	// de-interleave of 2 rows of 59 bytes) or whose rows are long (3 rows
	// of 4821 bytes, 4 of 8138), and those of 8-byte elements, no faster
	// or slower (relayout bench, docs/perf).
	if w.step == 1 && w.width <= 2 && w.dstBytes+w.srcBytes >= 2*linesKept() && l.src*B > lineBytes && o.size*B < int64(currentTuning().Band) &&
		kernel.Elementwise(int(w.width), int(w.calls(o)), int(w.calls(l)), int(o.dst*B), int(l.src*B)) {
		return true
	}
	if len(w.loops) == 0 {
		return false
	}
	dstRow, srcRow := l.size*w.step, o.size*w.step // a block's row on each side, where the next step of the rows would start
	if o.dst != dstRow && l.size*w.width <= tinyRowBytes && w.loops[len(w.loops)-1].dst != dstRow {
		crowded := w.dstBytes+w.srcBytes >= 2*linesKept() && rowsPerSet(o.dst*w.width, o.size) > crowdedRows
		if w.transposePast() || crowded {
			return true
		}
	}
	// Destination rows of a few bytes that the next step goes on along,
	// but only after more lines than the caches keep: s32[2,2,128,256,128]
	// to {0,2,4,3,1} writes 8 bytes of each of 32768 rows a call, the
	// next step the 8 after them, 2 MiB of lines later.
	if o.dst != dstRow && l.size*w.width <= tinyRowBytes && w.transposePast() && w.linesBack(dstOf, dstRow, o.size) > linesKept() {
		return true
	}
	if l.src == srcRow || o.size*w.width >= lineBytes {
		return false
	}
	if o.size*w.width <= tinyRowBytes && w.width <= 2 && w.dstBytes+w.srcBytes >= 2*linesKept() && rowsPerSet(l.src*w.width, l.size) > crowdedRows {
		return true
	}
	// Rows of up to tinyRowBytes whose lines come back too late, or
	// never; longer rows, up to a line, only where they do come back.
	back := w.linesBack(srcOf, srcRow, l.size)
	return w.transposePast() && back > linesKept() && (o.size*w.width <= tinyRowBytes || back < math.MaxInt64)
}

// calls returns the values of kernel loop l that most of the walk's
// kernel calls take: all of them, or the valid elements of its dim where
// those are fewer (every call then takes that many, its rectangle cut by
// padding).
func (w *walkPlan) calls(l *ploop) int64 {
	if l.scale != 1 || l.w != 1 {
		return l.size
	}
	valid, _ := w.dimElements(l.dim)
	return max(min(l.size, valid), 1)
}

// tinyRuns reports whether the walk copies runs of tinyRowBytes or less
// from source rows apart, in arrays that outgrow the L2: a few bytes of
// a line a run, the walk back to the rest only many runs later (s4
// [128,325,138,21] to T(8,8)E(4) tiles, whose byte plan copies 8 bytes
// of each of 8 source rows 873600 bytes apart a call). Runs from
// source rows one after another (T(8,8) tiles untiled) ran faster
// walked (relayout bench, docs/perf).
func (w *walkPlan) tinyRuns() bool {
	if w.mode != modeStrided || w.kern != kernRun || w.outer == nil || w.dstBytes+w.srcBytes < 2*linesKept() {
		return false
	}
	return w.inner.size*w.width <= tinyRowBytes && w.outer.src != w.inner.size*w.step
}

// linesBack returns how many bytes of lines a walk whose steps touch
// rows rows on one side (its strides side gives), a line of each,
// touches before it goes on along them (at row elements on): the lines
// of every step of the loops inside the one that goes on along the
// rows. It is MaxInt64 where no loop does.
func (w *walkPlan) linesBack(side func(ploop) int64, row, rows int64) int64 {
	steps := int64(1)
	for i := len(w.loops) - 1; i >= 0; i-- {
		if side(w.loops[i]) == row {
			return steps * rows * lineBytes
		}
		if steps > math.MaxInt64/64/max(1, w.loops[i].size*rows) {
			return math.MaxInt64
		}
		steps *= w.loops[i].size
	}
	return math.MaxInt64
}

// linesKept is how many bytes of lines a walk may touch before it goes
// on along them and still find them in the L2: half of it, four of the
// tuning's grid groups (Tuning.GridGroup, an eighth of the L2).
func linesKept() int64 { return 4 * int64(currentTuning().GridGroup) }

// lineBytes is the cache line.
const lineBytes = 64

// l1Sets is the sets of an L1 data cache that indexes them with the
// bits of a 4 KiB page, as the x86 cores' and most arm64 cores' do: 64
// of 64-byte lines, whatever the ways.
const l1Sets = 4096 / lineBytes

// crowdedRows bounds the rows of a block that may share a set of the L1:
// half the ways of an 8-way L1, so that the other side's lines fit
// beside them.
const crowdedRows = 4

// rowsPerSet returns how many of rows rows stride bytes apart share the
// fullest set of the L1: rows a whole number of lines apart cycle over
// l1Sets / gcd(l1Sets, lines) sets; others spread over all of them.
func rowsPerSet(stride, rows int64) int64 {
	sets := int64(l1Sets)
	if stride%lineBytes == 0 {
		if lines := stride / lineBytes % l1Sets; lines == 0 {
			sets = 1
		} else {
			sets = l1Sets / gcd(l1Sets, lines)
		}
	}
	return ceilDiv(rows, sets)
}

// tinyRowBytes bounds the rows of a walk's blocks, on either side, that
// make it take a blocked plan where the rows lie apart: a quarter of a
// 64-byte line. Walks of such rows ran several times slower than their
// blocked plans; rows of 32 bytes ran as fast walked as blocked, or
// faster (docs/perf), but for source rows whose lines the walk comes
// back to only after more than linesKept: s8[4705,11235] column-major to
// T(32,32) tiles, 32 bytes of each of 32 rows a block and the next 32
// bytes 704 KiB of lines on, ran 2.6 times faster blocked.
const tinyRowBytes = 16

// block makes p blocked where its walk moves tiny blocks (or, for
// tests, wherever it can with opts.forceBlocked). Compile calls it on
// the plans it returns, and compileStaged on a byte plan that runs whole;
// the other byte plans of stages and conversions stay walks, whose loops
// their slabs read.
func (p *Plan) block(opts *Options) {
	force := opts != nil && opts.forceBlocked
	if s, ok := p.exec.(*swapped); ok && (s.tinyBlocks() || force) {
		// The swapped walk still moves tiny blocks (4×4 of the 8-byte
		// pairs of pairs that bf16 (2,1) tiles on both sides of a
		// transpose make): block the walk that moves the elements as
		// they are, under the plan's own thresholds.
		p.streamMin, p.transposeMin = s.thresholds[0], s.thresholds[1]
		w := newWalkPlan(p, p.padPat, true)
		w.noSwap = true
		w.build()
		if b := newBlocked(w); b != nil {
			p.exec = b
			return
		}
		p.streamMin, p.transposeMin = math.MaxInt64, math.MaxInt64
		return
	}
	w, ok := p.exec.(*walkPlan)
	if !ok || !w.tinyBlocks() && !force {
		return
	}
	if b := newBlocked(w); b != nil {
		p.exec = b
		return
	}
	if w.unit > 1 && w.byteUnits == 0 && p.dtype.ByteWidth() == 2 && w.outer != nil && w.outer.size*w.inner.size <= tinyBlocksElems &&
		w.dstBytes+w.srcBytes >= 2*linesKept() {
		// A walk of 16-bit elements widened into units (the (2,1) tiles'
		// pairs) whose kernel blocks of units are tiny, in an array the
		// caches do not hold: block the walk of the elements as they
		// are, whose blocks gather and scatter the units' runs all the
		// same (bf16[1445,19833] from T(8,128)(2,1) tiles transposed
		// into T(4,128): 4×4 blocks of 2-element units, the last of each
		// column of tiles partial). Units of 1-byte elements (four to a
		// unit) ran slower so (relayout bench, docs/perf).
		e := newWalkPlan(p, p.padPat, false)
		e.build()
		if e.mode == modeStrided && e.swap == nil {
			if b := newBlocked(e); b != nil {
				p.exec = b
			}
		}
	}
}

// newBlocked returns a blocked plan for the strided walk w, or nil where
// w does not take one: no digit to gather or scatter runs of, or a
// block that would outgrow blockBytes' max.
func newBlocked(w *walkPlan) *blocked {
	if w.mode != modeStrided || w.swap != nil || w.step != 1 || w.part != 0 || w.unit != 1 {
		return nil
	}
	w, all := w.unmerged()
	for _, l := range all {
		if l.scale != 1 || l.size < 1 {
			return nil
		}
	}
	for target := int64(blockTargetBytes); target >= w.width; target /= 2 {
		b := w.blockOf(all, target, false)
		if b == nil {
			continue
		}
		// The block whose source runs take their last digit whole,
		// where that reads longer runs and keeps the destination's.
		if x := w.blockOf(all, target, true); x != nil {
			_, xs := x.runDigits(srcOf)
			_, xd := x.runDigits(dstOf)
			_, bs := b.runDigits(srcOf)
			_, bd := b.runDigits(dstOf)
			if xs > bs && xd >= bd {
				return x
			}
		}
		return b
	}
	return nil
}

// unmerged returns w's loops, outermost first, then its kernel's, with
// each merged loop (scale > 1: full dims folded into the loop of a dim)
// cut back into the loop of its dim and one of the dims folded in, and
// the walk they belong to: w, or where it cut, a copy of w whose dims
// go on with one for each such loop (the folded dims, full, as one).
// The blocks count a dim's values by its loops' weights, which a merged
// loop's do not: s8[128,128,48,17,3] to {0,2,1,4,3:T(8,128)(4,1)},
// whose kernel rows fold d4 into d3, walked blocks of 4 bytes a row.
func (w *walkPlan) unmerged() (*walkPlan, []ploop) {
	all := slices.Clone(w.loops)
	if w.outer != nil {
		all = append(all, *w.outer)
	}
	all = append(all, w.inner)
	if !slices.ContainsFunc(all, func(l ploop) bool { return l.scale > 1 }) {
		return w, all
	}
	c := *w
	c.dims = slices.Clone(w.dims)
	var cut []ploop
	for _, l := range all {
		if l.scale <= 1 || l.w != 1 || l.size%l.scale != 0 {
			cut = append(cut, l)
			continue
		}
		d := len(c.dims)
		c.dims = append(c.dims, pdim{n: l.scale, e: l.scale})
		c.folded = append(c.folded, l.dim)
		cut = append(cut,
			ploop{dim: l.dim, w: 1, size: l.size / l.scale, scale: 1, dst: l.dst * l.scale, src: l.src * l.scale},
			ploop{dim: d, w: 1, size: l.scale, scale: 1, dst: l.dst, src: l.src})
	}
	return &c, cut
}

// blockOf builds a blocked plan whose block gives each side runs of
// about target bytes, or returns nil where that block is too large or
// turns nothing. With whole, the digit that takes the source's runs past
// target is taken whole where its runs are wholeRunBytes or less: the
// hardware prefetchers then read each contiguous stretch of the source
// (a tile's row of 512 bytes, say) in one visit, where a part of it
// left the rest for a block far later (bf16 (2,1) tiles' rows read 256
// bytes at a time ran slower than the same plan reading them whole:
// docs/perf).
func (w *walkPlan) blockOf(all []ploop, target int64, whole bool) *blocked {
	// Each side's loops, fastest first.
	orders := [2][]int{byStride(all, srcOf), byStride(all, dstOf)}
	part := make([]int64, len(all)) // how many values of each loop the block takes
	for i := range part {
		part[i] = 1
	}
	// Each side's fastest loops, until they cover target bytes: the last
	// one taken as far as its first divisor that gets there.
	for side, order := range orders {
		covered := int64(1)
		for _, i := range order {
			if covered*w.width >= target {
				break
			}
			k := all[i].size
			if !whole || side != 0 || covered*k*w.width > wholeRunBytes {
				for d := int64(1); d <= k; d++ {
					if k%d == 0 && covered*d*w.width >= target {
						k = d
						break
					}
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
	srcRun, srcRunElems := b.runDigits(srcOf)
	dstRun, _ := b.runDigits(dstOf)
	b.continueSource(srcRunElems)
	byDst := reversed(byStride(b.digits, dstOf))
	// Runs shorter than the groups the source's next digit steps over
	// (the 3 bytes held of each 8-byte group of (8,1) tiles' rows) take
	// that digit just outside them: the gather then moves whole groups
	// a vector (kernel.CopyRuns), not a run a call.
	inner := b.groupDigit(srcRun, srcRunElems)
	gather := b.heaviestFirst(slices.Concat(without(byDst, slices.Concat(srcRun, inner)), inner, reversed(srcRun)))
	scatter := b.heaviestFirst(append(without(gather, dstRun), reversed(dstRun)...))
	if slices.Equal(gather, scatter) {
		return nil // nothing to turn: the walk's run copies do as well
	}
	groups := turns(gather, scatter)
	b.solidDims([][]int{gather, scatter}, groups)
	for _, g := range groups {
		b.ops = append(b.ops, b.turnOf(g))
	}
	var perm []int32
	b.wide, perm = wideTurns(b.ops)
	b.gather = b.boxOrder(gather, srcOf, false)
	b.scatter = b.boxOrder(scatter, dstOf, true)
	b.recordMoves(&b.gather)
	b.recordMoves(&b.scatter)
	if b.wide != nil {
		t := b.ops[0]
		total := t.batch * t.x * t.y * t.width
		b.wideBlocks = int(total) / b.wide.Bytes()
		b.direct = b.gather.oneRun(total, w.width) && b.scatter.oneRun(total, w.width)
		b.padDims = make([]bool, len(b.dims))
		padded := false
		for d, dm := range b.dims {
			// A box over all of a padded dim holds padding, always.
			b.padDims[d] = dm.n < dm.e && b.span[d] >= dm.e
			padded = padded || b.padDims[d]
		}
		if b.direct && padded {
			b.widePad = b.paddedWide(perm, total)
			b.direct = b.widePad != nil
		}
	}
	b.stream = w.pastCaches() && kernel.Streaming()
	b.pads = bytes.Repeat(w.pat, int(b.elems))
	if n := len(b.outer); n > 0 {
		b.ahead = b.outer[n-1].src * w.width
	}
	b.nchunks = b.countChunks()
	return b
}

// continueSource moves innermost the loop over blocks, if any, whose next
// block's source runs start where this block's end (runs of n elements),
// where the innermost loop's blocks lie farther apart in the source than
// that loop's would in the destination: the blocks then read each
// stretch of the source whole, one after another, where in the
// destination's order they jumped megabytes through the source from
// block to block and came back for the rest of each stretch later
// (bf16[54,128,22,128,1] to T(8,128)(2,1), whose blocks were 46 MiB
// apart in the source, ran faster so: docs/perf). The loop must be the
// lightest of its dim, which stays heaviest first.
func (b *blocked) continueSource(n int64) {
	i := slices.IndexFunc(b.outer, func(l ploop) bool { return l.src == n })
	if i < 0 || i == len(b.outer)-1 {
		return
	}
	l, last := b.outer[i], b.outer[len(b.outer)-1]
	if l.dst >= last.src {
		// The destination would jump as far from block to block as
		// the source does now, or farther: s8[256,320,156] from T(8,8),
		// whose source runs continue 4 MiB apart in the destination, ran
		// slower with them innermost.
		return
	}
	for _, o := range b.outer[i+1:] {
		if o.dim == l.dim {
			return
		}
	}
	b.outer = append(slices.Delete(b.outer, i, i+1), l)
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
// stride is the product of the sizes before it; and the runs' length in
// elements, the product of all their sizes.
func (b *blocked) runDigits(stride func(ploop) int64) (run []int, n int64) {
	n = 1
	for _, i := range byStride(b.digits, stride) {
		if stride(b.digits[i]) != n {
			break
		}
		run = append(run, i)
		n *= b.digits[i].size
	}
	return run, n
}

// groupDigit returns, as a list of none or one, the digit of the block
// with the least source stride past the source's run digits run (runs
// of n elements), where that stride is a power of two of 64 bytes or
// less, longer than the runs, and its groups make four vectors or more:
// kernel.CopyRuns gathers a vector of such groups at once.
func (b *blocked) groupDigit(run []int, n int64) []int {
	for _, i := range byStride(b.digits, srcOf) {
		if slices.Contains(run, i) {
			continue
		}
		// A few vectors of groups a move at least: each move pays for
		// its kernel call (u8 T(8,8) tiles' rows of 4 bytes, 20 groups a
		// move, gathered slower so).
		g := b.digits[i].src * b.width
		if g > n*b.width && g <= lineBytes && g&(g-1) == 0 && g*b.digits[i].size >= 4*lineBytes {
			return []int{i}
		}
		break
	}
	return nil
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
	// Blocks of up to 64 bytes always turn as byte permutations (a byte
	// at a time where the level has no kernel, as the transposes move so
	// small a block); up to 128 where the level has a kernel for them:
	// f16[312,103,34,4] from T(8,8) to T(4,128) turns 8×8 blocks of
	// 2-byte elements, which the transposes moved an element at a time.
	if xy := t.x * t.y * t.width; xy <= 64 || kernel.PermutesBlocks(int(xy)) {
		t.bytes = t.perm()
	}
	return t
}

// wideTurns returns the turns ops as one kernel.WidePerm, or nil where
// they are not one, or gain nothing by it. The turns act on blocks of
// their own (x·y elements each), so that all of them together permute
// each block of the least common multiple of those sizes, their period,
// alike. Where the period is whole lines, at most the WidePerm's, and
// each line of the result draws on at most two lines of its block (the
// turns between two tilings of one order: T(8,8) bytes into the (4,1)
// rows of T(8,128)(4,1) are 32-byte blocks turned [4][8] → [8][4] and
// then [16][2] of them, a 1 KiB period), the block runs them as one pass
// a VPERMI2B a line, where it ran each turn in a pass of its own, the
// turns of elements wider than 16 bytes a run copy at a time. A single
// turn that PermuteBlocks already runs in one pass stays.
func wideTurns(ops []turn) (*kernel.WidePerm, []int32) {
	if len(ops) == 0 || len(ops) == 1 && ops[0].bytes != nil || !kernel.PermutesWide() {
		return nil, nil
	}
	total := ops[0].batch * ops[0].x * ops[0].y * ops[0].width
	period := int64(1)
	for _, t := range ops {
		bs := t.x * t.y * t.width
		if t.batch*bs != total {
			return nil, nil
		}
		period = period / gcd(period, bs) * bs
		if period > kernel.WidePermMaxBytes {
			return nil, nil
		}
	}
	if period%64 != 0 || total%period != 0 {
		return nil, nil
	}
	perm := make([]int32, period)
	for q := range period {
		pos := q
		for k := len(ops) - 1; k >= 0; k-- {
			pos = ops[k].from(pos)
		}
		perm[q] = int32(pos)
	}
	w, ok := kernel.NewWidePerm(perm, nil)
	if !ok {
		return nil, nil
	}
	return w, perm
}

// paddedWide returns the permutation perm of blocks (wide's, over a
// buffer of total bytes) with the bytes that the destination's padding
// takes from the padding's pattern, for the boxes whose only padding is
// that of the dims they span whole (padDims: f16[4,N] in T(8,8) tiles,
// rows 4 to 7 of every tile), so that those too go straight across: or
// nil where the pattern does not repeat along a line, or the padding
// does not repeat from block to block of the buffer. Which bytes of a
// gathered box are padding, a gather of such a box from a source all
// ones into a buffer all zeros finds.
func (b *blocked) paddedWide(perm []int32, total int64) *kernel.WidePerm {
	if 64%len(b.pat) != 0 {
		return nil
	}
	budget := slices.Clone(b.span)
	for d, dm := range b.dims {
		if b.padDims[d] {
			budget[d] = dm.n
		}
	}
	buf := make([]byte, total)
	b.copyBox(&b.gather, bytes.Repeat([]byte{1}, int(total)), 0, buf, budget)
	period := int64(len(perm))
	out := slices.Clone(perm)
	for q, p := range perm {
		if buf[p] == 0 {
			out[q] = -1
		}
	}
	for k := period; k < total; k += period {
		for q, p := range perm {
			if (buf[k+int64(p)] == 0) != (out[q] < 0) {
				return nil
			}
		}
	}
	w, ok := kernel.NewWidePerm(out, bytes.Repeat(b.pat, 64/len(b.pat)))
	if !ok {
		return nil
	}
	return w
}

// oneRun reports whether o moves a whole box as one run of the side
// from the box's start, as long as the total bytes of the buffer the
// turns permute (elements of width bytes).
func (o *boxOrder) oneRun(total, width int64) bool {
	if len(o.moves) != 1 {
		return false
	}
	m := o.moves[0]
	contiguous := m.rows == 1 || m.sideStride == m.n && m.bufStride == m.n
	return m.side == 0 && m.buf == 0 && contiguous && m.n*m.rows*width == total
}

// pairStride returns the bytes between the two values of dim e in a
// gathered block, where e is a dim of 2 whose one digit the block holds
// whole, the digits gathered inside it making exactly that many bytes;
// else 0.
func (b *blocked) pairStride(e int) int64 {
	for p, i := range b.gather.at {
		if l := b.digits[i]; l.dim == e {
			outer := b.elems
			if p > 0 {
				outer = b.gather.buf[p-1]
			}
			if l.size != 2 || l.w != 1 || l.scale > 1 || outer != 2*b.gather.buf[p] {
				return 0
			}
			return b.gather.buf[p] * b.width
		}
	}
	return 0
}
