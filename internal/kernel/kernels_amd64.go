//go:build (amd64 || arm64) && gc && !purego && !noasm

package kernel

import (
	"fmt"
	"math/bits"
	"strings"
	"sync"
	"unsafe"
)

// copyRunsAheadFast is CopyRunsAhead after its checks (rows, n ≥ 1): the
// assembly takes the whole 32-byte pieces of runs of 64 bytes or more,
// the generic copy the rest. Shorter runs are prefetched ahead first, in
// one call: a gather of a few bytes of each group from half of each 1 KiB
// tile, which the hardware prefetchers lose, ran faster so (go test
// -bench CopyRunsAheadGrouped).
func copyRunsAheadFast(dst []byte, dstStride int, src []byte, srcStride int, n, rows, ahead int) {
	if !useAVX2 || n < 64 {
		if ahead != 0 && useAVX2 {
			prefetchSpan(uintptr(unsafe.Pointer(&src[0]))+uintptr(ahead), srcStride, n, rows)
		}
		copyRunsShort(dst, dstStride, src, srcStride, n, rows)
		return
	}
	copyRunsVector(dst, dstStride, src, srcStride, n, rows, ahead)
}

// copyRunsLong runs copyRunsShort's runs of 64 bytes or more through the
// AVX2 run copy, where the level has it and the runs are apart on some
// side (runs side by side on both are one copy()), and reports whether
// it did: a call to memmove a run cost more than the kernel's moves where
// the runs are a few lines each (rows staged into the edge buffer).
func copyRunsLong(dst []byte, dstStride int, src []byte, srcStride int, n, rows int) bool {
	if !useAVX2 || n < 64 || dstStride == n && srcStride == n {
		return false
	}
	copyRunsVector(dst, dstStride, src, srcStride, n, rows, 0)
	return true
}

// copyRunsVector copies rows runs of n ≥ 32 bytes with copyRunsAhead,
// which takes each run's last piece of less than 32 bytes in a 32-byte
// move back to end at the run's end, in the same pass.
func copyRunsVector(dst []byte, dstStride int, src []byte, srcStride int, n, rows, ahead int) {
	copyRunsAhead(&dst[0], dstStride, &src[0], srcStride, n, rows, ahead)
}

func prefetching() bool { return useAVX2 }

// prefetchBlock prefetches the source of the block a grid moves next,
// at p: cols rows of n bytes, stride apart (prefetchSpan).
func prefetchBlock(p unsafe.Pointer, stride, n, cols int) {
	if useAVX2 {
		prefetchSpan(uintptr(p), stride, n, cols)
	}
}

// prefetchSpan prefetches the lines of rows runs of n bytes at p, stride
// bytes apart: the runs' whole span where they are less than a line
// apart (every line of it holds some), else run by run.
func prefetchSpan(p uintptr, stride, n, rows int) {
	if stride < 64 {
		n, rows = (rows-1)*stride+n, 1
	}
	prefetchRuns(p, stride, n, rows)
}

// bothEnds is the ends of copyRunsStream's runs that stand alone: each
// writes the part lines at both its ends with ordinary stores.
const bothEnds = 3

// exactEnds is bothEnds with the part lines written under masks, byte
// for byte (AVX-512; the masks come from BZHI, which hasAVX512 requires).
const exactEnds = bothEnds | 4

// runEnds is copyRunsStream's ends for runs that go on from call to call
// along their rows, carrying their part lines: bit 0 where these runs
// start the rows (first), bit 1 where they end them (last).
func runEnds(first, last bool) int {
	ends := 0
	if first {
		ends |= 1
	}
	if last {
		ends |= 2
	}
	return ends
}

// joinable reports whether copyRunsStreamingFast writes the grid with
// joinRunsStream: runs of 16 or 32 bytes, contiguous in the destination,
// that make whole lines starting on line boundaries.
func joinable(dst []byte, dstStride, dstStep int, n, rows, steps int) bool {
	return useAVX2 && (n == 16 || n == 32) && dstStride == n && rows*n%64 == 0 &&
		uintptr(unsafe.Pointer(unsafe.SliceData(dst)))%64 == 0 && (steps == 1 || dstStep%64 == 0)
}

// joinsSteps reports whether copyRunsStreamingFast writes the grid with
// joinStepsStream: AVX-512, runs of whole lines' length whose steps
// continue each other's destination rows (dstStep = n), rows that do
// not overlap and that start inside a line, where a run at a time
// would write the line each two runs share in two parts, each read
// from memory first (bf16 T(4,128) tiles untiled to rows of 5880 bytes
// ran far slower than to rows of 5888: docs/perf).
func joinsSteps(dst []byte, dstStride, dstStep int, n, rows, steps int) bool {
	return useAVX512 && n%64 == 0 && steps > 1 && dstStep == n && (rows == 1 || dstStride >= steps*n) &&
		!onLines(unsafe.Pointer(unsafe.SliceData(dst)), dstStride)
}

// copyRunsStreamingFast is Stream.CopyRuns after its checks (n, rows,
// steps ≥ 1): runs shorter than a line, which no whole-line store can
// write, take the generic copy, unless they join into whole lines of the
// destination (joinable).
func copyRunsStreamingFast(dst []byte, dstStride, dstStep int, src []byte, srcStride, srcStep int, n, rows, steps int, st *Stream) {
	// A run that starts inside a line begins and ends with ordinary
	// stores over lines that non-temporal stores write too, which costs
	// the more the shorter the runs: a line written both ways is read
	// from memory for the ordinary stores and evicted from the caches for
	// the non-temporal ones. Untiling f32[8001,8001] from T(8,32) (runs
	// of 128 bytes) ran far slower so than with ordinary stores only,
	// from T(8,128) (512 bytes) still slower, from T(8,512) (2 KiB) about
	// even, from T(4,2048) faster. At AVX-512 the part lines take masked
	// stores of their own bytes instead (exactEnds), and no line mixes
	// the two kinds of store: untiling f32 [5000,5000] from T(8,128), and
	// [8001,8001] from T(8,32), T(8,512) and T(4,2048), ran faster than
	// with ordinary stores.
	if len(st.Prefetch) == 0 && joinable(dst, dstStride, dstStep, n, rows, steps) {
		// Each run prefetches the next step's run, or its row's next
		// line where the steps go along the rows (or there are none).
		ahead := max(srcStep, 64)
		joinRunsStream(&dst[0], &src[0], srcStride, n, rows, steps, dstStep, srcStep, ahead)
		if !st.Unfenced {
			storeFence()
		}
		return
	}
	if len(st.Prefetch) == 0 && rows > 1 && joinable(dst, dstStep, dstStride, n, steps, rows) {
		// The steps side by side in the destination, each row's
		// making whole lines (f32 T(8,8) tiles into T(16,128): a
		// tile's 8 rows of 32 bytes, the steps the tiles along a
		// destination row): the same kernel with rows and steps
		// swapped.
		ahead := max(srcStride, 64)
		joinRunsStream(&dst[0], &src[0], srcStep, n, steps, rows, dstStride, srcStride, ahead)
		if !st.Unfenced {
			storeFence()
		}
		return
	}
	off := offLines(dst, dstStride, dstStep, steps)
	if joinsSteps(dst, dstStride, dstStep, n, rows, steps) && len(st.Prefetch) == 0 {
		// Each step's runs continue the last's rows: the lines two
		// runs share go whole too.
		joinStepsStreamAVX512(&dst[0], dstStride, &src[0], srcStride, n, rows, steps, srcStep, srcStep)
		if !st.Unfenced {
			storeFence()
		}
		return
	}
	if n < 64 || !useAVX2 || n <= 2048 && off && !useAVX512 {
		copyRunsGridGeneric(dst, dstStride, dstStep, src, srcStride, srcStep, n, rows, steps)
		return
	}
	ends := bothEnds
	if off && useAVX512 {
		ends = exactEnds
	}
	// Each step prefetches the source of the next, or the caller's
	// memory, as one run.
	next := prefetchWalk{uintptr(unsafe.Pointer(unsafe.SliceData(src))) + uintptr(srcStep), srcStride, n, rows, srcStep}
	if m := len(st.Prefetch); m > 0 {
		next = prefetchWalk{uintptr(unsafe.Pointer(unsafe.SliceData(st.Prefetch))), m, m, 1, m}
	}
	streamRuns(&dst[0], dstStride, &src[0], srcStride, n, rows, steps, dstStep, srcStep, next, ends, st.Unfenced)
}

// offLines reports whether some run of a grid at dst (strides and step
// as CopyRunsStreaming's) starts inside a cache line.
func offLines(dst []byte, dstStride, dstStep, steps int) bool {
	return !onLines(unsafe.Pointer(unsafe.SliceData(dst)), dstStride) || steps > 1 && dstStep%64 != 0
}

// prefetchWalk is the walk copyRunsStream prefetches while it copies:
// from at, groups of rows runs of n bytes, stride apart, the groups step
// apart.
type prefetchWalk struct {
	at                    uintptr
	stride, n, rows, step int
}

// streamRuns is copyRunsStream at the level in use (AVX2 at least),
// prefetching the walk w, then a store fence unless the caller owes it
// (unfenced).
func streamRuns(dst *byte, dstStride int, src *byte, srcStride int, n, rows, steps, dstStep, srcStep int, w prefetchWalk, ends int, unfenced bool) {
	skip := w.step - w.rows*w.stride
	if useAVX512 {
		copyRunsStreamAVX512(dst, dstStride, src, srcStride, n, rows, steps, dstStep, srcStep, w.at, w.stride, w.n, w.rows, skip, ends)
	} else {
		copyRunsStreamAVX2(dst, dstStride, src, srcStride, n, rows, steps, dstStep, srcStep, w.at, w.stride, w.n, w.rows, skip, ends)
	}
	if !unfenced {
		storeFence()
	}
}

func streaming() bool { return useAVX2 }

// unpack4Asm unpacks the whole 64-element pieces of n 4-bit fields with
// the AVX2 kernel and returns how many elements it did (none without
// AVX2); pack4Asm packs them. The kernel handles 64 fields with a few
// shuffles where the generic code takes a word at a time, and runs
// several times faster (go test -bench RepackBits), near the speed of a
// copy() of the packed bytes.
func unpack4Asm(dst, src []byte, n int, mask, sign byte) int {
	m := n &^ 63
	if m == 0 || !useAVX2 {
		return 0
	}
	unpack4AVX2(&dst[0], &src[0], m/2, mask, sign)
	return m
}

func pack4Asm(dst, src []byte, n int) int {
	m := n &^ 63
	if m == 0 || !useAVX2 {
		return 0
	}
	pack4AVX2(&dst[0], &src[0], m/2)
	return m
}

// splitFieldsKernel returns the split kernel of bits-bit fields at the
// level in use (AVX2 or up).
func splitFieldsKernel(bits int) func(dst *byte, dstStride int, src *byte, srcStride int, n int, rows int, pf *byte, pfStride int, pfN int) {
	switch {
	case bits == 1 && useVBMI:
		return splitFields1NTPrefetchAVX512
	case bits == 1:
		return splitFields1NTPrefetchAVX2
	case bits == 2 && useVBMI:
		return splitFields2NTPrefetchAVX512
	case bits == 2:
		return splitFields2NTPrefetchAVX2
	case useVBMI:
		return splitFields4NTPrefetchAVX512
	}
	return splitFields4NTPrefetchAVX2
}

func packedOnePass() bool { return useAVX2 }

// transposePackedFast is TransposePacked after its checks. With stream,
// AVX2 and a destination aligned for non-temporal stores, the blocks of
// whole tiles run in one pass, tile by tile through the scratch buffer:
// the staged 1-byte kernel transposes ti source bytes (e*ti fields, the
// destination rows, e = 8/bits) of tj source rows into the scratch, and
// the split kernel splits each scratch row into e destination rows of
// tj/e bytes while it prefetches the next tile's source. The tiles are
// the 1-byte staged transpose's (tuning.StageRow/2 source bytes a row) by
// e/2 times its rows, so that the destination runs are as long: tj/e =
// tuning.StageCol/2 bytes. The rest goes a byte at a time.
func transposePackedFast(bits int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, stream bool) {
	e := 8 / bits
	k := stagedKernel(1)
	if !stream || !useAVX2 || k == kNone {
		transposePackedGeneric(bits, dst, dstStride, src, srcStride, 0, rows, 0, cols)
		return
	}
	sh := shapes[k]
	fullB := rows / e / sh.bi * sh.bi // source bytes a row in whole blocks
	run := 64 * e                     // source rows (fields) to a 64-byte destination run
	fullJ := cols / run * run         // source rows in whole runs
	if fullB == 0 || fullJ == 0 || !onLines(unsafe.Pointer(&dst[0]), dstStride) {
		transposePackedGeneric(bits, dst, dstStride, src, srcStride, 0, rows, 0, cols)
		return
	}
	dp, sp := unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0])
	ti := max(tuning.StageRow/2/sh.bi, 1) * sh.bi
	tj := max(tuning.StageCol*e/2/run, 1) * run
	sst := tj + 64
	for ti*sst > scratchBytes && ti > sh.bi {
		ti -= sh.bi
	}
	split := splitFieldsKernel(bits)
	stageTiles(k, 1, sp, srcStride, fullB, fullJ, ti, tj, sst, func(i0, j0, ni, nj int, scr, pf unsafe.Pointer, pfN int) {
		d := unsafe.Add(dp, e*i0*dstStride+j0/e)
		split((*byte)(d), dstStride, (*byte)(scr), sst, nj, ni, (*byte)(pf), srcStride, pfN)
	})
	// The edges: destination rows past the whole blocks, and the fields
	// past the whole runs of the others.
	transposePackedGeneric(bits, dst, dstStride, src, srcStride, e*fullB, rows, 0, cols)
	transposePackedGeneric(bits, dst, dstStride, src, srcStride, 0, e*fullB, fullJ, cols)
}

// packRows8Asm packs the whole chunks (weaveChunk of bytes) of n columns
// of 8 rows with the kernel of the level, the streaming one with a
// Stream (st) and an aligned dst, and returns how many columns it did;
// unpackRows8Asm unpacks them, with the streaming AVX-512 kernel where
// st is set and the rows are aligned for it. The streaming kernels
// leave their fence to fenceStream.
func packRows8Asm(dst, src []byte, srcStride, n int, st *Stream) int {
	chunk, avx512 := weaveChunk(1)
	k := n / max(chunk, 1)
	if chunk == 0 || k == 0 {
		return 0
	}
	stream := st != nil && uintptr(unsafe.Pointer(&dst[0]))%64 == 0
	switch {
	case avx512 && stream:
		interleave8Pack4StreamAVX512(&dst[0], &src[0], srcStride, k, prefetchAhead(st.Ahead))
	case avx512:
		interleave8Pack4AVX512(&dst[0], &src[0], srcStride, k)
	case stream:
		interleave8Pack4StreamAVX2(&dst[0], &src[0], srcStride, k, prefetchAhead(st.Ahead))
	default:
		interleave8Pack4AVX2(&dst[0], &src[0], srcStride, k)
	}
	fenceStream(st, stream)
	return k * chunk
}

