//go:build !(amd64 && gc && !purego && !noasm)

package kernel

import "unsafe"

// The fallback: what every build without amd64's assembly (arm64 with
// NEON, and the builds without assembly: the purego or noasm tags,
// another compiler, another architecture) provides in place of the
// kernels only amd64 has. Each missing kernel is the generic one, or
// reports that it did nothing, so that its caller falls back to the
// generic code of kernels_generic.go; the constants say that nothing
// streams or stages. The kernels arm64 also has (transposeKernel, strip,
// the interleaves, the nibble packing, the element type conversions)
// are NEON in kernels_arm64.go and convert_arm64.go, and none in
// kernels_noasm.go. docs/architecture.md lists the whole contract.

// weaveGridAsm has no kernel here: it does none of the blocks.
func weaveGridAsm(width int, dst *byte, dstStride int, src *byte, srcStride int, rows, cols int, g Grid, stream bool) (done int, inverse bool) {
	return 0, false
}

// keepsRows reports that no grid de-interleave runs here.
func keepsRows(width int) bool { return false }

// fillAsm has no kernel here.
func fillAsm(dst *byte, dstStride int, n, rows int, pat *[32]byte) bool { return false }

// copyRunsLong moves no runs here: copyRunsShort's generic code does.
func copyRunsLong(dst []byte, dstStride int, src []byte, srcStride int, n, rows int) bool {
	return false
}

// copyRunsAheadFast is the generic run copy: no prefetching copy here.
func copyRunsAheadFast(dst []byte, dstStride int, src []byte, srcStride int, n, rows, ahead int) {
	copyRunsGeneric(dst, dstStride, src, srcStride, n, rows)
}

func prefetching() bool { return false }

// prefetchSpan has no prefetch instruction to run here.
func prefetchSpan(p uintptr, stride, n, rows int) {}

// prefetchBlock has no prefetch instruction to run here.
func prefetchBlock(p unsafe.Pointer, stride, n, cols int) {}

// copyRunsStreamingFast is the generic grid copy: no streaming stores here.
func copyRunsStreamingFast(dst []byte, dstStride, dstStep int, src []byte, srcStride, srcStep int, n, rows, steps int, st *Stream) {
	copyRunsGridGeneric(dst, dstStride, dstStep, src, srcStride, srcStep, n, rows, steps)
}

func streaming() bool { return false }

// stagedKernel is transposeKernel: nothing stages here.
func stagedKernel(width int) kernelID { return transposeKernel(width) }

// fitKernel has no kernel here: transposeKernel's is the only one.
func fitKernel(width, rows, cols int) kernelID { return kNone }

// streamingStores reports that this architecture's kernels can write with
// non-temporal stores; these cannot.
const streamingStores = false

// crowdWalks reports that transposeFast orders its blocks by how their
// rows crowd the L1 sets: only measured, and so only done, on amd64.
const crowdWalks = false

// transposeStaged is amd64's streaming transpose; Transpose never calls it
// here (streamingStores is false).
func transposeStaged(k kernelID, width, unit int, dp unsafe.Pointer, dstStride int, sp unsafe.Pointer, srcStride int, fullRows, fullCols int, stream bool) {
	panic("tilecopy: no streaming stores in this build")
}

// streamKernel has no kernel here: none streams.
func streamKernel(width int) kernelID { return kNone }

// hasSkew reports that no kernel here has a skew twin.
func hasSkew(k kernelID) bool { return false }

// transposeStreamed is amd64's streaming transpose straight to memory;
// Transpose never calls it here (streamKernel returns kNone).
func transposeStreamed(k kernelID, width int, dp unsafe.Pointer, dstStride int, sp unsafe.Pointer, srcStride int, fullRows, fullCols int, skew bool, after unsafe.Pointer) {
	panic("tilecopy: no streaming stores in this build")
}

// transposeGridPasses is amd64's streaming grid in passes of source
// rows: it does nothing here.
func transposeGridPasses(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, g Grid) bool {
	return false
}

// gridContiguous is amd64's streaming grid of blocks with contiguous
// destinations: it does nothing here.
func gridContiguous(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, g Grid) bool {
	return false
}

// transposeGridStaged is amd64's grouped streaming grid: it does nothing
// here.
func transposeGridStaged(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, g Grid, stream bool) bool {
	return false
}

func transposeFieldsFast(dst, src []byte, srcStride, rows, n, bits int, stream bool) {
	transposeFieldsGeneric(dst, src, srcStride, rows, n, 0, bits)
}

func packedOnePass() bool { return false }

func transposePackedFast(bits int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, stream bool) {
	transposePackedGeneric(bits, dst, dstStride, src, srcStride, 0, rows, 0, cols)
}

// storeFence has no stores to order here: no kernel streams.
func storeFence() {}

// copyStreamed has no kernel here (neither Go's assembler on arm64 nor
// portable Go has a store that bypasses the caches): Copy is copy().
func copyStreamed(dst, src []byte, parts, ahead int) bool { return false }

// copyCached has no kernel here: Copy copies through the caches with
// copy(), a piece at a time.
func copyCached(dst, src []byte, repBytes int) bool { return false }

// copyMasked has no kernel here: Mask.Copy masks 8 bytes a step,
// through the caches.
func copyMasked(dst, src []byte, m *Mask, phase, parts int, stream bool) bool { return false }

// fusedTilesAsm reports that this build has no fused tile kernels.
func fusedTilesAsm() bool { return false }

// fuseTilesAsm has no kernel in this build: it does nothing.
func fuseTilesAsm(up bool, dst, src []byte, stride, tiles, lines, pairs int, stream bool, pf *byte) bool {
	return false
}

// permuteBlocksFast has no kernel here: PermuteBlocks moves every block
// in Go.
func permuteBlocksFast(dst, src []byte, perm []byte, n int) int { return 0 }

// permuteStrided has no kernel here; permuteGrid, which PermutesBlocks
// keeps from calling it, moves the blocks in tinyGrid or the
// transposes.
func permuteStrided(dst, src []byte, perm []byte, n, srcStep, dstStep int, stream bool) {
	panic("tilecopy: no permutation kernel")
}

// streamsPermutes reports that permuteStrided has no streaming kernel
// here.
func streamsPermutes() bool { return false }

// permutesRuns reports that copyRunsPermuted moves no runs here.
func permutesRuns() bool { return false }

// weave3StreamAsm has no streaming kernel here: it moves nothing.
func weave3StreamAsm(width int, inverse bool, dst *byte, dstStride int, src *byte, srcStride int, count int) int {
	return 0
}

// copyRunsPermuted moves no runs here: CopyRuns moves them all.
func copyRunsPermuted(dst []byte, dstStride int, src []byte, srcStride int, n, rows int) int {
	return 0
}

// transposeNibblePairsFast is the generic TransposeNibblePairs here.
func transposeNibblePairsFast(buf []byte, h, n int) { transposeNibblePairsGeneric(buf, h, n) }

// permuteWideFast has no kernel here: PermuteWide moves a byte at a time.
func permuteWideFast(dst, src []byte, p *WidePerm, n int, stream bool) bool { return false }
