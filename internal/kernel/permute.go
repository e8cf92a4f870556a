package kernel

import (
	"fmt"
	"unsafe"
)

// PermuteBlocks rearranges the bytes of each of n blocks of len(perm)
// bytes: byte j of block i of dst is byte perm[j] of block i of src.
// perm is a permutation of its indexes and at most 128 bytes long. It is
// the batched turn of tiny blocks (a 4×4 block of bytes transposed, a
// 2×4 or 8×8 block of 16-bit elements) that block transposes of such
// shapes would otherwise move an element at a time: on AVX-512 VBMI one
// VPERMB turns every block that fits in 64 bytes at once, and two
// VPERMI2B a block of up to 128 (PermutesBlocks). dst and src must not
// overlap.
func PermuteBlocks(dst, src []byte, perm []byte, n int) {
	bs := len(perm)
	if bs == 0 || bs > 128 || n < 0 || len(dst) < n*bs || len(src) < n*bs {
		panic(fmt.Sprintf("tilecopy: permute of %d blocks of %d bytes between %d and %d bytes", n, bs, len(dst), len(src)))
	}
	var seen [2]uint64
	for _, p := range perm {
		if int(p) >= bs || seen[p/64]&(1<<(p%64)) != 0 {
			panic(fmt.Sprintf("tilecopy: permute: % x is no permutation", perm))
		}
		seen[p/64] |= 1 << (p % 64)
	}
	done := permuteBlocksFast(dst, src, perm, n)
	permuteBlocksGeneric(dst[done*bs:], src[done*bs:], perm, n-done)
}

// PermutesBlocks reports whether PermuteBlocks has a vector kernel for
// blocks of n bytes at the level in use (AVX-512 VBMI, n ≤ 128): without
// one it moves a byte at a time.
func PermutesBlocks(n int) bool { return n > 0 && n <= 128 && permutesRuns() }

// permuteBlocksGeneric is PermuteBlocks a byte at a time.
func permuteBlocksGeneric(dst, src []byte, perm []byte, n int) {
	bs := len(perm)
	for i := range n {
		d, s := dst[i*bs:(i+1)*bs], src[i*bs:(i+1)*bs]
		for j, p := range perm {
			d[j] = s[p]
		}
	}
}

// permuteGridMin is the smallest block permuteGrid takes: tinyGrid moves
// smaller ones an element at a time for about as much as a masked
// permutation costs.
const permuteGridMin = 32

// permuteGridBlocks is the fewest blocks a grid permuteGrid takes must
// have: the table it builds costs about as much as a few blocks' moves
// (s8[1,1536,6926] from T(8,128)(4,1) to T(32,32), grids of 2 blocks of
// 4×32 bytes, ran slower so than de-interleaved block by block).
const permuteGridBlocks = 16

// permuteGrid moves every block of the grid g whose rows lie end to end
// on both sides (a tile's: T(8,8) tiles of f16 transposed into T(8,8)
// tiles, each block one run of 128 bytes in each buffer) as one byte
// permutation, where the level has a kernel for blocks of that size
// (PermutesBlocks, from permuteGridMin bytes): a VPERMB, or two
// VPERMI2B, a block in one call a row of the grid, in place of a choice
// of kernel and a transpose an element at a time for each block; for
// grids of permuteGridBlocks blocks or more. With stream, blocks of one
// or two whole lines, in destination steps of whole lines, are stored
// with non-temporal stores (fenced at the end unless g.Unfenced). It
// reports whether it took the grid. The caller has checked its bounds.
func permuteGrid(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, g Grid, stream bool) bool {
	bs := rows * cols * width
	if rows < 2 || cols < 2 || dstStride != cols*width || srcStride != rows*width || bs < permuteGridMin ||
		g.Outer*g.Inner < permuteGridBlocks || !PermutesBlocks(bs) {
		return false
	}
	var perm [128]byte
	for i := range rows {
		for j := range cols {
			for c := range width {
				perm[(i*cols+j)*width+c] = byte((j*rows+i)*width + c)
			}
		}
	}
	stream = stream && streamsLines(dst, bs, g)
	for a := range g.Outer {
		permuteStrided(dst[a*g.DstOuter:], src[a*g.SrcOuter:], perm[:bs], g.Inner, g.SrcInner, g.DstInner, stream)
	}
	if stream && !g.Unfenced {
		storeFence()
	}
	return true
}

// streamsLines reports whether permuteGrid streams the grid g of blocks
// of bs bytes into dst: blocks of one or two lines, each on a line,
// where the level has the streaming kernel.
func streamsLines(dst []byte, bs int, g Grid) bool {
	return (bs == 64 || bs == 128) && g.DstInner%64 == 0 && (g.Outer == 1 || g.DstOuter%64 == 0) &&
		uintptr(unsafe.Pointer(unsafe.SliceData(dst)))%64 == 0 && streamsPermutes()
}
