//go:build (amd64 || arm64) && gc && !purego && !noasm

package tilecopy

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
)

// kernelShape is a micro-kernel's register block: bi destination rows
// (source elements) by bj destination columns (source rows). Every kernel
// writes 64 bytes to each destination row per block.
type kernelShape struct {
	bi, bj int
	name   string
}

var shapes = [...]kernelShape{
	kNone:  {0, 0, "generic"},
	k4NEON: {4, 16, "neon 16x4 (four 4x4)"},
	k8NEON: {2, 8, "neon 8x2 (four 2x2)"},
}

// transposeKernel picks the micro-kernel for width-byte elements at the
// level in use.
func transposeKernel(width int) kernelID {
	if useNEON {
		switch width {
		case 4:
			return k4NEON
		case 8:
			return k8NEON
		}
	}
	return kNone
}

func kernelName(width int) string {
	return shapes[transposeKernel(width)].name
}

// strip runs kernel k on n blocks.
func strip(k kernelID, dst *byte, dstStride int, src *byte, srcStride int, n int) {
	switch k {
	case k4NEON:
		transpose4NEON(dst, dstStride, src, srcStride, n)
	case k8NEON:
		transpose8NEON(dst, dstStride, src, srcStride, n)
	}
}