func unpackRows8Asm(dst []byte, dstStride int, src []byte, n int, mask, sign byte, st *Stream) int {
	chunk, avx512 := weaveChunk(1)
	k := n / max(chunk, 1)
	if chunk == 0 || k == 0 {
		return 0
	}
	stream := avx512 && st != nil && onLines(unsafe.Pointer(&dst[0]), dstStride)
	switch {
	case stream:
		unpack4Deinterleave8StreamAVX512(&dst[0], dstStride, &src[0], k, mask, sign)
	case avx512:
		unpack4Deinterleave8AVX512(&dst[0], dstStride, &src[0], k, mask, sign)
	default:
		unpack4Deinterleave8AVX2(&dst[0], dstStride, &src[0], k, mask, sign)
	}
	fenceStream(st, stream)
	return k * chunk
}

// transposeNibbles8Asm transposes count 8×8 blocks of 4-bit fields with
// transposeNibbles8AVX512 (its arguments' meaning) and reports true, or
// reports false where the level in use lacks AVX-512 VBMI.
func transposeNibbles8Asm(dst []byte, dstStride, dstStep int, src []byte, srcStride, srcStep, count int) bool {
	if !useVBMI || count == 0 {
		return false
	}
	transposeNibbles8AVX512(&dst[0], dstStride, dstStep, &src[0], srcStride, srcStep, count, &nibbleTable[0])
	return true
}

// packRows8x8Asm packs count blocks of 8 fields of 8 byte rows into
// (8,1) words with packRows8x8AVX512 (its arguments' meaning) and
// reports true, or reports false where the level in use lacks AVX-512
// VBMI.
func packRows8x8Asm(dst []byte, dstStep int, src []byte, srcStride, srcStep, count int) bool {
	if !useVBMI || count == 0 {
		return false
	}
	packRows8x8AVX512(&dst[0], dstStep, &src[0], srcStride, srcStep, count, &packRowsTable[0])
	return true
}

// packRowsTable is packRows8x8AVX512's table. Output byte p of a block
// (word j = p/4, its byte m = p%4) holds the values of rows 2m (high
// nibble) and 2m+1 at column j, input bytes 8·2m + j and 8·(2m+1) + j:
// the first 64 bytes index the former, the next 64 the latter (those
// past 32 unused), the last 64 are 0x0f.
var packRowsTable = func() (t [192]byte) {
	for p := range 32 {
		j, m := p/4, p%4
		t[p] = byte(16*m + j)
		t[64+p] = byte(16*m + 8 + j)
	}
	for i := 128; i < 192; i++ {
		t[i] = 0x0f
	}
	return t
}()

// nibbleTable is transposeNibbles8AVX512's table. The output byte p of
// a block holds fields 2m and 2m+1 of column c (c = p/4, m = p%4), that
// is of rows 2m and 2m+1; field c of row r is the high nibble of input
// byte 4r + c/2 for an even c, else its low nibble. The first 32 bytes
// index the high nibbles' field (row 2m), the next 32 the low nibbles'
// (row 2m+1), both into the input's high nibbles (indexes below 32) or
// low ones (32 on); the last 32 are 0x0f.
var nibbleTable = func() (t [96]byte) {
	for p := range 32 {
		c, m := p/4, p%4
		half := byte(32 * (c % 2))
		t[p] = half + byte(8*m+c/2)
		t[32+p] = half + byte(8*m+4+c/2)
		t[64+p] = 0x0f
	}
	return t
}()

// interleaveNibbles8Asm lays out the whole chunks (weaveChunk of bytes
// of each row) of n fields of 8 packed rows as words with the kernel of
// the level, the streaming one with a Stream (st) and an aligned dst,
// then the rest with the AVX2 kernel's chunks of 32 bytes, the last moved
// back to end at n (or the field before it, for an odd n), and returns
// how many fields it did: all of them, or all but the last, where n is
// nibbles8Least or more, none below it. deinterleaveNibbles8Asm lays
// them out as rows again.
func interleaveNibbles8Asm(dst, src []byte, srcStride, n int, st *Stream) int {
	chunk, avx512 := weaveChunk(1)
	k := n / 2 / max(chunk, 1)
	if chunk == 0 || n < nibbles8Least {
		return 0
	}
	stream := st != nil && uintptr(unsafe.Pointer(&dst[0]))%64 == 0
	switch {
	case k == 0:
	case avx512 && stream:
		interleave8NibblesStreamAVX512(&dst[0], &src[0], srcStride, k, prefetchAhead(st.Ahead))
	case avx512:
		interleave8NibblesAVX512(&dst[0], &src[0], srcStride, k)
	case stream:
		interleave8NibblesStreamAVX2(&dst[0], &src[0], srcStride, k, prefetchAhead(st.Ahead))
	default:
		interleave8NibblesAVX2(&dst[0], &src[0], srcStride, k)
	}
	done := 2 * k * chunk
	if k2 := (n - done) / nibbles8Least; k2 > 0 { // the AVX2 kernel's chunks on the rest
		interleave8NibblesAVX2(&dst[4*done], &src[done/2], srcStride, k2)
		done += k2 * nibbles8Least
	}
	if s := nibbles8Back(n); done < s+nibbles8Least {
		interleave8NibblesAVX2(&dst[4*s], &src[s/2], srcStride, 1)
		done = s + nibbles8Least
	}
	fenceStream(st, stream && k > 0)
	return done
}

// nibbles8Least is the fields of a row that one chunk of the AVX2 (8,1)
// nibble kernels moves, the fewest a call of the asm takes: 32 bytes.
const nibbles8Least = 64

// nibbles8Back is where the (8,1) nibble kernels' last chunk starts, moved
// back to end at field n (n ≥ nibbles8Least) or the field before it: on
// a whole byte of the rows, so an even field. The fields it moves again
// are written with the bytes they hold already.
func nibbles8Back(n int) int { return (n - nibbles8Least) &^ 1 }

func deinterleaveNibbles8Asm(dst []byte, dstStride int, src []byte, n int, st *Stream) int {
	chunk, avx512 := weaveChunk(1)
	k := n / 2 / max(chunk, 1)
	if chunk == 0 || n < nibbles8Least {
		return 0
	}
	stream := st != nil && onLines(unsafe.Pointer(&dst[0]), dstStride)
	switch {
	case k == 0:
	case avx512 && stream:
		deinterleave8NibblesStreamAVX512(&dst[0], dstStride, &src[0], k)
	case avx512:
		deinterleave8NibblesAVX512(&dst[0], dstStride, &src[0], k)
	case stream:
		deinterleave8NibblesStreamAVX2(&dst[0], dstStride, &src[0], k)
	default:
		deinterleave8NibblesAVX2(&dst[0], dstStride, &src[0], k)
	}
	done := 2 * k * chunk
	if k2 := (n - done) / nibbles8Least; k2 > 0 { // the AVX2 kernel's chunks on the rest
		deinterleave8NibblesAVX2(&dst[done/2], dstStride, &src[4*done], k2)
		done += k2 * nibbles8Least
	}
	if s := nibbles8Back(n); done < s+nibbles8Least {
		deinterleave8NibblesAVX2(&dst[s/2], dstStride, &src[4*s], 1)
		done = s + nibbles8Least
	}
	fenceStream(st, stream && k > 0)
	return done
}

// fenceStream fences a row kernel's non-temporal stores (stream) unless
// the caller said it will (st.Unfenced).
func fenceStream(st *Stream, stream bool) {
	if stream && !st.Unfenced {
		storeFence()
	}
}

// fieldKernel runs the field transpose of bits-bit fields, streaming
// or not. It calls each kernel directly, not through a table of func
// values, so that masks stays on the caller's stack: through a table it
// escaped, one allocation a call.
func fieldKernel(bits int, stream bool, dst *byte, src *byte, srcStride int, n int, groups int, dstStep int, masks *uint64) {
	switch {
	case bits == 1 && stream:
		transposeFields1StreamAVX2(dst, src, srcStride, n, groups, dstStep, masks)
	case bits == 1:
		transposeFields1AVX2(dst, src, srcStride, n, groups, dstStep, masks)
	case bits == 2 && stream:
		transposeFields2StreamAVX2(dst, src, srcStride, n, groups, dstStep, masks)
	case bits == 2:
		transposeFields2AVX2(dst, src, srcStride, n, groups, dstStep, masks)
	case stream:
		transposeFields4StreamAVX2(dst, src, srcStride, n, groups, dstStep, masks)
	default:
		transposeFields4AVX2(dst, src, srcStride, n, groups, dstStep, masks)
	}
}

// shortFieldKernel runs the short-row field transpose of bits-bit
// fields, streaming or not, calling each kernel directly (as
// fieldKernel does, for perm and masks).
func shortFieldKernel(bits int, stream bool, dst *byte, src *byte, n int, perm *byte, masks *uint64) {
	switch {
	case bits == 1 && stream:
		transposeFieldsShort1StreamAVX2(dst, src, n, perm, masks)
	case bits == 1:
		transposeFieldsShort1AVX2(dst, src, n, perm, masks)
	case bits == 2 && stream:
		transposeFieldsShort2StreamAVX2(dst, src, n, perm, masks)
	case bits == 2:
		transposeFieldsShort2AVX2(dst, src, n, perm, masks)
	case stream:
		transposeFieldsShort4StreamAVX2(dst, src, n, perm, masks)
	default:
		transposeFieldsShort4AVX2(dst, src, n, perm, masks)
	}
}

// transposeFieldsFast is TransposeFields after its checks: short rows
// (ShortFieldRows) take the short-row AVX2 kernel a 64-byte block at a
// time; otherwise the whole 32-byte chunks of the rows take the AVX2
// kernel. Either writes with non-temporal stores when stream is set and
// the output is aligned for them; the rest goes to the generic code,
// which moves a field at a time and is an order of magnitude slower, on
// large arrays and on short rows in cache alike (go test -bench
// TransposeFields).
func transposeFieldsFast(dst, src []byte, srcStride, rows, n, bits int, stream bool) {
	if !useAVX2 || rows == 0 || n == 0 {
		transposeFieldsGeneric(dst, src, srcStride, rows, n, 0, bits)
		return
	}
	var masks [3]uint64
	for i, s := range swapsFor(bits) {
		masks[i] = s.mask
	}
	e, aligned := 8/bits, uintptr(unsafe.Pointer(&dst[0]))%32 == 0
	if blocks := rows * n / 64; ShortFieldRows(srcStride, n, bits) && blocks > 0 {
		perm := fieldPerm(bits, n)
		shortFieldKernel(bits, stream && aligned, &dst[0], &src[0], blocks, &perm[0], &masks[0])
		if done := blocks * 64; done < rows*n {
			transposeFieldsGeneric(dst[done:], src[done:], srcStride, rows-done/n, n, 0, bits)
		}
		return
	}
	chunks := n / 32
	if chunks == 0 {
		transposeFieldsGeneric(dst, src, srcStride, rows, n, 0, bits)
		return
	}
	fieldKernel(bits, stream && aligned && e*n%32 == 0, &dst[0], &src[0], srcStride, chunks, rows/e, e*n, &masks[0])
	if 32*chunks < n {
		transposeFieldsGeneric(dst, src, srcStride, rows, n, 32*chunks, bits)
	}
}

// weaveChunk is how many elements of width bytes one step of the
// interleave and de-interleave kernels moves per row at the level in use
// (a vector of them), and whether that is the AVX-512 kernel; 0 when the
// level has none (the 1-byte AVX-512 kernels need VBMI).
func weaveChunk(width int) (chunk int, avx512 bool) {
	switch {
	case width >= 8:
		// AVX-512 only (weavesWide).
		if useAVX512 {
			return 64 / width, true
		}
		return 0, false
	case useAVX512 && (width > 1 || useVBMI):
		return 64 / width, true
	case useAVX2:
		return 32 / width, false
	}
	return 0, false
}

// keepsRows reports whether the grid de-interleaves of width-byte
// elements keep the first rows of each group (weaveGridAsm).
func keepsRows(width int) bool {
	chunk, _ := weaveChunk(width)
	return chunk > 0 && width <= 4 && pow2(width)
}

// weaveUnit is weaveChunk's chunk: the elements a call of the interleave
// and de-interleave kernels moves per row, a multiple of it; 0 for none.
func weaveUnit(width int) int {
	chunk, _ := weaveChunk(width)
	return chunk
}

// weaveLeast is the fewest elements a row the interleave and
// de-interleave kernels move: the AVX2 kernels' chunk, which the AVX-512
// level also runs on a rest of one (interleaveAsm); 0 for none.
func weaveLeast(width int) int {
	if chunk, _ := weaveChunk(width); chunk > 0 {
		if width >= 8 {
			return chunk // no AVX2 kernels take a rest
		}
		return min(chunk, 32/width)
	}
	return 0
}

// weavesWide reports whether the level in use has interleave and
// de-interleave kernels of 8-byte elements (2, 3 and 4 rows) and 16-byte
// ones (2 rows): AVX-512.
func weavesWide() bool { return useAVX512 }

// interleaveAsm runs the interleave of cols source rows (2, 3 or 4 of
// width-byte elements, 1, 2 or 4; or 8 of 1 or 2 bytes) at the level in
// use over rows elements, and returns how many it did (a multiple of its
// chunk), or 0 if it has no kernel.
func interleaveAsm(width int, dst *byte, src *byte, srcStride int, rows, cols int) int {
	chunk, avx512 := weaveChunk(width)
	if chunk == 0 {
		return 0
	}
	done := interleaveChunks(width, chunk, avx512, dst, src, srcStride, rows, cols)
	// The AVX2 kernels, whose chunk is half the AVX-512 ones', take a
	// rest of one (rows of 32 bytes: T(32,32) tiles' rows).
	if half := 32 / width; avx512 && rows-done >= half {
		done += interleaveChunks(width, half, false, (*byte)(unsafe.Add(unsafe.Pointer(dst), done*cols*width)), (*byte)(unsafe.Add(unsafe.Pointer(src), done*width)), srcStride, rows-done, cols)
	}
	return done
}

