// Package tilecopy holds the blocked copy kernels of the tilecopy relayout
// engine: run copies, fills, 2-D block transposes and sub-byte repacks on
// raw byte slices with byte strides. The planner in package relayout
// compiles layouts into loop nests over these kernels; they are usable on
// their own.
//
// Every kernel checks, before it touches memory, that the last byte it
// would read or write lies inside its slices, and panics otherwise (as an
// out-of-range index does): callers are expected to pass valid geometry.
//
// On amd64 the kernels run AVX-512 or AVX2 assembly, on arm64 NEON, and
// portable Go elsewhere; the choice is made once, from the CPU's features
// (github.com/klauspost/cpuid/v2). The environment variable TILECOPY_CPU
// (generic, avx2, avx512 or neon) caps the level for tests and
// benchmarks; Level, Levels, Kernel and Features report the choice. The
// build tags purego and noasm leave the assembly out.
package tilecopy

import (
	"fmt"
	"math"
	"unsafe"
)

// span is the number of bytes a strided block of rows rows, each of n
// bytes at stride stride, reaches from its start, or -1 when that does
// not fit an int. rows, stride and n are not negative.
func span(rows, stride, n int) int {
	if rows == 0 || n == 0 {
		return 0
	}
	if rows > 1 && stride > (math.MaxInt-n)/(rows-1) {
		return -1
	}
	return (rows-1)*stride + n
}

func checkSpan(what string, buf []byte, rows, stride, n int) {
	if s := span(rows, stride, n); rows < 0 || n < 0 || stride < 0 || s < 0 || s > len(buf) {
		panic(fmt.Sprintf("tilecopy: %s block of %d rows × %d bytes at stride %d exceeds %d bytes", what, rows, n, stride, len(buf)))
	}
}

// checkBlocks is checkSpan for outer × inner such blocks, the inner ones
// innerStep bytes apart, the rows of them outerStep.
func checkBlocks(what string, buf []byte, outer, outerStep, inner, innerStep, rows, stride, n int) {
	block := span(rows, stride, n)
	row := span(inner, innerStep, max(block, 0))
	if s := span(outer, outerStep, max(row, 0)); rows < 0 || n < 0 || stride < 0 || inner < 0 || innerStep < 0 || outer < 0 || outerStep < 0 ||
		block < 0 || row < 0 || s < 0 || s > len(buf) {
		panic(fmt.Sprintf("tilecopy: %s grid of %d × %d blocks at strides %d, %d, each %d rows × %d bytes at stride %d, exceeds %d bytes", what, outer, inner, outerStep, innerStep, rows, n, stride, len(buf)))
	}
}

// CopyRuns copies rows runs of n bytes: run j from src[j*srcStride:] to
// dst[j*dstStride:]. Runs must not overlap between dst and src.
func CopyRuns(dst []byte, dstStride int, src []byte, srcStride int, n, rows int) {
	checkSpan("destination", dst, rows, dstStride, n)
	checkSpan("source", src, rows, srcStride, n)
	copyRunsGeneric(dst, dstStride, src, srcStride, n, rows)
}

// CopyRunsAhead is CopyRuns that also prefetches, for each 64 bytes it
// copies, the source line ahead bytes further on: the runs of the next
// call, for a caller that walks blocks ahead bytes apart. Short runs at a
// large source stride are the case it serves: the hardware prefetchers
// do not follow them. The prefetched addresses need not lie inside src (a
// prefetch never faults). Where the level in use has no prefetching copy
// (see Prefetching), it is CopyRuns.
func CopyRunsAhead(dst []byte, dstStride int, src []byte, srcStride int, n, rows, ahead int) {
	checkSpan("destination", dst, rows, dstStride, n)
	checkSpan("source", src, rows, srcStride, n)
	if rows == 0 || n == 0 {
		return
	}
	copyRunsAheadFast(dst, dstStride, src, srcStride, n, rows, ahead)
}

// Prefetching reports whether CopyRunsAhead prefetches at the level in
// use (AVX2 or above).
func Prefetching() bool { return prefetching() }

