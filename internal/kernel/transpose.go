package kernel

import (
	"iter"
	"math/bits"
	"unsafe"
)

// Kernel names the transpose kernels Transpose uses for width-byte
// elements at the level in use: the micro-kernel, for example "avx512
// 16x16" (register block of 16 source rows by 16 elements) or "generic",
// then, separated by "; ", the one the staged path for destinations
// larger than the last-level cache uses and whether 2 or 4 columns (or 8
// of bytes) run an interleave.
func Kernel(width int) string {
	return kernelName(width)
}

// weaveNote is what kernelName adds for width-byte elements when the
// level has the interleave kernels (have; every level that has them has
// the 3-way ones too), whose 8-column ones take elements of up to
// widest8 bytes: which column counts run them (2, 3 or 4 of 8-byte
// elements and 2 of 16-byte ones where weavesWide says so).
func weaveNote(width int, have bool, widest8 int) string {
	switch {
	case width == 8 && weavesWide():
		return "; 2, 3 or 4 columns: interleave"
	case width == 16 && weavesWide():
		return "; 2 columns: interleave"
	}
	if !have || width > 4 || !pow2(width) {
		return ""
	}
	counts := "2, 3 or 4"
	if width <= widest8 {
		counts = "2, 3, 4 or 8"
	}
	return "; " + counts + " columns: interleave"
}

// prefetchBlockBytes bounds the blocks whose next block transposeFast's
// plain kernels prefetch whole (the L1 holds both).
const prefetchBlockBytes = 8 << 10

// weaves reports whether the interleave and de-interleave kernels take k
// rows of width-byte elements where the level has them: 2, 3 or 4 rows
// of 1, 2 or 4 bytes (or of 8 where weavesWide says so, and 2 rows of
// 16), 8 rows of 1 or 2. (The kernels report the rest of what the level
// lacks by moving nothing.)
func weaves(width, k int) bool {
	switch {
	case k == 8:
		return width <= 2
	case k < 2 || k > 4:
		return false
	case width <= 4:
		return pow2(width)
	}
	return (width == 8 || width == 16 && k == 2) && weavesWide()
}

// skewElement is the bytes of the elements the skew twin of a transpose
// of width-byte elements permutes: dwords from 4 bytes on, else the
// elements. Starts and strides must be multiples of it.
func skewElement(width int) int { return min(width, 4) }

