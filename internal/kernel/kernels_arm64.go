//go:build (amd64 || arm64) && gc && !purego && !noasm

package kernel

// The arm64 transpose micro-kernels. Each one transposes n register blocks
// lying one after another along a strip of the source:
//
//	block k reads  bj source rows from src + k*bi*width (bi elements each)
//	        writes bi destination rows from dst + k*bi*dstStride (bj elements each)
//
// where bi × bj is the kernel's register block (kernelShape).
//
// Preconditions (the Go side checks them, the assembly does not): n ≥ 1;
// every byte read and written lies inside the caller's slices.

//go:noescape
func transpose1NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)

//go:noescape
func transpose2NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)

//go:noescape
func transpose16NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)

// The record transposes of RGB pixels, records of 3, 6 and 12 bytes:
// LD3 splits each row's records into channel planes, each plane is
// transposed, ST3 joins them back (kernels_arm64.s). Blocks of 8×8, 4×4
// and 4×4 records.

//go:noescape
func transpose3NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)

//go:noescape
func transpose6NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)

//go:noescape
func transpose12NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)

//go:noescape
func transpose4NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)

//go:noescape
func transpose8NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)

// haveAsm reports that this build has assembly kernels.
const haveAsm = true

// A kernelID names one micro-kernel; 0 is none (the generic path).
type kernelID uint8

const (
	kNone kernelID = iota
	k4NEON
	k8NEON
	k1NEON
	k2NEON
	k16NEON
	k3NEON
	k6NEON
	k12NEON
)

// kernelShape is a micro-kernel's register block: bi destination rows
// (source elements) by bj destination columns (source rows). The 4-, 8-
// and 16-byte kernels write 64 bytes to each destination row per block,
// the 1- and 2-byte ones 16 and 32.
type kernelShape struct {
	bi, bj int
	name   string
}

var shapes = [...]kernelShape{
	kNone:   {0, 0, "generic"},
	k4NEON:  {4, 16, "neon 16x4 (four 4x4)"},
	k8NEON:  {2, 8, "neon 8x2 (four 2x2)"},
	k1NEON:  {16, 16, "neon 16x16 (trn bytes to doublewords)"},
	k2NEON:  {8, 16, "neon 16x8 (two 8x8, trn halfwords to doublewords)"},
	k16NEON: {4, 4, "neon 4x4 (register moves)"},
	k3NEON:  {8, 8, "neon 8x8 (ld3, trn bytes to words)"},
	k6NEON:  {4, 4, "neon 4x4 (ld3, trn halfwords to words)"},
	k12NEON: {4, 4, "neon 4x4 (ld3, trn words to doublewords)"},
}

// transposeKernel picks the micro-kernel for width-byte elements at the
// level in use.
func transposeKernel(width int) kernelID {
	if useNEON {
		switch width {
		case 1:
			return k1NEON
		case 2:
			return k2NEON
		case 4:
			return k4NEON
		case 8:
			return k8NEON
		case 16:
			return k16NEON
		case 3:
			return k3NEON
		case 6:
			return k6NEON
		case 12:
			return k12NEON
		}
	}
	return kNone
}

func kernelName(width int) string {
	return shapes[transposeKernel(width)].name + weaveNote(width, useNEON, 1)
}

// strip runs kernel k on n blocks.
func strip(k kernelID, dst *byte, dstStride int, src *byte, srcStride int, n int) {
	switch k {
	case k4NEON:
		transpose4NEON(dst, dstStride, src, srcStride, n)
	case k8NEON:
		transpose8NEON(dst, dstStride, src, srcStride, n)
	case k1NEON:
		transpose1NEON(dst, dstStride, src, srcStride, n)
	case k2NEON:
		transpose2NEON(dst, dstStride, src, srcStride, n)
	case k16NEON:
		transpose16NEON(dst, dstStride, src, srcStride, n)
	case k3NEON:
		transpose3NEON(dst, dstStride, src, srcStride, n)
	case k6NEON:
		transpose6NEON(dst, dstStride, src, srcStride, n)
	case k12NEON:
		transpose12NEON(dst, dstStride, src, srcStride, n)
	}
}

// The interleaves: Transpose of rows × C (C = 2, 3 or 4 of 1-, 2- or 4-byte
// elements, or 8 of bytes) with a contiguous destination.
// interleaveCxWNEON reads n steps of 16 bytes of each of C source rows
// and writes them to dst element by element (W bytes each). The
// de-interleaves are their inverses: deinterleaveRxWNEON reads n steps
// of 16*R contiguous bytes and writes 16 bytes to each of R destination
// rows. Preconditions: n ≥ 1; every byte inside the caller's slices.

//go:noescape
func interleave2x1NEON(dst *byte, src *byte, srcStride int, n int)

//go:noescape
func interleave2x2NEON(dst *byte, src *byte, srcStride int, n int)