// CopyRunsStreaming copies a grid of steps × rows runs of n bytes: run r
// of step s from src[s*srcStep + r*srcStride:] to dst[s*dstStep +
// r*dstStride:]. It serves a caller that writes a destination of
// Tuning.RunStreamBytes or more in many calls and will not read it back
// from the caches before it is all written: where the level has them (see
// Streaming), it writes the runs' whole destination lines with
// non-temporal stores, prefetches each step's source during the step
// before (the prefetched addresses need not lie inside src: a prefetch
// never faults), and ends with a store fence, so that every byte is in
// memory order when it returns. Runs of 16 or 32 bytes side by side in
// the destination (dstStride = n), whose rows make whole lines from a
// line boundary, are joined into those lines, each run prefetching the
// next step's run (or its row's next line, where the steps go along the
// rows). Elsewhere, and for runs of 2 KiB or less when
// some run starts inside a line (where the stores would mix on the lines
// at the runs' ends), it is CopyRuns step by step. Runs must not overlap
// between dst and src.
func CopyRunsStreaming(dst []byte, dstStride, dstStep int, src []byte, srcStride, srcStep int, n, rows, steps int) {
	Stream{}.CopyRuns(dst, dstStride, dstStep, src, srcStride, srcStep, n, rows, steps)
}

// CopyRunsStreamingUnfenced is CopyRunsStreaming without the store fence
// at its end, for a caller that makes many calls and then one
// StoreFence, before it hands the destination on (see Grid.Unfenced).
// A fence waits for the stores in flight to reach memory, so a caller of
// many short calls (f32 [64,1000,1000] untiled from T(8,128), a call of
// 32 KiB a band of tiles) runs faster with one fence at the end than with
// one a call.
// It is Stream{Unfenced: true}.CopyRuns.
func CopyRunsStreamingUnfenced(dst []byte, dstStride, dstStep int, src []byte, srcStride, srcStep int, n, rows, steps int) {
	Stream{Unfenced: true}.CopyRuns(dst, dstStride, dstStep, src, srcStride, srcStep, n, rows, steps)
}

// Stream is how the streaming kernels write for a caller that makes many
// calls in a row, one band of tiles each: its methods are CopyRuns and
// the tile-row kernels (PackRows8, UnpackRows8, InterleaveNibbles8,
// DeinterleaveNibbles8), writing dst with non-temporal stores where the
// level has them (and, for the tile-row kernels, dst is aligned for
// them), as the ...Streaming functions do (which are the zero Stream's).
type Stream struct {
	// Ahead is how many bytes past each source row the caller's next
	// call reads, or 0: PackRows8 and InterleaveNibbles8 prefetch their 8
	// rows there as they go, up to 32 KiB ahead (as Grid.Ahead; the
	// others read one run, which the hardware prefetchers follow, and
	// ignore it). The prefetches never fault, so any value is safe.
	Ahead int
	// Prefetch is memory the caller reads after the call, or nil:
	// CopyRuns prefetches it from its start, a line for each line it
	// streams, in place of the source of its own next steps. A caller
	// that stages a band of the destination in a buffer and copies it
	// out gives the next band's source, which the copy then brings in
	// while its stores stream. The others ignore it.
	Prefetch []byte
	// Unfenced lets a call return before its non-temporal stores are
	// ordered with the stores that follow, for a caller that makes many
	// calls and then one StoreFence, before it hands the destination on
	// (as Grid.Unfenced). s4 [64,1000,1024] tiled to
	// T(8,128)(8,1)E(4), one call of 4 KiB a band, is the case.
	Unfenced bool
}

// CopyRuns is CopyRunsStreaming with s's stores.
func (s Stream) CopyRuns(dst []byte, dstStride, dstStep int, src []byte, srcStride, srcStep int, n, rows, steps int) {
	checkBlocks("destination", dst, steps, dstStep, 1, 0, rows, dstStride, n)
	checkBlocks("source", src, steps, srcStep, 1, 0, rows, srcStride, n)
	if rows == 0 || n == 0 || steps == 0 {
		return
	}
	copyRunsStreamingFast(dst, dstStride, dstStep, src, srcStride, srcStep, n, rows, steps, &s)
}

// Streaming reports whether CopyRunsStreaming writes with non-temporal
// stores at the level in use (AVX2 or above).
func Streaming() bool { return streaming() }

// FillRuns writes rows runs of n bytes at stride dstStride, each a
// repetition of pattern; n must be a multiple of len(pattern).
func FillRuns(dst []byte, dstStride int, n, rows int, pattern []byte) {
	checkSpan("destination", dst, rows, dstStride, n)
	if len(pattern) == 0 || n%len(pattern) != 0 {
		panic(fmt.Sprintf("tilecopy: fill of %d bytes with a %d-byte pattern", n, len(pattern)))
	}
	fillRunsFast(dst, dstStride, n, rows, pattern)
}

// Transpose moves a rows × cols block of width-byte elements:
//
//	dst[i*dstStride + j*width : +width] = src[j*srcStride + i*width : +width]
//
// for i < rows, j < cols. Each row of dst (cols elements) is contiguous,
// as is each row of src (rows elements). width is 1 to 16: an element of
// any other width than 1, 2, 4, 8 or 16 is a record (an RGB pixel of 3
// bytes, a point of three f32s in 12) that moves whole. dst and src must
// not overlap: a kernel may write a destination byte twice, from the
// source both times.
func Transpose(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	transpose(width, dst, dstStride, src, srcStride, rows, cols, false)
}