// transposeFast is Transpose after its checks. Two, three or four
// columns with a contiguous destination are an interleave, two, three or
// four rows with a contiguous source a de-interleave (so are eight of 1-
// and 2-byte elements); fewer rows than the source's groups hold, the
// first of each, a de-interleave through a buffer (deinterleaveKept);
// one row at a small power-of-two stride a gather (copyRunsPermuted). Kernels that write
// part lines stage their tiles (see transposeStaged). A large
// destination (larger than the last-level cache, this call's or the
// whole one a TransposeStreaming call writes part of) goes through
// transposeStreamed where the kernel has a streaming twin, otherwise
// through transposeStaged, and a large destination whose rows start off
// line boundaries through transposeShifted where they all start the same
// distance into a line, else the skew twins of the streaming kernels,
// where it has them; otherwise the assembly micro-kernel of the level in use
// runs over the full register blocks, strip by strip inside bands of
// tuning.Band of source row. The ragged edges take the micro-kernel too,
// with ordinary stores, its blocks moved back to end at the edge
// (kernelEdges).
//
// after is, for a block of a grid (TransposeGrid), the source of the
// block that comes next, at the same strides, or nil: the streamed paths
// prefetch its first tile while they finish this block's last, as they
// prefetch each tile's next inside a block; the others prefetch it whole
// before they start, where the block is prefetchBlockBytes or less.
func transposeFast(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, large bool, after unsafe.Pointer) {
	dp := unsafe.Pointer(unsafe.SliceData(dst))
	sp := unsafe.Pointer(unsafe.SliceData(src))
	weave := width <= 4 && pow2(width) // the kept weaves' widths
	if weaves(width, rows) && srcStride == rows*width {
		// A de-interleave of one stream into rows destination rows.
		if done := weaveStreamed(width, dp, dstStride, sp, srcStride, rows, cols, true, large); done > 0 {
			weaveRest(width, dp, dstStride, sp, srcStride, rows, cols, done, true)
			return
		}
		if done := deinterleaveAsm(width, (*byte)(dp), dstStride, (*byte)(sp), rows, cols); done > 0 {
			weaveRest(width, dp, dstStride, sp, srcStride, rows, cols, done, true)
			return
		}
	}
	if rows == 1 && srcStride > width {
		// One row: a gather of an element from each source row, which
		// the VPERMB run copy moves a vector at a time where the rows
		// are a power of two bytes apart, up to 64.
		if done := copyRunsPermuted(dst, width, src, srcStride, width, cols); done > 0 {
			if done < cols {
				transposeGeneric(width, dst[done*width:], dstStride, src[done*srcStride:], srcStride, 1, cols-done)
			}
			return
		}
	}
	if k := srcStride / width; rows > 1 && rows < k && srcStride == k*width && ((k == 3 || k == 4) && weave || k == 8 && width <= 2) {
		// A de-interleave of which the destination keeps the first rows
		// of each group of k: a tile's partial group of interleaved rows
		// ((8,1) tiles of 3 rows, unpacked to bytes). One row is a
		// gather of one element a group, which the block kernels take.
		if deinterleaveKept(width, k, dst, dstStride, src, rows, cols) {
			return
		}
	}
	if k := dstStride / width; cols > 1 && cols < k && dstStride == k*width && dstStride <= 64 && pow2(dstStride) && cols <= 4 && weave && permutesRuns() {
		// An interleave into groups of k of which the source fills the
		// first cols: the rows of a tile's partial group ((8,1) tiles
		// of 3 rows, unpacked to bytes).
		if interleaveKept(width, k, dst, dstStride, src, srcStride, rows, cols) {
			return
		}
	}
	if weaves(width, cols) && dstStride == cols*width {
		// An interleave of cols source rows into one stream.
		if done := weaveStreamed(width, dp, dstStride, sp, srcStride, rows, cols, false, large); done > 0 {
			weaveRest(width, dp, dstStride, sp, srcStride, rows, cols, done, false)
			return
		}
		if done := interleaveAsm(width, (*byte)(dp), (*byte)(sp), srcStride, rows, cols); done > 0 {
			weaveRest(width, dp, dstStride, sp, srcStride, rows, cols, done, false)
			return
		}
	}
	// Stream when the destination would only flush the caches. VMOVNTDQ
	// writes whole 64-byte lines: rows that start off them take the skew
	// twins of the streaming kernels where the level has them (where
	// start and stride are multiples of skewElement).
	if streamingStores && large {
		aligned := onLines(dp, dstStride)
		if !aligned && dstStride%64 == 0 && transposeShifted(width, dst, dstStride, src, srcStride, rows, cols, after) {
			return
		}
		// Rows off lines whose stride is within a few bytes of a multiple
		// of 4 KiB crowd the same cache sets, dozens of rows each, and
		// the plain kernels' stores evict each other: such rows of 1 and
		// 2 bytes stream, from each row's first line boundary on (the
		// skew twins, or staged where the level has none), carrying each
		// tile's part lines to the next. Transposing u8 [N,N], streamed
		// ran faster for N = 8191, 8190, 12289, 8188 and 8186, at most 6
		// bytes from a multiple of 4 KiB, and plain for 8184 and 8001;
		// u16 likewise (relayout bench).
		near := dstStride % 4096
		crowded := !aligned && width <= 2 && min(near, 4096-near) <= 6
		// So do all such rows once the destination or the source spans
		// Tuning.StagedOffLinesBytes (StagedOffLinesWordsBytes for 2-byte
		// elements), where it is not 0 (the larger span, so that a plan
		// split among threads along either dim chooses as it does in one
		// call).
		off := tuning.StagedOffLinesBytes
		if width == 2 {
			off = tuning.StagedOffLinesWordsBytes
		}
		crowded = crowded || !aligned && width <= 2 && off > 0 && max(rows*dstStride, cols*srcStride) >= off
		// Wider elements take the skew twins whenever their rows are off
		// lines; narrower ones where they are crowded as above, in place
		// of the staging tile (below those sizes, u8 [3000,3000] ran no
		// faster skewed than plain: docs/perf).
		pe := skewElement(width)
		skew := !aligned && uintptr(dp)%uintptr(pe) == 0 && dstStride%pe == 0 && (width >= 4 || crowded)
		if k := streamKernel(width); k != kNone && (aligned || skew && hasSkew(k)) {
			sh := shapes[k]
			// Whole lines of the source rows (the gather kernels' slabs;
			// bi elements for the others).
			fullRows, fullCols := rows-rows%max(sh.bi, 64/width), cols-cols%sh.bj
			if fullRows > 0 && fullCols > 0 {
				transposeStreamed(k, width, dp, dstStride, sp, srcStride, fullRows, fullCols, skew, after)
				kernelEdges(k, width, dst, dstStride, src, srcStride, rows, cols, fullRows, fullCols)
				return
			}
		}
		// Records (widths that are no power of two) stream staged at any
		// alignment: their rows seldom start on lines, and the plain
		// kernel's stores fill the caches (u8 records of 3 bytes,
		// [16384,5461], ran faster staged; go test -bench TransposeImpl).
		if k := stagedKernel(width); k != kNone && (aligned || crowded || !pow2(width)) {
			sh := shapes[k]
			// Streamed rows are whole lines: tiles are a multiple of
			// unit columns.
			unit := lineUnit(sh.bj, width)
			fullRows, fullCols := rows-rows%sh.bi, cols-cols%unit
			if fullRows > 0 && fullCols > 0 {
				transposeStaged(k, width, unit, dp, dstStride, sp, srcStride, fullRows, fullCols, true)
				kernelEdges(k, width, dst, dstStride, src, srcStride, rows, cols, fullRows, fullCols)
				return
			}
		}
	}
	if after != nil && rows*width*cols <= prefetchBlockBytes && uintptr(after)-uintptr(sp) >= 64 {
		// A small block of a grid whose next block the kernels would
		// wait on: its source rows are a few lines each, far from this
		// block's, and the hardware prefetchers start over at each.
		// (A next block less than a line on reads this one's lines.)
		prefetchBlock(after, srcStride, rows*width, cols)
	}
	k := transposeKernel(width)
	sh := shapes[k]
	if rows < sh.bi || cols < sh.bj {
		if n := fitKernel(width, rows, cols); n != kNone {
			k, sh = n, shapes[n] // a block too small for the kernel fits a narrower one
		}
	}
	if k == kNone || rows < sh.bi || cols < sh.bj {
		transposeGeneric(width, dst, dstStride, src, srcStride, rows, cols)
		return
	}
	fullRows, fullCols := rows-rows%sh.bi, cols-cols%sh.bj
	walk := blockWalk(width, sh, dstStride, srcStride)
	if walk != walkStaged && walk != walkBands {
		call := lineUnit(sh.bi, width) // destination rows a call writes
		walked := rows - rows%call
		transposeWalk(k, walk, call, width, dp, dstStride, sp, srcStride, walked, fullCols)
		// The rows past the last whole call, whole blocks first.
		kernelEdges(k, width, dst, dstStride, src, srcStride, rows, cols, walked, fullCols)
		return
	}
	// A kernel writing part lines (the AVX2 1- and 2-byte ones) goes
	// through the staging tile, copied out with copy(), once the block
	// outgrows L1 (32 KiB): at power-of-two strides its destination rows
	// share L1 sets and evict each other before the next strip completes
	// them, so each line is fetched again for each part (2048x2048 u8 ran
	// several times faster staged; 128x128 u8, which L1 holds, faster
	// direct). So does any block of 64 KiB or more at strides that are
	// multiples of 2 KiB, whose rows crowd a few cache sets, where
	// blockWalk leaves the order to these rules (512x512 f32, when it
	// still took this path at AVX-512, ran faster staged than in bands;
	// with the strides padded by 64 bytes bands are better). The record
	// kernels write part lines too, but faster direct (3-byte records,
	// 512x170).
	aliased := walk == walkStaged && (dstStride%2048 == 0 || srcStride%2048 == 0) && rows*cols*width >= 64<<10
	// So does a block of 32 KiB or more whose kernel writes a vector of
	// each destination row at a time into rows off line boundaries: each
	// such store splits across two lines, where the tile's rows are
	// copied out a line at a time (c64 [57,179,331] reversed, blocks of
	// 331 rows of 456 bytes 81624 bytes apart, ran twice as fast staged;
	// rows on lines ran faster direct; docs/perf).
	split := sh.bj*width >= 64 && !onLines(dp, dstStride) && rows*cols*width >= 32<<10
	if streamingStores && (sh.bj*width < 64 && pow2(width) && rows*cols*width >= 32<<10 || aliased || split) {
		unit := lineUnit(sh.bj, width)
		if fc := cols - cols%unit; fc > 0 {
			transposeStaged(k, width, unit, dp, dstStride, sp, srcStride, fullRows, fc, false)
			kernelEdges(k, width, dst, dstStride, src, srcStride, rows, cols, fullRows, fc)
			return
		}
	}
	band := max(tuning.Band/width/sh.bi, 1) * sh.bi
	for i0 := 0; i0 < fullRows; i0 += band {
		n := min(band, fullRows-i0) / sh.bi
		d := unsafe.Add(dp, i0*dstStride)
		s := unsafe.Add(sp, i0*width)
		for j0 := 0; j0 < fullCols; j0 += sh.bj {
			strip(k, (*byte)(unsafe.Add(d, j0*width)), dstStride, (*byte)(unsafe.Add(s, j0*srcStride)), srcStride, n)
		}
	}
	kernelEdges(k, width, dst, dstStride, src, srcStride, rows, cols, fullRows, fullCols)
}

