package relayout

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"unsafe"

	"github.com/tilecopy/tilecopy/internal/kernel"
	"github.com/tilecopy/tilecopy/internal/mem"
)

// Run relayouts src into dst (destination first, like copy). dst must be
// exactly DestinationSize bytes and src SourceSize bytes, and they must not
// overlap. Every byte of dst is written: elements, and the padding value
// wherever the destination layout holds no element.
func (p *Plan) Run(dst, src []byte) error {
	if err := checkBuffers(dst, src, p.dstBytes, p.srcBytes); err != nil {
		return err
	}
	return p.exec.run(dst, src)
}

// run walks the whole nest, on as many goroutines as threadChunks says,
// then writes the tail padding; or fills an empty array, or moves the
// elements one at a time.
func (p *walkPlan) run(dst, src []byte) error {
	switch p.mode {
	case modeFill:
		p.fillElements(dst, 0, p.tm.Elements())
		return nil
	case modeElementwise:
		p.runElementwise(dst, src)
		return nil
	}
	if n := p.threadChunks(); n > 1 {
		p.runParallel(dst, src, n)
	} else {
		w := p.newWalker(dst, src)
		w.walk(0, 0, 0, false)
		p.putWalker(w)
	}
	if p.tail[1] > p.tail[0] {
		p.fillElements(dst, p.tail[0], p.tail[1])
	}
	return nil
}

// checkBuffers checks buffer lengths and that the buffers do not overlap:
// what Run and RunRange check before they write (Reference too).
func checkBuffers(dst, src []byte, dstSize, srcSize int64) error {
	if int64(len(src)) != srcSize {
		return fmt.Errorf("%w: source is %d bytes, its shape needs %d", ErrBufferSize, len(src), srcSize)
	}
	if int64(len(dst)) != dstSize {
		return fmt.Errorf("%w: destination is %d bytes, its shape needs %d", ErrBufferSize, len(dst), dstSize)
	}
	if mem.Overlap(dst, src) {
		return ErrOverlap
	}
	return nil
}

// newWalker returns a walker over the whole nest: one that p's pool
// holds, with the buffers an earlier walk allocated, or a new one. A Run
// allocates nothing once the pool has its walkers. Each allocation
// costs more than the run of a small array where the heap is large and
// its fresh pages fault (the bench's f32[32,32] transpose averaged many
// times its median time a Run: the few Runs that hit a page fault took
// hundreds of times longer).
func (p *walkPlan) newWalker(dst, src []byte) *walker {
	w, _ := p.walkers.Get().(*walker)
	if w == nil {
		w = &walker{b: make([]int64, len(p.dims)), e: make([]int64, len(p.dims)), ctr: make([]int64, len(p.loops))}
		if p.mode == modeGather {
			w.idx = make([]int64, len(p.dims))
		}
	}
	*w = walker{p: p, dst: dst, src: src, loops: p.loops, outer: p.outer, spans: p.spans,
		b: w.b, e: w.e, idx: w.idx, ctr: w.ctr, ownLoops: w.ownLoops, ownSpans: w.ownSpans, spanBuf: w.spanBuf,
		cornerN: w.cornerN, cornerAll: w.cornerAll, cornerLoops: w.cornerLoops,
		edge: w.edge, bandDims: w.bandDims, bandBuf: w.bandBuf, padBuf: w.padBuf, padGridBuf: w.padGridBuf, padVec: w.padVec}
	clear(w.idx)
	for d, pd := range p.dims {
		w.b[d], w.e[d] = pd.n, pd.e
	}
	if p.part != 0 { // the partial unit's dim counts elements
		short := p.unit - p.part
		w.b[p.udim] = p.dims[p.udim].n*p.unit - short
		w.e[p.udim] *= p.unit
		if p.partHeld {
			w.e[p.udim] -= short
		}
	}
	return w
}

// putWalker gives w back to p's pool once its walk is done, without the
// caller's buffers.
func (p *walkPlan) putWalker(w *walker) {
	w.dst, w.src, w.rows8 = nil, nil, nil
	p.walkers.Put(w)
}

// walker runs the loop nest of one Run, or of one chunk of it.
type walker struct {
	p        *walkPlan
	loops    []ploop     // the outer loops (a chunk's first loop is cut to its range)
	outer    *ploop      // the kernel's rows loop (cut when it is what is split)
	spans    [][]dimSpan // the plan's, or the chunk's
	dst, src []byte
	b, e     []int64 // per dim: valid and held counts left at the current depth (see walkPlan.per)
	idx      []int64 // gather mode: logical index reached, per dim
	ctr      []int64 // runDense's odometer
	ownLoops []ploop // a chunk's copy of the outer loops (loops, when they are cut)
	// ownSpans and spanBuf hold a chunk's spans (spans, when its loops
	// are cut; spansInto).
	ownSpans [][]dimSpan
	spanBuf  []dimSpan
	ownOuter ploop // a chunk's copy of the kernel's rows loop (outer, when it is cut)
	// rows8, when set, moves the kernel's blocks and fills between a
	// packed side and the other (slabs of a staged plan's (8,1) tiles).
	rows8 *rows8Walk
	// The dense corner being run (see corner): whether there is one, and
	// per loop level the values it takes and whether they are all.
	cornerOn    bool
	cornerN     []int64
	cornerAll   []bool
	cornerLoops []ploop // the loops from the corner's level inward, cut to it
	cornerNext  int64   // the source step of the loop outside the corner's level (nextStep)
	// edge is the buffer of a streamed plan's partial rectangles (see
	// kernel); staging says that dst is edge, which the block kernels
	// write with plain stores.
	edge    []byte
	staging bool
	// edgePad is the geometry of kernelRow's rectangles whose padding
	// edge holds (stageRow): how many, l.dst, oDst, rowsV, rowsE, colsV,
	// colsE; or stageCols': -1, then its rectangles a group, their rows'
	// bytes, colsV and the band's rows; zero where edge holds anything
	// else (stageRect wrote it).
	edgePad [7]int64
	// bandLv is the loop level whose boxes the walk stages as bands
	// (bandLevel), or -1; bandDims the dims their loops step, by stride;
	// bandBuf their buffer, allocated with the first; bands how many it
	// staged.
	bandLv   int
	bandDims []bandDim
	bandBuf  []byte
	bands    int
	// rects is how many rectangles the walk staged through edge
	// (stageRect); runRows how many groups of a run copy's rectangles
	// kernelRow staged there (stageRow).
	rects   int
	runRows int
	// colGroups counts the groups of a block transpose's rectangles
	// along the destination rows that kernelRow staged there (stageCols).
	colGroups int
	// cutRows counts the rows of a last loop's values that kernelRow
	// took whole before the values the budgets cut (nest).
	cutRows int
	// padFills is how many runs of padding values padValues filled at
	// once (for tests).
	padFills int
	// padGridBuf and padGridKey are padGrid's buffer and the shape its
	// padding rows were filled for; padGrids counts its calls (for
	// tests).
	padGridBuf []byte
	padGridKey [3]int64
	padGrids   int
	// edgeOuter is the kernel's rows loop cut to a partial group, which
	// edgeRows walks with; edges counts such groups (for tests).
	edgeOuter ploop
	edges     int
	// padCols, where not 0, is how many of the kernel's columns runDense
	// moves, the rest of each destination group padded (edgeCols), over
	// the loops edgeBox; padEdges counts edgeCols' boxes (for tests).
	padCols  int64
	edgeBox  [2]ploop
	padEdges int
	// padVec is the padding pattern as a kernel.Grid's Pad, made the
	// first time edgeCols needs it.
	padVec []byte
	// padBuf holds the padding pattern that streamFill copies, filled
	// with the first streamed fill; streamFills counts those fills (for
	// tests).
	padBuf      []byte
	streamFills int
	// unfenced says that the walk made streaming calls without their
	// store fence (Grid.Unfenced, CopyRunsStreamingUnfenced,
	// Stream.Unfenced), which it fences once at its end.
	unfenced bool
	// ahead is, inside runDense, the source step in elements from one
	// block to the next (the next band of tiles), which rows8 walks
	// prefetch (Stream.Ahead); 0 elsewhere.
	ahead int64
}

// walk runs loop lv and the loops inside it. dOff and sOff are element
// offsets; pad means the whole region below is padding.
func (w *walker) walk(lv int, dOff, sOff int64, pad bool) {
	w.bandLv = w.bandLevel()
	w.nest(lv, dOff, sOff, pad, false)
	if w.unfenced {
		kernel.StoreFence()
		w.unfenced = false
	}
}

// transposeGrid is TransposeGrid with its fence left to the end of the
// walk: a plan streaming small blocks makes a call for each row of them
// (a band of tiles, say), and each call's fence waited for its stores to
// reach memory.
func (w *walker) transposeGrid(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, g kernel.Grid) {
	g.Unfenced, w.unfenced = true, true
	kernel.TransposeGrid(width, dst, dstStride, src, srcStride, rows, cols, g)
}

