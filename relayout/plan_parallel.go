package relayout

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

// parallelism is how a Run may share out its work: the plan's, which its
// stages and field plan point to.
type parallelism struct {
	threads int
	// parallelMin is the destination size from which Run splits its work
	// (kernel.Tuning.ParallelMinBytes; tests lower it to split small cases).
	parallelMin int64
	dstBytes    int64
}

// goroutines is how many goroutines a Run may share its work among:
// threads, or 1 for a destination under parallelMin bytes.
func (q *parallelism) goroutines() int64 {
	if q.threads <= 1 || q.dstBytes < q.parallelMin {
		return 1
	}
	return int64(q.threads)
}

// threadChunks returns how many goroutines a Run of the walk uses.
func (p *walkPlan) threadChunks() int {
	if p.goroutines() == 1 || (p.mode != modeStrided && p.mode != modeGather) {
		return 1
	}
	if p.splitsColumns() || p.splitsRun() {
		return p.threads
	}
	l := p.threadLoop()
	if l == nil {
		return 1
	}
	return int(min(int64(p.threads), l.size/l.scale))
}

// splitsColumns reports whether a Run shares out the columns of the
// walk's one block among goroutines (runColumns): a transpose that is a
// single kernel call of a few rows, every place an element's (an
// interleave of 3 planes of a long array, say). Shared out by its rows,
// each goroutine would read the whole source for a row or two, which
// the kernels then gather an element at a time: bf16[3,1600128]
// de-interleaved ran far slower on 2 goroutines than on one (relayout
// bench --threads 2, docs/perf).
func (p *walkPlan) splitsColumns() bool {
	o, in := p.outer, &p.inner
	return p.goroutines() > 1 && p.mode == modeStrided && p.kern == kernTranspose && len(p.loops) == 0 && o != nil &&
		o.size < 4*int64(p.threads) && o.scale == 1 && in.scale == 1 && p.unit == 1 && p.part == 0 &&
		p.dims[o.dim].n == p.dims[o.dim].e && p.dims[in.dim].n == p.dims[in.dim].e &&
		p.tail[1] <= p.tail[0] && in.size >= int64(p.threads)*columnPiece
}

// splitsRun reports whether a Run shares out the walk's one run among
// goroutines (runPieces): a nest that is a single run copy, contiguous on
// both sides, or a single row gathered at a stride into a contiguous
// destination, has no loop to share out (an array copied into a layout
// that only pads its end, or out of one: c64[1,3104207] from T(128)
// untiled, u4[9102,2688] into L(1024); c64[844288,2] from T(8,8), whose
// tiles' rows hold 2 of their 8 places), and ran on one goroutine however
// many a Run had.
func (p *walkPlan) splitsRun() bool {
	in := &p.inner
	return p.goroutines() > 1 && p.mode == modeStrided && (p.kern == kernRun && in.src == 1 || p.kern == kernTranspose) &&
		len(p.loops) == 0 && p.outer == nil && p.step == 1 && p.part == 0 && in.dst == 1 && in.size*p.width >= int64(p.threads)*copyPiece
}

// runPieces runs the walk's one run (or row) as n runs of its columns,
// each whole pages of the destination (copyPiece) but the last, on n
// goroutines (splitsRun); the one that holds its end fills the padding
// after its elements.
func (p *walkPlan) runPieces(dst, src []byte, n int) {
	w := p.newWalker(dst, src)
	valid, held := w.extent(&p.inner)
	p.putWalker(w)
	cols := copyPiece / gcd(copyPiece, p.width) // columns of whole pages
	shareOut(ceilDiv(held, cols), int64(n), func(lo, hi int64) {
		a, e := lo*cols, min(hi*cols, held)
		w := p.newWalker(dst, src)
		w.rect(a, a*p.inner.src, 0, 0, 1, 1, min(max(valid-a, 0), e-a), e-a)
		if w.unfenced {
			kernel.StoreFence()
			w.unfenced = false
		}
		p.putWalker(w)
	})
}

// columnPiece is the granule, in columns, in which runColumns shares out
// a block: a line of each destination row for 1-byte elements, more for
// wider ones.
const columnPiece = 64