// interleaveChunks is interleaveAsm over the whole chunks of rows with the
// AVX-512 kernels (avx512) or the AVX2 ones, of chunk elements.
func interleaveChunks(width, chunk int, avx512 bool, dst *byte, src *byte, srcStride int, rows, cols int) int {
	if rows < chunk {
		return 0
	}
	n := rows / chunk
	switch {
	case cols == 2 && width == 8 && avx512:
		interleave2x8AVX512(dst, src, srcStride, n)
	case cols == 4 && width == 8 && avx512:
		interleave4x8AVX512(dst, src, srcStride, n)
	case cols == 3 && width == 8 && avx512:
		interleave3x8AVX512(dst, src, srcStride, n)
	case cols == 2 && width == 16 && avx512:
		interleave2x16AVX512(dst, src, srcStride, n)
	case cols == 2 && width == 1 && avx512:
		interleave2x1AVX512(dst, src, srcStride, n)
	case cols == 2 && width == 1:
		interleave2x1AVX2(dst, src, srcStride, n)
	case cols == 2 && width == 2 && avx512:
		interleave2x2AVX512(dst, src, srcStride, n)
	case cols == 2 && width == 2:
		interleave2x2AVX2(dst, src, srcStride, n)
	case cols == 2 && width == 4 && avx512:
		interleave2x4AVX512(dst, src, srcStride, n)
	case cols == 2 && width == 4:
		interleave2x4AVX2(dst, src, srcStride, n)
	case cols == 3 && width == 1 && avx512:
		interleave3x1AVX512(dst, src, srcStride, n)
	case cols == 3 && width == 1:
		interleave3x1AVX2(dst, src, srcStride, n)
	case cols == 3 && width == 2 && avx512:
		interleave3x2AVX512(dst, src, srcStride, n)
	case cols == 3 && width == 2:
		interleave3x2AVX2(dst, src, srcStride, n)
	case cols == 3 && width == 4 && avx512:
		interleave3x4AVX512(dst, src, srcStride, n)
	case cols == 3 && width == 4:
		interleave3x4AVX2(dst, src, srcStride, n)
	case cols == 4 && width == 1 && avx512:
		interleave4x1AVX512(dst, src, srcStride, n)
	case cols == 4 && width == 1:
		interleave4x1AVX2(dst, src, srcStride, n)
	case cols == 4 && width == 2 && avx512:
		interleave4x2AVX512(dst, src, srcStride, n)
	case cols == 4 && width == 2:
		interleave4x2AVX2(dst, src, srcStride, n)
	case cols == 4 && width == 4 && avx512:
		interleave4x4AVX512(dst, src, srcStride, n)
	case cols == 4 && width == 4:
		interleave4x4AVX2(dst, src, srcStride, n)
	case cols == 8 && width == 1 && avx512:
		interleave8x1AVX512(dst, src, srcStride, n)
	case cols == 8 && width == 1:
		interleave8x1AVX2(dst, src, srcStride, n)
	case cols == 8 && width == 2 && avx512:
		interleave8x2AVX512(dst, src, srcStride, n)
	case cols == 8 && width == 2:
		interleave8x2AVX2(dst, src, srcStride, n)
	default:
		return 0
	}
	return n * chunk
}

// The streaming 3-way weaves by [log2 width][AVX-512].
var (
	interleave3Streams = [3][2]func(dst *byte, src *byte, srcStride int, n int){
		{interleave3x1StreamAVX2, interleave3x1StreamAVX512}, {interleave3x2StreamAVX2, interleave3x2StreamAVX512}, {interleave3x4StreamAVX2, interleave3x4StreamAVX512},
	}
	deinterleave3Streams = [3][2]func(dst *byte, dstStride int, src *byte, n int){
		{deinterleave3x1StreamAVX2, deinterleave3x1StreamAVX512}, {deinterleave3x2StreamAVX2, deinterleave3x2StreamAVX512}, {deinterleave3x4StreamAVX2, deinterleave3x4StreamAVX512},
	}
)

// weave3StreamAsm runs the streaming kernel of the 3-way interleave
// (count groups of 3 elements into dst, the source rows srcStride apart)
// or, with inverse, de-interleave (count elements of each of 3
// destination rows dstStride apart) over the whole chunks, its stores
// left unfenced, and returns how many elements of each row it moved: 0
// where the level has no such kernel or the destination is not aligned
// for its vector stores (64 bytes with AVX-512, 32 with AVX2, 16 for the
// AVX2 interleave's pieces).
func weave3StreamAsm(width int, inverse bool, dst *byte, dstStride int, src *byte, srcStride int, count int) int {
	chunk, avx512 := weaveChunk(width)
	if chunk == 0 || width > 4 || !pow2(width) || count < chunk {
		return 0
	}
	align, a := 64, 1
	if !avx512 {
		align, a = 32, 0
		if !inverse {
			align = 16
		}
	}
	if uintptr(unsafe.Pointer(dst))%uintptr(align) != 0 || inverse && dstStride%align != 0 {
		return 0
	}
	n, w := count/chunk, bits.TrailingZeros(uint(width))
	if inverse {
		deinterleave3Streams[w][a](dst, dstStride, src, n)
	} else {
		interleave3Streams[w][a](dst, src, srcStride, n)
	}
	return n * chunk
}

// interleaveGridFunc and deinterleaveGridFunc are the signatures of the
// grid kernels.
type (
	interleaveGridFunc   func(dst *byte, src *byte, srcStride int, n int, back int, keep int, pad *byte, inner int, outer int, dstInner int, srcInner int, dstOuter int, srcOuter int, ahead int, stream bool)
	deinterleaveGridFunc func(dst *byte, dstStride int, src *byte, n int, back int, keep int, inner int, outer int, dstInner int, srcInner int, dstOuter int, srcOuter int, stream bool)
)

// The grid kernels by [rows or columns woven / 4][log2 width][AVX-512].
var (
	interleaveGrids = [2][3][2]interleaveGridFunc{
		{{interleave2x1GridAVX2, interleave2x1GridAVX512}, {interleave2x2GridAVX2, interleave2x2GridAVX512}, {interleave2x4GridAVX2, interleave2x4GridAVX512}},
		{{interleave4x1GridAVX2, interleave4x1GridAVX512}, {interleave4x2GridAVX2, interleave4x2GridAVX512}, {interleave4x4GridAVX2, interleave4x4GridAVX512}},
	}
	deinterleaveGrids = [2][3][2]deinterleaveGridFunc{
		{{deinterleave2x1GridAVX2, deinterleave2x1GridAVX512}, {deinterleave2x2GridAVX2, deinterleave2x2GridAVX512}, {deinterleave2x4GridAVX2, deinterleave2x4GridAVX512}},
		{{deinterleave4x1GridAVX2, deinterleave4x1GridAVX512}, {deinterleave4x2GridAVX2, deinterleave4x2GridAVX512}, {deinterleave4x4GridAVX2, deinterleave4x4GridAVX512}},
	}
)

// weaveGridAsm runs the grid kernel of the interleave (cols 2 or 4, a
// contiguous destination) or de-interleave (rows 2 or 4, a contiguous
// source) that Transpose would run on each block of g, streamed or not,
// and returns how many of each block's rows (interleave) or columns
// (de-interleave) it moved, or 0 when it has no kernel for the shape or,
// streamed, the destination is not aligned for the vector stores.
func weaveGridAsm(width int, dst *byte, dstStride int, src *byte, srcStride int, rows, cols int, g Grid, stream bool) (done int, inverse bool) {
	chunk, avx512 := weaveChunk(width)
	if chunk == 0 || width > 4 || !pow2(width) {
		return 0, false
	}
	vec := 32
	if avx512 {
		vec = 64
	}
	aligned := func(v ...int) bool {
		if !stream {
			return true // plain stores take any address
		}
		for _, x := range v {
			if x%vec != 0 {
				return false
			}
		}
		return true
	}
	a := 0
	if avx512 {
		a = 1
	}
	lw := bits.TrailingZeros(uint(width))
	d := int(uintptr(unsafe.Pointer(dst)))
	k, kd := srcStride/width, dstStride/width // a de-interleave's groups, an interleave's
	switch {
	case (k == 2 || k == 4) && srcStride == k*width && rows <= k && cols >= chunk && aligned(d, dstStride, g.DstInner, g.DstOuter):
		// The source's groups of k, of which the destination takes the
		// first rows (all k but for a tile's partial group).
		n, back := backChunk(cols, chunk, width, 1, aligned) // back bytes into the destination rows
		if rows < k && n*chunk < cols && back == 0 {
			return 0, false // weaveRest's kernels store all k rows
		}
		deinterleaveGrids[k/4][lw][a](dst, dstStride, src, n, back, rows, g.Inner, g.Outer, g.DstInner, g.SrcInner, g.DstOuter, g.SrcOuter, stream)
		fenceGrid(g, stream)
		return moved(n, back, cols, chunk), true
	case (kd == 2 || kd == 4) && dstStride == kd*width && cols <= kd && rows >= chunk && aligned(d, g.DstInner, g.DstOuter):
		// The destination's groups of kd, of which the source gives the
		// first cols (all kd but for a tile's partial group), the rest
		// the padding's.
		pad := &noPad[0]
		if cols < kd {
			if g.Pad == nil {
				return 0, false // the rest of each group stays as it was
			}
			pad = &g.Pad[0]
		}
		n, back := backChunk(rows, chunk, width, kd, aligned) // kd*back into its stream
		if cols < kd && n*chunk < rows && back == 0 {
			return 0, false // weaveRest's kernels read all kd rows
		}
		interleaveGrids[kd/4][lw][a](dst, src, srcStride, n, back, cols, pad, g.Inner, g.Outer, g.DstInner, g.SrcInner, g.DstOuter, g.SrcOuter, prefetchAhead(g.Ahead), stream)
		fenceGrid(g, stream)
		return moved(n, back, rows, chunk), false
	}
	return 0, false
}

// noPad is the padding vector of interleaves that read every row.
var noPad [PadBytes]byte

// backChunk returns the chunks a grid kernel moves of a block's m
// elements a row, chunk a chunk, and its back: where m is no multiple of
// chunk, a last chunk that ends at the block's edge, back bytes into its
// rows, which the kernel takes in the same call; none (back 0) where
// its stores there, k*back bytes into the destination, would not be
// aligned (aligned says, of such offsets, whether they would be).
func backChunk(m, chunk, width, k int, aligned func(...int) bool) (n, back int) {
	n = m / chunk
	if m%chunk == 0 {
		return n, 0
	}
	back = (m - chunk) * width
	if !aligned(k * back) {
		return n, 0
	}
	return n + 1, back
}

// moved is how many of a block's m elements a row a grid kernel moved:
// n chunks of chunk, or all m where it took a back chunk.
func moved(n, back, m, chunk int) int {
	if back != 0 {
		return m
	}
	return n * chunk
}

// prefetchAhead is the distance the interleave grids prefetch at for a
// caller's Grid.Ahead: 0, no prefetch, past 32 KiB, where the lines
// would leave L1 before they are read and the hardware prefetchers
// follow such long rows anyway (bf16 [8192,16384] to T(8,128)(2,1) ran
// slower with 256 KiB ahead than without).
func prefetchAhead(ahead int) int {
	if ahead < -32<<10 || ahead > 32<<10 {
		return 0
	}
	return ahead
}

// fenceGrid fences a grid kernel's non-temporal stores (stream) unless
// the caller said it will (g.Unfenced).
func fenceGrid(g Grid, stream bool) {
	if stream && !g.Unfenced {
		storeFence()
	}
}

// deinterleaveAsm runs the de-interleave into rows (2, 3 or 4 of
// width-byte elements, 1, 2 or 4; or 8 of 1 or 2 bytes) destination rows
// at the level in use over cols elements, and returns how many it did (a
// multiple of its chunk), or 0 if it has no kernel.
func deinterleaveAsm(width int, dst *byte, dstStride int, src *byte, rows, cols int) int {
	chunk, avx512 := weaveChunk(width)
	if chunk == 0 {
		return 0
	}
	done := deinterleaveChunks(width, chunk, avx512, dst, dstStride, src, rows, cols)
	// The AVX2 kernels, whose chunk is half the AVX-512 ones', take a
	// rest of one (rows of 32 bytes: T(32,32) tiles' rows).
	if half := 32 / width; avx512 && cols-done >= half {
		done += deinterleaveChunks(width, half, false, (*byte)(unsafe.Add(unsafe.Pointer(dst), done*width)), dstStride, (*byte)(unsafe.Add(unsafe.Pointer(src), done*rows*width)), rows, cols-done)
	}
	return done
}

// deinterleaveChunks is deinterleaveAsm over the whole chunks of cols with
// the AVX-512 kernels (avx512) or the AVX2 ones, of chunk elements.
func deinterleaveChunks(width, chunk int, avx512 bool, dst *byte, dstStride int, src *byte, rows, cols int) int {
	if cols < chunk {
		return 0
	}
	n := cols / chunk
	switch {
	case rows == 2 && width == 8 && avx512:
		deinterleave2x8AVX512(dst, dstStride, src, n)
	case rows == 4 && width == 8 && avx512:
		deinterleave4x8AVX512(dst, dstStride, src, n)
	case rows == 3 && width == 8 && avx512:
		deinterleave3x8AVX512(dst, dstStride, src, n)
	case rows == 2 && width == 16 && avx512:
		deinterleave2x16AVX512(dst, dstStride, src, n)
	case rows == 2 && width == 1 && avx512:
		deinterleave2x1AVX512(dst, dstStride, src, n)
	case rows == 2 && width == 1:
		deinterleave2x1AVX2(dst, dstStride, src, n)
	case rows == 2 && width == 2 && avx512:
		deinterleave2x2AVX512(dst, dstStride, src, n)
	case rows == 2 && width == 2:
		deinterleave2x2AVX2(dst, dstStride, src, n)
	case rows == 2 && width == 4 && avx512:
		deinterleave2x4AVX512(dst, dstStride, src, n)
	case rows == 2 && width == 4:
		deinterleave2x4AVX2(dst, dstStride, src, n)
	case rows == 3 && width == 1 && avx512:
		deinterleave3x1AVX512(dst, dstStride, src, n)
	case rows == 3 && width == 1:
		deinterleave3x1AVX2(dst, dstStride, src, n)
	case rows == 3 && width == 2 && avx512:
		deinterleave3x2AVX512(dst, dstStride, src, n)
	case rows == 3 && width == 2:
		deinterleave3x2AVX2(dst, dstStride, src, n)
	case rows == 3 && width == 4 && avx512:
		deinterleave3x4AVX512(dst, dstStride, src, n)
	case rows == 3 && width == 4:
		deinterleave3x4AVX2(dst, dstStride, src, n)
	case rows == 4 && width == 1 && avx512:
		deinterleave4x1AVX512(dst, dstStride, src, n)
	case rows == 4 && width == 1:
		deinterleave4x1AVX2(dst, dstStride, src, n)
	case rows == 4 && width == 2 && avx512:
		deinterleave4x2AVX512(dst, dstStride, src, n)
	case rows == 4 && width == 2:
		deinterleave4x2AVX2(dst, dstStride, src, n)
	case rows == 4 && width == 4 && avx512:
		deinterleave4x4AVX512(dst, dstStride, src, n)
	case rows == 4 && width == 4:
		deinterleave4x4AVX2(dst, dstStride, src, n)
	case rows == 8 && width == 1 && avx512:
		deinterleave8x1AVX512(dst, dstStride, src, n)
	case rows == 8 && width == 1:
		deinterleave8x1AVX2(dst, dstStride, src, n)
	case rows == 8 && width == 2 && avx512:
		deinterleave8x2AVX512(dst, dstStride, src, n)
	case rows == 8 && width == 2:
		deinterleave8x2AVX2(dst, dstStride, src, n)
	default:
		return 0
	}
	return n * chunk
}