// copyRunsStreaming is CopyRunsStreaming with its fence left to the end
// of the walk, as transposeGrid's.
func (w *walker) copyRunsStreaming(dst []byte, dstStride, dstStep int, src []byte, srcStride, srcStep int, n, rows, steps int) {
	w.stream(0).CopyRuns(dst, dstStride, dstStep, src, srcStride, srcStep, n, rows, steps)
}

// stream is the Stream of the walk's streaming calls (run copies, rows8
// walks): fenced at the end of the walk, prefetching ahead bytes on.
func (w *walker) stream(ahead int64) kernel.Stream {
	w.unfenced = true
	return kernel.Stream{Unfenced: true, Ahead: int(ahead)}
}

// streams reports whether the walk writes the destination with
// non-temporal stores: a streamed plan's, except into a staging buffer
// (stageRow's, or a band's: see band).
func (w *walker) streams() bool { return w.p.stream && !w.staging }

// nest is walk with in, which says that every loop from the corner's
// level (see corner) to lv has taken a value inside the corner, whose
// elements have moved already.
func (w *walker) nest(lv int, dOff, sOff int64, pad, in bool) {
	if lv == w.bandLv && !w.staging {
		if n := w.band(); n > 0 {
			w.stageBand(lv, n, dOff, sOff, pad, in)
			return
		}
	}
	switch {
	case in:
		if w.cornerAll[lv] {
			return
		}
	case pad || w.spans == nil:
	case w.dense(lv):
		w.runDense(w.loops[lv:], dOff, sOff, w.nextStep(lv))
		return
	case lv < len(w.loops) && lv >= len(w.loops)-w.gridLoops() && !w.cornerOn && w.edgeCols(lv, dOff, sOff):
		return
	case lv < len(w.loops) && lv >= len(w.loops)-w.gridLoops() && !w.cornerOn && w.corner(lv):
		// The dense corner as one box, then the rest around it.
		w.cornerNext = w.nextStep(lv)
		w.runDense(w.cornerLoops[:len(w.loops)-lv], dOff, sOff, w.cornerNext)
		w.edgeRows(lv, dOff, sOff)
		w.nest(lv, dOff, sOff, false, true)
		w.cornerOn = false
		return
	}
	if lv == len(w.loops) {
		w.kernel(dOff, sOff, pad)
		return
	}
	l := &w.loops[lv]
	d := l.dim
	bd, ed := w.b[d], w.e[d]
	var i0 int64
	if w.idx != nil {
		i0 = w.idx[d]
	}
	k := w.p.per(d)
	// Budgets that cover every value of l whole: the kernel loops of its
	// dim then reach their full size at each (extent).
	whole := (l.w != 1 || k != 1) && bd >= l.size*l.w*k && ed >= l.size*l.w*k
	if lv == len(w.loops)-1 && w.blockRow(l, whole) {
		// The last loop's values each a kernel call of the same
		// rectangle: one grid call.
		nv, ne := l.values(k, bd, ed)
		var from int64
		if in {
			from = w.cornerN[lv] // the corner moved these
		}
		if pad {
			nv = 0
		}
		// The next row's source: the next value of the loop outside,
		// or where the corner is one box, the next box's rest.
		next := w.nextStep(lv)
		if w.cornerOn {
			next = w.cornerNext
		}
		w.kernelRow(l, dOff, sOff, from, nv, ne, next)
		return
	}
	if l.w == 1 && k == 1 {
		// The lightest digit of its dim: values below nv are elements.
		nv, ne := l.values(k, bd, ed)
		if pad {
			nv = 0
		}
		if nv < ne && w.padValues(lv, dOff+nv*l.dst, ne-nv) {
			ne = nv
		}
		for v := range ne {
			if w.idx != nil {
				w.idx[d] = i0 + v
			}
			w.nest(lv+1, dOff+v*l.dst, sOff+v*l.src, pad || v >= nv, in && v < w.cornerN[lv])
		}
	} else {
		// Budgets of k per value (a partial unit's dim counts elements;
		// its loops have scale 1), cut to each value's part of the dim.
		_, top := l.values(k, bd, ed)
		// Values from first on hold padding alone, and those below
		// full their whole span of the dim: one fill, where it can.
		first, full := ceilDiv(bd, l.w*k), min(top, ed/(l.w*k))
		if pad {
			first = 0
		}
		// The last loop's values that hold their whole span of the dim
		// with elements: one grid call as where every value does
		// (blockRow), and the ragged ones after them each on its own.
		// The last tile of a row cut short left the whole row to the
		// values' calls (c64 [3,895303] into T(8,8), 111920 tiles).
		var start int64
		if n := min(bd, ed) / (l.w * k); lv == len(w.loops)-1 && n >= 2 && n < top && !pad && !in && !w.cornerOn && w.blockRow(l, true) {
			w.b[d], w.e[d] = l.w*k, l.w*k
			w.kernelRow(l, dOff, sOff, 0, n, n, w.nextStep(lv))
			start = n
			w.cutRows++
		}
		if first < full {
			w.b[d], w.e[d] = 0, l.w*k
			if !w.padValues(lv, dOff+first*l.dst, full-first) {
				first = top
			}
		} else {
			first = top
		}
		for v := start; v < top; v++ {
			if v == first {
				if v = full; v == top { // [first, full) filled
					break
				}
			}
			lo := v * l.w * k
			w.b[d] = min(max(bd-lo, 0), l.w*k)
			w.e[d] = min(ed-lo, l.w*k)
			if w.idx != nil {
				w.idx[d] = i0 + lo
			}
			w.nest(lv+1, dOff+v*l.dst, sOff+v*l.src, pad || w.b[d] == 0, in && v < w.cornerN[lv])
		}
		w.b[d], w.e[d] = bd, ed
	}
	if w.idx != nil {
		w.idx[d] = i0
	}
}

// padValues fills the destination places of count values of loop level
// lv, from dOff on, with everything the loops inside them and the kernel
// hold, when they hold padding alone: one fill call where those places
// are whole runs, each the same rows, rather than a call for each
// rectangle the kernel would have moved (a dim of 34 held in tiles of
// 128 has 94 values of padding in each tile row). The loops inside must
// hold every place they reach (the held budgets reach their spans) and
// all but one of them must nest into one run from the kernel's
// contiguous inner loop; the one left makes the rows. It reports false,
// having written nothing, where they do not.
func (w *walker) padValues(lv int, dOff, count int64) bool {
	p := w.p
	if w.staging || w.spans == nil || p.step != 1 || p.part != 0 || p.inner.dst != 1 {
		return false
	}
	for _, s := range w.spans[lv+1] {
		if w.e[s.dim] < s.span*p.per(s.dim) {
			return false
		}
	}
	type axis struct{ size, dst int64 }
	var buf [16]axis
	box := buf[:0]
	add := func(size, dst int64) {
		if size > 1 {
			box = append(box, axis{size, dst})
		}
	}
	add(count, w.loops[lv].dst)
	for _, l := range w.loops[lv+1:] {
		add(l.size, l.dst)
	}
	if w.outer != nil {
		add(w.outer.size, w.outer.dst)
	}
	add(p.inner.size, p.inner.dst)
	run := int64(1) // the elements of the run the nested axes make
	for more := true; more; {
		more = false
		for i := range box {
			if box[i].size > 1 && box[i].dst == run {
				run *= box[i].size
				box[i].size, more = 1, true
			}
		}
	}
	rows, stride := int64(1), int64(0)
	for _, a := range box {
		if a.size == 1 {
			continue
		}
		if rows != 1 || a.dst < run {
			return false
		}
		rows, stride = a.size, a.dst
	}
	w.fill(dOff, stride, run, rows)
	w.padFills++
	return true
}

// values returns how many values of loop l hold elements (nv) and how
// many the destination holds (ne), given its dim's budgets bd and ed of
// valid and held elements, k elements to an index of the dim (per).
func (l *ploop) values(k, bd, ed int64) (nv, ne int64) {
	if l.w == 1 && k == 1 {
		// The lightest digit of its dim, merged dims counted by scale.
		return min(l.size, bd*l.scale), min(l.size, ed*l.scale)
	}
	return min(l.size, ceilDiv(bd, l.w*k)), min(l.size, ceilDiv(ed, l.w*k))
}

// dense reports whether the box from loop level lv inward holds only
// elements: every dim it covers has budgets reaching the box's span.
func (w *walker) dense(lv int) bool {
	for _, s := range w.spans[lv] {
		if !w.reaches(s) {
			return false
		}
	}
	return w.wholeUnit(lv)
}

// reaches reports whether dim s.dim's budgets, valid and held, reach the
// span s.
func (w *walker) reaches(s dimSpan) bool {
	k := w.p.per(s.dim)
	return w.b[s.dim] >= s.span*k && w.e[s.dim] >= s.span*k
}

