//go:build !(amd64 || arm64 || 386 || ppc64le || riscv64 || loong64 || wasm)

package kernel

// fastWords is false on big-endian or strict-alignment machines: the
// generic kernels move bytes one element at a time there.
const fastWords = false