// transposeShifted streams a large transpose whose destination rows all
// start the same h bytes before a line boundary (a stride that is a
// multiple of 64, a start that is not): destination column e = h/width
// begins each row's first whole line, and it is source row e, so the streaming
// kernel runs its blocks from source row e on, each writing a whole line
// of each row, with no register shifted. The e columns before, and the
// part line past the whole blocks, come from a block transposed into a
// scratch tile a strip of rows at a time, of which each row takes its
// part line's bytes: no line takes both kinds of store. So do the rows
// past the last whole strip.
//
// A 3-D array reversed, f32 [300,400,500] to column-major, is 400
// transposes of 500 × 300, each plane's rows 1200 bytes on from the
// last's: three in four start off lines. The skew twins, which join two
// blocks' registers for each line and carry them through memory, ran at
// about half the streaming kernel's speed even in cache (f32 256×304),
// and the case, f64 too, ran faster shifted (relayout bench). Large 2-D
// transposes to a start off lines run as before (f32 8192² at +16 bytes
// ran about as fast skewed as shifted). The 1- and 2-byte gathers are
// left out: their streamed path on plane-sized transposes ran at half the
// plain kernels' speed (u8).
//
// It reports false, doing nothing, where the level has no such streaming
// kernel (whose block is a line of each destination row), h is no
// multiple of width or there are too few rows or columns for a block.
func transposeShifted(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, after unsafe.Pointer) bool {
	k := streamKernel(width)
	if k == kNone || width < 4 {
		return false
	}
	sh := shapes[k]
	dp, sp := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src))
	h := int(-uintptr(dp) & 63)
	if sh.bj*width != 64 || h%width != 0 {
		return false
	}
	e := h / width
	fullRows := rows - rows%sh.bi
	fullCols := (cols - e) - (cols-e)%sh.bj
	if fullRows == 0 || fullCols == 0 {
		return false
	}
	if after != nil {
		after = unsafe.Add(after, e*srcStride) // where its streamed blocks begin
	}
	transposeStreamed(k, width, unsafe.Add(dp, h), dstStride, unsafe.Add(sp, e*srcStride), srcStride, fullRows, fullCols, false, after)
	var tile [16 * 64]byte // a block: bi ≤ 16 rows of 64 bytes
	// part transposes the block at row i, column j into the tile and
	// copies bytes [from, to) of its rows from r0 on to the destination.
	part := func(i, j, r0, from, to int) {
		strip(k, &tile[0], 64, (*byte)(unsafe.Add(sp, i*width+j*srcStride)), srcStride, 1)
		for r := r0; r < sh.bi; r++ {
			o := (i+r)*dstStride + j*width
			copy(dst[o+from:o+to], tile[r*64+from:r*64+to])
		}
	}
	last := e + fullCols // the first column past the whole blocks
	for i := 0; i < rows; i += sh.bi {
		i := min(i, rows-sh.bi)
		part(i, 0, 0, 0, h) // each row's first part line
		if last < cols {
			part(i, cols-sh.bj, 0, (last-cols+sh.bj)*width, 64) // and its last
		}
	}
	if r := rows - fullRows; r > 0 {
		for j := e; j < last; j += sh.bj {
			part(rows-sh.bi, j, sh.bi-r, 0, 64)
		}
	}
	return true
}

