// Package tilecopy moves blocks of memory between layouts as fast as the
// machine's memory allows: a bulk copy, strided run copies, fills, 2-D
// block transposes of elements of 1 to 16 bytes (one block, or a grid of
// them), transposes of packed 1-, 2- and 4-bit fields, sub-byte packing
// and float conversions, on raw byte slices with byte strides. Package
// relayout compiles whole N-dimensional layout changes (tiles,
// permutations, padding) into loop nests over these kernels; they are
// usable on their own.
//
// Every function checks, before it touches memory, that the last byte it
// would read or write lies inside its slices, and panics otherwise (as an
// out-of-range index does).
//
// On amd64 the kernels run AVX-512 or AVX2 assembly, on arm64 NEON, and
// portable Go elsewhere; the level is chosen once, at start-up, from the
// CPU's features, and the environment variable TILECOPY_CPU (generic,
// avx2, avx512 or neon) caps it. The build tags purego and noasm leave the
// assembly out. Level, Levels, Kernel and CPU report the choice.
//
// The sizes from which the kernels stream (write with non-temporal
// stores, which bypass the caches) and the blocks they cut their work
// into are a Tuning, derived from the CPU's caches at start-up; the
// environment variable TILECOPY_TUNING names a JSON file (written by
// `relayout tune`) that replaces it, as SetTuning does from a program.
//
// A caller that writes a destination larger than the caches in many
// calls uses a Stream, whose methods are the streamed variants of the
// kernels, and StoreFence after the last unfenced call.
package tilecopy

import "github.com/tilecopy/tilecopy/internal/kernel"

// Tuning is every choice of the kernels and of relayout's plans that
// depends on the machine's caches and memory rather than on its
// instruction set: the sizes from which they stream, their blocks, and
// the size from which a plan uses a second thread. Its fields, their JSON
// names and how each default is derived are documented on the type in
// package internal/kernel. Its methods are Check, which reports fields
// no kernel can use, and Copy, which is Copy with that tuning's choices.
type Tuning = kernel.Tuning

// Grid repeats a block over Outer × Inner steps: block (a, b) lies at
// dst[a*DstOuter + b*DstInner:] and src[a*SrcOuter + b*SrcInner:]
// (strides in bytes, not negative). Ahead is how far past each block's
// source rows the caller's next call reads (a prefetch distance), and
// Unfenced leaves the store fence of a streamed grid to the caller
// (StoreFence).
type Grid = kernel.Grid

// Stream is how the streamed kernels write for a caller that builds a
// destination larger than the caches in many calls: with non-temporal
// stores where the level has them, prefetching the source the caller
// reads next (Ahead, Prefetch), and with Unfenced, leaving the store
// fence to one StoreFence after the last call. Its methods are the
// streamed variants: CopyRuns (runs in a grid of steps), Transpose,
// TransposeGrid, TransposePacked, the conversions (ConvertF32ToBF16,
// ConvertBF16ToF32, ConvertF32ToF16, ConvertF16ToF32) and the (8,1)
// tile-row kernels (PackRows8, UnpackRows8, InterleaveNibbles8,
// DeinterleaveNibbles8). Each reads and writes each byte once; the zero
// Stream fences each call.
type Stream = kernel.Stream

// LevelInfo is one kernel level (Name) and whether this CPU can run it
// (Supported).
type LevelInfo = kernel.LevelInfo

// Copy copies min(len(dst), len(src)) bytes from src to dst and returns
// that count, as copy() does (overlapping slices included). It reads and
// writes each byte once: through the caches up to
// Tuning.CopyStreamBytes, past it in Tuning.CopyParts parts walked
// at once with non-temporal stores, where the level has them.
func Copy(dst, src []byte) int { return kernel.Copy(dst, src) }

// CopyRuns copies rows runs of n bytes: run j from src[j*srcStride:] to
// dst[j*dstStride:]. Runs must not overlap between dst and src. It reads
// and writes each byte of the runs once, through the caches; a
// destination larger than the caches streams with Stream.CopyRuns.
func CopyRuns(dst []byte, dstStride int, src []byte, srcStride int, n, rows int) {
	kernel.CopyRuns(dst, dstStride, src, srcStride, n, rows)
}

// FillRuns writes rows runs of n bytes at stride dstStride, each a
// repetition of pattern; n must be a multiple of len(pattern). It writes
// each byte once and reads nothing but the pattern.
func FillRuns(dst []byte, dstStride int, n, rows int, pattern []byte) {
	kernel.FillRuns(dst, dstStride, n, rows, pattern)
}

// Transpose moves a rows × cols block of width-byte elements:
//
//	dst[i*dstStride + j*width : +width] = src[j*srcStride + i*width : +width]
//
// for i < rows, j < cols. width is 1 to 16; widths other than 1, 2, 4, 8
// and 16 are records (an RGB pixel of 3 bytes) that move whole. dst and
// src must not overlap. It reads and writes each byte once, in register
// blocks of the level's kernel cut into cache-sized bands
// (Tuning.Band); a destination of Tuning.TransposeStreamBytes or more (or
// of Tuning.LineStreamBytes, with rows on 64-byte lines) is written
// through a staging tile with non-temporal stores. Two to four columns
// or rows of a contiguous side run as an interleave.
func Transpose(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	kernel.Transpose(width, dst, dstStride, src, srcStride, rows, cols)
}

