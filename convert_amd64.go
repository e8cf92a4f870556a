//go:build amd64 && gc && !purego && !noasm

package tilecopy

// convertAsm converts the elements of kind k that an assembly kernel
// takes and returns how many; none yet on amd64.
func convertAsm(k convKind, dst, src []byte, n int) int { return 0 }