//go:noescape
func interleave2x4NEON(dst *byte, src *byte, srcStride int, n int)

//go:noescape
func interleave3x1NEON(dst *byte, src *byte, srcStride int, n int)

//go:noescape
func interleave3x2NEON(dst *byte, src *byte, srcStride int, n int)

//go:noescape
func interleave3x4NEON(dst *byte, src *byte, srcStride int, n int)

//go:noescape
func interleave4x1NEON(dst *byte, src *byte, srcStride int, n int)

//go:noescape
func interleave4x2NEON(dst *byte, src *byte, srcStride int, n int)

//go:noescape
func interleave4x4NEON(dst *byte, src *byte, srcStride int, n int)

//go:noescape
func interleave8x1NEON(dst *byte, src *byte, srcStride int, n int)

//go:noescape
func deinterleave2x1NEON(dst *byte, dstStride int, src *byte, n int)

//go:noescape
func deinterleave2x2NEON(dst *byte, dstStride int, src *byte, n int)

//go:noescape
func deinterleave2x4NEON(dst *byte, dstStride int, src *byte, n int)

//go:noescape
func deinterleave3x1NEON(dst *byte, dstStride int, src *byte, n int)

//go:noescape
func deinterleave3x2NEON(dst *byte, dstStride int, src *byte, n int)

//go:noescape
func deinterleave3x4NEON(dst *byte, dstStride int, src *byte, n int)

//go:noescape
func deinterleave4x1NEON(dst *byte, dstStride int, src *byte, n int)

//go:noescape
func deinterleave4x2NEON(dst *byte, dstStride int, src *byte, n int)

//go:noescape
func deinterleave4x4NEON(dst *byte, dstStride int, src *byte, n int)

//go:noescape
func deinterleave8x1NEON(dst *byte, dstStride int, src *byte, n int)

// weaveUnit is the elements a call of the NEON interleave and
// de-interleave kernels moves per row, a multiple of it (a vector of
// them); 0 without NEON or for elements wider than 4 bytes.
func weaveUnit(width int) int {
	if !useNEON || width > 4 {
		return 0
	}
	return 16 / width
}

// weaveLeast is weaveUnit: the NEON kernels have one chunk.
func weaveLeast(width int) int { return weaveUnit(width) }

// interleaveAsm runs the interleave of cols source rows (2, 3 or 4 of
// width-byte elements, 1, 2 or 4; or 8 of bytes) with NEON over rows
// elements, and returns how many it did (a multiple of 16/width), or 0
// if it has no kernel.
func interleaveAsm(width int, dst *byte, src *byte, srcStride int, rows, cols int) int {
	chunk := weaveUnit(width)
	if chunk == 0 || rows < chunk {
		return 0
	}
	n := rows / chunk
	switch {
	case cols == 2 && width == 1:
		interleave2x1NEON(dst, src, srcStride, n)
	case cols == 2 && width == 2:
		interleave2x2NEON(dst, src, srcStride, n)
	case cols == 2 && width == 4:
		interleave2x4NEON(dst, src, srcStride, n)
	case cols == 3 && width == 1:
		interleave3x1NEON(dst, src, srcStride, n)
	case cols == 3 && width == 2:
		interleave3x2NEON(dst, src, srcStride, n)
	case cols == 3 && width == 4:
		interleave3x4NEON(dst, src, srcStride, n)
	case cols == 4 && width == 1:
		interleave4x1NEON(dst, src, srcStride, n)
	case cols == 4 && width == 2:
		interleave4x2NEON(dst, src, srcStride, n)
	case cols == 4 && width == 4:
		interleave4x4NEON(dst, src, srcStride, n)
	case cols == 8 && width == 1:
		interleave8x1NEON(dst, src, srcStride, n)
	default:
		return 0
	}
	return n * chunk
}

// deinterleaveAsm runs the de-interleave of one stream into rows
// destination rows (2, 3 or 4 of width-byte elements, or 8 of bytes) with
// NEON over cols elements, and returns how many it did (a multiple of
// 16/width), or 0 if it has no kernel.
func deinterleaveAsm(width int, dst *byte, dstStride int, src *byte, rows, cols int) int {
	chunk := weaveUnit(width)
	if chunk == 0 || cols < chunk {
		return 0
	}
	n := cols / chunk
	switch {
	case rows == 2 && width == 1:
		deinterleave2x1NEON(dst, dstStride, src, n)
	case rows == 2 && width == 2:
		deinterleave2x2NEON(dst, dstStride, src, n)
	case rows == 2 && width == 4:
		deinterleave2x4NEON(dst, dstStride, src, n)
	case rows == 3 && width == 1:
		deinterleave3x1NEON(dst, dstStride, src, n)
	case rows == 3 && width == 2:
		deinterleave3x2NEON(dst, dstStride, src, n)
	case rows == 3 && width == 4:
		deinterleave3x4NEON(dst, dstStride, src, n)
	case rows == 4 && width == 1:
		deinterleave4x1NEON(dst, dstStride, src, n)
	case rows == 4 && width == 2:
		deinterleave4x2NEON(dst, dstStride, src, n)
	case rows == 4 && width == 4:
		deinterleave4x4NEON(dst, dstStride, src, n)
	case rows == 8 && width == 1:
		deinterleave8x1NEON(dst, dstStride, src, n)
	default:
		return 0
	}
	return n * chunk
}