// TransposeStreaming is Transpose for a caller that writes a destination
// of Tuning.TransposeStreamBytes bytes or more in many calls: each call
// writes the way Transpose writes a destination that large in one call
// (through a cache-resident tile and non-temporal stores, where the level
// has them and the destination and its stride are multiples of 64 bytes),
// however small its own block. The destination will not be read back from
// the caches before it is all written, so no call should pay to bring its
// lines in.
func TransposeStreaming(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	transpose(width, dst, dstStride, src, srcStride, rows, cols, true)
}

// Grid repeats a kernel's block over Outer × Inner steps: block (a, b),
// a < Outer and b < Inner, lies at dst[a*DstOuter + b*DstInner:] and
// src[a*SrcOuter + b*SrcInner:]. The strides are in bytes and not
// negative.
type Grid struct {
	Inner, Outer       int
	DstInner, SrcInner int
	DstOuter, SrcOuter int
	// Ahead is how many bytes past each block's source rows the caller's
	// next call reads, or 0: the grids of interleaves (tiles with (2,1)
	// or (4,1) inside) prefetch there as they go, up to 32 KiB ahead,
	// which rows a few lines long need: the hardware prefetchers start
	// over at each short row, and without the prefetch each band's reads
	// wait on memory (s8 [64,1000,1024] tiled to T(8,128)(4,1), one call
	// a band of 8 rows of 1 KiB, prefetching the next band, ran much
	// faster with it). The prefetches never fault, so any value is safe.
	Ahead int
	// Unfenced lets TransposeGrid return before its non-temporal stores
	// are ordered with the stores that follow, for a caller that makes
	// many calls and then one StoreFence, before it hands the
	// destination on (to another goroutine, a device or a file). A fence
	// waits for the stores in flight to reach memory, and the next call's
	// stores wait behind it (s8 [64,1000,1024] tiled to T(8,128)(4,1),
	// one call of 8 KiB a band, ran faster fenced once than fenced each
	// call).
	Unfenced bool
}

// StoreFence orders the non-temporal stores made before it with every
// store after it (SFENCE on amd64; nothing where no kernel streams):
// the fence a caller owes after calls with Grid.Unfenced. A goroutine
// moved to another core in between is covered too: a thread switch runs
// locked instructions, which drain a core's write-combining buffers.
func StoreFence() { storeFence() }

// TransposeGrid is TransposeStreaming for every block of the grid g, in
// one call: for a caller that writes a destination of
// Tuning.TransposeStreamBytes bytes or more as many small blocks, such as the
// tiles of tiled layouts. Where the blocks are interleaves or
// de-interleaves of 2 or 4 rows (tiles with (2,1) or (4,1) inside) and the
// destination is aligned for the vector stores, the whole grid runs in one
// assembly kernel with non-temporal stores and one store fence at its end
// (not aligned, in the same kernel with plain stores). Other blocks of up
// to 64 KiB are transposed a group at a time into a cache-resident tile,
// which one call streams out behind one fence while it prefetches the next
// group's source (blocks that continue each other's rows, as in a 4-D
// reversal, are grouped so that both sides see runs of 512 bytes); with
// g.Unfenced, neither takes its fence. Larger blocks of a grid of one
// dimension whose blocks continue each other's rows on their shorter side
// (f32 [64,128,256,32] to {1,0,2,3}: 32 × 8192 blocks, 128 bytes of each
// of 8192 source rows) are cut into pieces along their longer side and
// grouped the same way. Other larger blocks are one TransposeStreaming
// each, without its checks, whose last tile prefetches the first of the
// next block.
func TransposeGrid(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, g Grid) {
	if !checkGrid(width, dst, dstStride, src, srcStride, rows, cols, g) {
		return
	}
	// Interleaves whose destination is off the vector size for streaming
	// (rows of odd length, untiled) take the grid kernel with plain
	// stores rather than the staged groups, which move each byte twice,
	// into the scratch tile and out, and here cannot stream whole lines
	// in exchange (untiling s8 T(8,128)(4,1) to [10000,10000] row-major
	// and bf16 T(8,128)(2,1) to [8000,8004] ran faster so).
	if weaveGrid(width, dst, dstStride, src, srcStride, rows, cols, g, true) ||
		weaveGrid(width, dst, dstStride, src, srcStride, rows, cols, g, false) ||
		transposeGridStaged(width, dst, dstStride, src, srcStride, rows, cols, g, true) {
		return
	}
	for a := range g.Outer {
		for b := range g.Inner {
			// The next block's source, for this one's last tile to
			// prefetch, so that the next block's first reads do not wait
			// on memory (f32 [64,1024,1024] reversed, 1024 × 64 planes,
			// ran faster with it).
			var after unsafe.Pointer
			switch {
			case b+1 < g.Inner:
				after = unsafe.Pointer(&src[a*g.SrcOuter+(b+1)*g.SrcInner])
			case a+1 < g.Outer:
				after = unsafe.Pointer(&src[(a+1)*g.SrcOuter])
			}
			transposeFast(width, dst[a*g.DstOuter+b*g.DstInner:], dstStride, src[a*g.SrcOuter+b*g.SrcInner:], srcStride, rows, cols, true, after)
		}
	}
}