// runColumns runs the walk's one block as n blocks of its columns, on n
// goroutines (splitsColumns).
func (p *walkPlan) runColumns(dst, src []byte, n int) {
	o, in := p.outer, &p.inner
	shareOut(in.size/columnPiece, int64(n), func(lo, hi int64) {
		lo *= columnPiece
		hi *= columnPiece
		if hi == in.size/columnPiece*columnPiece {
			hi = in.size // the last share takes the ragged end
		}
		w := p.newWalker(dst, src)
		w.block(lo*in.dst, lo*in.src, o.dst, o.src, o.size, hi-lo)
		p.putWalker(w)
	})
}

// threadLoop is the loop Run shares out among goroutines: splitLoop, but
// for a transpose whose split would cut the kernel's rows while the
// outermost loop has values enough for every thread and steps through
// the destination in whole lines, that loop: every block then stays
// whole. RunRange keeps splitLoop, whose chunks are contiguous parts of
// the destination. (C6, f32 [64,128,256,32] reversed, on 2 threads ran
// far faster with its 32-row blocks whole than cut in two; relayout bench
// --threads 2 C6.) So too for any kernel whose rows are too few to share
// out evenly, where the outermost loop has values enough: the rows of a
// tile's few rows, split, would each take part of every tile, a walk
// the hardware prefetchers lose (bf16[1792,2,1,2863] from T(2,128) and
// u8[4,11085868] from T(4,128) ran slower on 2 threads than on one,
// docs/perf); and for rows whose shares would each span only a line or
// a few on either side, so that two goroutines read or write every one
// of them (f16[42,47,128,1,115] untiled from T(8,128)(2,1): 21 rows 4
// bytes apart a share). Where neither has values enough, and the split
// loop's do not share out evenly (3 planes on 2 threads), the outermost
// loop further in that has values enough and is the heaviest of its
// dim: its chunks come round again for each value of the loops outside.
func (p *walkPlan) threadLoop() *ploop {
	l := p.splitLoop()
	if l == nil || len(p.loops) == 0 {
		return l
	}
	few := func(l *ploop) bool { return l.size/l.scale < 4*int64(p.threads) }
	if l == p.outer {
		o := &p.loops[0]
		// A goroutine's share of the rows, where it spans a few lines
		// on either side, shares its lines with the next share's.
		B, share := p.offBytes(), l.size/l.scale/int64(p.threads)
		apart := share*l.src*B >= 4*lineBytes && share*l.dst*B >= 4*lineBytes
		if !few(o) && (p.kern == kernTranspose && o.dst*B%64 == 0 || few(l) || !apart) {
			return o
		}
	}
	if few(l) && l.size/l.scale%int64(p.threads) != 0 {
		// Too few values on either to share out evenly: the 3 planes of
		// bf16[3,128,56,150,3] transposed, and the 3 values of its
		// outermost loop, ran slower on 2 goroutines than on one.
		for i := range p.loops {
			if m := &p.loops[i]; !few(m) && m.scale == 1 && p.heaviest(m) {
				return m
			}
		}
	}
	return l
}

// heaviest reports whether l is the heaviest loop of its dim: a range
// of its values is then a range of the dim, whose places in the
// destination no other range's share.
func (p *walkPlan) heaviest(l *ploop) bool {
	heavier := func(m *ploop) bool { return m != nil && m.dim == l.dim && m.w > l.w }
	if heavier(&p.inner) || heavier(p.outer) {
		return false
	}
	for i := range p.loops {
		if heavier(&p.loops[i]) {
			return false
		}
	}
	return true
}

// splitLoop is the loop whose values are shared out among goroutines: the
// outermost one, or the kernel's rows when the kernel is the whole nest.
// Either is the heaviest loop of its dim, so a range of its values is a
// range of the dim and a disjoint part of the destination.
func (p *walkPlan) splitLoop() *ploop {
	if p.splitOuter || len(p.loops) == 0 {
		return p.outer
	}
	return &p.loops[0]
}