// fillAsm runs fillRunsAVX2 and reports true, or reports false if the
// level in use has no such kernel.
func fillAsm(dst *byte, dstStride int, n, rows int, pat *[32]byte) bool {
	if !useAVX2 {
		return false
	}
	fillRunsAVX2(dst, dstStride, n, rows, pat)
	return true
}

// haveAsm reports that this build has assembly kernels.
const haveAsm = true

// A kernelID names one transpose micro-kernel: 0 is none (the generic
// path); 1+id is the registry's kernel id (asmKernels, generated in
// kernels_stubs_amd64.go), for the kernels of kinds asmTranspose,
// asmTransposeRows, asmTransposeTo and asmTransposeFrom, which strip runs;
// the line kernels follow the registry's.
type kernelID uint16

// The micro-kernels the Go side names; the record transposes (3- to
// 15-byte elements that are no power of two) it finds in the registry
// (plainKernels).
const (
	kNone         kernelID = 0
	k1AVX512               = 1 + kernelID(idTranspose1AVX512)
	k2AVX512               = 1 + kernelID(idTranspose2AVX512)
	k4AVX512               = 1 + kernelID(idTranspose4AVX512)
	k8AVX512               = 1 + kernelID(idTranspose8AVX512)
	k16AVX512              = 1 + kernelID(idTranspose16AVX512)
	k4AVX2                 = 1 + kernelID(idTranspose4AVX2)
	k8AVX2                 = 1 + kernelID(idTranspose8AVX2)
	k16AVX2                = 1 + kernelID(idTranspose16AVX2)
	k1RowsAVX512           = 1 + kernelID(idTranspose1RowsAVX512)
	k2RowsAVX512           = 1 + kernelID(idTranspose2RowsAVX512)
	k1AVX2                 = 1 + kernelID(idTranspose1AVX2)
	k2AVX2                 = 1 + kernelID(idTranspose2AVX2)
	k4To2AVX512            = 1 + kernelID(idTranspose4To2AVX512)
	k4To4AVX512            = 1 + kernelID(idTranspose4To4AVX512)
	k4From2AVX512          = 1 + kernelID(idTranspose4From2AVX512)
	k4From4AVX512          = 1 + kernelID(idTranspose4From4AVX512)
	k4From8AVX512          = 1 + kernelID(idTranspose4From8AVX512)
	k4To2AVX2              = 1 + kernelID(idTranspose4To2AVX2)
	k4To4AVX2              = 1 + kernelID(idTranspose4To4AVX2)
	k4From2AVX2            = 1 + kernelID(idTranspose4From2AVX2)
	k4From4AVX2            = 1 + kernelID(idTranspose4From4AVX2)
	k4From8AVX2            = 1 + kernelID(idTranspose4From8AVX2)
	// A streaming kernel with no plain twin: 2-byte elements, a whole
	// line of each source and destination row a block.
	k2LinesAVX512 = 1 + kernelID(idTranspose2LinesStreamAVX512)
	// The blocks of the AVX2 streaming kernels, a line of each source
	// and destination row: plainly, two blocks of the AVX2 kernel
	// (lineKernels).
	k4LinesAVX2  = 1 + kernelID(numAsmKernels)
	k8LinesAVX2  = k4LinesAVX2 + 1
	k16LinesAVX2 = k4LinesAVX2 + 2
	numKernelIDs = k4LinesAVX2 + 3
)

// lineKernels[k-k4LinesAVX2] is the AVX2 kernel two of whose blocks make
// one of line kernel k.
var lineKernels = [...]kernelID{k4AVX2, k8AVX2, k16AVX2}

// recordSlot is the slot the record transposes spread a w-byte record
// to: the power of two from w up, 4 at least.
func recordSlot(w int) int {
	slot := 4
	for slot < w {
		slot *= 2
	}
	return slot
}

// kernelShape is a micro-kernel's register block: bi destination rows
// (source elements) by bj destination columns (source rows).
type kernelShape struct {
	bi, bj int
	name   string
}

var shapes = [numKernelIDs]kernelShape{
	kNone:     {0, 0, "generic"},
	k1AVX512:  {16, 64, "avx512 64x16 (vpermb, dword 16x16)"},
	k2AVX512:  {16, 32, "avx512 32x16 (vpermw, dword 16x16)"},
	k4AVX512:  {16, 16, "avx512 16x16"},
	k8AVX512:  {8, 8, "avx512 8x8"},
	k16AVX512: {4, 4, "avx512 4x4"},
	k4AVX2:    {8, 16, "avx2 16x8 (two 8x8)"},
	k8AVX2:    {4, 8, "avx2 8x4 (two 4x4)"},
	k16AVX2:   {2, 4, "avx2 4x2 (two 2x2)"},
	// Reading whole source lines, writing 16 or 32 bytes per row: for
	// the staged path, whose destination is a cache-resident tile.
	k1RowsAVX512: {64, 16, "avx512 16x64 (dword 16x16, vpermb)"},
	k2RowsAVX512: {32, 16, "avx512 16x32 (dword 16x16, vpermw)"},
	k1AVX2:       {32, 16, "avx2 16x32 (16x16 bytes in lanes)"},
	k2AVX2:       {16, 16, "avx2 16x16 (8x8 words in lanes)"},
	// Blocks with few rows on one side.
	k4To2AVX512:   {2, 16, "avx512 16x2 (vshufps)"},
	k4To4AVX512:   {4, 16, "avx512 16x4 (4x4 in lanes)"},
	k4From2AVX512: {16, 2, "avx512 2x16 (vpunpckldq)"},
	k4From4AVX512: {16, 4, "avx512 4x16 (4x4 in lanes)"},
	k4From8AVX512: {16, 8, "avx512 8x16 (4x4 in lanes)"},
	k4To2AVX2:     {2, 8, "avx2 8x2 (vshufps)"},
	k4To4AVX2:     {4, 8, "avx2 8x4 (4x4 in lanes)"},
	k4From2AVX2:   {8, 2, "avx2 2x8 (vpunpckldq)"},
	k4From4AVX2:   {8, 4, "avx2 4x8 (4x4 in lanes)"},
	k4From8AVX2:   {8, 8, "avx2 8x8 (4x4 in lanes)"},
	k2LinesAVX512: {32, 32, "avx512 32x32 (lanes, 8x8 words)"},
	k4LinesAVX2:   {16, 16, "avx2 16x16 (four 8x8)"},
	k8LinesAVX2:   {8, 8, "avx2 8x8 (four 4x4)"},
	k16LinesAVX2:  {4, 4, "avx2 4x4 (four 2x2)"},
}

// The registry's plain transposes by level and element width, its
// kernels of kind asmTranspose: plainKernels[0][w] needs AVX-512 (and
// VBMI where plainVBMI[w] says so), plainKernels[1][w] AVX2; kNone where
// the level has none for w. stripKernels[k] is the function of kernel
// k (strip), for every kernel of the four kinds strip runs. init fills
// them, and the shapes of the record transposes, from asmKernels.
var (
	plainKernels [2][16 + 1]kernelID
	plainVBMI    [16 + 1]bool
	stripKernels [numKernelIDs]func(dst *byte, dstStride int, src *byte, srcStride int, n int)
)

func init() {
	for id, e := range asmKernels {
		k := 1 + kernelID(id)
		switch e.kind {
		case asmTranspose, asmTransposeRows, asmTransposeTo, asmTransposeFrom:
			stripKernels[k] = e.fn.(func(dst *byte, dstStride int, src *byte, srcStride int, n int))
		}
		if e.kind != asmTranspose {
			continue
		}
		l, vector, shuffle := 1, 32, "vpshufb"
		if e.level == levelAVX512 {
			l, vector, shuffle = 0, 64, "vpermb"
			plainVBMI[e.width] = e.flags&asmVBMI != 0
		}
		plainKernels[l][e.width] = k
		if e.width&(e.width-1) != 0 {
			// A record transpose: n = vector/slot records of each of
			// n source rows, the slot the power of two above the record.
			slot := recordSlot(e.width)
			n := vector / slot
			shapes[k] = kernelShape{n, n, fmt.Sprintf("%s %dx%d (%d-byte slots, %s)", e.level, n, n, slot, shuffle)}
		}
	}
}

// transposeKernel picks the micro-kernel for width-byte elements at the
// level in use: the registry's plain transpose of the best level the
// CPU lets it use.
func transposeKernel(width int) kernelID {
	if width >= len(plainVBMI) {
		return kNone
	}
	if k := plainKernels[0][width]; k != kNone && useAVX512 && (useVBMI || !plainVBMI[width]) {
		return k
	}
	return avx2Kernel(width)
}

// avx2Kernel is the AVX2 micro-kernel for width-byte elements, kNone
// without AVX2.
func avx2Kernel(width int) kernelID {
	if !useAVX2 || width >= len(plainVBMI) {
		return kNone
	}
	return plainKernels[1][width]
}

// narrowKernels are the kernels for blocks of 4-byte elements too small
// for transposeKernel's register block, in the order fitKernel tries
// them: the largest blocks first, AVX-512 before AVX2.
var narrowKernels = [...]kernelID{
	k4From8AVX512, k4To4AVX512, k4From4AVX512, k4To2AVX512, k4From2AVX512,
	k4From8AVX2, k4To4AVX2, k4From4AVX2, k4To2AVX2, k4From2AVX2,
}

// fitKernel is the micro-kernel for a rows × cols block of width-byte
// elements too small for transposeKernel's register block, kNone where
// none fits: the AVX2 one where that is an AVX-512 one (f32: 8
// destination rows against 16), and for 4-byte elements one of the
// narrow kernels (2 or 4 destination rows, 2, 4 or 8 source rows).
func fitKernel(width, rows, cols int) kernelID {
	fits := func(k kernelID) bool { return rows >= shapes[k].bi && cols >= shapes[k].bj }
	if k := avx2Kernel(width); k != kNone && k != transposeKernel(width) && fits(k) {
		return k
	}
	if width != 4 || !useAVX2 {
		return kNone
	}
	for _, k := range narrowKernels {
		if (useAVX512 || !isAVX512(k)) && fits(k) {
			return k
		}
	}
	return kNone
}

// isAVX512 reports whether narrow kernel k needs AVX-512.
func isAVX512(k kernelID) bool { return asmKernels[k-1].level == levelAVX512 }

func kernelName(width int) string {
	name := shapes[transposeKernel(width)].name
	if k := streamKernel(width); k != kNone {
		name += "; streamed (larger than the LLC): " + shapes[k].name
		if k == k2AVX512 { // streamedKernel's other choice
			name += "; crowded sources streamed: " + shapes[k2LinesAVX512].name
		}
	} else if k := stagedKernel(width); k != kNone {
		name += "; staged (larger than the LLC): " + shapes[k].name
	}
	name += weaveNote(width, useAVX2, 2)
	if width == 4 && useAVX2 {
		// The blocks of each level, "avx512 8x16 16x4 ...".
		var levels []string
		for _, k := range narrowKernels {
			if !useAVX512 && isAVX512(k) {
				continue
			}
			f := strings.Fields(shapes[k].name)
			if n := len(levels); n > 0 && strings.HasPrefix(levels[n-1], f[0]+" ") {
				levels[n-1] += " " + f[1]
			} else {
				levels = append(levels, f[0]+" "+f[1])
			}
		}
		name += "; 2 to 8 rows on a side: " + strings.Join(levels, "; 2 to 8 rows on a side: ")
	}
	return name
}

// strip runs kernel k on n blocks.
func strip(k kernelID, dst *byte, dstStride int, src *byte, srcStride int, n int) {
	if k >= k4LinesAVX2 {
		// Along the source rows, a block is two of the AVX2 kernel's.
		k, n = lineKernels[k-k4LinesAVX2], 2*n
	}
	stripKernels[k](dst, dstStride, src, srcStride, n)
}

// stagedKernel picks the micro-kernel transposeStaged uses for
// width-byte elements at the level in use. Its destination is a
// cache-resident tile, so 1- and 2-byte elements take the kernels that
// read whole source lines and write part lines.
func stagedKernel(width int) kernelID {
	switch {
	case width == 1 && useVBMI:
		return k1RowsAVX512
	case width == 2 && useAVX512:
		return k2RowsAVX512
	}
	return transposeKernel(width)
}

// streamKernel returns the kernel whose streaming twin (stripStream)
// transposes width-byte elements at the level in use, or kNone: the
// AVX-512 kernels, and at AVX2 the line kernels of 4-, 8- and 16-byte
// elements (k4LinesAVX2...), whose block is four of the AVX2 kernel's.
// The AVX2 kernel's own block reads half of each source line and leaves
// the rest to a later strip, by which time, at the power-of-two strides
// of large planes, the block's rows have evicted each other from their
// L1 set, so every line was fetched twice (f32 8192² streamed that way
// ran slower than staged). The line kernels read each source line whole
// within a block, and fetch it once: with them C3, C4 and C7, f64
// [3000,5000] and f32 2048² ran faster streamed than staged
// (TILECOPY_CPU=avx2 relayout bench). The 1- and 2-byte gather kernels
// read quarter and half lines too, and so stream from a copy of the
// source (see transposeStreamedGather); at AVX2 they stream staged.
func streamKernel(width int) kernelID {
	switch k := transposeKernel(width); k {
	case k1AVX512, k2AVX512, k4AVX512, k8AVX512, k16AVX512:
		return k
	case k4AVX2:
		return k4LinesAVX2
	case k8AVX2:
		return k8LinesAVX2
	case k16AVX2:
		return k16LinesAVX2
	}
	return kNone
}

// hasSkew reports whether streaming kernel k has a skew twin
// (stripSkew): every AVX-512 one, and the AVX2 ones of 4-, 8- and 16-byte
// elements.
func hasSkew(k kernelID) bool { return skewPitch(k) > 0 }

