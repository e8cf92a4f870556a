//go:build amd64 && gc && !purego && !noasm

package kernel

// The conversion kernels of kernels_amd64.s (generated: kernels/convert.go).
// Each converts n elements, n a multiple of 16, from src to dst; every
// byte they touch must lie inside the caller's slices. The f32 and bf16
// kernels need AVX-512 (F) or AVX2; the f16 ones AVX-512 (F) or AVX2 and
// F16C.

// convertF32ToBF16AVX512 converts n f32 values to bf16.
//
//go:noescape
func convertF32ToBF16AVX512(dst *byte, src *byte, n int)

// convertBF16ToF32AVX512 converts n bf16 values to f32.
//
//go:noescape
func convertBF16ToF32AVX512(dst *byte, src *byte, n int)

// convertF32ToF16AVX512 converts n f32 values to f16.
//
//go:noescape
func convertF32ToF16AVX512(dst *byte, src *byte, n int)

// convertF16ToF32AVX512 converts n f16 values to f32.
//
//go:noescape
func convertF16ToF32AVX512(dst *byte, src *byte, n int)

// convertF32ToBF16AVX2 converts n f32 values to bf16.
//
//go:noescape
func convertF32ToBF16AVX2(dst *byte, src *byte, n int)

// convertBF16ToF32AVX2 converts n bf16 values to f32.
//
//go:noescape
func convertBF16ToF32AVX2(dst *byte, src *byte, n int)

// convertF32ToF16AVX2 converts n f32 values to f16 (F16C).
//
//go:noescape
func convertF32ToF16AVX2(dst *byte, src *byte, n int)

// convertF16ToF32AVX2 converts n f16 values to f32 (F16C).
//
//go:noescape
func convertF16ToF32AVX2(dst *byte, src *byte, n int)

// The streaming twins: the same conversions with non-temporal stores,
// not fenced. Preconditions as well: dst a multiple of 64.

//go:noescape
func convertF32ToBF16StreamAVX512(dst *byte, src *byte, n int)

//go:noescape
func convertBF16ToF32StreamAVX512(dst *byte, src *byte, n int)

//go:noescape
func convertF32ToF16StreamAVX512(dst *byte, src *byte, n int)

//go:noescape
func convertF16ToF32StreamAVX512(dst *byte, src *byte, n int)

//go:noescape
func convertF32ToBF16StreamAVX2(dst *byte, src *byte, n int)

//go:noescape
func convertBF16ToF32StreamAVX2(dst *byte, src *byte, n int)

//go:noescape
func convertF32ToF16StreamAVX2(dst *byte, src *byte, n int)

//go:noescape
func convertF16ToF32StreamAVX2(dst *byte, src *byte, n int)

// convertKernels are the kernels of each kind: plain then streaming,
// each AVX-512 then AVX2.
var convertKernels = [numConvKinds][2][2]func(dst *byte, src *byte, n int){
	convF32ToBF16: {{convertF32ToBF16AVX512, convertF32ToBF16AVX2}, {convertF32ToBF16StreamAVX512, convertF32ToBF16StreamAVX2}},
	convBF16ToF32: {{convertBF16ToF32AVX512, convertBF16ToF32AVX2}, {convertBF16ToF32StreamAVX512, convertBF16ToF32StreamAVX2}},
	convF32ToF16:  {{convertF32ToF16AVX512, convertF32ToF16AVX2}, {convertF32ToF16StreamAVX512, convertF32ToF16StreamAVX2}},
	convF16ToF32:  {{convertF16ToF32AVX512, convertF16ToF32AVX2}, {convertF16ToF32StreamAVX512, convertF16ToF32StreamAVX2}},
}

// convertAsm converts the whole 16-element pieces of n elements of kind
// k with the best kernel the level in use allows and returns how many it
// did (none at the generic level, nor for f16 without F16C). With
// stream, dst must be a multiple of 64 and the stores are non-temporal,
// not fenced.
func convertAsm(k convKind, dst, src []byte, n int, stream bool) int {
	m := n &^ 15
	if m == 0 || !useAVX2 || (k == convF32ToF16 || k == convF16ToF32) && !useF16C {
		return 0
	}
	s := 0
	if stream {
		s = 1
	}
	f := convertKernels[k][s][1]
	if useAVX512 {
		f = convertKernels[k][s][0]
	}
	f(&dst[0], &src[0], m)
	return m
}
