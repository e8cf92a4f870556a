//go:build arm64 && gc && !purego && !noasm

package kernel

// The NEON conversion kernels (kernels_arm64.s): each converts n
// elements, a multiple of 16, from src to dst. Preconditions: n ≥ 16;
// every byte inside the caller's slices.

//go:noescape
func convertF32ToBF16NEON(dst *byte, src *byte, n int)

//go:noescape
func convertBF16ToF32NEON(dst *byte, src *byte, n int)

//go:noescape
func convertF32ToF16NEON(dst *byte, src *byte, n int)

//go:noescape
func convertF16ToF32NEON(dst *byte, src *byte, n int)

// fpcr returns the floating-point control register, FPCR.
func fpcr() uint64

// fpcrModes are the FPCR bits under which FCVTN and FCVTL would depart
// from F32ToF16 and F16ToF32: AHP (26, the alternative half-precision
// format, without inf and NaN), DN (25, default NaNs), FZ (24, flush
// subnormals to zero), RMode (23:22, rounding other than to nearest
// even), and FEAT_AFP's AH (1) and FIZ (0). Go never sets them, nor
// does Linux; C code called through cgo might.
const fpcrModes = 1<<26 | 1<<25 | 1<<24 | 3<<22 | 1<<1 | 1<<0

// readFPCR is fpcr; tests replace it.
var readFPCR = fpcr

// convertNEON are the kernels of each kind.
var convertNEON = [numConvKinds]func(dst *byte, src *byte, n int){
	convF32ToBF16: convertF32ToBF16NEON,
	convBF16ToF32: convertBF16ToF32NEON,
	convF32ToF16:  convertF32ToF16NEON,
	convF16ToF32:  convertF16ToF32NEON,
}

// convertAsm converts the whole 16-element pieces of n elements of kind
// k with the NEON kernel and returns how many it did: none at the
// generic level, nor for f16 while FPCR asks for other rounding or
// NaNs than the generic code's (fpcrModes). The bf16 kernels are
// integer arithmetic, which FPCR does not touch. arm64 has no
// non-temporal vector stores here, so stream changes nothing.
func convertAsm(k convKind, dst, src []byte, n int, stream bool) int {
	m := n &^ 15
	if m == 0 || !useNEON || (k == convF32ToF16 || k == convF16ToF32) && readFPCR()&fpcrModes != 0 {
		return 0
	}
	convertNEON[k](&dst[0], &src[0], m)
	return m
}
