//go:build amd64 && gc && !purego && !noasm

package kernel

// copyPartsAVX512 and copyPartsAVX2 copy blocks blocks of 256 bytes from
// each of parts parts of src, partLen bytes apart, to the same places
// from dst: the parts' first blocks, then their second blocks, and so
// on, with non-temporal stores, prefetching ahead bytes ahead in each
// part when ahead > 0. The caller fences the stores.
//
// Preconditions (copyParts checks them): dst is 64-byte aligned; partLen
// is a multiple of 256; parts, blocks ≥ 1; parts × partLen bytes lie
// inside both buffers, which do not overlap.
//
//go:noescape
func copyPartsAVX512(dst *byte, src *byte, partLen int, parts int, blocks int, ahead int)

//go:noescape
func copyPartsAVX2(dst *byte, src *byte, partLen int, parts int, blocks int, ahead int)

// copyStreamed copies src to dst (of the same length, apart) over parts
// parts with non-temporal stores and reports true, or reports false
// where the level in use has no such kernel (below AVX2).
func copyStreamed(dst, src []byte, parts, ahead int) bool {
	switch {
	case useAVX512:
		copyParts(dst, src, parts, ahead, copyPartsAVX512)
	case useAVX2:
		copyParts(dst, src, parts, ahead, copyPartsAVX2)
	default:
		return false
	}
	return true
}

// copyRepMOVSB copies n bytes with REP MOVSB. Preconditions: n ≥ 0
// bytes lie inside both buffers, which do not overlap.
//
//go:noescape
func copyRepMOVSB(dst *byte, src *byte, n int)

// copyCached copies src to dst (of the same length, apart) through the
// caches with REP MOVSB and reports true, where the CPU has ERMS and the
// level in use is AVX2 or above; it reports false elsewhere.
func copyCached(dst, src []byte) bool {
	if !useERMS {
		return false
	}
	if len(dst) > 0 {
		copyRepMOVSB(&dst[0], &src[0], len(dst))
	}
	return true
}