// chooseSplit prefers the kernel's rows to the outermost loop when they
// are a whole dim of their own with the larger destination stride (a
// transpose whose rows are the destination's slowest dim): then a chunk is
// a contiguous part of the destination.
func (p *walkPlan) chooseSplit() {
	o := p.outer
	if o == nil || len(p.loops) == 0 || o.dst <= p.loops[0].dst {
		return
	}
	for _, l := range p.loops {
		if l.dim == o.dim {
			return
		}
	}
	p.splitOuter = true
}

// Chunks is the number of parts RunRange can run one at a time: the values
// of the loop that Threads also splits, or for packed sub-byte sides the
// slabs the stages run in. A plan that cannot be split (an empty array,
// combined dims, packed sides that do not run in slabs) has one chunk.
func (p *Plan) Chunks() int64 { return p.exec.chunks() }

// chunks is the number of a walk's chunks: the values of its split
// loop, or 1 where it has none (or does not walk a nest).
func (p *walkPlan) chunks() int64 {
	if p.mode != modeStrided && p.mode != modeGather {
		return 1
	}
	l := p.splitLoop()
	if l == nil {
		return 1
	}
	return l.size / l.scale
}

// RunRange runs chunks [lo, hi) of the plan (see Chunks): Run is
// RunRange(dst, src, 0, Chunks()) on the calling goroutine. Chunks write
// disjoint parts of dst, so separate ranges may run one after another
// (to bound the memory a mapped file keeps resident) or concurrently. The
// chunk holding the last value also writes the tail padding.
func (p *Plan) RunRange(dst, src []byte, lo, hi int64) error {
	if err := checkBuffers(dst, src, p.dstBytes, p.srcBytes); err != nil {
		return err
	}
	n := p.Chunks()
	if lo < 0 || hi > n || lo > hi {
		return fmt.Errorf("%w: chunks [%d,%d) of %d", ErrUnsupportedPlan, lo, hi, n)
	}
	if lo == hi {
		return nil
	}
	if n == 1 {
		return p.Run(dst, src)
	}
	p.exec.runChunks(dst, src, lo, hi)
	return nil
}

// runChunks runs values [lo, hi) of the walk's split loop; the chunk
// holding the last value also writes the tail padding.
func (p *walkPlan) runChunks(dst, src []byte, lo, hi int64) {
	l := p.splitLoop()
	w, dOff, sOff, ok := p.chunkWalker(dst, src, l, lo*l.scale, hi*l.scale)
	if ok {
		w.walk(0, dOff, sOff, false)
	}
	p.putWalker(w)
	if hi == p.chunks() && p.tail[1] > p.tail[0] {
		p.fillElements(dst, p.tail[0], p.tail[1])
	}
}

// DestinationRange returns the byte range [from, to) of the destination
// that chunks [lo, hi) write into; when the split loop is the destination's
// slowest digit it holds nothing else.
func (p *Plan) DestinationRange(lo, hi int64) (from, to int64) {
	if p.Chunks() == 1 || lo >= hi {
		if lo >= hi {
			return 0, 0
		}
		return 0, p.dstBytes
	}
	return p.exec.chunkRange(lo, hi)
}

// chunkRange returns the destination bytes that values [lo, hi) of the
// walk's split loop write into.
func (p *walkPlan) chunkRange(lo, hi int64) (from, to int64) {
	l := p.splitLoop()
	rest := p.reach(l, func(o *ploop) int64 { return o.dst })
	from = min(lo*l.scale*l.dst*p.offBytes(), p.dstBytes) // a chunk past a dim's held places holds none
	to = min(((hi*l.scale-1)*l.dst+rest)*p.offBytes()+p.width-p.offBytes(), p.dstBytes)
	if hi == p.chunks() {
		to = p.dstBytes
	}
	return from, to
}

