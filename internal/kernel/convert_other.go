//go:build !(amd64 && gc && !purego && !noasm)

package kernel

// convertAsm has no kernel in this build: it converts none of the
// elements.
func convertAsm(k convKind, dst, src []byte, n int, stream bool) int { return 0 }

// fusedTilesAsm reports that this build has no fused tile kernels.
func fusedTilesAsm() bool { return false }

// fuseTilesAsm has no kernel in this build: it does nothing.
func fuseTilesAsm(up bool, dst, src []byte, stride, tiles, lines, pairs int, stream bool, pf *byte) bool {
	return false
}
