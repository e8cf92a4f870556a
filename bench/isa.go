package bench

import "github.com/tilecopy/tilecopy/internal/kernel"

// isaLevel names the kernel level the root package dispatches to: "avx512",
// "avx2", "neon" or "generic", after any TILECOPY_CPU cap.
func isaLevel() string { return kernel.Level() }
