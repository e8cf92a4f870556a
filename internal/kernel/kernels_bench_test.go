package kernel_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

// benchSizes are the bytes per side of the kernel benchmarks: a working
// set (source and destination) that fits L1, L2 and L3 in turn, and one
// that streams from DRAM.
var benchSizes = []struct {
	name  string
	bytes int
}{
	{"L1", 16 << 10},
	{"L2", 256 << 10},
	{"L3", 8 << 20},
	{"DRAM", 64 << 20},
}

// benchBuffer returns n bytes with every page written.
func benchBuffer(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + 1)
	}
	return b
}

// square is the side of a square block of width-byte elements holding
// about bytes bytes, a multiple of 16 so that SIMD kernels see full
// micro-tiles.
func square(bytes, width int) int {
	return max(int(math.Sqrt(float64(bytes/width)))/16*16, 16)
}

// BenchmarkTranspose transposes square blocks of 1-, 2-, 4- and 8-byte
// elements at each cache level: w4/1024x1024 is a 4 MiB f32 block.
// Throughput counts bytes read plus bytes written.
func BenchmarkTranspose(b *testing.B) {
	for _, w := range []int{1, 2, 4, 8} {
		for _, s := range benchSizes {
			n := square(s.bytes, w)
			b.Run(fmt.Sprintf("w%d/%dx%d", w, n, n), func(b *testing.B) {
				src, dst := benchBuffer(n*n*w), benchBuffer(n*n*w)
				b.SetBytes(int64(2 * n * n * w))
				for b.Loop() {
					kernel.Transpose(w, dst, n*w, src, n*w, n, n)
				}
			})
		}
	}
}

// BenchmarkCopyRuns copies rows runs of n bytes from a contiguous source
// into a destination whose rows are an eighth longer (a padded layout):
// 1024x512 is 1024 runs of 512 bytes, an f32 T(8,128) tile row.
func BenchmarkCopyRuns(b *testing.B) {
	for _, n := range []int{64, 512, 4096} {
		for _, s := range benchSizes {
			rows := max(s.bytes/n, 1)
			b.Run(fmt.Sprintf("%dx%d", rows, n), func(b *testing.B) {
				stride := n + n/8
				src, dst := benchBuffer(rows*n), benchBuffer(rows*stride)
				b.SetBytes(int64(2 * rows * n))
				for b.Loop() {
					kernel.CopyRuns(dst, stride, src, n, n, rows)
				}
			})
		}
	}
}

// BenchmarkFillRuns fills rows runs of 512 bytes at a stride of 576 with
// zero and with a 4-byte pattern (an f32 NaN). Throughput counts the
// bytes written.
func BenchmarkFillRuns(b *testing.B) {
	const n, stride = 512, 576
	for _, pat := range []struct {
		name string
		b    []byte
	}{{"zero", []byte{0, 0, 0, 0}}, {"nan", []byte{0, 0, 0xc0, 0x7f}}} {
		for _, s := range benchSizes {
			rows := s.bytes / n
			b.Run(fmt.Sprintf("%s/%dx%d", pat.name, rows, n), func(b *testing.B) {
				dst := benchBuffer(rows * stride)
				b.SetBytes(int64(rows * n))
				for b.Loop() {
					kernel.FillRuns(dst, stride, n, rows, pat.b)
				}
			})
		}
	}
}

// BenchmarkCopy is the limit the kernels are measured against: copy() of
// the same bytes per side as the other benchmarks, named by that size.
// Throughput counts bytes read plus bytes written.
func BenchmarkCopy(b *testing.B) {
	for _, s := range benchSizes {
		name := fmt.Sprintf("%s/%dKiB", s.name, s.bytes>>10)
		if s.bytes >= 1<<20 {
			name = fmt.Sprintf("%s/%dMiB", s.name, s.bytes>>20)
		}
		b.Run(name, func(b *testing.B) {
			src, dst := benchBuffer(s.bytes), benchBuffer(s.bytes)
			b.SetBytes(int64(2 * s.bytes))
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}

// BenchmarkCopyRunsAheadGrouped gathers, from the first half of each
// 1 KiB tile of a source past the caches, the first 2 bytes of each
// 4-byte group (the 2 rows of 4 that a u8 array of 2 rows holds in
// T(8,128)(4,1) tiles) into a buffer the caches hold, a tile a call, as
// a blocked plan's gather does: without a prefetch, and prefetching the
// tile a box of 64 tiles on. The hardware prefetchers lose such a walk.
func BenchmarkCopyRunsAheadGrouped(b *testing.B) {
	const tiles, box = 1 << 16, 64
	src := benchBuffer(tiles << 10)
	buf := make([]byte, box*256)
	for _, ahead := range []int{0, box << 10} {
		b.Run(fmt.Sprintf("ahead=%d", ahead), func(b *testing.B) {
			b.SetBytes(tiles * 256 * 2)
			for b.Loop() {
				for t := range tiles {
					kernel.CopyRunsAhead(buf[t%box*256:], 2, src[t<<10:], 4, 2, 128, ahead)
				}
			}
		})
	}
}

// BenchmarkCopyRunsGrouped gathers runs of 3 bytes held of each 8-byte
// group into a packed buffer, and scatters them back (the (8,1) tiles'
// rows that a blocked plan gathers), 4096 groups a call. Throughput
// counts the bytes of the runs, read and written.
func BenchmarkCopyRunsGrouped(b *testing.B) {
	const n, group, rows = 3, 8, 4096
	grouped, packed := benchBuffer(rows*group), benchBuffer(rows*n)
	b.Run("gather", func(b *testing.B) {
		b.SetBytes(2 * rows * n)
		for b.Loop() {
			kernel.CopyRuns(packed, n, grouped, group, n, rows)
		}
	})
	b.Run("scatter", func(b *testing.B) {
		b.SetBytes(2 * rows * n)
		for b.Loop() {
			kernel.CopyRuns(grouped, group, packed, n, n, rows)
		}
	})
}
