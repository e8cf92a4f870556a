package kernel

import (
	"unsafe"

	"github.com/tilecopy/tilecopy/internal/mem"
)

// Copy copies min(len(dst), len(src)) bytes from src to dst and returns
// that count, as copy() does, as fast as the machine's memory allows. It
// is the current tuning's Copy (see Tuning.Copy).
func Copy(dst, src []byte) int { return tuning.Copy(dst, src) }

// Copy copies min(len(dst), len(src)) bytes from src to dst and returns
// that count, as copy() does, with t's choices.
//
// Up to t.CopyStreamBytes bytes it copies through the caches: with the
// microcoded string copy (REP MOVSB) where the CPU runs it fast (ERMS)
// and the level in use is AVX2 or above, past t.CopyRepBytes (where it
// is not 0) with a loop of vector moves, else copy() a piece of less
// than 1 MiB at a time, since Go's copy() itself turns to non-temporal
// stores from 1 MiB on CPUs where it runs on AVX, which costs a copy
// whose destination would have stayed in the caches. Past
// t.CopyStreamBytes, where the level in use has non-temporal stores
// (AVX2 and above), it cuts the buffer into t.CopyParts parts and walks
// them all at once, 256 bytes of each in turn, writing the destination
// with non-temporal stores: one walk keeps too few misses in flight to
// use all of the memory's bandwidth on some machines, several do. Each
// part prefetches its source t.CopyAhead bytes ahead (0: the hardware
// prefetchers alone). The destination bypasses the caches, and a store
// fence orders its stores before Copy returns. The bytes before the
// destination's first 64-byte line and after the parts' last whole
// blocks go through copy().
//
// Overlapping slices are copied as copy() copies them.
func (t Tuning) Copy(dst, src []byte) int {
	n := min(len(dst), len(src))
	dst, src = dst[:n], src[:n]
	switch {
	case mem.Overlap(dst, src):
		copy(dst, src)
	case n <= t.CopyStreamBytes || t.CopyParts < 1 || !copyStreamed(dst, src, t.CopyParts, t.CopyAhead):
		if copyCached(dst, src, t.CopyRepBytes) {
			break
		}
		for a := 0; a < n; a += cachedPiece {
			e := min(a+cachedPiece, n)
			copy(dst[a:e], src[a:e])
		}
	}
	return n
}

// cachedPiece is the piece of a copy through the caches: under the 1 MiB
// from which Go's copy() streams where it runs on AVX.
const cachedPiece = 512 << 10

// copyBlock is the bytes the parts kernels copy from a part before they
// turn to the next.
const copyBlock = 256

// lineHead returns how many bytes of b lie before its first 64-byte line
// boundary, at most len(b): the head the line-aligned kernels leave.
func lineHead(b []byte) int {
	return min(int(-uintptr(unsafe.Pointer(unsafe.SliceData(b)))&63), len(b))
}

// copyParts copies src to dst (of the same length, apart) with kern, the
// parts kernel of a level: the bytes before dst's first 64-byte line and
// after the last whole block of every part by copy(), the rest in parts
// parts walked together, then a store fence.
func copyParts(dst, src []byte, parts, ahead int, kern func(dst, src *byte, partLen, parts, blocks, ahead int)) {
	head := lineHead(dst)
	copy(dst[:head], src[:head])
	partLen := (len(dst) - head) / parts / copyBlock * copyBlock
	if partLen > 0 {
		kern(&dst[head], &src[head], partLen, parts, partLen/copyBlock, max(ahead, 0))
		storeFence()
	}
	done := head + parts*partLen
	copy(dst[done:], src[done:])
}