// skewPitch is how many bytes a row of the band the skew twin of
// streaming kernel k keeps in prev: 64 for the AVX-512 ones, 128 for the
// AVX2 ones, which join lines in memory; 0 where k has none.
func skewPitch(k kernelID) int {
	switch k {
	case k1AVX512, k2AVX512, k2LinesAVX512, k4AVX512, k8AVX512, k16AVX512:
		return 64
	case k4LinesAVX2, k8LinesAVX2, k16LinesAVX2:
		return 128
	}
	return 0
}

// stripStream runs the streaming twin of kernel k (one streamKernel
// returns) on n blocks down the source, prefetching as it goes.
func stripStream(k kernelID, dst *byte, dstStride int, src *byte, srcStride int, n int, pf *byte, pfStride, pfN int) {
	switch k {
	case k4AVX512:
		transpose4StreamAVX512(dst, dstStride, src, srcStride, n, pf, pfStride, pfN)
	case k8AVX512:
		transpose8StreamAVX512(dst, dstStride, src, srcStride, n, pf, pfStride, pfN)
	case k16AVX512:
		transpose16StreamAVX512(dst, dstStride, src, srcStride, n, pf, pfStride, pfN)
	case k1AVX512:
		transpose1StreamAVX512(dst, dstStride, src, srcStride, n, pf, pfStride, pfN)
	case k2AVX512:
		transpose2StreamAVX512(dst, dstStride, src, srcStride, n, pf, pfStride, pfN)
	case k2LinesAVX512:
		transpose2LinesStreamAVX512(dst, dstStride, src, srcStride, n, pf, pfStride, pfN)
	case k4LinesAVX2:
		transpose4StreamAVX2(dst, dstStride, src, srcStride, n, pf, pfStride, pfN)
	case k8LinesAVX2:
		transpose8StreamAVX2(dst, dstStride, src, srcStride, n, pf, pfStride, pfN)
	case k16LinesAVX2:
		transpose16StreamAVX2(dst, dstStride, src, srcStride, n, pf, pfStride, pfN)
	default:
		panic("tilecopy: no streaming twin of kernel " + shapes[k].name)
	}
}

// transposeStreamed transposes the full blocks of a destination too large
// for the caches straight to memory, tile by tile, with the streaming
// twin of kernel k: a tile is tuning.StageRow of each of tuning.StageCol/width
// source rows, which the kernel reads from the caches (prefetched while
// the tile before it ran) and writes as runs of tuning.StageCol of its
// destination rows, bi rows at a time. Each kernel call prefetches its
// share of the next tile's source, one line per line it writes, so that
// the reads of one tile overlap the transposes and stores of the other.
// fullRows is a multiple of 64/width and of the kernel's bi, fullCols of
// its bj; dp and dstStride are multiples of 64. The gather kernels of 1-
// and 2-byte elements go through transposeStreamedGather where their
// source rows crowd the L1 sets (slabbed).
//
// This ran faster on f32 8192² than the staged tile (transposeStaged),
// which transposes into a cache-resident buffer and then streams that
// out: there the transposes and the memory traffic take turns, here they
// overlap.
//
// With skew (a destination whose rows start off line boundaries, see
// skewer) it runs the kernels' skew twins instead, and dp and dstStride
// are free (multiples of the twin's permute element, skewElement).
func transposeStreamed(k kernelID, width int, dp unsafe.Pointer, dstStride int, sp unsafe.Pointer, srcStride int, fullRows, fullCols int, skew bool, after unsafe.Pointer) {
	k = streamedKernel(k, srcStride, fullRows*fullCols*width)
	if (k == k1AVX512 || k == k2AVX512) && slabbed(k, srcStride, fullRows*fullCols*width) {
		if tuning.CopyRowsFirst {
			transposeStreamedCopied(k, width, dp, dstStride, sp, srcStride, fullRows, fullCols, skew)
			return
		}
		transposeStreamedGather(k, width, dp, dstStride, sp, srcStride, fullRows, fullCols, skew, after)
		return
	}
	sh := shapes[k]
	ti := max(tuning.StageRow/width/sh.bi, 1) * sh.bi
	sk := newSkewer(skew, k, width, dp, dstStride, fullRows, fullCols, ti)
	defer sk.release()
	tj, capped := tileRows(max(tuning.StageCol/width/sh.bj, 1)*sh.bj, width, srcStride, sh.bj)
	for i0 := 0; i0 < fullRows; i0 += ti {
		ni := min(ti, fullRows-i0)
		if sk != nil {
			sk.band(i0, ni)
		}
		for j0 := 0; j0 < fullCols; j0 += tj {
			nj := min(tj, fullCols-j0)
			nt := nextTile(sh, width, sp, after, i0, j0, ti, tj, nj, fullRows, fullCols)
			d := unsafe.Add(dp, i0*dstStride+j0*width)
			s := unsafe.Add(sp, j0*srcStride+i0*width)
			for i := 0; i < ni; i += sh.bi {
				di, si := unsafe.Add(d, i*dstStride), (*byte)(unsafe.Add(s, i*width))
				pf, pfStride, pfN := nt.walk(capped, si, srcStride, srcStride, width, i/sh.bi)
				if sk != nil {
					sk.strip(i0, i/sh.bi, j0 == 0, di, si, srcStride, nj/sh.bj, pf, pfStride, pfN)
				} else {
					stripStream(k, (*byte)(di), dstStride, si, srcStride, nj/sh.bj, pf, pfStride, pfN)
				}
			}
		}
		if sk != nil {
			sk.finish(width, i0, ni, fullCols)
		}
	}
	storeFence()
}

// streamedKernel is the kernel transposeStreamed runs for streaming
// kernel k on bytes of source at srcStride: k, except that 2-byte
// elements whose source rows crowd the L1 sets (slabbed) take
// k2LinesAVX512 (its skew twin for destination rows off lines). Its
// block reads a whole line of each of its 32 source rows, where
// k2AVX512's reads half of each, so that there its tiles had to be
// copied or slabbed first
// (transposeStreamedCopied, transposeStreamedGather); u16 8192×16384 ran
// faster so (relayout bench C2; docs/perf). Where the rows are apart in
// the sets, k2AVX512 ran as fast or faster (bf16 NHWC to NCHW, whose
// source rows are single lines).
func streamedKernel(k kernelID, srcStride, bytes int) kernelID {
	if k == k2AVX512 && slabbed(k, srcStride, bytes) {
		return k2LinesAVX512
	}
	return k
}

// stripSkew runs the skew twin of streaming kernel k (stripStream).
func stripSkew(k kernelID, dst, prev, src *byte, srcStride int, n int, pf *byte, pfStride, pfN int, rows *skewRow) {
	t := (*byte)(unsafe.Pointer(rows))
	switch k {
	case k4AVX512:
		transpose4SkewAVX512(dst, prev, src, srcStride, n, pf, pfStride, pfN, t)
	case k8AVX512:
		transpose8SkewAVX512(dst, prev, src, srcStride, n, pf, pfStride, pfN, t)
	case k16AVX512:
		transpose16SkewAVX512(dst, prev, src, srcStride, n, pf, pfStride, pfN, t)
	case k1AVX512:
		transpose1SkewAVX512(dst, prev, src, srcStride, n, pf, pfStride, pfN, t)
	case k2AVX512:
		transpose2SkewAVX512(dst, prev, src, srcStride, n, pf, pfStride, pfN, t)
	case k2LinesAVX512:
		transpose2LinesSkewAVX512(dst, prev, src, srcStride, n, pf, pfStride, pfN, t)
	case k4LinesAVX2:
		transpose4SkewAVX2(dst, prev, src, srcStride, n, pf, pfStride, pfN, t)
	case k8LinesAVX2:
		transpose8SkewAVX2(dst, prev, src, srcStride, n, pf, pfStride, pfN, t)
	case k16LinesAVX2:
		transpose16SkewAVX2(dst, prev, src, srcStride, n, pf, pfStride, pfN, t)
	default:
		panic("tilecopy: no skew twin of kernel " + shapes[k].name)
	}
}

// A skewRow is the skew kernels' entry for a destination row (see
// transpose4SkewAVX512).
type skewRow struct{ off, add int }

// A skewer runs the skew kernels (stripSkew) for the streaming
// transposes of a destination whose rows start off line boundaries (a
// start or stride that is no multiple of 64, but is one of 4). Each row
// is written from its first line boundary on in whole lines, each joined
// from two blocks: so each strip of a band of destination rows carries
// its last block from call to call in prev (64 bytes a row), and begins
// with block 0 transposed there by the plain kernel. What lies before
// each row's first boundary is copied from that block, and what lies
// after its last whole line from the last (finish).
//
// Before, such destinations took the plain kernels' band loop, whose
// ordinary stores read each destination line from memory before they
// write it; f32 [8001,8001] and [8191,8191] and f64 [8191,8191] ran
// faster streamed (relayout bench). The 1- and 2-byte gather kernels
// have skew twins too (VPERMI2B, VPERMI2W), which their tiles copied
// into a buffer first (transposeStreamedCopied) run in place of the
// staged tile's carried part lines.
type skewer struct {
	k         kernelID
	pe        int // bytes of the twin's permute element (skewElement)
	dst       []byte
	dstStride int
	pitch     int                 // bytes of prev a row (skewPitch)
	prev      []byte              // the last block's 64 bytes of each row of the band, pitch apart
	rows      []skewRow           // the kernels' entry for each row of the band
	buf       *[scratchBytes]byte // the scratch buffer prev lies in
}

// newSkewer returns, with skew, the skewer for kernel k of width-byte
// elements on the fullRows × fullCols destination at dp, for bands of
// up to ti rows, its prev in a scratch buffer that release puts back;
// nil without skew.
func newSkewer(skew bool, k kernelID, width int, dp unsafe.Pointer, dstStride, fullRows, fullCols, ti int) *skewer {
	if !skew {
		return nil
	}
	p := skewPitch(k)
	buf := scratchPool.Get().(*[scratchBytes]byte)
	dst := unsafe.Slice((*byte)(dp), (fullRows-1)*dstStride+fullCols*width)
	return &skewer{k: k, pe: skewElement(width), dst: dst, dstStride: dstStride, pitch: p, prev: buf[:ti*p], rows: make([]skewRow, ti), buf: buf}
}

// release puts sk's scratch buffer back; nothing for a nil sk.
func (sk *skewer) release() {
	if sk != nil {
		scratchPool.Put(sk.buf)
	}
}

// head is the bytes from the start of row r of the band to its first
// line boundary, which its entry's add holds in permute elements past a
// line of them.
func (sk *skewer) head(r int) int { return sk.rows[r].add*sk.pe - 64 }

// band sets up the band of destination rows from row i0 on, ni of them.
func (sk *skewer) band(i0, ni int) {
	dp := uintptr(unsafe.Pointer(unsafe.SliceData(sk.dst)))
	for r := range ni {
		h := int(-(dp + uintptr((i0+r)*sk.dstStride)) & 63)
		sk.rows[r] = skewRow{off: r%shapes[sk.k].bi*sk.dstStride + h - 64, add: (64 + h) / sk.pe}
	}
}

// strip is stripStream for strip i of the band (its rows from i*bi
// on), n blocks from block 0 of the rows (first) or not.
func (sk *skewer) strip(i0, i int, first bool, dst unsafe.Pointer, src *byte, srcStride, n int, pf *byte, pfStride, pfN int) {
	sh := shapes[sk.k]
	r0 := i * sh.bi
	prev := &sk.prev[r0*sk.pitch]
	if first {
		plainBlock(sk.k, prev, sk.pitch, src, srcStride)
		for r := r0; r < r0+sh.bi; r++ {
			o := (i0 + r) * sk.dstStride
			copy(sk.dst[o:o+sk.head(r)], sk.prev[r*sk.pitch:])
		}
		dst, src, n = unsafe.Add(dst, 64), (*byte)(unsafe.Add(unsafe.Pointer(src), sh.bj*srcStride)), n-1
	}
	if n > 0 {
		stripSkew(sk.k, (*byte)(dst), prev, src, srcStride, n, pf, pfStride, pfN, &sk.rows[r0])
	}
}

// plainBlock transposes one block of streaming kernel k with its plain
// kernel, to dst at dstStride: k2LinesAVX512, which has none, as two of
// k2AVX512's, its 16 destination rows each.
func plainBlock(k kernelID, dst *byte, dstStride int, src *byte, srcStride int) {
	if k != k2LinesAVX512 {
		strip(k, dst, dstStride, src, srcStride, 1)
		return
	}
	h := shapes[k2AVX512].bi
	strip(k2AVX512, dst, dstStride, src, srcStride, 1)
	strip(k2AVX512, (*byte)(unsafe.Add(unsafe.Pointer(dst), h*dstStride)), dstStride, (*byte)(unsafe.Add(unsafe.Pointer(src), 2*h)), srcStride, 1)
}

// finish copies the band's rows' ends: the last block, fullCols
// elements long, from each row's last boundary on.
func (sk *skewer) finish(width, i0, ni, fullCols int) {
	last := (fullCols - shapes[sk.k].bj) * width
	for r := range ni {
		o, h := (i0+r)*sk.dstStride+last, sk.head(r)
		copy(sk.dst[o+h:o+64], sk.prev[r*sk.pitch+h:r*sk.pitch+64])
	}
}

// tileRows returns tj, a streamed transpose's source rows a tile, cut to
// tuning.TileRows (a multiple of bj, the kernel's source rows a block,
// and no fewer than a destination line of elements) where those rows
// lie srcStride bytes apart, a 4 KiB page or more: each is a stream of
// its own, which the hardware prefetchers follow when there are few
// enough. capped reports that tuning.TileRows applied: the tiles are
// left to the hardware prefetchers.
func tileRows(tj, width, srcStride, bj int) (rows int, capped bool) {
	r := tuning.TileRows
	if r == 0 || srcStride < 4096 {
		return tj, false
	}
	r = max(r, 64/width)
	return min(tj, max(r/bj, 1)*bj), true
}

// tileAhead is the tile after the one the streaming kernels are on, and
// how their calls on this one prefetch it.
type tileAhead struct {
	base        unsafe.Pointer // the source of its block
	i2, j2, nj2 int            // its corner and its number of source rows
	last        bool           // this tile is its block's last: tileAhead is in the next block, or this one again
	pfN         int            // bytes to prefetch of each of its source rows
	perRows     int            // its source rows a kernel call prefetches
}

