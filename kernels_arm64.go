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
func transpose1NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)

//go:noescape
func transpose2NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)

//go:noescape
func transpose16NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)

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
	case k1NEON:
		transpose1NEON(dst, dstStride, src, srcStride, n)
	case k2NEON:
		transpose2NEON(dst, dstStride, src, srcStride, n)
	case k16NEON:
		transpose16NEON(dst, dstStride, src, srcStride, n)
	}
}