// A walk is the order in which transposeFast's direct path runs a
// transpose's register blocks.
type walk uint8

const (
	// walkStaged leaves the order to the rules of transposeFast: blocks of
	// 64 KiB or more at strides that are multiples of 2 KiB through the
	// staging tile, others in bands.
	walkStaged walk = iota
	// walkBands runs strips down the destination inside bands of
	// tuning.Band of source row: each block continues the source rows of
	// the one before and starts bi new destination rows.
	walkBands
	// walkAlong runs, for each band of bi destination rows, its blocks
	// one after another along it: each block continues the destination
	// rows of the one before and starts bj new source rows.
	walkAlong
	// walkDiagonal runs the blocks (I, I+d mod NJ) for d = 0, 1, …: every
	// block starts new rows on both sides, one line on from the last
	// block's, so their lines fall in other L1 sets block after block.
	walkDiagonal
	// walkSplit is walkAlong with each call of several blocks split into
	// calls of one: for each band, splitRows source rows at a time, the
	// band's first block along them, then its second, and so on. A call
	// then writes the lines of fewer destination rows at once.
	walkSplit
)

// splitRows is how many source rows walkSplit runs each block of a band
// along before the next: a line of each, 8 KiB, stays in L1 meanwhile
// (4 and 16 KiB did worse on u8 [128,2048] and [256,1024]).
const splitRows = 128

