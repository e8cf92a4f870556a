//go:build amd64 || arm64 || 386 || ppc64le || riscv64 || loong64 || wasm

package kernel

// fastWords is true where the generic kernels may load and store whole
// words at any byte address, little-endian.
const fastWords = true
