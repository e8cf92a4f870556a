//go:build amd64 && gc && !purego && !noasm

package kernel

import "unsafe"

// permuteBlocksFast runs PermuteBlocks' whole steps of 64 bytes (as many
// blocks as fit) in permuteBlocksAVX512 where the level has VBMI, blocks
// of more than 64 bytes one a step in permuteBlocks2AVX512, and returns
// how many blocks it moved; the caller moves the rest.
func permuteBlocksFast(dst, src []byte, perm []byte, n int) int {
	bs := len(perm)
	if bs > 64 {
		if !useVBMI || n == 0 {
			return 0
		}
		permuteStrided(dst, src, perm, n, bs, bs, false)
		return n
	}
	per := 64 / bs
	steps := n / per
	if !useVBMI || steps == 0 {
		return 0
	}
	var table [64]byte
	for j := range per * bs {
		table[j] = byte(j/bs*bs) + perm[j%bs]
	}
	step := per * bs
	mask := uint64(1)<<step - 1
	if step == 64 {
		mask = ^uint64(0)
	}
	permuteBlocksAVX512(&dst[0], &src[0], &table[0], mask, mask, steps, step, step)
	return steps * per
}

// permutesRuns reports whether copyRunsPermuted moves runs at the level
// in use.
func permutesRuns() bool { return useVBMI }

// copyRunsPermuted runs the whole steps of a CopyRuns of runs of n < 64
// bytes that lie side by side on one side and in groups of a power of
// two bytes, more than n, on the other (the 3 bytes held of each 8-byte
// group of (8,1) tiles' rows, gathered by a blocked plan) in
// permuteBlocksAVX512, where the level has VBMI: a step moves the 64
// bytes of 64/group groups. It returns how many runs it moved (a
// multiple of those a step moves); the caller moves the rest.
func copyRunsPermuted(dst []byte, dstStride int, src []byte, srcStride int, n, rows int) int {
	if !useVBMI || n <= 0 {
		return 0
	}
	var gather bool
	var group int
	switch {
	case dstStride == n && srcStride > n && srcStride <= 64 && pow2(srcStride):
		gather, group = true, srcStride
	case srcStride == n && dstStride > n && dstStride <= 64 && pow2(dstStride):
		group = dstStride
	default:
		return 0
	}
	per := 64 / group // groups a step
	steps := rows / per
	if steps < 4 {
		return 0 // the table costs more than a few steps save
	}
	// The masks: the runs side by side, and the runs' bytes in their
	// groups (n ones repeated every group bits, by a product with the
	// repunit of base 2^group).
	packed := uint64(1)<<(per*n) - 1
	grouped := (uint64(1)<<n - 1) * (^uint64(0) / (uint64(1)<<group - 1))
	var table [64]byte
	k := 0 // the runs' bytes side by side
	for g := 0; g < 64; g += group {
		for j := g; j < g+n; j++ {
			if gather {
				table[k&63] = byte(j)
			} else {
				table[j&63] = byte(k)
			}
			k++
		}
	}
	if gather {
		permuteBlocksAVX512(&dst[0], &src[0], &table[0], grouped, packed, steps, 64, per*n)
	} else {
		permuteBlocksAVX512(&dst[0], &src[0], &table[0], packed, grouped, steps, per*n, 64)
	}
	return steps * per
}

// permuteStrided permutes n blocks of len(perm) bytes, 65 to 128 bytes
// or 64 and fewer, each by perm, from src to dst, the blocks srcStep
// and dstStep bytes apart: permuteGrid's kernel calls, which the caller
// makes only where the level has them (PermutesBlocks). With stream
// (streamsLines), the blocks are whole lines stored with non-temporal
// stores, not fenced.
func permuteStrided(dst, src []byte, perm []byte, n, srcStep, dstStep int, stream bool) {
	bs := len(perm)
	if stream {
		var table [128]byte
		copy(table[:], perm)
		permuteLinesStreamAVX512(&dst[0], &src[0], &table[0], n, srcStep, dstStep, bs/64)
		return
	}
	if bs > 64 {
		var table [128]byte
		copy(table[:], perm)
		mask := uint64(1)<<(bs-64) - 1
		if bs == 128 {
			mask = ^uint64(0)
		}
		permuteBlocks2AVX512(&dst[0], &src[0], &table[0], mask, n, srcStep, dstStep)
		return
	}
	var table [64]byte
	copy(table[:], perm)
	mask := uint64(1)<<bs - 1
	if bs == 64 {
		mask = ^uint64(0)
	}
	permuteBlocksAVX512(&dst[0], &src[0], &table[0], mask, mask, n, srcStep, dstStep)
}

// streamsPermutes reports whether permuteStrided streams at the level in
// use.
func streamsPermutes() bool { return useVBMI }

// permuteWideFast runs PermuteWide in permuteWideAVX512 (or its
// streaming twin, unfenced, for a stream to a destination on a line) and
// reports true, or false where the level has no VBMI.
func permuteWideFast(dst, src []byte, p *WidePerm, n int, stream bool) bool {
	if !useVBMI {
		return false
	}
	bs := p.Bytes()
	if stream && onLines(unsafe.Pointer(&dst[0]), bs) {
		permuteWideStreamAVX512(&dst[0], &src[0], &p.table[0], &p.pad[0], bs/64, n, bs, bs)
		return true
	}
	permuteWideAVX512(&dst[0], &src[0], &p.table[0], &p.pad[0], bs/64, n, bs, bs)
	return true
}