// ChunkBand reports which elements chunks [lo, hi) move (see RunRange):
// those whose index in logical dimension dim lies in [from, to), and no
// others. A RunRange of those chunks reads no other element of the
// source, so a caller that holds only part of the source (a file read a
// band at a time) can run the chunks over a buffer where only the band's
// elements are in place. ok is false when the chunks are not such a band:
// a plan of one chunk, a plan with a packed sub-byte side, one whose
// chunks are values of a dimension that the destination's tiling adds,
// or a range out of [0, Chunks()].
func (p *Plan) ChunkBand(lo, hi int64) (dim int, from, to int64, ok bool) {
	n := p.Chunks()
	w := p.walk()
	if n <= 1 || lo < 0 || hi > n || lo > hi || w == nil || p.from.isPacked() || p.to.isPacked() ||
		w.mode != modeStrided && w.mode != modeGather {
		return 0, 0, 0, false
	}
	l := w.splitLoop()
	if l == nil || l.dim >= len(p.from.dims) {
		return 0, 0, 0, false
	}
	// Value c of the split loop, the heaviest digit of its dim, starts at
	// index c×w of that dim (as chunkWalker starts it), counted in the
	// units that widen joined when the dim is the widened one.
	k := l.w
	if w.unit > 1 && l.dim == w.udim {
		k *= w.unit
	}
	size := p.from.dims[l.dim]
	return l.dim, min(lo*k, size), min(hi*k, size), true
}

// reach is how many elements, along the side whose stride stride
// returns, one value of loop l spans: one plus how far the other loops
// move from their first values to their last.
func (p *walkPlan) reach(l *ploop, stride func(*ploop) int64) int64 {
	return p.reachOf(l, stride, func(o *ploop) int64 { return o.size })
}

// heldReach is reach counting only the values of each loop that can
// hold a destination place (the walker skips a digit whose value is past
// its dim's held count): loops that run over a source tile's padding
// reach no further than the destination's dims.
func (p *walkPlan) heldReach(l *ploop, stride func(*ploop) int64) int64 {
	return p.reachOf(l, stride, func(o *ploop) int64 {
		return max(1, min(o.size, ceilDiv(p.dims[o.dim].e*o.scale, o.w)))
	})
}

// reachOf is reach with each loop's values counted by values.
func (p *walkPlan) reachOf(l *ploop, stride, values func(*ploop) int64) int64 {
	n := int64(1)
	for i := range p.loops {
		if o := &p.loops[i]; o != l {
			n += (values(o) - 1) * stride(o)
		}
	}
	if p.outer != nil && p.outer != l {
		n += (values(p.outer) - 1) * stride(p.outer)
	}
	return n + (values(&p.inner)-1)*stride(&p.inner)
}

// runParallel runs the nest in n chunks of threadLoop, one goroutine
// each.
func (p *walkPlan) runParallel(dst, src []byte, n int) {
	switch {
	case p.splitsColumns():
		p.runColumns(dst, src, n)
		return
	case p.splitsRun():
		p.runPieces(dst, src, n)
		return
	}
	l := p.threadLoop()
	shareOut(l.size/l.scale, int64(n), func(lo, hi int64) {
		w, dOff, sOff, ok := p.chunkWalker(dst, src, l, lo*l.scale, hi*l.scale)
		if ok {
			w.walk(0, dOff, sOff, false)
		}
		p.putWalker(w)
	})
}

// shareOut runs do on parts goroutines (parts ≥ 1), goroutine c on its
// share [n*c/parts, n*(c+1)/parts) of [0, n), and waits for them all;
// with one part it runs on the calling goroutine.
func shareOut(n, parts int64, do func(lo, hi int64)) {
	if parts <= 1 {
		do(0, n)
		return
	}
	var wg sync.WaitGroup
	for c := range parts {
		wg.Go(func() { do(n*c/parts, n*(c+1)/parts) })
	}
	wg.Wait()
}

