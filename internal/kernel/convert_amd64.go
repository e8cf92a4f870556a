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

// The fused tile kernels (tilesF32ToBF16{AVX512,AVX2} and their
// streaming twins, untileBF16ToF32 likewise) are declared in
// kernels_stubs_amd64.go, which the generator writes.

// tilesKernels and untileKernels are the fused kernels: [plain,
// streaming][AVX-512, AVX2].
var (
	tilesKernels = [2][2]func(dst *byte, src *byte, stride int, tiles int, lines int, pairs int, pf *byte){
		{tilesF32ToBF16AVX512, tilesF32ToBF16AVX2}, {tilesF32ToBF16StreamAVX512, tilesF32ToBF16StreamAVX2},
	}
	untileKernels = [2][2]func(dst *byte, src *byte, stride int, tiles int, lines int, pairs int){
		{untileBF16ToF32AVX512, untileBF16ToF32AVX2}, {untileBF16ToF32StreamAVX512, untileBF16ToF32StreamAVX2},
	}
)

// fusedTilesAsm reports whether the level in use has the fused kernels.
func fusedTilesAsm() bool { return useAVX2 }

// fuseTilesAsm runs the fused kernel, up (rows to tiles) or down, at
// the level in use, and reports whether there was one; the counts are
// ≥ 1 and checked. With stream, dst (and for down, stride) must be
// multiples of 64. Up prefetches from pf on (see tilesF32ToBF16AVX512).
func fuseTilesAsm(up bool, dst, src []byte, stride, tiles, lines, pairs int, stream bool, pf *byte) bool {
	if !useAVX2 {
		return false
	}
	s, l := 0, 1
	if stream {
		s = 1
	}
	if useAVX512 {
		l = 0
	}
	if up {
		tilesKernels[s][l](&dst[0], &src[0], stride, tiles, lines, pairs, pf)
	} else {
		untileKernels[s][l](&dst[0], &src[0], stride, tiles, lines, pairs)
	}
	return true
}
