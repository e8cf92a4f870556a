//go:build !(amd64 && gc && !purego && !noasm)

package kernel

// copyStreamed has no kernel here (neither Go's assembler on arm64 nor
// portable Go has a store that bypasses the caches): Copy is copy().
func copyStreamed(dst, src []byte, parts, ahead int) bool { return false }

// copyCached has no kernel here: Copy copies through the caches with
// copy(), a piece at a time.
func copyCached(dst, src []byte) bool { return false }