// blockWalk chooses the walk of the direct path for kernel shape sh.
// Each call continues the rows of one side from the call before and
// starts new rows on the other: destination rows in walkBands, source
// rows in walkAlong. At strides that are multiples of 1 KiB or
// more the new rows' lines fall in a few L1 sets (crowd) and evict each
// other, which costs most on the destination side. So destination rows
// that crowd four or more a set take walkAlong, where the source rows are
// the new ones, unless those crowd more than four a set too: then
// walkDiagonal, where both sides start new rows, in other sets each
// block. Destination rows that crowd fewer than four a set run in bands
// however crowded the source rows are (staging costs more).
//
// The walks run whole lines of the source rows a call: one block of the
// AVX-512 square kernels, two of the AVX2 ones and of the 2-byte gather,
// four of the 1-byte gather (lineUnit of their bi). Where a call writes 16
// destination rows or more at a multiple of 4 KiB, all in one set, the
// order stays with the staging tile (walkStaged), which does better
// there; so do the kernels that write part lines (1- and 2-byte elements
// at AVX2, the records), whose lines must stay in L1 from one block to
// the next.
//
// The gathers' calls write 32 or 64 destination rows: where more than 8
// of those rows share a set (the L1 has 12 ways) the call's stores wait
// on each other, so walkSplit makes calls of one block instead, as long
// as the source rows crowd 8 a set or fewer (go test -bench, AVX-512: u8
// [128,2048], [256,1024] and [512,2048] and u16 [128,1024] ran faster
// split than along or diagonal; with the source rows crowding 16 a set,
// u8 [1024,1024], diagonal stays better).
//
// The walks were chosen on these cases (go test -bench TransposeCrowded,
// AVX-512 and AVX2), each faster than in bands, or staged at multiples of
// 2 KiB, as before: f32 [264,256], [128,512] and [256,256] along,
// [512,512] and [1024,256] diagonal, [512,128] bands; f64 [256,64] bands,
// [64,512] along, [512,512] diagonal.
func blockWalk(width int, sh kernelShape, dstStride, srcStride int) walk {
	if !crowdWalks || !pow2(width) || sh.bj*width < 64 {
		return walkStaged
	}
	rows := lineUnit(sh.bi, width) // destination rows a call writes
	cd, cs := crowd(dstStride, rows), crowd(srcStride, sh.bj)
	switch {
	case rows >= 16 && dstStride%4096 == 0:
		return walkStaged
	case cd < 4:
		return walkBands
	case rows > sh.bi && cd > 8 && cs <= 8:
		return walkSplit
	case cs <= 4:
		return walkAlong
	}
	return walkDiagonal
}

// crowd is how many of n rows stride bytes apart share each L1 set their
// lines fall in, for an L1 way of 4 KiB (an L1 of 48 KiB with 12 ways,
// or 32 KiB with 8): 1 for strides that are no multiple of 4096/n.
func crowd(stride, n int) int {
	g := 1 << min(bits.TrailingZeros(uint(stride)), 12)
	return max(n*g/4096, 1)
}