// wholeUnit reports, for a plan whose last unit of udim is partial,
// whether the box from loop level lv inward holds no partial unit where
// none of its loops is udim's: it lies at one unit of udim, which must be
// whole. (Where its loops cover udim, their spans say so.)
func (w *walker) wholeUnit(lv int) bool {
	p := w.p
	return p.part == 0 || w.b[p.udim] >= p.unit ||
		slices.ContainsFunc(w.spans[lv], func(s dimSpan) bool { return s.dim == p.udim })
}

// per is the count a budget of dim d takes for one of its values: the
// unit where d ends in a partial unit (its budgets count elements), else
// 1.
func (p *walkPlan) per(d int) int64 {
	if p.part != 0 && d == p.udim {
		return p.unit
	}
	return 1
}

// corner looks, where the box from loop level lv inward is not dense, for
// its dense corner: the leading values of each loop whose regions hold
// only elements. An array whose dims are not multiples of the tiles ends
// each row of tiles with a partial one; without the corner each whole tile
// would be a kernel call of its own, and the calls would not stream.
// corner records the corner (cornerOn, cornerN, cornerAll, cornerLoops)
// and reports whether there is one: no loop is left without a value.
func (w *walker) corner(lv int) bool {
	n := len(w.loops)
	if w.cornerN == nil {
		w.cornerN = make([]int64, n)
		w.cornerAll = make([]bool, n+1)
		w.cornerLoops = make([]ploop, n)
	}
	// Dims that only the kernel's loops cover must be whole, and so must
	// a unit that none covers.
	for _, s := range w.spans[n] {
		if !slices.ContainsFunc(w.loops[lv:], func(l ploop) bool { return l.dim == s.dim }) && !w.reaches(s) {
			return false
		}
	}
	if !w.wholeUnit(lv) {
		return false
	}
	w.cornerAll[n] = true
	for j := n - 1; j >= lv; j-- {
		l := &w.loops[j]
		k := l.size
		if !slices.ContainsFunc(w.loops[lv:j], func(o ploop) bool { return o.dim == l.dim }) {
			// The heaviest loop of its dim in the box: value v covers
			// indices [v*w, v*w+below) of the dim.
			have := min(w.b[l.dim], w.e[l.dim]) / w.p.per(l.dim) // whole units
			below := int64(1)
			for _, s := range w.spans[j+1] {
				if s.dim == l.dim {
					below = s.span
				}
			}
			switch {
			case have < below:
				return false
			case l.scale != 1: // merged with a whole dim: the lightest loop of its dim
				k = min(k, have*l.scale)
			default:
				k = min(k, (have-below)/l.w+1)
			}
		}
		w.cornerN[j] = k
		w.cornerAll[j] = w.cornerAll[j+1] && k == l.size
		w.cornerLoops[j-lv] = *l
		w.cornerLoops[j-lv].size = k
	}
	w.cornerOn = true
	return true
}

// edgeRows moves the last value of the innermost loop of the box from
// loop level lv, inside the box's corner along the other loops, as one
// more box, where that value is a partial group of the kernel's rows,
// the same at every value of the loops outside it, and adds it to the
// corner: the row pairs of (2,1) tiles of 3 rows untiled end with a pair
// of which the array holds one row, a call of its own at each tile, an
// element at a time, where the box is one grid of the grid kernels
// (kernel.TransposeGrid keeps the first row of each pair). The
// destination must hold no more of the group's rows than the array
// does (no padding to write), nor values past it. Where the rest is not
// so, it does nothing.
func (w *walker) edgeRows(lv int, dOff, sOff int64) {
	p := w.p
	n := len(w.loops)
	if p.kern != kernTranspose || w.outer == nil || w.rows8 != nil || w.idx != nil || p.part != 0 || lv >= n {
		return
	}
	l := &w.loops[n-1]
	d, c := l.dim, w.cornerN[n-1]
	k := p.per(d)
	if d != w.outer.dim || c >= l.size || slices.Contains(w.cornerN[lv:n-1], 0) {
		return
	}
	bd, ed := w.b[d], w.e[d]
	lo, span := c*l.w*k, l.w*k
	if bd <= lo || bd >= lo+span || ed > lo+span {
		return // no partial value c, or values past it
	}
	w.b[d], w.e[d] = bd-lo, ed-lo
	rowsV, rowsE := w.extent(w.outer)
	colsV, colsE := w.extent(&p.inner)
	w.b[d], w.e[d] = bd, ed
	if rowsV != rowsE || rowsV < 1 || rowsV >= w.outer.size || colsV != p.inner.size || colsE != colsV {
		return
	}
	whole := w.outer
	w.edgeOuter = *whole
	w.edgeOuter.size = rowsV
	w.outer = &w.edgeOuter
	w.runDense(w.cornerLoops[:n-1-lv], dOff+c*l.dst, sOff+c*l.src, w.cornerNext)
	w.outer = whole
	w.edges++
	// The corner now holds value c too.
	w.cornerN[n-1] = c + 1
	for j := n - 1; j >= lv; j-- {
		w.cornerAll[j] = w.cornerAll[j+1] && w.cornerN[j] == w.loops[j].size
	}
}

// edgeCols moves the box from loop level lv as grids and one fill,
// where the box's innermost loop steps groups of the kernel's columns:
// whole ones, then one partial (the array's 3 rows of a tile's groups
// of 4, or the third of (2,1) pairs), then padding, and the level's
// kernels write a group's padding in the same pass (kernel.KeepsCols:
// u8 [3,N] tiled to T(8,128)(4,1)). The box's only other loop is taken
// over its values that hold elements whole (the last, a ragged tile,
// say, is walked as the rest of a corner): the whole groups go as one
// grid, the partial ones as one grid of the kernel's first columns
// (runDense with padCols), the padding groups as one fill. It reports
// false, having moved nothing, where the box is not so.
func (w *walker) edgeCols(lv int, dOff, sOff int64) bool {
	p := w.p
	n := len(w.loops)
	if p.kern != kernTranspose || w.outer == nil || w.rows8 != nil || w.idx != nil || p.part != 0 || p.step != 1 ||
		lv != n-2 || p.inner.dst != 1 {
		return false
	}
	l, o := &w.loops[n-1], &w.loops[n-2]
	d := l.dim
	k, ko := p.per(d), p.per(o.dim)
	if d != p.inner.dim || d == o.dim || d == w.outer.dim || l.w != p.inner.size || o.scale != 1 {
		return false
	}
	bd, ed := w.b[d], w.e[d]
	full, part := bd/(l.w*k), bd%(l.w*k) // l's whole groups, the partial one's columns
	if part == 0 || ed < (full+1)*l.w*k || ed > l.size*l.w*k {
		return false // no partial group with groups of padding after it
	}
	whole := min(o.size, w.b[o.dim]/(o.w*ko), w.e[o.dim]/(o.w*ko)) // o's values that hold elements whole
	rowsV, rowsE := w.extent(w.outer)
	if whole < 1 || rowsV != w.outer.size || rowsE != rowsV || w.outer.dst != p.inner.size ||
		l.dst != w.outer.size*w.outer.dst || !kernel.KeepsCols(int(p.width), int(part), int(w.outer.dst*p.offBytes())) {
		return false
	}
	_, ne := l.values(k, bd, ed)
	w.edgeBox[0], w.edgeBox[1] = *o, *l
	w.edgeBox[0].size, w.edgeBox[1].size = whole, full
	next := w.nextStep(lv)
	if full > 0 {
		// The whole groups, a box of their own.
		w.runDense(w.edgeBox[:], dOff, sOff, next)
	}
	w.padCols = part
	w.runDense(w.edgeBox[:1], dOff+full*l.dst, sOff+full*l.src, next)
	w.padCols = 0
	if ne > full+1 {
		w.fill(dOff+(full+1)*l.dst, o.dst, (ne-full-1)*l.dst, whole)
	}
	w.padEdges++
	if whole < o.size {
		// The rest as a corner's: the values past the whole ones.
		if w.cornerN == nil {
			w.cornerN = make([]int64, n)
			w.cornerAll = make([]bool, n+1)
			w.cornerLoops = make([]ploop, n)
		}
		w.cornerN[lv], w.cornerN[lv+1] = whole, l.size
		w.cornerAll[n], w.cornerAll[lv+1], w.cornerAll[lv] = true, true, false
		w.cornerOn = true
		w.nest(lv, dOff, sOff, false, true)
		w.cornerOn = false
	}
	return true
}

// gridLoops is how many of the innermost loops runDense hands to each
// kernel call (as a grid or as rows). A walk takes a corner no
// higher up than these: above them runDense would only step the loops as
// the walk does, and a corner taken higher would leave the rest of the
// box, the ragged ends of each row of tiles, for a second pass over
// memory.
func (w *walker) gridLoops() int {
	switch {
	case w.outer != nil && w.rows8 == nil && w.p.kern == kernTranspose:
		return 2
	case w.p.stream && w.outer != nil && w.rows8 == nil, w.outer == nil && w.p.kern == kernRun, w.runGrid():
		return 1
	case w.rows8 != nil && (w.rows8.direct || w.rows8.mode == rows8Pack):
		return 1 // rows8Walk.blockGrid
	}
	return 0
}

