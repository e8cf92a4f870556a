//go:build gc && !purego && !noasm

package kernel

import (
	"slices"
	"testing"
	"time"
	"unsafe"
)

// BenchmarkTransposePattern measures the memory traffic of a streamed u8
// 16384² transpose (C1) without the transposition: the loads and stores
// the tiles make, with the bytes copied unchanged through a buffer that
// stays in L1, against copy() of the same 256 MiB in the same loop. It
// bounds what any kernel order of that traffic can reach on this machine.
//
//	go test -run '^$' -bench TransposePattern -benchtime 5x
//
// Each pattern reports the median ratio of copy()'s time to its own
// ("x-copy"):
//
//   - tiles: 512 × 512-byte tiles, the transposes' shape: a step copies
//     512 bytes of each of 32 source rows (16 KiB apart) into the buffer
//     with a prefetch 16 rows ahead, then writes 512 bytes to each of 32
//     destination rows with non-temporal stores;
//   - rows: whole source rows, two a step, then 512 bytes to each of 64
//     destination rows, each line written prefetching one line of the
//     next step's rows;
//   - rows+slabs: as rows, but the bytes written come from the cached
//     band of 256 rows a line of each row at a time (the gather kernels'
//     slabs), as a transpose of whole rows must read them.
//
// On the Zen 5 VM (2026-11-23, three runs of -benchtime 5x): tiles
// 0.65-0.71, rows 0.82-0.94, rows+slabs 0.39-0.43; C1 itself runs at
// 0.64-0.70. In short runs at a power-of-two stride, reads and writes
// take turns instead of overlapping (the tiles' reads alone and writes
// alone add up to their time together); whole rows read in order
// overlap the writes as copy() does, but reading the cached band back a
// line of each row at a time costs more than that saves. Tile shapes
// from 256 B to 4 KiB each way, prefetch distances, interleaving every
// 4 to 256 rows, odd strides and huge pages all stayed at 0.48-0.74 in
// the throwaway variants of this benchmark.
func BenchmarkTransposePattern(b *testing.B) {
	if !useAVX2 {
		b.Skip("the pattern kernels need AVX2")
	}
	if testing.Short() {
		b.Skip("256 MiB arrays")
	}
	const n = 16384
	src, dst := make([]byte, n*n), make([]byte, n*n)
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src)
	buf := make([]byte, 64<<10)
	// write streams rows runs of runBytes from buf (one run, rewritten) to
	// dst at o, o+n, ..., prefetching the walk from pf (runs of pfN bytes
	// pfStride apart), and leaves the stores unfenced.
	write := func(o, runBytes, rows int, pf *byte, pfStride, pfN, pfRows int) {
		copyRunsStreamAVX2(&dst[o], n, &buf[0], 0, runBytes, rows, 1, 0, 0, uintptr(unsafe.Pointer(pf)), pfStride, pfN, pfRows, 0, bothEnds)
	}
	patterns := []struct {
		name string
		run  func()
	}{
		{"tiles", func() {
			const tile, step, ahead = 512, 32, 16
			for col := 0; col < n; col += tile {
				for r := 0; r < n; r += step {
					a := ahead * n
					if r+step+ahead > n {
						a = 0
					}
					copyRunsAhead(&buf[0], 0, &src[r*n+col], n, tile, step, a)
					write((col+r%tile/step*step)*n+r/tile*tile, tile, step, &buf[0], 0, 64, 1)
				}
			}
		}},
		{"rows", func() {
			const run, step = 512, 2
			for r := 0; r < n; r += step {
				next := min(r+step, n-step)
				copyRunsAhead(&buf[0], 0, &src[r*n], n, n, step, 0)
				// As many destination rows of run bytes as step source
				// rows have lines.
				rows := n * step / run
				write(r%run/step*rows*n+r/run*run, run, rows, &src[next*n], n, n, step)
			}
		}},
		{"rows+slabs", func() {
			const band = 256
			for r := 0; r < n; r += band {
				next := min(r+band, n-band) * n
				for s := 0; s < n/64; s++ {
					copyRunsAhead(&buf[0], 64, &src[r*n+s*64], n, 64, band, 0)
					pf := next + min(s*band*64, band*n-64)
					write(s*64*n+r, band, 64, &src[pf], 0, 1<<30, 1)
				}
			}
		}},
	}
	for _, p := range patterns {
		b.Run(p.name, func(b *testing.B) {
			b.SetBytes(int64(2 * len(src)))
			var ratios []float64
			for b.Loop() {
				t0 := time.Now()
				copy(dst, src)
				tc := time.Since(t0)
				t0 = time.Now()
				p.run()
				storeFence()
				ratios = append(ratios, tc.Seconds()/time.Since(t0).Seconds())
			}
			slices.Sort(ratios)
			b.ReportMetric(ratios[len(ratios)/2], "x-copy")
		})
	}
}