// transposeWalk runs kernel k over the fullRows × fullCols register
// blocks in the order w (walkAlong, walkDiagonal or walkSplit), bi
// destination rows a call (lineUnit of the kernel's bi: whole lines of
// the source rows, in one block of the AVX-512 square kernels, two of the
// AVX2 ones and of the 2-byte gather, four of the 1-byte gather; one
// block a call in walkSplit); fullRows is a multiple of bi.
func transposeWalk(k kernelID, w walk, bi, width int, dp unsafe.Pointer, dstStride int, sp unsafe.Pointer, srcStride int, fullRows, fullCols int) {
	sh := shapes[k]
	n := bi / sh.bi
	block := func(i, j int) {
		strip(k, (*byte)(unsafe.Add(dp, i*bi*dstStride+j*sh.bj*width)), dstStride, (*byte)(unsafe.Add(sp, i*bi*width+j*sh.bj*srcStride)), srcStride, n)
	}
	ni, nj := fullRows/bi, fullCols/sh.bj
	if w == walkSplit {
		run := max(splitRows/sh.bj, 1) // blocks along the source rows
		for i := range ni {
			for j0 := 0; j0 < nj; j0 += run {
				for r := i * bi; r < (i+1)*bi; r += sh.bi {
					for j := j0; j < min(j0+run, nj); j++ {
						strip(k, (*byte)(unsafe.Add(dp, r*dstStride+j*sh.bj*width)), dstStride, (*byte)(unsafe.Add(sp, r*width+j*sh.bj*srcStride)), srcStride, 1)
					}
				}
			}
		}
		return
	}
	if w == walkAlong {
		for i := range ni {
			for j := range nj {
				block(i, j)
			}
		}
		return
	}
	for d := range nj {
		j := d
		for i := range ni {
			block(i, j)
			if j++; j == nj {
				j = 0
			}
		}
	}
}

// onLines reports whether rows from p, stride bytes apart, all start on
// 64-byte line boundaries: what the non-temporal stores of whole lines
// need.
func onLines(p unsafe.Pointer, stride int) bool { return uintptr(p)%64 == 0 && stride%64 == 0 }

// lineUnit is the fewest columns, a multiple of the kernel's bj, that
// make whole 64-byte lines of width-byte elements: the column step of
// the staged tiles, whose rows are streamed out in whole lines. Given the
// kernel's bi, it is the destination rows (source elements) a call of the
// crowd walks covers, whole lines of each source row (transposeWalk).
func lineUnit(bj, width int) int {
	unit := bj
	for unit*width%64 != 0 {
		unit += bj
	}
	return unit
}

// transposeEdges transposes, with the generic kernel, what lies outside
// the block [0, fullRows) × [0, fullCols) of a rows × cols transpose.
func transposeEdges(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols, fullRows, fullCols int) {
	if fullCols < cols {
		transposeGeneric(width, dst[fullCols*width:], dstStride, src[fullCols*srcStride:], srcStride, rows, cols-fullCols)
	}
	if fullRows < rows && fullCols > 0 {
		transposeGeneric(width, dst[fullRows*dstStride:], dstStride, src[fullRows*width:], srcStride, rows-fullRows, fullCols)
	}
}

// keptBytes is the stack buffer of deinterleaveKept: k rows of a piece
// of the columns, which L1 holds.
const keptBytes = 4096

// deinterleaveKept runs the rows × cols de-interleave of groups of k
// width-byte elements (rows < k; the source's column j is the group at
// j*k*width) of which the destination keeps the first rows: the kernel
// of k rows de-interleaves a piece of the columns at a time into a
// buffer on the stack, whose first rows are copied out. A last piece
// shorter than the kernel's chunk is moved back to end at the edge,
// over columns done already. Where the source ends inside its last
// group (its slice does not hold the group whole) the last column is
// moved by the generic kernel. It reports false, having moved nothing,
// where the level has no kernel or the columns are fewer than its chunk.
func deinterleaveKept(width, k int, dst []byte, dstStride int, src []byte, rows, cols int) bool {
	whole := cols
	if len(src) < cols*k*width {
		whole--
	}
	chunk := weaveLeast(width)
	if chunk == 0 || whole < chunk {
		return false
	}
	var buf [keptBytes]byte
	piece := keptBytes / (k * width) / chunk * chunk
	stride := piece * width
	for c0, n := range pieces(whole, piece, chunk) {
		done := deinterleaveAsm(width, &buf[0], stride, &src[c0*k*width], k, n)
		if done == 0 {
			return false // no kernel for k rows (nothing written yet: the first piece holds a chunk)
		}
		if done < n {
			e := n - chunk
			deinterleaveAsm(width, &buf[e*width], stride, &src[(c0+e)*k*width], k, chunk)
		}
		for r := range rows {
			copy(dst[r*dstStride+c0*width:][:n*width], buf[r*stride:][:n*width])
		}
	}
	if whole < cols {
		c := whole * width
		transposeGeneric(width, dst[c:], dstStride, src[whole*k*width:], k*width, rows, 1)
	}
	return true
}