// runGrid reports whether runDense hands a run copy that writes through
// the caches the innermost loop outside its rows as the steps of one
// CopyRunsGrid call: a walk of small tiles (f32 T(8,8) untiled, 8 runs
// of 32 bytes a tile) spent more of its time in making a call per tile
// than in copying. The prefetching run copy (CopyRunsAhead) keeps a call
// per step.
func (w *walker) runGrid() bool {
	return w.p.kern == kernRun && !w.p.stream && w.p.ahead == 0 && w.outer != nil && w.rows8 == nil
}

// runDense runs loops over a box of elements only: an odometer over the
// loops, a full kernel call per step. A run kernel without a rows loop
// takes the innermost of these loops as rows.
//
// next is the source step of the loop outside the box (nextStep), where
// the walk's next box reads.
func (w *walker) runDense(loops []ploop, dOff, sOff, next int64) {
	p := w.p
	rows, oDst, oSrc := int64(1), int64(0), int64(0)
	if w.outer != nil {
		rows, oDst, oSrc = w.outer.size, w.outer.dst, w.outer.src
	} else if w.p.kern == kernRun && len(loops) > 0 {
		last := loops[len(loops)-1]
		rows, oDst, oSrc = last.size, last.dst, last.src
		loops = loops[:len(loops)-1]
	}
	// A streamed run copy takes the innermost loop's values as its steps
	// (as does one through the caches: runGrid), a transpose the two
	// innermost loops' as its grid (streamed with
	// TransposeGrid, else with TransposeBlocks, which groups small blocks
	// into longer runs).
	W, B := p.width, p.offBytes()
	var grid *kernel.Grid // in bytes
	if (p.stream || p.kern == kernTranspose || w.runGrid()) && w.outer != nil && len(loops) > 0 && w.rows8 == nil {
		l := loops[len(loops)-1]
		grid = &kernel.Grid{Inner: int(l.size), Outer: 1, DstInner: int(l.dst * B), SrcInner: int(l.src * B)}
		loops = loops[:len(loops)-1]
		if p.kern == kernTranspose && len(loops) > 0 {
			l := loops[len(loops)-1]
			grid.Outer, grid.DstOuter, grid.SrcOuter = int(l.size), int(l.dst*B), int(l.src*B)
			loops = loops[:len(loops)-1]
		}
	}
	// The next call's source: the next value of the loop outside the
	// grid (the next band of tiles), or of the box's innermost loop, for
	// the grid and the rows8 walks to prefetch.
	if len(loops) > 0 {
		next = loops[len(loops)-1].src
	}
	if grid != nil {
		grid.Ahead = int(next * B)
	}
	// The kernel's columns: all, or the first of each destination group
	// with the rest padded (edgeCols).
	cols := p.inner.size
	if w.padCols > 0 && grid != nil && p.kern == kernTranspose {
		if w.padVec == nil {
			w.padVec = kernel.PadVector(p.pat)
		}
		cols, grid.Pad = w.padCols, w.padVec
	}
	if w.rows8 != nil {
		w.ahead = next
	}
	// A rows8 walk between packed sides, or packing, takes the
	// innermost loop's values as one grid call (rows8Walk.grids).
	var blocks *ploop
	if w.rows8 != nil && len(loops) > 0 && w.rows8.grids(&loops[len(loops)-1]) {
		blocks = &loops[len(loops)-1]
		loops = loops[:len(loops)-1]
	}
	ctr := w.ctr[:len(loops)]
	clear(ctr)
	for {
		switch {
		case grid != nil && p.kern == kernRun && !p.stream:
			kernel.CopyRunsGrid(w.dst[dOff*B:], int(oDst*B), grid.DstInner, w.src[sOff*B:], int(oSrc*B), grid.SrcInner, int(p.inner.size*W), int(rows), grid.Inner)
		case grid != nil && p.kern == kernRun:
			w.copyRunsStreaming(w.dst[dOff*B:], int(oDst*B), grid.DstInner, w.src[sOff*B:], int(oSrc*B), grid.SrcInner, int(p.inner.size*W), int(rows), grid.Inner)
		case grid != nil && !w.streams():
			kernel.TransposeBlocks(int(W), w.dst[dOff*B:], int(oDst*B), w.src[sOff*B:], int(p.inner.src*B), int(rows), int(cols), *grid)
		case grid != nil:
			w.transposeGrid(int(W), w.dst[dOff*B:], int(oDst*B), w.src[sOff*B:], int(p.inner.src*B), int(rows), int(cols), *grid)
		case blocks != nil:
			w.rows8.blockGrid(w, dOff, sOff, rows, p.inner.size, blocks.size, blocks.dst, blocks.src)
		default:
			w.block(dOff, sOff, oDst, oSrc, rows, p.inner.size)
		}
		var more bool
		if dOff, sOff, more = advance(loops, ctr, dOff, sOff); !more {
			w.ahead = 0
			return
		}
	}
}

// bandLevel returns the loop level whose boxes a walk may stage as
// bands (see band), or -1: a streamed block transpose whose destination
// rows are off the lines that non-temporal stores write (an untiled
// array of odd row length, say), where the grid kernels would write in
// place with plain stores, each of which reads its line from memory
// first. The level is the grids': its box is the grid loops and the
// kernel's. Its loops must each step one dim with a destination stride
// linear in the dim's index (band checks the budgets), and none may be
// cut by a chunk.
func (w *walker) bandLevel() int {
	p := w.p
	lv := len(w.loops) - w.gridLoops()
	if !p.stream || p.kern != kernTranspose || w.rows8 != nil || w.idx != nil || p.part != 0 || p.step != 1 ||
		w.outer == nil || w.outer != p.outer || w.outer.dst*p.offBytes()%64 == 0 || lv < 1 || lv == len(w.loops) {
		return -1
	}
	w.bandDims = w.bandDims[:0]
	// add records loop l's dim, reporting whether its stride is linear
	// and agrees with the other loops of the dim.
	add := func(l *ploop) bool {
		if l.scale != 1 || l.w < 1 || l.dst%l.w != 0 {
			return false
		}
		s := l.dst / l.w // the dim's stride at index 1
		i := slices.IndexFunc(w.bandDims, func(b bandDim) bool { return b.dim == l.dim })
		switch {
		case i < 0:
			w.bandDims = append(w.bandDims, bandDim{l.dim, s})
		case w.bandDims[i].stride != s:
			return false
		}
		return true
	}
	for i := lv; i < len(w.loops); i++ {
		if !add(&w.loops[i]) {
			return -1
		}
	}
	if !add(w.outer) || !add(&p.inner) {
		return -1
	}
	slices.SortFunc(w.bandDims, func(a, b bandDim) int { return cmp.Compare(a.stride, b.stride) })
	return lv
}

// bandDim is a dim that a band's loops step, and its destination stride
// at index 1.
type bandDim struct {
	dim    int
	stride int64
}

// band returns, at bandLv, the size in elements of the box's destination
// when it is one run, from its first element, of bandBytes or less, and
// 0 otherwise: the box's dims, by stride, each step over the whole run of
// the one before (stride s(k+1) = s(k)·e(k), the first's stride 1), with
// every value held.
func (w *walker) band() int64 {
	n := int64(1)
	for _, b := range w.bandDims {
		e := w.e[b.dim]
		switch {
		case e == 1:
			continue // one value: no stride of its own
		case e < 1 || b.stride != n:
			return 0
		}
		n *= e
	}
	if n*w.p.offBytes() > bandBytes {
		return 0
	}
	return n
}

// bandBytes bounds the bands a walk stages: half the L1 of the CPUs it
// was measured on, with room for the source.
const bandBytes = 24 << 10

// stageBand runs the box of level lv, a band of n destination elements
// at dOff (see band), into the walker's band buffer with plain stores,
// then copies it out as one run of non-temporal stores, which prefetches
// the next box's source (as many bytes on from its first as the loop
// outside steps). Untiling s8 T(8,128)(4,1) to [64,1000,1000] ran faster
// so than in place (relayout bench); without the prefetch the band gained
// nothing, its reads and its writes each waiting for the other.
func (w *walker) stageBand(lv int, n, dOff, sOff int64, pad, in bool) {
	B := w.p.offBytes()
	if w.bandBuf == nil {
		w.bandBuf = alignedBuffer(bandBytes)
	}
	dst := w.dst
	w.dst, w.staging = w.bandBuf, true
	w.bands++
	w.nest(lv, 0, sOff, pad, in)
	w.dst, w.staging = dst, false
	next := (sOff + w.nextStep(lv)) * B
	pf := w.src[min(next, int64(len(w.src))):]
	s := w.stream(0)
	s.Prefetch = pf[:min(int64(len(pf)), n*B)]
	s.CopyRuns(w.dst[dOff*B:], 0, 0, w.bandBuf, 0, 0, int(n*B), 1, 1)
}

