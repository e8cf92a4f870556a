//go:build !((amd64 || arm64) && gc && !purego && !noasm)

package kernel

// Without assembly (the purego or noasm tags, another compiler or another
// architecture) every kernel is the generic one. This file holds the
// kernels arm64 wires to NEON in kernels_arm64.go and convert_arm64.go,
// as none; what only amd64 has is in kernels_fallback.go, which these
// builds take too.

// haveAsm reports that this build has assembly kernels.
const haveAsm = false

// A kernelID names one micro-kernel; this build has none.
type kernelID uint8

const kNone kernelID = 0

// kernelShape is a micro-kernel's register block (see the assembly builds).
type kernelShape struct {
	bi, bj int
	name   string
}

var shapes = [...]kernelShape{kNone: {0, 0, "generic"}}

func transposeKernel(width int) kernelID { return kNone }

func kernelName(width int) string { return shapes[kNone].name }

func strip(k kernelID, dst *byte, dstStride int, src *byte, srcStride int, n int) {
	panic("tilecopy: no assembly kernels in this build")
}

// interleaveAsm has no kernel here: it does none of the rows.
func interleaveAsm(width int, dst *byte, src *byte, srcStride int, rows, cols int) int { return 0 }

// weaveUnit is 0: there are no interleave kernels here.
func weaveUnit(width int) int { return 0 }

// weaveLeast is 0 as well.
func weaveLeast(width int) int { return 0 }

// deinterleaveAsm has no kernel here: it does none of the columns.
func deinterleaveAsm(width int, dst *byte, dstStride int, src *byte, rows, cols int) int {
	return 0
}

// unpack4Asm, pack4Asm, packRows8Asm and unpackRows8Asm have no kernel
// here: they do none of the elements.
func unpack4Asm(dst, src []byte, n int, mask, sign byte) int { return 0 }

func pack4Asm(dst, src []byte, n int) int { return 0 }

func packRows8Asm(dst, src []byte, srcStride, n int, st *Stream) int { return 0 }

func unpackRows8Asm(dst []byte, dstStride int, src []byte, n int, mask, sign byte, st *Stream) int {
	return 0
}

// interleaveNibbles8Asm and deinterleaveNibbles8Asm have no kernel here:
// they do none of the fields.
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

func interleaveNibbles8Asm(dst, src []byte, srcStride, n int, st *Stream) int { return 0 }

func deinterleaveNibbles8Asm(dst []byte, dstStride int, src []byte, n int, st *Stream) int {
	return 0
}

// convertAsm has no kernel in this build: it converts none of the
// elements.
func convertAsm(k convKind, dst, src []byte, n int, stream bool) int { return 0 }

// weavesWide is false: there are no interleave kernels here.
func weavesWide() bool { return false }