// pieces yields the pieces deinterleaveKept and interleaveKept cut n ≥
// chunk elements into: from each start, piece elements (a multiple of
// chunk) or the rest, a last rest shorter than chunk moved back to end at
// n (start n-chunk, chunk elements), over elements the piece before took.
func pieces(n, piece, chunk int) iter.Seq2[int, int] {
	return func(yield func(start, m int) bool) {
		for start := 0; start < n; start += piece {
			m := min(piece, n-start)
			if m < chunk {
				start, m = n-chunk, chunk
			}
			if !yield(start, m) {
				return
			}
		}
	}
}

// interleaveKept runs the rows × cols interleave into groups of k
// width-byte elements (cols < k; the destination's row i is the group at
// i*k*width) of which the source fills the first cols: the kernel of cols
// rows interleaves a piece of the rows at a time into a buffer on the
// stack, whose groups of cols elements copyRunsPermuted moves into the
// destination's groups with masked stores, leaving the rest of each
// group as it was. A last piece shorter than the kernel's chunk is moved
// back to end at the edge, over rows done already. It reports false,
// having written nothing, where the level has no interleave of cols rows
// or no permuting run copy (permutesRuns), or the rows are fewer than
// the kernel's chunk.
func interleaveKept(width, k int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) bool {
	chunk := weaveLeast(width)
	if chunk == 0 || rows < chunk || !permutesRuns() {
		return false
	}
	var buf [keptBytes]byte
	g := cols * width // the bytes of a group the source fills
	piece := keptBytes / g / chunk * chunk
	for r0, n := range pieces(rows, piece, chunk) {
		done := interleaveAsm(width, &buf[0], &src[r0*width], srcStride, n, cols)
		if done == 0 {
			return false // no kernel for cols rows (nothing written yet: the first piece holds a chunk)
		}
		if done < n {
			e := n - chunk
			interleaveAsm(width, &buf[e*g], &src[(r0+e)*width], srcStride, chunk, cols)
		}
		d := dst[r0*dstStride:]
		moved := copyRunsPermuted(d, dstStride, buf[:n*g], g, g, n)
		if moved < n {
			copyRunsGeneric(d[moved*dstStride:], dstStride, buf[moved*g:n*g], g, g, n-moved)
		}
	}
	return true
}

// weaveStreamBytes is the least a 2- or 4-way weave call writes for
// weaveStreamed to stream it through a grid kernel: the random pairs
// whose plans make smaller calls ran slower so (s8[640,593,59,2] to
// {2,3,1,0}, f16[957,50,292] from T(16,64): docs/perf); the 3-way
// kernels stream calls of any size (f32[2411589,3,1] from T(8,128),
// 1.5 KB a call, ran faster streamed).
const weaveStreamBytes = 64 << 10

// weaveStreamed runs, for a destination past the caches (large), the
// rows × cols interleave of cols source rows into one stream or, with
// inverse, the de-interleave of one stream into rows destination rows,
// with kernels that write with non-temporal stores, and fences them: the
// 3-way weaves' streaming twins, the 2- and 4-way ones' grid kernels on a
// grid of one block. It returns how many elements of each row it moved
// (whole chunks; the grid kernels take a row's ragged end too), or 0
// where none did: 8 rows, no such kernel at the level, or a destination
// not aligned for its stores.
//
// The weaves with ordinary stores read each destination line from
// memory before they wrote it: f32 NHWC to NCHW with 3 channels ran at
// two thirds of the copy limit, with non-temporal stores at the limit
// (docs/perf).
func weaveStreamed(width int, dp unsafe.Pointer, dstStride int, sp unsafe.Pointer, srcStride int, rows, cols int, inverse, large bool) int {
	if !large || !streamingStores {
		return 0
	}
	k, count := cols, rows // an interleave: k source rows
	if inverse {
		k, count = rows, cols // a de-interleave: k destination rows
	}
	var done int
	switch k {
	case 3:
		done = weave3StreamAsm(width, inverse, (*byte)(dp), dstStride, (*byte)(sp), srcStride, count)
		if done > 0 {
			storeFence() // before weaveRest's ordinary stores, which may share its last lines
		}
	case 2, 4:
		if rows*cols*width < weaveStreamBytes {
			return 0
		}
		done, _ = weaveGridAsm(width, (*byte)(dp), dstStride, (*byte)(sp), srcStride, rows, cols, Grid{Inner: 1, Outer: 1}, true)
	}
	return done
}