// nextStep is the source step, in elements, of the loop outside level lv
// (0 at the top): where the walk reads after the box of the loops from
// lv inward.
func (w *walker) nextStep(lv int) int64 {
	if lv == 0 {
		return 0
	}
	return w.loops[lv-1].src
}

// advance steps the odometer of loops, whose digits are in ctr, on by one
// and returns the offsets moved on with it, or false after its last step
// (ctr all zero again).
func advance(loops []ploop, ctr []int64, dOff, sOff int64) (int64, int64, bool) {
	for k := len(loops) - 1; k >= 0; k-- {
		l := &loops[k]
		ctr[k]++
		dOff += l.dst
		sOff += l.src
		if ctr[k] < l.size {
			return dOff, sOff, true
		}
		ctr[k] = 0
		dOff -= l.dst * l.size
		sOff -= l.src * l.size
	}
	return dOff, sOff, false
}

// block moves a rows × cols rectangle of elements with the plan's kernel:
// row r starts at destination element dOff+r*oDst and source element
// sOff+r*oSrc.
func (w *walker) block(dOff, sOff, oDst, oSrc, rows, cols int64) {
	if w.rows8 != nil {
		w.rows8.block(w, dOff, sOff, rows, cols)
		return
	}
	p := w.p
	if p.kern == kernGather {
		for r := range rows {
			w.gather(dOff+r*oDst, sOff+r*oSrc, cols)
		}
		return
	}
	W, B := p.width, p.offBytes()
	d, s := w.dst[dOff*B:], w.src[sOff*B:]
	switch p.kern {
	case kernRun:
		if p.stream && !w.staging {
			w.copyRunsStreaming(d, int(oDst*B), 0, s, int(oSrc*B), 0, int(cols*W), int(rows), 1)
			return
		}
		if p.ahead != 0 {
			kernel.CopyRunsAhead(d, int(oDst*B), s, int(oSrc*B), int(cols*W), int(rows), int(p.ahead*B))
			return
		}
		kernel.CopyRuns(d, int(oDst*B), s, int(oSrc*B), int(cols*W), int(rows))
	case kernTranspose:
		if w.streams() {
			kernel.TransposeStreaming(int(W), d, int(oDst*B), s, int(p.inner.src*B), int(rows), int(cols))
			return
		}
		kernel.Transpose(int(W), d, int(oDst*B), s, int(p.inner.src*B), int(rows), int(cols))
	}
}

// blockRow reports whether kernelRow may run the values of loop l, the
// last outside the kernel: a block transpose, or a streamed run copy of
// rows, whose rectangle is the same at each value (l's dim is neither
// kernel loop's, or its budgets cover every value whole; and no dim has
// partial units), written by the plan's own kernels.
func (w *walker) blockRow(l *ploop, whole bool) bool {
	p := w.p
	return (p.kern == kernTranspose || p.kern == kernRun && w.streams()) && w.outer != nil && w.rows8 == nil && w.idx == nil && p.part == 0 &&
		(whole || l.dim != w.outer.dim && l.dim != p.inner.dim)
}

// kernelRow is kernel for the values [from, ne) of loop l (blockRow):
// those below nv hold elements, moved as one grid of rectangles, each's
// padding filled after; the rest are padding. A ragged tile's rectangle
// (s8 [1000,1000] to T(8,128)(4,1): 104 of each last tile's 128 columns,
// in two such values) was a Transpose and a fill per value. next is the
// source step to the walk's next such row, which the grid prefetches
// (Grid.Ahead).
//
// A streamed run copy takes this path only where stageRow stages its
// rectangles: a tile's rows that padding cuts (s4[7355,3,2432] to
// T(4,128), 3 of each tile's 4 rows of 64 bytes) each staged and streamed
// on their own cost several times the copy. Otherwise each value is a
// kernel call, as the walk would make it.
func (w *walker) kernelRow(l *ploop, dOff, sOff, from, nv, ne, next int64) {
	p := w.p
	rowsV, rowsE := w.extent(w.outer)
	colsV, colsE := w.extent(&p.inner)
	oDst := w.outer.dst
	staged := false // the rectangles' padding went with them
	if p.kern == kernRun && (nv <= from || rowsV == 0 || colsV == 0 || !w.stageRow(l, dOff+from*l.dst, nv-from, rowsV, rowsE, colsV, colsE)) {
		for v := from; v < nv; v++ {
			w.kernel(dOff+v*l.dst, sOff+v*l.src, false)
		}
		from, staged = max(from, nv), true // the values of padding alone, as below
	}
	if n := nv - from; n > 0 && rowsV > 0 && colsV > 0 && w.padGrid(l, dOff, sOff, from, n, rowsV, rowsE, colsV, colsE) {
		staged = true
	} else if n > 0 && rowsV > 0 && colsV > 0 && w.stageCols(l, dOff, sOff, from, n, rowsV, rowsE, colsV, colsE) {
		staged = true
	} else if n > 0 && rowsV > 0 && colsV > 0 {
		B := p.offBytes()
		d, s := w.dst[(dOff+from*l.dst)*B:], w.src[(sOff+from*l.src)*B:]
		g := kernel.Grid{Inner: int(n), Outer: 1, DstInner: int(l.dst * B), SrcInner: int(l.src * B), Ahead: int(next * B)}
		switch {
		case w.stageRow(l, dOff+from*l.dst, n, rowsV, rowsE, colsV, colsE):
			// The row's rectangles and their padding, staged in the
			// edge buffer as many as it holds at a time, each such
			// group then streamed out as one run.
			per := edgeBytes / (l.dst * B)
			if key := [...]int64{min(n, per), l.dst, oDst, rowsV, rowsE, colsV, colsE}; key[0] > w.edgePad[0] || [6]int64(key[1:]) != [6]int64(w.edgePad[1:]) {
				// The padding stays in the buffer from one group to
				// the next of the same rectangles (the last tiles of
				// the bands of a plane).
				dst := w.dst
				w.dst, w.staging = w.edge, true
				for v := range key[0] {
					w.pad(v*l.dst, oDst, rowsV, rowsE, colsV, colsE)
				}
				w.dst, w.staging, w.edgePad = dst, false, key
			}
			for v0 := int64(0); v0 < n; v0 += per {
				k := min(per, n-v0)
				g.Inner = int(k)
				if p.kern == kernRun {
					w.runRows++
					kernel.CopyRunsGrid(w.edge, int(oDst*B), int(l.dst*B), s[v0*l.src*B:], int(w.outer.src*B), int(l.src*B), int(colsV*p.width), int(rowsV), int(k))
				} else {
					kernel.TransposeBlocks(int(p.width), w.edge, int(oDst*B), s[v0*l.src*B:], int(p.inner.src*B), int(rowsV), int(colsV), g)
				}
				// The stores stream while the next group's source
				// comes in.
				st := w.stream(0)
				at := min((v0+k)*l.src*B, int64(len(s)))
				st.Prefetch = s[at:min(at+k*l.src*B, int64(len(s)))]
				st.CopyRuns(d[v0*l.dst*B:], 0, 0, w.edge, 0, 0, int(k*l.dst*B), 1, 1)
			}
			staged = true
		case w.streams():
			w.transposeGrid(int(p.width), d, int(oDst*B), s, int(p.inner.src*B), int(rowsV), int(colsV), g)
		default:
			kernel.TransposeBlocks(int(p.width), d, int(oDst*B), s, int(p.inner.src*B), int(rowsV), int(colsV), g)
		}
	}
	// Each rectangle's padding; with no element (a chunk of the kernel's
	// rows past the elements, say), all of it.
	for v := from; v < nv && !staged; v++ {
		w.pad(dOff+v*l.dst, oDst, rowsV, rowsE, colsV, colsE)
	}
	v := max(from, nv)
	if v < ne && w.padValues(len(w.loops)-1, dOff+v*l.dst, ne-v) {
		return
	}
	for ; v < ne; v++ {
		w.kernel(dOff+v*l.dst, sOff+v*l.src, true)
	}
}

// padGridBytes bounds padGrid's buffer, which the L1 keeps.
const padGridBytes = 32 << 10

