//go:build amd64 && gc && !purego && !noasm

package kernel

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

// copyCached copies src to dst (of the same length, apart) through the
// caches and reports true, where the CPU has ERMS and the level in use is
// AVX2 or above; it reports false elsewhere. Copies of up to repBytes
// bytes (any, with repBytes 0) run REP MOVSB; larger ones a loop of
// AVX2 moves (copyBlocksAVX2) from dst's first 64-byte line, with REP
// MOVSB before it and after the last whole block.
func copyCached(dst, src []byte, repBytes int) bool {
	if !useERMS {
		return false
	}
	n := len(dst)
	if n == 0 {
		return true
	}
	head := lineHead(dst)
	if repBytes == 0 || n <= repBytes || n-head < copyBlock {
		copyRepMOVSB(&dst[0], &src[0], n)
		return true
	}
	copyRepMOVSB(&dst[0], &src[0], head)
	blocks := (n - head) / copyBlock
	copyBlocksAVX2(&dst[head], &src[head], blocks)
	if done := head + blocks*copyBlock; done < n {
		copyRepMOVSB(&dst[done], &src[done], n-done)
	}
	return true
}

// copyMasked runs m's masked copy of src to dst (of the same length,
// apart; dst[0] at byte phase of the pattern) with a kernel of the level
// in use and reports true, or reports false where the level has none
// (below AVX2) or m's period does not suit them (Mask.kernelLen). With
// stream it walks parts parts with non-temporal stores; without, it
// goes through the caches.
func copyMasked(dst, src []byte, m *Mask, phase, parts int, stream bool) bool {
	if m.kernelLen == 0 {
		return false
	}
	var kern func(dst, src *byte, partLen, parts, blocks int, mask, pat *byte, maskLen, phase int)
	switch {
	case useAVX512 && stream:
		kern = copyPartsMaskedAVX512
	case useAVX512:
		kern = copyMaskedBlocksAVX512
	case useAVX2 && stream:
		kern = copyPartsMaskedAVX2
	case useAVX2:
		kern = copyMaskedBlocksAVX2
	default:
		return false
	}
	if !stream {
		parts = 1
	}
	m.copyParts(dst, src, phase, parts, kern, stream)
	return true
}
