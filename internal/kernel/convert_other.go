//go:build !(amd64 && gc && !purego && !noasm)

package kernel

// convertAsm has no kernel in this build: it converts none of the
// elements.
func convertAsm(k convKind, dst, src []byte, n int, stream bool) int { return 0 }
