//go:build !((amd64 || arm64) && gc && !purego && !noasm)

package tilecopy

import "unsafe"

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

// fillAsm has no kernel here.
func fillAsm(dst *byte, dstStride int, n, rows int, pat *[32]byte) bool { return false }

// stagedKernel is transposeKernel: nothing stages here.
func stagedKernel(width int) kernelID { return transposeKernel(width) }

// streamingStores reports that this architecture's kernels can write with
// non-temporal stores; these cannot.
const streamingStores = false

// transposeStaged is amd64's streaming transpose; Transpose never calls it
// here (streamingStores is false).
func transposeStaged(k kernelID, width, unit int, dp unsafe.Pointer, dstStride int, sp unsafe.Pointer, srcStride int, fullRows, fullCols int, stream bool) {
	panic("tilecopy: no streaming stores in this build")
}
