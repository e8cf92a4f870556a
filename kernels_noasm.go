//go:build !((amd64 || arm64) && gc && !purego && !noasm)

package tilecopy

// Without assembly (the purego or noasm tags, another compiler or another
// architecture) every kernel is the generic one.

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

// deinterleaveAsm has no kernel here: it does none of the columns.
func deinterleaveAsm(width int, dst *byte, dstStride int, src *byte, rows, cols int) int {
	return 0
}

func unpackBitsFast(dst, src []byte, n, bits, natural int, signed bool) {
	unpackBitsGeneric(dst, src, n, bits, natural, signed)
}

func packBitsFast(dst, src []byte, n, bits int) { packBitsGeneric(dst, src, n, bits) }

func packRows8Fast(dst, src []byte, srcStride, n int, stream bool) {
	packRows8Generic(dst, src, srcStride, n)
}

func unpackRows8Fast(dst []byte, dstStride int, src []byte, n, natural int, signed, stream bool) {
	unpackRows8Generic(dst, dstStride, src, n, natural, signed)
}