// padGrid moves n rectangles of values [from, from+n) of loop l, the
// last outside the kernel, whose destination rows continue each other
// (l's destination stride is a rectangle's row, padding included) and
// hold a few columns of padding each (colsV of colsE, at most 16: a
// narrow dim in a tile): the rectangles' source rows go into a buffer
// in the destination's column order, with rows of the padding pattern
// between them, and one transpose a band of the buffer moves them and
// their padding into whole runs of the destination rows. The kernel
// alone would take the rectangles one at a time, colsV columns each
// (generic code where no kernel takes so few), and their padding after
// them in runs of a few bytes. The rows past rowsV get their padding
// too. It reports false, having moved nothing, where the walk is not so.
func (w *walker) padGrid(l *ploop, dOff, sOff, from, n, rowsV, rowsE, colsV, colsE int64) bool {
	p := w.p
	if p.kern != kernTranspose || w.rows8 != nil || w.idx != nil || p.step != 1 || p.part != 0 ||
		colsV >= colsE || colsE > 16 || l.dst != colsE || n < 2 || rowsV < 16 ||
		p.inner.dst != 1 || w.outer.src != 1 {
		return false
	}
	W := p.width
	R := max(16, 256/W)                    // elements of each buffered row
	most := padGridBytes / (R * W) / colsE // rectangles the buffer holds
	blocks := min(n, most)
	if blocks < 2 {
		return false
	}
	if w.padGridBuf == nil {
		w.padGridBuf = alignedBuffer(padGridBytes)
	}
	buf := w.padGridBuf
	if key := [3]int64{R, colsV, colsE}; key != w.padGridKey {
		// The padding rows keep the pattern from one call to the next:
		// rows colsV to colsE of each rectangle's.
		kernel.FillRuns(buf[colsV*R*W:], int(colsE*R*W), int((colsE-colsV)*R*W), int(most), p.pat)
		w.padGridKey = key
	}
	B, oDst := p.offBytes(), w.outer.dst
	for r0 := int64(0); r0 < rowsV; r0 += R {
		rr := min(R, rowsV-r0)
		for v0 := from; v0 < from+n; v0 += blocks {
			vb := min(blocks, from+n-v0)
			for v := v0; v < v0+vb; v++ {
				for c := range colsV {
					at := ((v-v0)*colsE + c) * R * W
					s := (sOff + v*l.src + c*p.inner.src + r0) * B
					copy(buf[at:at+rr*W], w.src[s:s+rr*W])
				}
			}
			d := w.dst[(dOff+v0*l.dst+r0*oDst)*B:]
			if w.streams() {
				kernel.TransposeStreaming(int(W), d, int(oDst*B), buf, int(R*W), int(rr), int(vb*colsE))
			} else {
				kernel.Transpose(int(W), d, int(oDst*B), buf, int(R*W), int(rr), int(vb*colsE))
			}
		}
	}
	if rowsE > rowsV {
		w.fill(dOff+from*l.dst+rowsV*oDst, oDst, n*colsE, rowsE-rowsV)
	}
	w.padGrids++
	return true
}

// stageCols moves n rectangles of values [from, from+n) of loop l, the
// last outside a streamed block transpose, whose element rows end inside
// a line and continue each other along the destination rows with their
// padding (l's destination stride is a rectangle's row of colsE places:
// the last tile along a dim the destination's tiles pad, T(16,64) over
// a dim of 31, say), the rows themselves apart. In place, each
// rectangle's rows and the padding after them are part lines of their
// own, which plain stores read from memory first. Here a band of rows
// of k rectangles at a time goes into the edge buffer, transposed beside
// the padding the buffer keeps, and out as runs of k rectangles' rows,
// whole lines of non-temporal stores. The rows past rowsV get their
// padding too. It reports false, having moved nothing, where the walk
// is not so.
func (w *walker) stageCols(l *ploop, dOff, sOff, from, n, rowsV, rowsE, colsV, colsE int64) bool {
	p := w.p
	B, W := p.offBytes(), p.width
	seg := colsE * W // bytes of a rectangle's row
	if !w.streams() || !kernel.Streaming() || w.rows8 != nil || w.idx != nil || p.kern != kernTranspose ||
		p.step != 1 || p.part != 0 || p.inner.dst != 1 || l.dst != colsE ||
		colsV >= colsE || colsV*W%64 == 0 || seg%64 != 0 || seg > edgeBytes/kernelRows ||
		w.outer.dst*B%64 != 0 || dOff*B%64 != 0 {
		return false
	}
	// k rectangles a group, a run of colGroupBytes or the row's n;
	// rows of the band, as many as the buffer holds (kernelRows at
	// least, as seg is bounded above).
	k := min(n, max(colGroupBytes/seg, 1))
	rows := min(rowsV, edgeBytes/(k*seg))
	if w.edge == nil {
		w.edge = alignedBuffer(edgeBytes)
	}
	oDst, oSrc := w.outer.dst, w.outer.src
	for v0 := from; v0 < from+n; v0 += k {
		kk := min(k, from+n-v0)
		run := kk * seg
		if key := [...]int64{-1, kk, seg, colsV, rows, 0, 0}; key != w.edgePad {
			// The padding of each rectangle's rows, which stays in the
			// buffer from one group to the next of the same shape.
			kernel.FillRuns(w.edge[colsV*W:], int(seg), int((colsE-colsV)*W), int(rows*kk), p.pat)
			w.edgePad = key
		}
		g := kernel.Grid{Inner: int(kk), Outer: 1, DstInner: int(seg), SrcInner: int(l.src * B)}
		for r0 := int64(0); r0 < rowsV; r0 += rows {
			rr := min(rows, rowsV-r0)
			s := w.src[(sOff+v0*l.src+r0*oSrc)*B:]
			kernel.TransposeBlocks(int(W), w.edge, int(run), s, int(p.inner.src*B), int(rr), int(colsV), g)
			w.stream(0).CopyRuns(w.dst[(dOff+v0*l.dst+r0*oDst)*B:], int(oDst*B), 0, w.edge, int(run), 0, int(run), int(rr), 1)
			w.colGroups++
		}
	}
	if rowsE > rowsV {
		w.fill(dOff+from*l.dst+rowsV*oDst, oDst, n*colsE, rowsE-rowsV)
	}
	return true
}

// colGroupBytes is about how long a run of the destination rows
// stageCols writes at a time (k rectangles' rows): past the shortest
// run non-temporal stores write at full speed (streamFillBytes).
const colGroupBytes = 2 * streamFillBytes

// stageRow reports whether kernelRow stages the n partial rectangles of
// loop l from element dOff in the edge buffer, with their padding, and
// streams them out as runs of whole lines, as many rectangles a run as
// the buffer holds: a streamed transpose or run copy whose rectangles
// (the last tile of each band of s8 or bf16 tiles, or every tile of a
// row whose dim the tiles pad) each hold one run of the destination and
// continue each other. In place, their padding's plain stores would read the lines
// they write from memory first, each a part line of a rectangle's end:
// s8 [64,1000,1000] to T(8,128)(4,1) spent a quarter of its time there.
// The buffer is allocated here the first time.
func (w *walker) stageRow(l *ploop, dOff, n, rowsV, rowsE, colsV, colsE int64) bool {
	p := w.p
	B := p.offBytes()
	row := l.dst * B // bytes of a rectangle
	if !w.streams() || w.rows8 != nil || p.kern != kernTranspose && p.kern != kernRun || rowsV == rowsE && colsV == colsE ||
		w.outer.dst != colsE*p.step || l.dst != rowsE*w.outer.dst ||
		row > edgeBytes || n*row%64 != 0 || n*row > edgeBytes && row%64 != 0 || dOff*B%64 != 0 {
		return false
	}
	if w.edge == nil {
		w.edge = alignedBuffer(edgeBytes)
	}
	return true
}

// extent returns how many values of kernel loop l are elements and how
// many the destination holds, given the budgets.
func (w *walker) extent(l *ploop) (valid, held int64) {
	if l == nil {
		return 1, 1
	}
	// l is the lightest loop of its dim (its weight is 1 unless the dim
	// holds a single element), so value v is an element when v*w < b.
	k := w.p.per(l.dim)
	return min(l.size, ceilDiv(w.b[l.dim]*l.scale, l.w*k)), min(l.size, ceilDiv(w.e[l.dim]*l.scale, l.w*k))
}

