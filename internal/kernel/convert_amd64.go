//go:build amd64 && gc && !purego && !noasm

package kernel

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