// weaveRest finishes the rows × cols interleave (or, with inverse, the
// de-interleave) at dp and sp whose kernel moved the first done elements
// of each row, whole chunks of weaveUnit: it runs the kernel's last chunk
// again, ending at the edge, over elements done already (as kernelEdges
// does for the block transposes). Before, the generic kernel moved the
// rest an element at a time: s8 [1000,1000] to T(8,128)(4,1), whose last
// tiles interleave 104 of their 128 columns, spent a good part of its Run
// there.
//
// A row shorter than weaveUnit, whose first done elements the AVX2
// kernels moved on an AVX-512 level (weaveLeast), takes their chunk.
func weaveRest(width int, dp unsafe.Pointer, dstStride int, sp unsafe.Pointer, srcStride int, rows, cols, done int, inverse bool) {
	chunk := func(n int) int {
		if u := weaveUnit(width); n >= u {
			return u
		}
		return weaveLeast(width)
	}
	switch {
	case inverse && done < cols:
		e := cols - chunk(cols)
		deinterleaveAsm(width, (*byte)(unsafe.Add(dp, e*width)), dstStride, (*byte)(unsafe.Add(sp, e*srcStride)), rows, cols-e)
	case !inverse && done < rows:
		e := rows - chunk(rows)
		interleaveAsm(width, (*byte)(unsafe.Add(dp, e*dstStride)), (*byte)(unsafe.Add(sp, e*width)), srcStride, rows-e, cols)
	}
}

// kernelEdges is transposeEdges with kernel k where its blocks fit: a
// block that would run past the edge is moved back to end at it instead,
// overlapping blocks already done, whose destination bytes it writes
// again with the same values (dst and src do not overlap). Only a
// transpose narrower than the block (rows < bi or cols < bj) or a
// fullRows that is no multiple of bi is left to the generic kernel.
//
// The generic kernel moves an element at a time, several times slower
// than the block kernels: before, the edges of u8 [2048,120] transposed
// (rows 120, 56 of them outside the crowd walk's calls of 64) took most
// of its time.
func kernelEdges(k kernelID, width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols, fullRows, fullCols int) {
	sh := shapes[k]
	if rows < sh.bi || cols < sh.bj || fullRows%sh.bi != 0 {
		transposeEdges(width, dst, dstStride, src, srcStride, rows, cols, fullRows, fullCols)
		return
	}
	dp, sp := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src))
	block := func(i, j, n int) {
		strip(k, (*byte)(unsafe.Add(dp, i*dstStride+j*width)), dstStride, (*byte)(unsafe.Add(sp, i*width+j*srcStride)), srcStride, n)
	}
	if fullRows > 0 {
		for j := fullCols; j < cols; j += sh.bj {
			block(0, min(j, cols-sh.bj), fullRows/sh.bi)
		}
	}
	if fullRows < rows {
		whole := (rows - fullRows) / sh.bi // the streamed paths leave up to a line's
		for j := 0; j < cols; j += sh.bj {
			j := min(j, cols-sh.bj)
			if whole > 0 {
				block(fullRows, j, whole)
			}
			if (rows-fullRows)%sh.bi != 0 {
				block(rows-sh.bi, j, 1)
			}
		}
	}
}

// fillRunsFast is FillRuns after its checks: runs shorter than 8 KiB with
// a pattern of 1, 2, 4, 8, 16 or 32 bytes take the SIMD fill where the
// level has one; longer runs and other patterns the generic fill. The
// SIMD fill writes a short run with a few vector stores where the generic
// fill calls clear (zero) or doubles copies of the pattern, whose fixed
// costs rule short runs (go test -bench FillRunsImpl: far faster at 64
// bytes, still faster at 4 KiB); from 64 KiB runs on, clear is faster.
func fillRunsFast(dst []byte, dstStride int, n, rows int, pattern []byte) {
	if n > 0 && rows > 0 && n < 8<<10 && 32%len(pattern) == 0 {
		pat := pattern32(pattern)
		if fillAsm(unsafe.SliceData(dst), dstStride, n, rows, &pat) {
			return
		}
	}
	fillRunsGeneric(dst, dstStride, n, rows, pattern)
}