// nextTile returns the tile after the ti × tj tile at (i0, j0), of nj
// source rows, of a fullRows × fullCols block at sp walked j fastest
// with kernel shape sh: along j, or the first of the next band. After
// the last tile it is the first of the block at after (a grid's next,
// of the same shape and strides), or where after is nil that tile
// again, for the prefetch walk to stay inside the source.
func nextTile(sh kernelShape, width int, sp, after unsafe.Pointer, i0, j0, ti, tj, nj, fullRows, fullCols int) tileAhead {
	t := tileAhead{base: sp, i2: i0, j2: j0 + tj}
	if t.j2 >= fullCols {
		t.i2, t.j2 = i0+ti, 0
	}
	if t.i2 >= fullRows {
		t.i2, t.j2, t.last = i0, j0, true
		if after != nil {
			t.base, t.i2, t.j2 = after, 0, 0
		}
	}
	t.nj2 = min(tj, fullCols-t.j2)
	t.pfN = max(min(ti, fullRows-t.i2)*width, 64)
	// Each call writes bi lines a block; that many lines of the next
	// tile are perRows rows of it.
	t.perRows = max(sh.bi*(nj/sh.bj)/((t.pfN+63)/64), 1)
	return t
}

// prefetch is where kernel call c on the tile starts its prefetch walk:
// its share of the next tile's rows, clamped to the last of them.
func (t tileAhead) prefetch(srcStride, width, c int) *byte {
	r := min(c*t.perRows, t.nj2-1)
	return (*byte)(unsafe.Add(t.base, (t.j2+r)*srcStride+t.i2*width))
}

// walk returns the prefetch walk of kernel call c on the tile, whose
// blocks read src at stride (a tile read in place, at srcStride, or a
// buffer): its share of the next tile; or for a tile left to the
// hardware prefetchers (own, see tileRows), the call's own source
// lines, a line of each row in turn, which its loads bring in anyway.
func (t tileAhead) walk(own bool, src *byte, stride, srcStride, width, c int) (pf *byte, pfStride, pfN int) {
	if own {
		return src, stride, 64
	}
	return t.prefetch(srcStride, width, c), srcStride, t.pfN
}

// slabbed reports whether transposeStreamed reads the source of gather
// kernel k, bytes of it at srcStride, through transposeStreamedGather's
// slabs rather than in place, as the other kernels do. In place is
// faster where a block's source rows spread over the L1 sets (crowd):
// the slabs' copy costs more than it saves. For 2-byte elements that held
// up to a crowd of 4 at any size; for 1-byte ones only where no two of a
// block's rows share a set, and up to 16 MiB: at 256 MiB the slabs were
// faster. The cases (relayout bench, slabs against in place): u8
// [320,400,500] reversed (500 × 320 planes at a stride of 200000 bytes)
// and u16 the same, u16 [2048,2080] and [8192,8224] transposed, at crowd
// 2 [2048,2176] and at crowd 4 [2048,2304], u8 [2048,2112], [4096,4160]
// and [8192,8256] ran faster in place; u8 [16384,16448], and u8 at crowd
// 2 and 4 ([2048,2176], [2048,2304]), in slabs.
func slabbed(k kernelID, srcStride, bytes int) bool {
	c := crowd(srcStride, shapes[k].bj)
	if k == k2AVX512 {
		return c > 4
	}
	return c > 1 || bytes > 16<<20
}

// transposeStreamedCopied is transposeStreamed for the gather kernels of 1-
// and 2-byte elements whose source rows crowd the L1 sets, by another
// route than transposeStreamedGather's slabs: each tile, tuning.CopiedRow of
// each of tuning.CopiedCol/width source rows (64 KiB for u8), is first
// copied whole into a buffer whose rows are a line longer than the
// tile's, a run of each row at a time, and the kernel reads it there. The
// copy reads each row's run in order, its lines in different sets, and
// prefetches the same run of the next tile's rows as it goes; the kernel
// then finds every line in the caches and spreads over the L1 sets, and
// streams its runs of tuning.CopiedCol to the destination.
//
// On an Intel core (2 MiB L2, 48 KiB L1d), whose memory is far, u8 16384²
// and u16 8192×16384 ran faster copied than by the slabs (a throwaway
// test of TransposeStreaming against copy()). Tiles of 256 to 1024 bytes
// of 64 to 256 rows ran slower for u8; the kernels' own prefetch of the
// next tile on top of the copy's cost more than it brought, so they
// prefetch the buffer instead.
func transposeStreamedCopied(k kernelID, width int, dp unsafe.Pointer, dstStride int, sp unsafe.Pointer, srcStride int, fullRows, fullCols int, skew bool) {
	sh := shapes[k]
	le := 64 / width // elements a line
	ti := max(tuning.CopiedRow/width/le, 1) * le
	tj := max(tuning.CopiedCol/width/sh.bj, 1) * sh.bj
	sst := ti*width + 64
	for tj*sst > scratchBytes && tj > sh.bj {
		tj -= sh.bj
	}
	buf := scratchPool.Get().(*[scratchBytes]byte)
	defer scratchPool.Put(buf)
	scr := unsafe.Pointer(&buf[0])
	sk := newSkewer(skew, k, width, dp, dstStride, fullRows, fullCols, ti)
	defer sk.release()
	for i0 := 0; i0 < fullRows; i0 += ti {
		ni := min(ti, fullRows-i0)
		if sk != nil {
			sk.band(i0, ni)
		}
		for j0 := 0; j0 < fullCols; j0 += tj {
			nj := min(tj, fullCols-j0)
			s := unsafe.Add(sp, j0*srcStride+i0*width)
			// The next tile along the band lies tj rows on: prefetched a
			// line per line copied (past the band's last, harmlessly).
			copyRunsAhead((*byte)(scr), sst, (*byte)(s), srcStride, ni*width, nj, tj*srcStride)
			d := unsafe.Add(dp, i0*dstStride+j0*width)
			for i := 0; i < ni; i += sh.bi {
				di, si := unsafe.Add(d, i*dstStride), (*byte)(unsafe.Add(scr, i*width))
				if sk != nil {
					sk.strip(i0, i/sh.bi, j0 == 0, di, si, sst, nj/sh.bj, (*byte)(scr), sst, 64)
				} else {
					stripStream(k, (*byte)(di), dstStride, si, sst, nj/sh.bj, (*byte)(scr), sst, 64)
				}
			}
		}
		if sk != nil {
			sk.finish(width, i0, ni, fullCols)
		}
	}
	storeFence()
}

// transposeStreamedGather is transposeStreamed for the gather kernels of
// 1- and 2-byte elements, which read 16 or 32 bytes of each of 64 or 32
// source rows a block. Read in place, at a plane's power-of-two stride,
// those rows share one L1 set and evict each other before the kernel
// comes back for the rest of their lines, so each line is fetched again
// (u8 16384² streamed that way ran far below a copy). So the tiles
// (tuning.StageRow of each of tuning.StageCol/2/width source rows) are cut
// into slabs of one line of each of their rows, and each slab is copied
// into a buffer, its rows 64 bytes apart, where the kernel reads it. The
// copy of the next slab is split among the kernel calls on this one, so
// that its loads, which wait on one L1 set, overlap the transposes and
// stores; and each call prefetches its share of the next tile, as
// transposeStreamed does.
//
// Half of transposeStreamed's destination runs keeps the two slab buffers
// (2 × 16 KiB for u8) in L1 beside the lines in flight. u8 16384² and u16
// 8192×16384 ran faster so than through the staged tile (transposeStaged;
// relayout bench). What u8 still lacks is the copy's loads: a slab's
// lines share one L1 set and are fetched one after another (taken from a
// hot buffer instead, the kernel ran much faster).
func transposeStreamedGather(k kernelID, width int, dp unsafe.Pointer, dstStride int, sp unsafe.Pointer, srcStride int, fullRows, fullCols int, skew bool, after unsafe.Pointer) {
	sh := shapes[k]
	le := 64 / width // elements a line
	ti := max(tuning.StageRow/width/le, 1) * le
	tj := max(tuning.StageCol/2/width/sh.bj, 1) * sh.bj
	calls := le / sh.bi // kernel calls a slab
	buf := scratchPool.Get().(*[scratchBytes]byte)
	defer scratchPool.Put(buf)
	cur, next := unsafe.Pointer(&buf[0]), unsafe.Pointer(&buf[tj*64])
	copyRunsAhead((*byte)(cur), 64, (*byte)(sp), srcStride, 64, min(tj, fullCols), 0)
	sk := newSkewer(skew, k, width, dp, dstStride, fullRows, fullCols, ti)
	defer sk.release()
	for i0 := 0; i0 < fullRows; i0 += ti {
		ni := min(ti, fullRows-i0)
		if sk != nil {
			sk.band(i0, ni)
		}
		for j0 := 0; j0 < fullCols; j0 += tj {
			nj := min(tj, fullCols-j0)
			nt := nextTile(sh, width, sp, after, i0, j0, ti, tj, nj, fullRows, fullCols)
			d := unsafe.Add(dp, i0*dstStride+j0*width)
			s := unsafe.Add(sp, j0*srcStride+i0*width)
			for i := 0; i < ni; i += le {
				// The next slab: the next line of this tile's rows, or
				// the first of the next tile's (none after the block's
				// last: a grid's next block copies its own).
				ns, nn := unsafe.Add(s, (i+le)*width), nj
				if i+le >= ni {
					ns, nn = unsafe.Add(nt.base, nt.j2*srcStride+nt.i2*width), nt.nj2
					if nt.last {
						nn = 0
					}
				}
				share := (nn + calls - 1) / calls
				for b := 0; b < le; b += sh.bi {
					if r := b / sh.bi * share; r < nn {
						copyRunsAhead((*byte)(unsafe.Add(next, r*64)), 64, (*byte)(unsafe.Add(ns, r*srcStride)), srcStride, 64, min(share, nn-r), 0)
					}
					src := (*byte)(unsafe.Add(cur, b*width))
					pf, pfStride, pfN := nt.walk(false, src, 64, srcStride, width, (i+b)/sh.bi)
					di := unsafe.Add(d, (i+b)*dstStride)
					if sk != nil {
						sk.strip(i0, (i+b)/sh.bi, j0 == 0, di, src, 64, nj/sh.bj, pf, pfStride, pfN)
					} else {
						stripStream(k, (*byte)(di), dstStride, src, 64, nj/sh.bj, pf, pfStride, pfN)
					}
				}
				cur, next = next, cur
			}
		}
		if sk != nil {
			sk.finish(width, i0, ni, fullCols)
		}
	}
	storeFence()
}

// streamingStores reports that this architecture's kernels can write with
// non-temporal stores (transposeStaged).
const streamingStores = true

// crowdWalks reports that transposeFast chooses the order of its direct
// blocks from how their rows crowd the L1 sets (blockWalk): measured on
// amd64 only.
const crowdWalks = true

// scratchBytes bounds the scratch tile of transposeStaged.
const scratchBytes = 512 << 10

var scratchPool = sync.Pool{New: func() any { return new([scratchBytes]byte) }}

// transposeStaged transposes the full blocks of a destination too large
// for the caches, tile by tile through a cache-resident scratch buffer:
// the micro-kernel writes a tile of tuning.StageRow of each source row by
// tuning.StageCol of each destination row into the buffer with ordinary
// stores, at a stride that is no power of two, and copyRunsNTPrefetch
// streams the tile's rows to the destination with VMOVNTDQ while it
// prefetches the next tile's source, one line per line written. It is
// the streaming path of the kernels without a streaming twin
// (streamKernel), which transposeStreamed runs straight to memory.
//
// Destination rows off line boundaries stream too: the tiles along each
// band of rows carry their part lines from one to the next
// (copyRunsStream's ends).
//
// Without stream, the tile's rows are copied out with ordinary stores (one
// copyRunsAhead call a tile, where the rows are whole 32-byte pieces;
// else a copy() a row): for kernels that write part lines, whose
// destination rows at power-of-two strides would evict each other from
// L1 before the next strip completes them.
func transposeStaged(k kernelID, width, unit int, dp unsafe.Pointer, dstStride int, sp unsafe.Pointer, srcStride int, fullRows, fullCols int, stream bool) {
	sh := shapes[k]
	rb, cb := tuning.StageRow, tuning.StageCol
	if width == 1 {
		// Half the extent each way: a tile of 1-byte elements has four
		// times the source rows of an f32 one per byte of row, and its
		// rows, at a plane's power-of-two stride, crowd the L2 sets the
		// prefetched next tile must stay in (u8 16384² ran faster at
		// 512 × 256 bytes than at 1024 × 512).
		rb, cb = rb/2, cb/2
	}
	ti := max(rb/width/sh.bi, 1) * sh.bi
	tj := max(cb/width/unit, 1) * unit
	sst := tj*width + 64
	for ti*sst > scratchBytes && ti > sh.bi {
		ti -= sh.bi
	}
	for ti*sst > scratchBytes && tj > unit {
		tj -= unit
		sst = tj*width + 64
	}
	carry := stream && !onLines(dp, dstStride)
	stageTiles(k, width, sp, srcStride, fullRows, fullCols, ti, tj, sst, func(i0, j0, ni, nj int, scr, pf unsafe.Pointer, pfN int) {
		d := unsafe.Add(dp, i0*dstStride+j0*width)
		switch {
		case !stream && nj*width%32 == 0:
			// One call for the tile's rows: a copy() a row cost about
			// as much as the kernel on tiles in the caches.
			copyRunsAhead((*byte)(d), dstStride, (*byte)(scr), sst, nj*width, ni, 0)
		case !stream:
			for r := range ni {
				copy(unsafe.Slice((*byte)(unsafe.Add(d, r*dstStride)), nj*width), unsafe.Slice((*byte)(unsafe.Add(scr, r*sst)), nj*width))
			}
		case carry:
			// Rows off line boundaries: the tiles along a band of rows
			// carry their part lines to the next (see copyRunsStream).
			next := prefetchWalk{uintptr(pf), srcStride, pfN, tj, tj * srcStride}
			streamRuns((*byte)(d), dstStride, (*byte)(scr), sst, nj*width, ni, 1, 0, 0, next, runEnds(j0 == 0, j0+nj == fullCols), false)
		default:
			copyRunsNTPrefetch((*byte)(d), dstStride, (*byte)(scr), sst, nj*width, ni, (*byte)(pf), srcStride, pfN)
		}
	})
}