// kernel moves the kernel's rectangle at (dOff, sOff) and fills its padding.
func (w *walker) kernel(dOff, sOff int64, pad bool) {
	p := w.p
	rowsV, rowsE := w.extent(w.outer)
	colsV, colsE := w.extent(&p.inner)
	if pad {
		rowsV, colsV = 0, 0
	}
	var oDst, oSrc int64
	if w.outer != nil {
		oDst, oSrc = w.outer.dst, w.outer.src
	}
	if p.part != 0 && w.partUnits(dOff, sOff, oDst, oSrc, rowsV, rowsE, colsV, colsE) {
		return
	}
	// A streamed run copy's partial rectangle (the last tile of a row of
	// tiles, say) goes through a buffer that the caches keep, its
	// elements and padding together, and then to the destination as
	// whole lines of non-temporal stores: written in place, the plain
	// stores of its ragged rows and its padding would each read the lines
	// they write from memory first (f32[64,1000,1000] to T(8,128) ran
	// faster so than in place; relayout bench). The block transposes of
	// s8 and bf16 to their tiles did not gain here, a rectangle at a
	// time, so they write in place; kernelRow stages their rows of
	// rectangles (stageRow). A block transpose's rectangle whose element
	// rows end in padding inside a line is staged too: the transposed
	// rows and their padding, each part lines of their own, were half
	// the speed (s32 [128,2,384,134] to T(8,128) over d3 of 134,
	// docs/perf). Rows that end on a line, and rectangles of padding
	// alone, stay with fill, which streams whole lines.
	//
	// A larger rectangle whose rows continue each other in the
	// destination goes through the buffer a group of rows at a time,
	// each group whole lines: runs of 106 bytes into rows of 128 (u8
	// [..,106] to T(2,128)) were each a line of non-temporal stores and a
	// part line of plain ones that read its line from memory first.
	//
	// So does a rectangle whose rows lie apart in the destination, each
	// whole lines (the last tile of each tile row, f32 [..,111] from
	// T(16,64) to T(8,128): 47 of a tile's 64 columns, then padding),
	// where the part lines and the padding's own lines, stored plainly
	// between lines streamed, ran an order of magnitude slower than the
	// same pair without padding (docs/perf).
	W, B := p.width, p.offBytes()
	row := colsE * W // bytes of a destination row
	apart := oDst != colsE*p.step && rowsE > 1
	cut := kernel.Streaming() && p.kern == kernTranspose && rowsV > 0 && 0 < colsV && colsV < colsE && colsV*W%64 != 0
	if p.stream && w.rows8 == nil && (p.kern == kernRun || cut) && (rowsV < rowsE || colsV < colsE) &&
		(!apart || row%64 == 0 && oDst*B%64 == 0) && dOff*B%64 == 0 {
		// Groups of k rows, k a multiple of the rows that make whole
		// lines, as many as fit the buffer (the last group may end
		// inside a line: the rectangle's last). A rectangle of whole
		// lines that fits the buffer is one group.
		unit := 64 / gcd(row, 64)
		// A transpose's group is a block of k rows of the kernel, the
		// whole rectangle or a register block's rows (kernelRows) at
		// least: fewer (u8 rows of 6144 places, two a group) read each
		// source line for a few bytes, far slower than in place.
		if k := edgeBytes / row / unit * unit; k > 0 && (!cut || k >= min(rowsE, kernelRows)) {
			for r := int64(0); r < rowsE; r += k {
				g := min(k, rowsE-r)
				w.stageRect(dOff+r*oDst, sOff+r*oSrc, oDst, oSrc, min(max(rowsV-r, 0), g), g, colsV, colsE)
			}
			return
		}
	}
	w.rect(dOff, sOff, oDst, oSrc, rowsV, rowsE, colsV, colsE)
}

// stageRect is rect through the walker's edge buffer: the rectangle's
// elements and padding are written there with plain stores, one row
// after another, then copied out to the destination at dOff in whole
// lines of non-temporal stores: one run where the rectangle's rows
// continue each other in the destination, else a run a row (oDst
// apart), each whole lines. Its rowsE × colsE places fit edgeBytes.
func (w *walker) stageRect(dOff, sOff, oDst, oSrc, rowsV, rowsE, colsV, colsE int64) {
	p := w.p
	if w.edge == nil {
		w.edge = alignedBuffer(edgeBytes)
	}
	w.rects++
	w.edgePad = [7]int64{} // the padding kernelRow left there goes
	dst := w.dst
	w.dst, w.staging = w.edge, true
	w.rect(0, sOff, colsE*p.step, oSrc, rowsV, rowsE, colsV, colsE)
	w.dst, w.staging = dst, false
	B, n := p.offBytes(), rowsE*colsE*p.width
	// While the stores stream, the source of the rows that come next
	// (which continue these where the source rows continue each other).
	st := w.stream(0)
	if next := (sOff + rowsE*oSrc) * B; next < int64(len(w.src)) {
		st.Prefetch = w.src[next:min(next+rowsE*oSrc*B, int64(len(w.src)))]
	}
	if oDst != colsE*p.step && rowsE > 1 {
		row := colsE * p.width
		st.CopyRuns(w.dst[dOff*B:], int(oDst*B), 0, w.edge, int(row), 0, int(row), int(rowsE), 1)
		return
	}
	st.CopyRuns(w.dst[dOff*B:], 0, 0, w.edge, 0, 0, int(n), 1, 1)
}

// partUnits moves the kernel's rectangle where it holds units of udim
// that are partial: the whole units as rect does, then the partial ones
// an element at a time. They are the last row or column where a kernel
// loop is udim's, else all of them (the rectangle lies at one unit of
// udim). A partial unit that ends the places the destination holds
// (partHeld) is the last column: widen makes udim the inner loop then.
// It reports whether the rectangle held any.
func (w *walker) partUnits(dOff, sOff, oDst, oSrc, rowsV, rowsE, colsV, colsE int64) bool {
	p := w.p
	u, k := p.udim, p.unit
	// The rows and columns of whole units: valid (W) and held (colsH).
	rowsW, colsW, colsH := rowsV, colsV, colsE
	switch {
	case p.inner.dim == u:
		colsW, colsH = min(colsV, w.b[u]/k), min(colsE, w.e[u]/k)
	case w.outer != nil && w.outer.dim == u:
		rowsW = min(rowsV, w.b[u]/k)
	case w.b[u] < k:
		rowsW = 0
	}
	if rowsW == rowsV && colsW == colsV && colsH == colsE {
		return false
	}
	w.rect(dOff, sOff, oDst, oSrc, rowsW, rowsE, colsW, colsH)
	// The rest: the elements of each valid unit (rect has filled its
	// place with padding where the destination holds it whole), and the
	// padding of each held one that is not whole.
	B, bits := p.offBytes(), p.part*(p.width*8/k) // packed units end inside a byte
	for r := range rowsE {
		c := int64(0)
		switch {
		case r < rowsW:
			c = colsW // on to the row's partial units
		case r >= rowsV:
			c = colsH // rect has padded the row's held units
		}
		for ; c < colsE; c++ {
			d := (dOff + r*oDst + c*p.inner.dst) * B
			switch {
			case r < rowsV && c < colsV:
				s := (sOff + r*oSrc + c*p.inner.src) * B
				copyBits(w.dst[d:], w.src[s:], bits)
			case c >= colsH:
				copyBits(w.dst[d:], p.pat, bits)
			}
		}
	}
	return true
}

// edgeBytes bounds the partial rectangles that a streamed plan moves
// through a buffer (walker.edge).
const edgeBytes = 16 << 10

// rect moves a rowsV × colsV rectangle of elements and fills the rest of
// the rowsE × colsE rectangle of destination places with padding.
func (w *walker) rect(dOff, sOff, oDst, oSrc, rowsV, rowsE, colsV, colsE int64) {
	switch {
	case rowsV == 0 || colsV == 0:
	case colsV < colsE && w.rows8 != nil && w.rows8.partialTiles(w, dOff, sOff, rowsV, colsV, colsE):
		colsV = colsE // the tiles' padding rows are written too
	default:
		w.block(dOff, sOff, oDst, oSrc, rowsV, colsV)
	}
	w.pad(dOff, oDst, rowsV, rowsE, colsV, colsE)
}

// pad fills the places of the rowsE × colsE rectangle at dOff (rows oDst
// apart) that lie outside its rowsV × colsV elements: the rest of each
// element row, then the rows with no element.
func (w *walker) pad(dOff, oDst, rowsV, rowsE, colsV, colsE int64) {
	p := w.p
	if colsE > colsV && rowsV > 0 {
		w.fill(dOff+colsV*p.inner.dst, oDst, colsE-colsV, rowsV)
	}
	if rowsE > rowsV {
		w.fill(dOff+rowsV*oDst, oDst, colsE, rowsE-rowsV)
	}
}

// fill writes padding into rows rows of n destination elements.
func (w *walker) fill(dOff, rowStride, n, rows int64) {
	if w.rows8 != nil && w.rows8.packsDst() {
		w.rows8.fill(w.dst, w.p, dOff, rowStride, n, rows)
		return
	}
	p := w.p
	if p.inner.dst == p.step {
		if rowStride == n*p.step {
			// Rows that continue each other (the padding of a tile's
			// last rows, say): one run. s8 [1000,1000] to T(8,128)(4,1)
			// filled 24 runs of 4 bytes a tile, each at the cost of a
			// call.
			n, rows = n*rows, 1
		}
		B := p.offBytes()
		if w.streams() && kernel.Streaming() && (n*p.width >= streamFillBytes || wholeLines(w.dst, dOff*B, rowStride*B, n*p.width, rows)) {
			w.streamFill(dOff*B, rowStride*B, n*p.width, rows)
			return
		}
		kernel.FillRuns(w.dst[dOff*B:], int(rowStride*B), int(n*p.width), int(rows), p.pat)
		return
	}
	for r := range rows {
		for c := range n {
			p.putPad(w.dst, dOff+r*rowStride+c*p.inner.dst)
		}
	}
}