// weaveGrid runs the grid g of interleaves or de-interleaves in one
// kernel call where weaveGridAsm has one, with non-temporal stores if
// stream, and the blocks' ragged ends with weaveRest; it reports whether
// it did.
func weaveGrid(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, g Grid, stream bool) bool {
	dp, sp := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src))
	done, inverse := weaveGridAsm(width, (*byte)(dp), dstStride, (*byte)(sp), srcStride, rows, cols, g, stream)
	if done == 0 {
		return false
	}
	if inverse && done < cols || !inverse && done < rows {
		for a := range g.Outer {
			for b := range g.Inner {
				weaveRest(width, unsafe.Add(dp, a*g.DstOuter+b*g.DstInner), dstStride, unsafe.Add(sp, a*g.SrcOuter+b*g.SrcInner), srcStride, rows, cols, done, inverse)
			}
		}
	}
	return true
}

// TransposeBlocks is Transpose for every block of the grid g, in one
// call: for a caller that writes a destination the caches keep as many
// small blocks. Where the blocks are interleaves or de-interleaves of 2
// or 4 rows, the whole grid runs in TransposeGrid's assembly kernel with
// plain stores, at any alignment. Other blocks of up to 64 KiB are
// transposed a group at a time into a cache-resident tile and copied out
// from there, so that blocks whose rows are short on one side (a few
// bytes of each source row, as a column-major array's columns give each
// tile of T(8,128)(4,1)) are read, or written, as the grid's longer runs;
// larger ones are one Transpose each.
func TransposeBlocks(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, g Grid) {
	if !checkGrid(width, dst, dstStride, src, srcStride, rows, cols, g) {
		return
	}
	if weaveGrid(width, dst, dstStride, src, srcStride, rows, cols, g, false) ||
		transposeGridStaged(width, dst, dstStride, src, srcStride, rows, cols, g, false) {
		return
	}
	for a := range g.Outer {
		for b := range g.Inner {
			transposeFast(width, dst[a*g.DstOuter+b*g.DstInner:], dstStride, src[a*g.SrcOuter+b*g.SrcInner:], srcStride, rows, cols, false, nil)
		}
	}
}

// checkGrid checks the arguments of TransposeGrid and TransposeBlocks and
// reports whether the grid moves any byte.
func checkGrid(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, g Grid) bool {
	checkWidth(width)
	checkBlocks("destination", dst, g.Outer, g.DstOuter, g.Inner, g.DstInner, rows, dstStride, cols*width)
	checkBlocks("source", src, g.Outer, g.SrcOuter, g.Inner, g.SrcInner, cols, srcStride, rows*width)
	return rows != 0 && cols != 0 && g.Inner != 0 && g.Outer != 0
}

func transpose(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, stream bool) {
	checkWidth(width)
	checkSpan("destination", dst, rows, dstStride, cols*width)
	checkSpan("source", src, cols, srcStride, rows*width)
	if rows == 0 || cols == 0 {
		return
	}
	transposeFast(width, dst, dstStride, src, srcStride, rows, cols, stream || largeDestination(dst, dstStride, rows), nil)
}

// largeDestination reports whether Transpose streams a destination of
// rows rows dstStride bytes apart at dst: from Tuning.TransposeStreamBytes
// bytes, or from Tuning.LineStreamBytes where the rows start on lines.
func largeDestination(dst []byte, dstStride, rows int) bool {
	size := rows * dstStride
	return size >= tuning.TransposeStreamBytes || size >= tuning.LineStreamBytes && onLines(unsafe.Pointer(unsafe.SliceData(dst)), dstStride)
}

func checkWidth(width int) {
	if width < 1 || width > 16 {
		panic(fmt.Sprintf("tilecopy: transpose of %d-byte elements", width))
	}
}

// pow2 reports whether width is a power of two: the widths the interleave
// and de-interleave kernels take (their other widths are records that
// the block transposes move).
func pow2(width int) bool { return width&(width-1) == 0 }
