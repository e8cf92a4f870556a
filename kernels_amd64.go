//go:build (amd64 || arm64) && gc && !purego && !noasm

package tilecopy

// The amd64 transpose micro-kernels. Each one transposes n register blocks
// lying one after another along a strip of the source:
//
//	block k reads  bj source rows from src + k*bi*width (bi elements each)
//	        writes bi destination rows from dst + k*bi*dstStride (bj elements each)
//
// where bi × bj is the kernel's register block (kernelShape). With nt, the
// destination is written with non-temporal stores followed by SFENCE.
//
// Preconditions (the Go side checks them, the assembly does not): n ≥ 1;
// every byte read and written lies inside the caller's slices; with nt,
// dst and dstStride are multiples of 64. The CPU has the feature the
// kernel's name says (AVX512 also means BW and DQ; transpose1AVX512 also
// needs VBMI).

//go:noescape
func transpose1AVX512(dst *byte, dstStride int, src *byte, srcStride int, n int, nt bool)

//go:noescape
func transpose2AVX512(dst *byte, dstStride int, src *byte, srcStride int, n int, nt bool)

//go:noescape
func transpose4AVX512(dst *byte, dstStride int, src *byte, srcStride int, n int, nt bool)

//go:noescape
func transpose8AVX512(dst *byte, dstStride int, src *byte, srcStride int, n int, nt bool)

//go:noescape
func transpose16AVX512(dst *byte, dstStride int, src *byte, srcStride int, n int, nt bool)

//go:noescape
func transpose4AVX2(dst *byte, dstStride int, src *byte, srcStride int, n int, nt bool)

//go:noescape
func transpose8AVX2(dst *byte, dstStride int, src *byte, srcStride int, n int, nt bool)

//go:noescape
func transpose16AVX2(dst *byte, dstStride int, src *byte, srcStride int, n int, nt bool)

// copyRunsNT copies rows runs of n bytes, run k from src+k*srcStride to
// dst+k*dstStride, with non-temporal stores followed by SFENCE.
// Preconditions: AVX2; rows ≥ 1; n ≥ 64 and a multiple of 64; dst and
// dstStride multiples of 32; every byte inside the caller's slices.
//
//go:noescape
func copyRunsNT(dst *byte, dstStride int, src *byte, srcStride int, n int, rows int)

// copyRunsNTPrefetch is copyRunsNT that also prefetches one line per line
// it copies, walking runs of pfN bytes at stride pfStride from pf (the next
// tile's source). Prefetches never fault, so pf needs no bounds.
//
//go:noescape
func copyRunsNTPrefetch(dst *byte, dstStride int, src *byte, srcStride int, n int, rows int, pf *byte, pfStride int, pfN int)

// copyRunsStream is copyRunsNTPrefetch, or copyRunsNT when pf is nil.
func copyRunsStream(dst *byte, dstStride int, src *byte, srcStride int, n int, rows int, pf *byte, pfStride int, pfN int) {
	if pf == nil {
		copyRunsNT(dst, dstStride, src, srcStride, n, rows)
		return
	}
	copyRunsNTPrefetch(dst, dstStride, src, srcStride, n, rows, pf, pfStride, pfN)
}

// haveAsm reports that this build has assembly kernels.
const haveAsm = true

// A kernelID names one micro-kernel; 0 is none (the generic path).
type kernelID uint8

const (
	kNone kernelID = iota
	k1AVX512
	k2AVX512
	k4AVX512
	k8AVX512
	k16AVX512
	k4AVX2
	k8AVX2
	k16AVX2
)

// kernelShape is a micro-kernel's register block: bi destination rows
// (source elements) by bj destination columns (source rows). Every kernel
// writes 64 bytes to each destination row per block.
type kernelShape struct {
	bi, bj int
	name   string
}

var shapes = [...]kernelShape{
	kNone:     {0, 0, "generic"},
	k1AVX512:  {16, 64, "avx512 64x16 (vpermb + 16x16 dword transpose)"},
	k2AVX512:  {16, 32, "avx512 32x16 (vpermw + 16x16 dword transpose)"},
	k4AVX512:  {16, 16, "avx512 16x16"},
	k8AVX512:  {8, 8, "avx512 8x8"},
	k16AVX512: {4, 4, "avx512 4x4"},
	k4AVX2:    {8, 16, "avx2 16x8 (two 8x8)"},
	k8AVX2:    {4, 8, "avx2 8x4 (two 4x4)"},
	k16AVX2:   {2, 4, "avx2 4x2 (two 2x2)"},
}

// transposeKernel picks the micro-kernel for width-byte elements at the
// level in use.
func transposeKernel(width int) kernelID {
	if useAVX512 {
		switch width {
		case 1:
			if useVBMI {
				return k1AVX512
			}
		case 2:
			return k2AVX512
		case 4:
			return k4AVX512
		case 8:
			return k8AVX512
		case 16:
			return k16AVX512
		}
	}
	if useAVX2 {
		switch width {
		case 4:
			return k4AVX2
		case 8:
			return k8AVX2
		case 16:
			return k16AVX2
		}
	}
	return kNone
}

func kernelName(width int) string {
	return shapes[transposeKernel(width)].name
}

// strip runs kernel k on n blocks.
func strip(k kernelID, dst *byte, dstStride int, src *byte, srcStride int, n int, nt bool) {
	switch k {
	case k1AVX512:
		transpose1AVX512(dst, dstStride, src, srcStride, n, nt)
	case k2AVX512:
		transpose2AVX512(dst, dstStride, src, srcStride, n, nt)
	case k4AVX512:
		transpose4AVX512(dst, dstStride, src, srcStride, n, nt)
	case k8AVX512:
		transpose8AVX512(dst, dstStride, src, srcStride, n, nt)
	case k16AVX512:
		transpose16AVX512(dst, dstStride, src, srcStride, n, nt)
	case k4AVX2:
		transpose4AVX2(dst, dstStride, src, srcStride, n, nt)
	case k8AVX2:
		transpose8AVX2(dst, dstStride, src, srcStride, n, nt)
	case k16AVX2:
		transpose16AVX2(dst, dstStride, src, srcStride, n, nt)
	}
}