// streamFillBytes is the shortest run of padding that a streamed walk
// writes with non-temporal stores: the shortest run such stores write a
// line at a time at full speed, as the transposes' staged tiles take it
// (Tuning.StageCol's floor).
const streamFillBytes = 512

// wholeLines reports whether rows runs of n bytes at byte offset off of
// dst, rowStride bytes apart, are whole cache lines, two runs or more:
// each starts and ends on a line boundary, so no line holds both padding
// and elements, and non-temporal stores write every line they touch
// whole (the padding half of each row of a [..., 128] u8 array held as
// 256 places, whose other half the streamed kernel writes). A run on its
// own under streamFillBytes keeps plain stores: u8[2,325,574,40] to
// T(8,128)(4,1), a call for each 256-byte run of a tile's padding, ran
// slower streamed (docs/perf).
func wholeLines(dst []byte, off, rowStride, n, rows int64) bool {
	at := uintptr(unsafe.Pointer(unsafe.SliceData(dst))) + uintptr(off)
	return n%64 == 0 && at%64 == 0 && rows > 1 && rowStride%64 == 0
}

// streamFill writes padding into rows runs of n bytes at byte offset off
// of the destination, rowStride bytes apart, as a streamed copy of a
// buffer of the pattern (padBuf): plain stores would read each line of a
// destination past the caches from memory before they write it, and the
// padding of a streamed walk is as large a part of the destination as
// its tiles leave (the 4 of 8 rows of each tile of f16[4,N] in
// T(8,128)(2,1)).
func (w *walker) streamFill(off, rowStride, n, rows int64) {
	pat := w.p.pat
	if len(w.padBuf) == 0 {
		w.padBuf = alignedBuffer(padBufBytes / len(pat) * len(pat))
		kernel.FillRuns(w.padBuf, 0, len(w.padBuf), 1, pat)
	}
	w.streamFills++
	L := int64(len(w.padBuf))
	for o := int64(0); o < n; o += L {
		m := min(L, n-o)
		w.stream(0).CopyRuns(w.dst[off+o:], int(rowStride), 0, w.padBuf, 0, 0, int(m), int(rows), 1)
	}
}

// padBufBytes bounds a walker's buffer of the padding pattern
// (streamFill).
const padBufBytes = 4 << 10

// gather moves n elements of the inner loop: in gather mode through the
// offset tables, copying whole stretches where the source is contiguous
// too; otherwise one element at a time at the loop's strides.
func (w *walker) gather(dOff, sOff, n int64) {
	p := w.p
	l := &p.inner
	if p.mode == modeGather {
		base := int64(0)
		for d, t := range p.tables {
			if d != l.dim && t != nil {
				base += t[w.idx[d]]
			}
		}
		t := p.tables[l.dim]
		if t == nil { // a prepended dim: only index 0 holds elements
			p.moveElement(w.dst, dOff, w.src, base)
			return
		}
		i0 := w.idx[l.dim]
		if l.dst == 1 && l.w == 1 {
			// Copy the stretches where the source is contiguous too.
			W := p.width
			runs := p.runs[i0:]
			for k := int64(0); k < n; {
				r := min(runs[k], n-k)
				s := (base + t[i0+k]) * W
				copy(w.dst[(dOff+k)*W:(dOff+k+r)*W], w.src[s:s+r*W])
				k += r
			}
			return
		}
		gatherRun(p.width, w.dst[dOff*p.width:], l.dst*p.width, w.src, base, t[i0:], l.w, n)
		return
	}
	for k := range n {
		p.moveElement(w.dst, dOff+k*l.dst, w.src, sOff+k*l.src)
	}
}

// gatherRun moves n elements of width bytes: element k goes to
// dst[k*dstStride:] from source element base+tab[k*step]. The word cases
// compile to plain loads and stores.
func gatherRun(width int64, dst []byte, dstStride int64, src []byte, base int64, tab []int64, step, n int64) {
	le := binary.LittleEndian
	switch width {
	case 1:
		for k := range n {
			dst[k*dstStride] = src[base+tab[k*step]]
		}
	case 2:
		for k := range n {
			le.PutUint16(dst[k*dstStride:], le.Uint16(src[(base+tab[k*step])*2:]))
		}
	case 4:
		for k := range n {
			le.PutUint32(dst[k*dstStride:], le.Uint32(src[(base+tab[k*step])*4:]))
		}
	case 8:
		for k := range n {
			le.PutUint64(dst[k*dstStride:], le.Uint64(src[(base+tab[k*step])*8:]))
		}
	default:
		for k := range n {
			s := (base + tab[k*step]) * width
			copy(dst[k*dstStride:k*dstStride+width], src[s:s+width])
		}
	}
}

// moveElement copies source element s to destination element d.
func (p *walkPlan) moveElement(dst []byte, d int64, src []byte, s int64) {
	W := p.width
	copy(dst[d*W:d*W+W], src[s*W:s*W+W])
}

// putPad writes one padding element (unit) at destination offset d.
func (p *walkPlan) putPad(dst []byte, d int64) {
	d *= p.offBytes()
	copy(dst[d:d+p.width], p.pat)
}

// fillElements writes padding into destination offsets [from, to).
func (p *walkPlan) fillElements(dst []byte, from, to int64) {
	B := p.offBytes()
	kernel.FillRuns(dst[from*B:], 0, int((to-from)*B), 1, p.pat)
}

// offBytes is the bytes one step of the plan's offsets and strides
// spans: an element's, or a unit's where they count units (see step).
func (p *walkPlan) offBytes() int64 { return p.width / p.step }

// runElementwise moves the elements one at a time: the path for
// combined dims, tiles split inside a tile and tiles that do not nest.
// Where the destination holds padding it is filled first, at the speed
// of a fill, and each element then put in place: a walk of the
// destination place by place paid the inverse map at every padding
// place, and the maps cost far more than a store (s4 [13,16,11,1,1,1] to
// a three-level tiling whose 33 MB were all but 1287 bytes padding took
// seconds a Run). Each element's offsets are sums of per-dim tables where
// the plan has them (scatter), else they come from the index maps.
func (p *walkPlan) runElementwise(dst, src []byte) {
	tm, fm := p.tm, p.fm // the header's, loaded once
	places, dims := tm.Elements(), p.to.dims
	n := product(dims)
	if places > n {
		p.fillElements(dst, 0, places)
	}
	if p.offsets[0] != nil {
		p.scatter(dst, src, 0, 0, 0)
		return
	}
	idx := make([]int64, len(dims))
	for range n {
		p.moveElement(dst, tm.Offset(idx), src, fm.Offset(idx))
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < dims[d] {
				break
			}
			idx[d] = 0
		}
	}
}

// scatter moves the elements of an elementwise plan with offset tables
// (elementTables) whose dims before d are fixed, at destination offset
// dOff and source offset sOff. Elements of 1, 2, 4 and 8 bytes move as
// one load and store, several times faster than with a copy call each
// (relayout bench: f32 [1024,1024] to T(8,128)(3,1), u8 [4096,4096] to
// {0,1:T(8,128)(4,3)}).
func (p *walkPlan) scatter(dst, src []byte, d int, dOff, sOff int64) {
	dt, st := p.offsets[0][d], p.offsets[1][d]
	n := p.to.dims[d]
	if d < len(p.to.dims)-1 {
		for v := range n {
			p.scatter(dst, src, d+1, dOff+dt[v], sOff+st[v])
		}
		return
	}
	W := p.width
	switch W { // fixed sizes move as one load and store, not a copy call
	case 1:
		for v := range n {
			dst[dOff+dt[v]] = src[sOff+st[v]]
		}
	case 2:
		for v := range n {
			o, s := (dOff+dt[v])*2, (sOff+st[v])*2
			*(*[2]byte)(dst[o : o+2]) = *(*[2]byte)(src[s : s+2])
		}
	case 4:
		for v := range n {
			o, s := (dOff+dt[v])*4, (sOff+st[v])*4
			*(*[4]byte)(dst[o : o+4]) = *(*[4]byte)(src[s : s+4])
		}
	case 8:
		for v := range n {
			o, s := (dOff+dt[v])*8, (sOff+st[v])*8
			*(*[8]byte)(dst[o : o+8]) = *(*[8]byte)(src[s : s+8])
		}
	default:
		for v := range n {
			p.moveElement(dst, dOff+dt[v], src, sOff+st[v])
		}
	}
}

// alignedBuffer returns n bytes starting at a multiple of 64 (a cache
// line, as non-temporal stores from it want whole lines).
func alignedBuffer(n int) []byte {
	b := make([]byte, n+63)
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(b))) & 63)
	return b[off : off+n : off+n]
}