// stageTiles is the tile loop of the staged transposes: for each tile of
// ti source elements of width bytes (a multiple of kernel k's bi) by tj
// source rows (of its bj), of the fullRows × fullCols block at sp, it
// transposes the tile into the scratch buffer, rows sst bytes apart,
// with k, then calls out with the tile's corner and extent, the scratch,
// and the next tile's source to prefetch (pfN bytes of each row). Out
// writes the tile's destination. The scratch starts 64 bytes into the
// buffer, for the part lines copyRunsStream carries; sst is at least a
// tile row and 64 bytes, so ti*sst ≤ scratchBytes still fits.
func stageTiles(k kernelID, width int, sp unsafe.Pointer, srcStride, fullRows, fullCols, ti, tj, sst int, out func(i0, j0, ni, nj int, scr, pf unsafe.Pointer, pfN int)) {
	sh := shapes[k]
	buf := scratchPool.Get().(*[scratchBytes]byte)
	defer scratchPool.Put(buf)
	scr := unsafe.Pointer(&buf[64]) // the 64 bytes before it: the first row's carried part line
	for i0 := 0; i0 < fullRows; i0 += ti {
		ni := min(ti, fullRows-i0)
		for j0 := 0; j0 < fullCols; j0 += tj {
			nj := min(tj, fullCols-j0)
			s := unsafe.Add(sp, j0*srcStride+i0*width)
			for c := 0; c < nj; c += sh.bj {
				strip(k, (*byte)(unsafe.Add(scr, c*width)), sst, (*byte)(unsafe.Add(s, c*srcStride)), srcStride, ni/sh.bi)
			}
			// The next tile: along j, or the first of the next band. (Past
			// the last tile this prefetches the rest of the source rows:
			// harmless.)
			ni2, j2, i2 := ni, j0+tj, i0
			if j2 >= fullCols {
				j2, i2 = 0, i0+ti
				ni2 = max(min(ti, fullRows-i2), 1)
			}
			out(i0, j0, ni, nj, scr, unsafe.Add(sp, j2*srcStride+i2*width), max(ni2*width, 64))
		}
	}
}

// stripRows runs kernel k down rows ≥ bi rows (destination rows; source
// elements) of a strip of bj columns from dst and src: the whole register
// blocks, then, where rows is no multiple of bi, one block moved back to
// end at the last row, over rows the one before wrote (dst and src do
// not overlap, so it writes them again with the same values).
func stripRows(k kernelID, dst *byte, dstStride int, src *byte, srcStride int, rows, width int) {
	bi := shapes[k].bi
	strip(k, dst, dstStride, src, srcStride, rows/bi)
	if r := rows - bi; rows%bi != 0 {
		strip(k, (*byte)(unsafe.Add(unsafe.Pointer(dst), r*dstStride)), dstStride, (*byte)(unsafe.Add(unsafe.Pointer(src), r*width)), srcStride, 1)
	}
}

// groupRun is how many bytes of each source row a group of
// transposeGridStaged reads, mo outer blocks by ki inner ones, each
// srcRun bytes of a row: all of them where the inner (or outer) blocks
// continue each other's rows, else one block's.
func groupRun(g Grid, mo, ki, srcRun int) int {
	switch {
	case g.SrcInner == srcRun:
		return ki * srcRun
	case g.SrcOuter == srcRun:
		return mo * srcRun
	}
	return srcRun
}

// carriedBlocks is the fewest blocks, m or more, whose destination runs
// of run bytes side by side make a whole number of lines: the groups of
// a streamed grid whose blocks continue each other's destination rows,
// so that each group's runs start where the last group's left off in a
// line, which lets copyRunsStream carry the part line from one to the
// next. Runs of 456 bytes (57 c64) take 8 blocks, of 352 bytes 2.
func carriedBlocks(m, run int) int {
	u := 64 / gcd(run, 64)
	return (m + u - 1) / u * u
}

// carries reports whether transposeGridStaged streams a grid of blocks
// of rows rows whose destination rows, run bytes each and no whole
// number of lines, continue each other's, blocks of them, in groups
// whose runs make whole lines (carriedBlocks), two groups or more, each
// group staged whole (Tuning.GridGroup): runs whose part lines carry from
// group to group where the rows start off lines, and that have none where
// they start on them.
func carries(run, blocks, rows int) bool {
	m := carriedBlocks(min(blocks, max(gridPieceBytes/run, 1)), run)
	return useAVX2 && run%64 != 0 && 2*m <= blocks && rows*(m*run+64) <= tuning.GridGroup
}

// gridPieceBytes is the length transposeGridStaged makes the runs it
// reads and writes, where the grid's blocks continue each other's.
//
// On C6 (f32 [64,128,256,32] reversed, 32 × 64 blocks) with groups of
// 128 KiB, runs of 512 bytes did better than of 1 KiB; 256 KiB groups do
// no better.
const gridPieceBytes = 512

// gridSplitBytes is the length of the destination rows (or source rows)
// of the pieces splitGrid cuts a grid's large blocks into.
const gridSplitBytes = 256

// splitGrid runs a grid of one dimension (one of g.Outer and g.Inner is
// 1) whose blocks are too large to stage, and continue each other's rows
// on their shorter side, as a grid of two: each block cut along its
// longer side into pieces gridSplitBytes long on that side,
// which transposeGridStaged groups with the pieces of the blocks beside
// them. f32 [64,128,256,32] to {1,0,2,3}, one loop of 256 blocks of 32 ×
// 8192 elements that read 128 bytes of each of 8192 source rows 32 KiB
// apart, so read 512 bytes of each row a group. What the pieces leave of
// each block's longer side is one streaming transpose a block. It
// reports false, doing nothing, where the pieces cannot be staged.
func splitGrid(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, g Grid) bool {
	if g.Inner == 1 {
		g.Inner, g.Outer = g.Outer, 1
		g.DstInner, g.SrcInner = g.DstOuter, g.SrcOuter
	}
	if g.Outer != 1 || g.Inner < 2 || !pow2(width) || gridSplitBytes%width != 0 {
		return false
	}
	// Only blocks whose short side's runs the next block continues: the
	// groups join those runs. Others (each block a transpose of its own,
	// f32 [64,128,256,32] to {2,1,3,0}) stream better whole: cut into
	// groups, they pay the scratch copy and gain no longer runs.
	if cols >= rows && g.SrcInner != rows*width || rows > cols && g.DstInner != cols*width {
		return false
	}
	p := gridSplitBytes / width
	sub := g
	sub.Unfenced = true
	long := max(rows, cols)
	if long/p < 2 {
		return false
	}
	sub.Outer = long / p
	rest := long - sub.Outer*p
	// Pieces of p destination columns (p source rows each), and what is
	// left of the columns; or of p destination rows (p elements of each
	// source row), and what is left of the rows.
	pr, pc, rr, rc := rows, p, rows, rest
	sub.DstOuter, sub.SrcOuter = p*width, p*srcStride
	if rows > cols {
		pr, pc, rr, rc = p, cols, rest, cols
		sub.DstOuter, sub.SrcOuter = p*dstStride, p*width
	}
	if !transposeGridStaged(width, dst, dstStride, src, srcStride, pr, pc, sub, true) {
		return false
	}
	if rest > 0 {
		for b := range g.Inner {
			transposeFast(width, dst[b*g.DstInner+sub.Outer*sub.DstOuter:], dstStride, src[b*g.SrcInner+sub.Outer*sub.SrcOuter:], srcStride, rr, rc, true, nil)
		}
	}
	if !g.Unfenced {
		storeFence()
	}
	return true
}

// transposeGridPasses streams a grid of blocks of 2-, 4- and 8-byte
// elements whose source rows lie a page or more apart, more than
// Tuning.TileRows of them a block (a 4-D reversal: 64 rows 4 MiB apart),
// in passes of TileRows source rows: a pass moves those rows of every
// block, with the streaming kernels straight to the destination, so that
// the reads follow no more streams than an Intel core's L2 streamer
// tracks, and each destination row takes a run of TileRows elements
// from each block (two lines of 4-byte ones). Through the scratch
// (transposeGridStaged) each group reads all its blocks' rows at once
// (C6, f32 [64,128,256,32] reversed, and its bf16 twin ran faster in
// passes; docs/perf). 2-byte elements take k2LinesAVX512, which reads
// whole source lines. It reports false, doing nothing, where TileRows is
// 0, the rows are nearer, no pass is whole, the destination is off
// lines, or the blocks are as below.
func transposeGridPasses(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, g Grid) bool {
	t := tuning.TileRows
	k := streamKernel(width)
	if k == k2AVX512 {
		k = k2LinesAVX512 // whole lines of the source rows, as the passes read them
	}
	if t == 0 || srcStride < 4096 || cols <= t || cols%t != 0 || k != k2LinesAVX512 && k != k4AVX512 && k != k8AVX512 {
		return false
	}
	sh := shapes[k]
	dp, sp := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src))
	if rows%sh.bi != 0 || t%sh.bj != 0 || t*width%64 != 0 || !onLines(dp, dstStride) || g.DstInner%64 != 0 || g.DstOuter%64 != 0 {
		return false
	}
	// The blocks of a pass must continue each other's source rows, so
	// that the pass reads its rows' lines in order; and be blocks the
	// scratch would group (larger ones split into pieces along their
	// rows: splitGrid). Of the random pairs, those whose blocks took
	// other rows ran slower in passes (u4[35,128,4,33,128] in 8-byte
	// units, 16 KiB blocks of rows 16 KiB apart), and so did one of
	// blocks of 1.4 MB.
	run := rows * width
	if g.SrcInner != run && g.SrcOuter == run {
		g = g.swapped()
	}
	if g.SrcInner != run && g.Inner > 1 || rows*cols*width > tuning.GridGroup/2 {
		return false
	}
	for p := 0; p < cols; p += t {
		for a := range g.Outer {
			for b := range g.Inner {
				d := unsafe.Add(dp, a*g.DstOuter+b*g.DstInner+p*width)
				s := unsafe.Add(sp, a*g.SrcOuter+b*g.SrcInner+p*srcStride)
				for i := 0; i < rows; i += sh.bi {
					// Each call prefetches the lines it reads (the
					// tiles of TileRows rows are not prefetched ahead).
					si := (*byte)(unsafe.Add(s, i*width))
					stripStream(k, (*byte)(unsafe.Add(d, i*dstStride)), dstStride, si, srcStride, t/sh.bj, si, srcStride, 64)
				}
			}
		}
	}
	if !g.Unfenced {
		storeFence()
	}
	return true
}

// gridContiguous streams a grid whose blocks each fill a contiguous
// stretch of the destination with rows shorter than a line (dstStride is
// a block's row: tiles such as s8 T(32,32), 32 rows of 32 bytes, or bf16
// T(8,8), of 16), which transposeGridStaged takes only where other
// blocks continue those rows: a group of blocks is transposed into the
// scratch one after another, each whole, and streamed out a block a run
// (one run where the group's blocks follow each other in the
// destination), prefetching the next group's source. Block by block the
// plain transpose wrote the part lines of each row with ordinary
// stores, each line read from memory first. It reports false, doing
// nothing, where the blocks are not so or the destination is off lines.
func gridContiguous(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, g Grid) bool {
	blk := rows * cols * width
	dp, sp := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src))
	if !useAVX2 || dstStride != cols*width || dstStride >= 64 || blk%64 != 0 || blk > tuning.GridGroup/2 ||
		!onLines(dp, g.DstInner) || g.DstOuter%64 != 0 || g.Inner*g.Outer*blk < 4096 {
		// A grid of less than a page streamed and fenced each call
		// ran slower than block by block (s8 [1,1536,6926] from
		// T(8,128)(4,1) to T(32,32), grids of two 128-byte blocks).
		return false
	}
	if cols <= 8 && pow2(cols) && pow2(width) {
		// 2, 4 or 8 columns are an interleave, whose vector stores
		// fill whole lines of such a destination: f64 [495488,4]
		// untiled from T(4,128) ran faster so, block by block, than
		// through the scratch (where 3 columns, f64 [1565440,3], ran
		// slower).
		return false
	}
	srcRun := rows * width
	if g.SrcInner != srcRun && g.SrcOuter == srcRun || g.Inner == 1 {
		// Let the inner blocks continue the source's rows, or at
		// least be more than one.
		g = g.swapped()
	}
	ki := min(g.Inner, max(tuning.GridGroup/blk, 1), scratchBytes/blk)
	buf := scratchPool.Get().(*[scratchBytes]byte)
	defer scratchPool.Put(buf)
	scr := buf[:ki*blk]
	for a := range g.Outer {
		for b0 := 0; b0 < g.Inner; b0 += ki {
			n := min(ki, g.Inner-b0)
			for b := range n {
				o := a*g.SrcOuter + (b0+b)*g.SrcInner
				transposeFast(width, scr[b*blk:], dstStride, src[o:], srcStride, rows, cols, false, nil)
			}
			// The next group's source rows: whole where the inner
			// blocks continue them, else block by block.
			a2, b2 := a, b0+ki
			if b2 >= g.Inner {
				a2, b2 = a+1, 0
			}
			next := prefetchWalk{uintptr(sp) + uintptr(min(a2, g.Outer-1)*g.SrcOuter+b2*g.SrcInner), srcStride, srcRun, cols, g.SrcInner}
			if g.SrcInner == srcRun {
				next.n, next.step = ki*srcRun, g.SrcOuter
			}
			d := unsafe.Add(dp, a*g.DstOuter+b0*g.DstInner)
			streamRuns((*byte)(d), g.DstInner, &scr[0], blk, blk, n, 1, 0, 0, next, bothEnds, true)
		}
	}
	if !g.Unfenced {
		storeFence()
	}
	return true
}