// pack4NEON packs the low nibbles of 32n bytes from src into 16n bytes at
// dst, two to a byte, the first in the high nibble; unpack4NEON is its
// inverse, keeping the bits under mask of each field and sign-extending
// from the bit sign (0 for zero-extended). packRows8NEON packs n steps of
// 16 bytes of 8 source rows into words of nibbles (PackRows8), and
// unpackRows8NEON is its inverse (UnpackRows8), fields as unpack4NEON
// makes them. Preconditions: n ≥ 1; every byte inside the caller's
// slices.
//
//go:noescape
func pack4NEON(dst *byte, src *byte, n int)

//go:noescape
func unpack4NEON(dst *byte, src *byte, n int, mask, sign byte)

//go:noescape
func packRows8NEON(dst *byte, src *byte, srcStride int, n int)

//go:noescape
func unpackRows8NEON(dst *byte, dstStride int, src *byte, n int, mask, sign byte)

// interleave8NibblesNEON and deinterleave8NibblesNEON lay out n steps of
// 8 packed rows of 4-bit fields (16 bytes of each row a step) as words
// of nibbles and back (InterleaveNibbles8, DeinterleaveNibbles8).
// Preconditions: n ≥ 1; every byte inside the caller's slices.
//
//go:noescape
func interleave8NibblesNEON(dst *byte, src *byte, srcStride int, n int)

//go:noescape
func deinterleave8NibblesNEON(dst *byte, dstStride int, src *byte, n int)

// unpack4Asm unpacks the whole 32-element pieces of n 4-bit fields with
// the NEON kernel and returns how many elements it did; pack4Asm packs
// them.
func unpack4Asm(dst, src []byte, n int, mask, sign byte) int {
	m := n &^ 31
	if m == 0 || !useNEON {
		return 0
	}
	unpack4NEON(&dst[0], &src[0], m/32, mask, sign)
	return m
}

func pack4Asm(dst, src []byte, n int) int {
	m := n &^ 31
	if m == 0 || !useNEON {
		return 0
	}
	pack4NEON(&dst[0], &src[0], m/32)
	return m
}

// packRows8Asm packs the whole 16-column steps of n columns of 8 rows
// with the NEON kernel and returns how many columns it did;
// unpackRows8Asm unpacks them. arm64 has no non-temporal vector stores
// here, so st changes nothing.
func packRows8Asm(dst, src []byte, srcStride, n int, st *Stream) int {
	k := n / 16
	if k == 0 || !useNEON {
		return 0
	}
	packRows8NEON(&dst[0], &src[0], srcStride, k)
	return 16 * k
}

func unpackRows8Asm(dst []byte, dstStride int, src []byte, n int, mask, sign byte, st *Stream) int {
	k := n / 16
	if k == 0 || !useNEON {
		return 0
	}
	unpackRows8NEON(&dst[0], dstStride, &src[0], k, mask, sign)
	return 16 * k
}

// interleaveNibbles8Asm lays out the whole 32-field steps of n fields of
// 8 packed rows as words with the NEON kernel and returns how many fields
// it did; deinterleaveNibbles8Asm lays them out as rows again. st
// changes nothing (see packRows8Asm).
// packRows8x8Asm has no kernel here: the grids of 8-field blocks take
// the generic code.
func packRows8x8Asm(dst []byte, dstStep int, src []byte, srcStride, srcStep, count int) bool {
	return false
}

// transposeNibbles8Asm has no kernel here: the grids of 8-field (8,1)
// tiles take the generic code.
func transposeNibbles8Asm(dst []byte, dstStride, dstStep int, src []byte, srcStride, srcStep, count int) bool {
	return false
}

func interleaveNibbles8Asm(dst, src []byte, srcStride, n int, st *Stream) int {
	k := n / 32
	if k == 0 || !useNEON {
		return 0
	}
	interleave8NibblesNEON(&dst[0], &src[0], srcStride, k)
	return 32 * k
}

func deinterleaveNibbles8Asm(dst []byte, dstStride int, src []byte, n int, st *Stream) int {
	k := n / 32
	if k == 0 || !useNEON {
		return 0
	}
	deinterleave8NibblesNEON(&dst[0], dstStride, &src[0], k)
	return 32 * k
}

// weavesWide reports that NEON has no interleave kernels of 8- or
// 16-byte elements.
func weavesWide() bool { return false }