// TransposeGrid is Transpose for every block of the grid g, in one call,
// through the caches: the tiles of a tiled layout, say. Grids of
// interleaves run in one assembly kernel; blocks of up to 64 KiB are
// transposed a group at a time (Tuning.GridGroup) into a cache-resident
// tile and copied out, so that short rows are read and written as the
// grid's longer runs (each byte moves twice, once in the caches). A
// destination larger than the caches streams with Stream.TransposeGrid.
func TransposeGrid(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, g Grid) {
	kernel.TransposeBlocks(width, dst, dstStride, src, srcStride, rows, cols, g)
}

// TransposePacked transposes a rows × cols matrix of bits-bit fields (bits
// 1, 2 or 4, packed as PackBits packs them): field j of destination row i
// is field i of source row j. Rows are dstStride and srcStride bytes
// apart; rows and cols are multiples of 8/bits. From
// Tuning.TransposeStreamBytes of destination, where the level has the
// kernels, it reads and writes each byte once (tiles byte-transposed in
// the caches, fields split with non-temporal stores); otherwise, and at
// the edges, it moves a byte at a time.
func TransposePacked(bits int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	kernel.TransposePacked(bits, dst, dstStride, src, srcStride, rows, cols)
}

// PackBits packs n elements, one per byte of src (the value in the low
// bits), into dst as fields of bits bits (1, 2 or 4), the first element of
// a byte in its most significant bits (XLA's packing); the unused low bits
// of the last byte are cleared. It reads each byte of src and writes each
// of dst once.
func PackBits(dst, src []byte, n, bits int) { kernel.PackBits(dst, src, n, bits) }

// UnpackBits unpacks n fields of bits bits (1, 2 or 4) from src into dst,
// one element a byte: the low natural bits of each field, sign-extended
// when signed. It reads each byte of src and writes each of dst once.
func UnpackBits(dst, src []byte, n, bits, natural int, signed bool) {
	kernel.UnpackBits(dst, src, n, bits, natural, signed)
}

// A Conversion is an element conversion that Convert performs.
type Conversion int

// The conversions: rounding to nearest, ties to even; subnormals kept;
// overflow to ±inf; a NaN stays a quiet NaN with its sign.
const (
	F32ToBF16 Conversion = iota // f32 (4 bytes) to bf16 (2)
	BF16ToF32                   // bf16 to f32, exact
	F32ToF16                    // f32 to IEEE f16 (2 bytes)
	F16ToF32                    // f16 to f32, exact
)

// Convert converts n little-endian elements of src to dst as c says. It
// reads and writes each byte once, with the level's vector conversions
// (F16C for f16 on amd64, NEON on arm64); a destination larger than the
// caches streams with the Stream methods. It panics on an unknown c.
func Convert(c Conversion, dst, src []byte, n int) {
	switch c {
	case F32ToBF16:
		kernel.ConvertF32ToBF16(dst, src, n)
	case BF16ToF32:
		kernel.ConvertBF16ToF32(dst, src, n)
	case F32ToF16:
		kernel.ConvertF32ToF16(dst, src, n)
	case F16ToF32:
		kernel.ConvertF16ToF32(dst, src, n)
	default:
		panic("tilecopy: unknown conversion")
	}
}

// StoreFence orders the non-temporal stores made before it with every
// store after it: the fence a caller owes after unfenced Stream calls or
// grids (Stream.Unfenced, Grid.Unfenced) before it hands the destination
// on. It costs the wait for those stores to reach memory (SFENCE on
// amd64; nothing where no kernel streams).
func StoreFence() { kernel.StoreFence() }

// Level names the kernel level in use: "avx512", "avx2", "neon" or
// "generic", the best the CPU offers, capped by TILECOPY_CPU.
func Level() string { return kernel.Level() }

// Levels lists the kernel levels of this build's architecture, best
// first and ending with "generic", each with whether this CPU runs it.
func Levels() []LevelInfo { return kernel.Levels() }

// Kernel names the transpose kernels Transpose uses for width-byte
// elements at the level in use: the register block ("avx512 16x16") or
// "generic", then, after "; ", the staged variant and the interleaves.
func Kernel(width int) string { return kernel.Kernel(width) }

// CPUInfo is what cpuid reports of the CPU, as the kernels see it.
type CPUInfo struct {
	// Name is the CPU's brand string ("" if unknown).
	Name string
	// L1D, L2 and L3 are the data caches' sizes in bytes, -1 where
	// cpuid cannot tell.
	L1D, L2, L3 int
	// Features lists the CPU's features as cpuid names them ("AVX2",
	// "AVX512F", "ASIMD"), sorted.
	Features []string
}

// CPU returns what cpuid reports of this CPU: its name, caches and
// features, read once at start-up.
func CPU() CPUInfo {
	l1d, l2, l3 := kernel.CacheSizes()
	return CPUInfo{Name: kernel.CPUName(), L1D: l1d, L2: l2, L3: l3, Features: kernel.Features()}
}

// DefaultTuning returns the tuning derived from this CPU's caches and
// vendor, as Tuning's fields document; it measures nothing.
func DefaultTuning() Tuning { return kernel.DefaultTuning() }

// CurrentTuning returns the tuning in use, and the error that kept the
// file TILECOPY_TUNING names from loading, if one did not (the defaults
// are then in use).
func CurrentTuning() (Tuning, error) { return kernel.CurrentTuning() }

// LoadTuning reads a tuning written by `relayout tune` (JSON) from path
// over the defaults: a field the file leaves out keeps its default. It
// does not put it in use.
func LoadTuning(path string) (Tuning, error) { return kernel.LoadTuning(path) }

// SetTuning puts t in use, for the kernels and for the plans compiled
// after it, once t.Check accepts it. It is meant for start-up, before
// any kernel runs: a kernel running meanwhile may see either tuning.
func SetTuning(t Tuning) error { return kernel.SetTuning(t) }
