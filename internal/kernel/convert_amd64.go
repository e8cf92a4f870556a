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

// The fused tile kernels (see TilesF32ToBF16): tiles·pairs·lines lines
// of 64 bytes on the tile side, one after the other; rows stride bytes
// apart on the row side. Preconditions: AVX-512 (F) or AVX2; tiles,
// lines and pairs ≥ 1; every byte inside the caller's slices; for the
// streaming twins (non-temporal stores, not fenced) dst a multiple of
// 64, and for untile stride too. The tiles kernels prefetch two lines
// into L2 for each line they write, from pf and pf + pairs·stride on
// (prefetches never fault: pf needs no bounds).

// tilesF32ToBF16AVX512 converts f32 rows at src into bf16 tiles at dst.
//
//go:noescape
func tilesF32ToBF16AVX512(dst *byte, src *byte, stride int, tiles int, lines int, pairs int, pf *byte)

// untileBF16ToF32AVX512 converts bf16 tiles at src into f32 rows at dst.
//
//go:noescape
func untileBF16ToF32AVX512(dst *byte, src *byte, stride int, tiles int, lines int, pairs int)

// tilesF32ToBF16AVX2 converts f32 rows at src into bf16 tiles at dst.
//
//go:noescape
func tilesF32ToBF16AVX2(dst *byte, src *byte, stride int, tiles int, lines int, pairs int, pf *byte)

// untileBF16ToF32AVX2 converts bf16 tiles at src into f32 rows at dst.
//
//go:noescape
func untileBF16ToF32AVX2(dst *byte, src *byte, stride int, tiles int, lines int, pairs int)

//go:noescape
func tilesF32ToBF16StreamAVX512(dst *byte, src *byte, stride int, tiles int, lines int, pairs int, pf *byte)

//go:noescape
func untileBF16ToF32StreamAVX512(dst *byte, src *byte, stride int, tiles int, lines int, pairs int)

//go:noescape
func tilesF32ToBF16StreamAVX2(dst *byte, src *byte, stride int, tiles int, lines int, pairs int, pf *byte)

//go:noescape
func untileBF16ToF32StreamAVX2(dst *byte, src *byte, stride int, tiles int, lines int, pairs int)

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