// transposeGridStaged runs TransposeGrid's blocks through the scratch
// tile a group at a time: it transposes each block of the group into the
// scratch with ordinary stores, then streams the group out with one
// copyRunsStream call, behind one store fence, prefetching the source of
// the next group as it goes. Staging each block on its own would fence
// every block: on small blocks (32 × 64 f32, 8 KiB) the fences cost more
// than the copy.
//
// A group is mo outer × ki inner blocks. Where the inner blocks continue
// each other's source rows, ki of them make source runs of about
// gridPieceBytes, which the prefetch walks whole; where the outer blocks
// continue each other's destination rows, mo of them, side by side in
// the scratch, make destination runs of that length. A 4-D reversal
// reads and writes 128- and 256-byte runs block by block, far apart;
// grouped, 512-byte ones. Where the outer blocks continue the rows of
// both sides (a dim that both keep between the block's dims, as in f32
// [64,128,256,32] to {0,2,3,1}), mo of them make runs of about
// gridPieceBytes on the shorter side, and the prefetch walks the next
// group's source rows m blocks at a time. Where such runs start off line boundaries, the
// groups go along the rows and carry each run's last part line to the
// next (copyRunsStream's ends).
//
// Without stream (TransposeBlocks: a destination the caches keep) it
// copies each group out with ordinary stores, and the grouping serves
// blocks whose runs are short on one side: the 2 × 128 blocks of 4-byte
// units that a column-major s8 array makes in T(8,128)(4,1) read 8 bytes
// of each source row block by block, 512 grouped (s8 [4001,4001] ran much
// faster grouped).
//
// It reports false, doing nothing, when the blocks are too large to group
// or have no full register block.
func transposeGridStaged(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, g Grid, stream bool) bool {
	k := stagedKernel(width)
	if rows < shapes[k].bi || cols < shapes[k].bj {
		k = fitKernel(width, rows, cols) // the tpu preset's 8 rows of f32, say
	}
	if !useAVX2 || k == kNone && (!stream || width < 8 || !pow2(width)) {
		return false
	}
	sh := shapes[k]
	if k == kNone {
		// No kernel takes blocks this narrow (8- and 16-byte elements
		// of fewer source rows than the kernels' 8 or 4: c64 T(4,128)
		// untiled, 4 rows a tile): past the caches, the generic
		// transpose moves them into the scratch, which the caches hold,
		// and the group streams out in whole lines as for the others,
		// where block by block the generic kernel wrote part lines
		// straight into the destination, each line read from memory
		// first. In the caches (TransposeBlocks), the detour through
		// the scratch only cost (blocked plans' 8- and 16-byte units).
		sh = kernelShape{bi: 1, bj: 1, name: "generic"}
	}
	fullRows, fullCols := rows-rows%sh.bi, cols-cols%lineUnit(sh.bj, width)
	if fullCols == 0 && cols%sh.bj == 0 && (g.DstOuter == cols*width || g.DstInner == cols*width) {
		// Blocks whose destination rows are shorter than a line but
		// continue each other's (the tpu preset's tiles untiled to a
		// column-major array): side by side in the scratch they make
		// whole lines.
		fullCols = cols
	}
	dp, sp := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src))
	if run := cols * width; stream && k != kNone && fullCols > 0 && fullCols < cols &&
		(g.DstOuter == run && carries(run, g.Outer, rows) || g.DstInner == run && carries(run, g.Inner, rows)) {
		// Streamed blocks whose destination rows continue each other's,
		// enough of them for groups of whole lines (carries): the
		// columns past the last whole kernel block go through the
		// scratch too, in a strip moved back to end at the block's last
		// column (stage), so that the group's runs go on side by side.
		// kernelEdges would store them plainly into the destination,
		// and each block's runs would stand alone, their part lines
		// written in parts (f32 [17,118,41,128] to {0,2,3,1}, blocks of
		// 128 × 17, ran several times faster so; other grids ran slower
		// with the strip; docs/perf).
		fullCols = cols
	}
	if fullRows == 0 || fullCols == 0 || k == kNone && fullCols != cols {
		return false
	}
	// Rows past the last whole register block go through the scratch as
	// well, in a strip moved back to end at the block's last row
	// (stripRows): kernelEdges would write them into the destination
	// with ordinary stores, each line read from memory first, between
	// lines the group streams (f32 [751,1,1401,13,1] to {4,0,1,2,3},
	// blocks of 13 rows, 5 of them past the AVX2 kernel's 8). Of the
	// random pairs that have such rows, those of 2 bytes and more ran
	// faster so, those of bytes no faster (docs/perf).
	if width >= 2 {
		fullRows = rows
	}
	if fullRows*(fullCols*width+64) > tuning.GridGroup/2 {
		return stream && splitGrid(width, dst, dstStride, src, srcStride, rows, cols, g)
	}
	srcRun, dstRun := fullRows*width, fullCols*width // a block's source and destination runs
	if g.DstOuter != dstRun && (g.DstInner == dstRun || g.SrcOuter == srcRun && g.SrcInner != srcRun) {
		// The walk's order is free: let the outer blocks continue the
		// destination's runs, the inner ones the source's. (Outer
		// blocks that continue the destination's stay, whatever they
		// do to the source's.)
		g = g.swapped()
	}
	mo := 1
	if g.DstOuter == dstRun && fullCols == cols {
		mo = min(g.Outer, max(gridPieceBytes/dstRun, 1))
		if g.SrcOuter == srcRun {
			// The outer blocks continue the source's runs as well (a
			// dim both sides keep between the block's: f32
			// [64,128,256,32] to {0,2,3,1}, whose 256 steps read 128
			// bytes and write 256 on): take enough for both.
			mo = min(g.Outer, max(gridPieceBytes/dstRun, gridPieceBytes/srcRun, 1))
		}
		// Streamed, groups whose runs make whole lines, where there
		// are two of them or more and the scratch takes one (carries;
		// f32 [751,1,1401,13,1] to {4,0,1,2,3}, whose 16 blocks of 13
		// rows of 3004 bytes are more than a group, ran at half the
		// speed as a streamed transpose a block).
		if m := carriedBlocks(mo, dstRun); stream && m != mo && 2*m <= g.Outer && fullRows*(m*dstRun+64) <= tuning.GridGroup {
			mo = m
		}
	}
	// Rows shorter than a line stream only side by side, a line at
	// least: the last group takes up to short more blocks rather than
	// leave fewer.
	short := 0
	if dstRun < 64 {
		if g.DstOuter != dstRun || g.Outer*dstRun < 64 {
			return false
		}
		short = (64+dstRun-1)/dstRun - 1
	}
	// Destination rows off line boundaries (a column-major array of odd
	// height) would begin and end each run with a part line, stored
	// plainly: two lines read from memory each 512 bytes. With the
	// outer blocks side by side in runs of whole lines, the groups go
	// along each row instead, and each run's part line at its end waits
	// in the scratch for the next run of the row, which writes it whole
	// (copyRunsStream's ends).
	carry := stream && mo > 1 && mo*dstRun%64 == 0 && g.Outer >= 2*mo && !onLines(dp, dstStride)
	sst := (mo+short)*dstRun + 64
	blk := fullRows * sst // the scratch of mo (+ short) blocks side by side
	// Outer blocks of bytes that continue each other's rows on both
	// sides go through the kernel as one strip down the m blocks' source
	// rows, their destination rows stacked in the scratch (block a's row
	// r at row a*fullRows + r), and stream as m runs a destination row,
	// side by side. Block by block, a strip of 32 rows of bytes is one
	// kernel call of one register block. u8 [64,128,256,32] to {1,2,3,0},
	// {0,2,3,1} and {1,2,0,3} ran faster stacked (relayout bench); wider
	// elements, with more register blocks a strip, gained nothing.
	stack := width == 1 && stream && !carry && short == 0 && mo > 1 && g.SrcOuter == srcRun && g.SrcInner != srcRun &&
		dstRun%64 == 0 && fullRows == rows && fullCols == cols
	if stack {
		sst = dstRun + 64
		blk = mo * fullRows * sst
	}
	ki := min(g.Inner, max(tuning.GridGroup/blk, 1))
	if g.SrcInner == srcRun {
		ki = min(ki, max(gridPieceBytes/srcRun, 1))
	}
	if k == kNone && groupRun(g, mo, ki, srcRun) < 2*64 {
		// The generic transpose reads a group's source a row at a time:
		// a line of each of thousands of rows (f64 [2,423,4300] to
		// T(4,128), 4 blocks of 16 bytes a row) ran slower so than
		// block by block, where each block's next continued its lines.
		return false
	}
	if ki*blk > scratchBytes { // each row leaves 64 bytes, so the scratch may start 64 bytes in
		return false
	}
	buf := scratchPool.Get().(*[scratchBytes]byte)
	defer scratchPool.Put(buf)
	scr := unsafe.Pointer(&buf[64]) // the 64 bytes before it: the first row's carried part line
	// nextGroup is where the group after the one of m outer blocks at
	// (a0, b0) starts, for the prefetch: ki inner blocks on (m outer
	// blocks on where the groups go along the rows, carrying part
	// lines), or the first of the next m outer blocks.
	nextGroup := func(a0, m, b0 int) (a2, b2 int) {
		a2, b2 = a0, b0+ki
		if carry {
			a2, b2 = a0+m, b0
		}
		if b2 >= g.Inner {
			a2, b2 = a0+m, 0
		}
		return a2, b2
	}
	// stage transposes the first rows rows of a block's fullCols
	// columns from s into the scratch at t: kernel k a strip of columns
	// at a time, or the generic transpose all at once where k is kNone.
	stage := func(t, s unsafe.Pointer, rows int) {
		if k == kNone {
			transposeGeneric(width, unsafe.Slice((*byte)(t), (rows-1)*sst+fullCols*width), sst,
				unsafe.Slice((*byte)(s), (fullCols-1)*srcStride+rows*width), srcStride, rows, fullCols)
			return
		}
		for c := 0; c+sh.bj <= fullCols; c += sh.bj {
			stripRows(k, (*byte)(unsafe.Add(t, c*width)), sst, (*byte)(unsafe.Add(s, c*srcStride)), srcStride, rows, width)
		}
		if c := fullCols - sh.bj; fullCols%sh.bj != 0 {
			// The last columns, over some the strips before wrote.
			stripRows(k, (*byte)(unsafe.Add(t, c*width)), sst, (*byte)(unsafe.Add(s, c*srcStride)), srcStride, rows, width)
		}
	}
	// group moves the blocks [a0, a0+m) × [b0, b0+n), its runs' part
	// lines as ends says (copyRunsStream).
	group := func(a0, m, b0, n, ends int) {
		if stack {
			for b := range n {
				s := unsafe.Add(sp, a0*g.SrcOuter+(b0+b)*g.SrcInner)
				stage(unsafe.Add(scr, b*blk), s, m*fullRows)
			}
			a2, b2 := nextGroup(a0, m, b0)
			for b := range n {
				next := prefetchWalk{uintptr(sp) + uintptr(a2*g.SrcOuter+(b2+b)*g.SrcInner), srcStride, m * srcRun, fullCols, g.SrcInner}
				d := unsafe.Add(dp, a0*g.DstOuter+(b0+b)*g.DstInner)
				streamRuns((*byte)(d), dstRun, (*byte)(unsafe.Add(scr, b*blk)), fullRows*sst, dstRun, m, fullRows, dstStride, sst, next, bothEnds, g.Unfenced || b < n-1)
			}
			return
		}
		// Blocks that continue each other's source rows make one
		// strip of n blocks: the scratch holds their rows one after
		// another, at one stride (10% faster on C6 than a strip each).
		per := 1
		if g.SrcInner == srcRun {
			per = n
		}
		for a := range m {
			for b := 0; b < n; b += per {
				s := unsafe.Add(sp, (a0+a)*g.SrcOuter+(b0+b)*g.SrcInner)
				stage(unsafe.Add(scr, b*blk+a*dstRun), s, per*fullRows)
			}
		}
		d := unsafe.Add(dp, a0*g.DstOuter+b0*g.DstInner)
		if !stream {
			// The outer blocks lie side by side: one run of m blocks a
			// row.
			for b := range n {
				for r := range fullRows {
					copy(unsafe.Slice((*byte)(unsafe.Add(d, b*g.DstInner+r*dstStride)), m*dstRun), unsafe.Slice((*byte)(unsafe.Add(scr, b*blk+r*sst)), m*dstRun))
				}
			}
		} else {
			// While it streams the group out, prefetch the source of
			// the next: each outer block's source rows, whole where the
			// inner blocks continue them, else block by block, along
			// the outer blocks where a group is a row of them (blocks
			// narrower than a line; along the inner ones this prefetched
			// the wrong blocks, and untiling s8 T(8,128)(4,1) to a
			// column-major [16384,16384] ran slower).
			a2, b2 := nextGroup(a0, m, b0)
			next := prefetchWalk{uintptr(sp) + uintptr(a2*g.SrcOuter+b2*g.SrcInner), srcStride, srcRun, fullCols, g.SrcInner}
			switch {
			case g.SrcInner == srcRun:
				next.n, next.step = ki*srcRun, g.SrcOuter
			case g.SrcOuter == srcRun && mo > 1:
				// The outer blocks side by side continue each
				// other's source rows too: runs of m blocks a row.
				next.n = m * srcRun
			case ki == 1 && mo > 1:
				// A group of outer blocks side by side: the next
				// one's are outer blocks too.
				next.step = g.SrcOuter
			}
			streamRuns((*byte)(d), dstStride, (*byte)(scr), sst, m*dstRun, fullRows, n, g.DstInner, blk, next, ends, g.Unfenced)
		}
		if fullRows < rows || fullCols < cols {
			for a := a0; a < a0+m; a++ {
				for b := b0; b < b0+n; b++ {
					kernelEdges(k, width, dst[a*g.DstOuter+b*g.DstInner:], dstStride, src[a*g.SrcOuter+b*g.SrcInner:], srcStride, rows, cols, fullRows, fullCols)
				}
			}
		}
	}
	// piece is how many outer blocks a group from a0 takes: mo, or the
	// rest where less than a line would be left.
	piece := func(a0 int) int {
		if m := min(mo, g.Outer-a0); (g.Outer-a0-m)*dstRun >= 64 {
			return m
		}
		return g.Outer - a0
	}
	if carry {
		for b0 := 0; b0 < g.Inner; b0 += ki {
			n := min(ki, g.Inner-b0)
			for a0, m := 0, 0; a0 < g.Outer; a0 += m {
				m = piece(a0)
				group(a0, m, b0, n, runEnds(a0 == 0, a0+m == g.Outer))
			}
		}
		return true
	}
	for a0, m := 0, 0; a0 < g.Outer; a0 += m {
		m = piece(a0)
		for b0 := 0; b0 < g.Inner; b0 += ki {
			group(a0, m, b0, min(ki, g.Inner-b0), bothEnds)
		}
	}
	return true
}

// transposeNibblePairsFast is TransposeNibblePairs: blocks a vector
// holds whole (h of 1 to 16, a power of two) a vector at a time, the
// halves of longer blocks 32 bytes at a time, the rest generic.
func transposeNibblePairsFast(buf []byte, h, n int) {
	if !useAVX2 || n == 0 {
		transposeNibblePairsGeneric(buf, h, n)
		return
	}
	if in := nibblePairsInKernel(h); in != nil {
		m := 2 * h * n / 32 * 32 // whole blocks, 32 a multiple of 2h
		if m > 0 {
			in(&buf[0], m)
		}
		transposeNibblePairsGeneric(buf[m:], h, n-m/(2*h))
		return
	}
	if m := h / 32 * 32; m > 0 {
		nibblePairsAVX2(&buf[0], h, m, n)
		if m < h {
			for b := range n {
				turnNibbles(buf[2*b*h+m:2*b*h+h], buf[2*b*h+h+m:2*b*h+2*h])
			}
		}
		return
	}
	transposeNibblePairsGeneric(buf, h, n)
}

// nibblePairsInKernel returns the kernel of blocks of 2h bytes that a
// vector holds whole, or nil.
func nibblePairsInKernel(h int) func(buf *byte, n int) {
	switch h {
	case 1:
		return nibblePairsIn1AVX2
	case 2:
		return nibblePairsIn2AVX2
	case 4:
		return nibblePairsIn4AVX2
	case 8:
		return nibblePairsIn8AVX2
	case 16:
		return nibblePairsIn16AVX2
	}
	return nil
}