// chunkWalker returns a walker for values [lo, hi) of split (the
// kernel's rows or the outermost loop) and the offsets at which it
// starts; ok is false when the chunk holds no destination place. The
// caller puts w back (putWalker) either way.
func (p *walkPlan) chunkWalker(dst, src []byte, split *ploop, lo, hi int64) (w *walker, dOff, sOff int64, ok bool) {
	w = p.newWalker(dst, src)
	var l *ploop
	if split == p.outer {
		w.ownOuter = *p.outer
		w.outer = &w.ownOuter
		l = w.outer
	} else {
		w.ownLoops = append(w.ownLoops[:0], p.loops...)
		w.loops = w.ownLoops
		for i := range p.loops {
			if &p.loops[i] == split {
				l = &w.loops[i]
			}
		}
	}
	dOff, sOff = lo*l.dst, lo*l.src
	l.size = hi - lo
	if w.spans != nil {
		w.ownSpans, w.spanBuf = spansInto(w.ownSpans, w.spanBuf, w.loops, w.outer, &p.inner)
		w.spans = w.ownSpans
	}
	step := lo / l.scale * l.w // logical index where the chunk starts
	k := p.per(l.dim)
	w.b[l.dim] = max(w.b[l.dim]-step*k, 0)
	w.e[l.dim] -= step * k
	if len(w.loops) > 0 && l != &w.loops[0] && l != w.outer {
		// A loop further in (threadLoop) comes round again for each value
		// of the loops outside: its dim's budgets end with the chunk, so
		// that nothing that reads them (a band, a corner) reaches past it.
		w.b[l.dim] = min(w.b[l.dim], l.size*l.w*k)
		w.e[l.dim] = min(w.e[l.dim], l.size*l.w*k)
	}
	if w.idx != nil {
		w.idx[l.dim] = step
	}
	return w, dOff, sOff, w.e[l.dim] > 0 && l.size > 0
}

// explainChunks says how a Run shares out its work, for Plan.String.
func (p *walkPlan) explainChunks() string {
	n := p.chunks()
	switch {
	case p.splitsRun():
		return fmt.Sprintf("chunks: one; a Run shares the %d values of its one run among %d goroutines, in whole pages of the destination", p.inner.size, p.threadChunks())
	case n == 1:
		return "chunks: one (the plan does not split)"
	case p.splitsColumns():
		return fmt.Sprintf("chunks: %d; a Run shares the block's %d columns among %d goroutines", n, p.inner.size, p.threadChunks())
	case p.threadChunks() > 1:
		l := p.threadLoop()
		return fmt.Sprintf("chunks: %d values of d%d weight %d; a Run uses %d goroutines", l.size/l.scale, l.dim, l.w, p.threadChunks())
	case p.threads <= 1:
		return fmt.Sprintf("chunks: %d; a Run uses the calling goroutine (Threads 1)", n)
	default:
		return fmt.Sprintf("chunks: %d; a Run uses the calling goroutine (destination under %d bytes)", n, p.parallelMin)
	}
}

// copyAll is the executor of a plan whose layouts place every byte alike
// (walkPlan.placesAlike, staged.placesAlike): a Run copies the buffer
// whole. Its chunks are those of the executor it was compiled as, which
// RunRange runs.
type copyAll struct {
	executor
	*parallelism // the plan's
	// clear is the bits of the last byte past the last field of a packed
	// destination, which a Run clears (as the reference leaves them).
	clear int64
}

// copyPiece is the granule in which a copying Run (copyAll) shares
// the buffer among goroutines: whole pages, so that no two goroutines
// write one line.
const copyPiece = 4096

// run copies the buffer whole: kernel.Copy, on as many goroutines as
// the plan may use, each on its share of pages.
func (c *copyAll) run(dst, src []byte) error {
	n := int64(len(dst))
	shareOut(ceilDiv(n, copyPiece), min(c.goroutines(), ceilDiv(n, copyPiece)), func(lo, hi int64) {
		a, e := lo*copyPiece, min(hi*copyPiece, n)
		kernel.Copy(dst[a:e], src[a:e])
	})
	if c.clear > 0 && n > 0 {
		dst[n-1] &^= byte(1)<<c.clear - 1
	}
	return nil
}

// explain says that a Run copies, then explains the plan it was
// compiled as.
func (c *copyAll) explain(b *strings.Builder) {
	fmt.Fprintf(b, "  copy: both layouts place every byte alike, so a Run copies the buffer whole (kernel.Copy)%s\n", c.explainCopyThreads())
	c.executor.explain(b)
}

// explainCopyThreads says how a copying Run shares out its work, for
// Plan.String.
func (c *copyAll) explainCopyThreads() string {
	if g := c.goroutines(); g > 1 {
		return fmt.Sprintf(", in %d shares of pages on as many goroutines", g)
	}
	return ""
}
