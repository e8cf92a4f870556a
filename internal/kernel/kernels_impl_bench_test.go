package kernel

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// Benchmarks of the kernel implementations against each other and against
// copy() of the same bytes. Throughput counts bytes read plus bytes
// written (b.SetBytes of twice the array), as relayout bench does.
//
//	go test -run '^$' -bench 'TransposeImpl' -benchtime 20x
//	go test -run '^$' -bench 'TransposeVsCopy' -benchtime 9x
//
// The second reports, per level, the median over b.N runs of the ratio of
// the time of a copy() to the time of the transpose right after it
// ("x-copy"; 1 is the memory-copy limit), which is steadier than two
// throughputs on a shared machine.

// benchShapes returns rows × cols shapes of width-byte elements whose
// arrays are about 16 KiB (L1), 256 KiB (L2), 4 MiB (L3) and, without
// -short, 256 MiB (DRAM).
func benchShapes(width int) [][2]int {
	var out [][2]int
	for _, bytes := range []int{16 << 10, 256 << 10, 4 << 20, 256 << 20} {
		if bytes > 4<<20 && testing.Short() {
			break
		}
		n := bytes / width
		rows := 1
		for rows*rows < n {
			rows *= 2
		}
		out = append(out, [2]int{rows, n / rows})
	}
	return out
}

// benchLevels runs f once per level of this build, as sub-benchmarks
// named like the test subtests, with the kernels switched to that level.
func benchLevels(b *testing.B, f func(b *testing.B)) {
	saved := Level()
	defer setLevel(saved)
	for _, l := range archLevels() {
		b.Run(testName(l), func(b *testing.B) {
			if !setLevel(l) {
				b.Skipf("this CPU cannot run %s kernels", l)
			}
			defer setLevel(saved)
			f(b)
		})
	}
}

// benchCopy times copy(dst, src) as the sub-benchmark "copy".
func benchCopy(b *testing.B, dst, src []byte) {
	b.Run("copy", func(b *testing.B) {
		b.SetBytes(int64(len(dst) + len(src)))
		for b.Loop() {
			copy(dst, src)
		}
	})
}

// benchTranspose times, at each level, the rows × cols transpose of
// w-byte elements from src to dst, both with contiguous rows.
func benchTranspose(b *testing.B, w int, dst, src []byte, rows, cols int) {
	benchLevels(b, func(b *testing.B) {
		b.SetBytes(int64(2 * rows * cols * w))
		for b.Loop() {
			Transpose(w, dst, cols*w, src, rows*w, rows, cols)
		}
	})
}

func BenchmarkTransposeImpl(b *testing.B) {
	for _, w := range []int{1, 2, 3, 4, 6, 8, 12} {
		for _, s := range benchShapes(w) {
			rows, cols := s[0], s[1]
			n := rows * cols * w
			b.Run(fmt.Sprintf("w%d/%dx%d", w, rows, cols), func(b *testing.B) {
				src, dst := make([]byte, n), make([]byte, n)
				for i := range src {
					src[i] = byte(i)
				}
				benchCopy(b, dst, src)
				benchTranspose(b, w, dst, src, rows, cols)
			})
		}
	}
}

// BenchmarkTransposeCrowded times transposes in the caches at strides
// whose rows crowd a few L1 sets, one shape for each walk blockWalk
// chooses (and one whose rows crowd none, for comparison), against
// copy() of the same bytes.
//
//	go test -run '^$' -bench 'TransposeCrowded/.*/.*/(copy|AVX512)' -count 3
func BenchmarkTransposeCrowded(b *testing.B) {
	for _, s := range [][3]int{
		{4, 264, 264},   // no crowding: bands
		{4, 264, 256},   // destination rows 4 a set: along
		{4, 128, 512},   // 8 a set: along
		{4, 256, 256},   // 4 a set on both sides: along
		{4, 512, 512},   // 8 a set on both sides: diagonal
		{4, 1024, 256},  // source rows 16 a set: diagonal
		{4, 512, 128},   // source rows 8 a set, destination's 2: bands
		{4, 128, 1024},  // destination rows 16 a set: staged
		{8, 256, 64},    // source rows 4 a set: bands
		{8, 64, 512},    // destination rows 8 a set: along
		{8, 512, 512},   // diagonal
		{2, 512, 512},   // diagonal, two blocks a call
		{2, 1024, 512},  // diagonal
		{1, 1024, 1024}, // diagonal, four blocks a call
		{1, 256, 1024},  // destination rows 16 a call a set: split
		{1, 128, 2048},  // 32 a set: split
		{1, 512, 2048},  // split, source rows 8 a set
		{2, 128, 1024},  // split, two blocks a call
		{2, 512, 1024},  // split, source rows 8 a set
	} {
		w, rows, cols := s[0], s[1], s[2]
		n := rows * cols * w
		b.Run(fmt.Sprintf("w%d/%dx%d", w, rows, cols), func(b *testing.B) {
			src, dst := make([]byte, n), make([]byte, n)
			benchCopy(b, dst, src)
			benchTranspose(b, w, dst, src, rows, cols)
		})
	}
}

// BenchmarkInterleaveImpl times the transposes with 2 and 4 columns (and
// 8 of bytes) and a contiguous destination that the planner runs for the
// (2,1), (4,1) and (8,1) tiles, one call per tile (128 rows), one in
// cache and one over a long run, and their inverses (2, 4 or 8 rows,
// contiguous source).
func BenchmarkInterleaveImpl(b *testing.B) {
	for _, w := range []int{1, 2, 4} {
		for _, cols := range []int{2, 4, 8} {
			if cols == 8 && w > 1 {
				continue
			}
			for _, rows := range []int{128, 4096, 1 << 20} {
				n := rows * cols * w
				b.Run(fmt.Sprintf("w%d/%dx%d", w, rows, cols), func(b *testing.B) {
					src, dst := make([]byte, n), make([]byte, n)
					benchCopy(b, dst, src)
					benchTranspose(b, w, dst, src, rows, cols)
				})
				// The inverse (untiling): cols destination rows.
				b.Run(fmt.Sprintf("w%d/%dx%d", w, cols, rows), func(b *testing.B) {
					src, dst := make([]byte, n), make([]byte, n)
					benchTranspose(b, w, dst, src, cols, rows)
				})
			}
		}
	}
}

// BenchmarkTransposeVsCopy measures the must-show 2-D transposes of 256
// MiB (f32 8192², f64 4096×8192, u8 16384², u16 8192×16384) and a
// cache-resident f32 512², interleaved with copy() of the same bytes.
func BenchmarkTransposeVsCopy(b *testing.B) {
	shapes := []struct {
		name             string
		width, rows, col int
	}{
		{"f32_512x512", 4, 512, 512},
		{"f32_8192x8192", 4, 8192, 8192},
		{"f64_4096x8192", 8, 4096, 8192},
		{"u8_16384x16384", 1, 16384, 16384},
		{"u16_8192x16384", 2, 8192, 16384},
	}
	for _, s := range shapes {
		n := s.rows * s.col * s.width
		if n > 4<<20 && testing.Short() {
			continue
		}
		b.Run(s.name, func(b *testing.B) {
			src, dst := make([]byte, n), make([]byte, n)
			for i := range src {
				src[i] = byte(i)
			}
			copy(dst, src)
			benchLevels(b, func(b *testing.B) {
				var ratios []float64
				reps := max(1, (64<<20)/n) // time at least 64 MiB per sample
				for b.Loop() {
					t0 := time.Now()
					for range reps {
						copy(dst, src)
					}
					tc := time.Since(t0)
					t0 = time.Now()
					for range reps {
						Transpose(s.width, dst, s.col*s.width, src, s.rows*s.width, s.rows, s.col)
					}
					ratios = append(ratios, tc.Seconds()/time.Since(t0).Seconds())
				}
				slices.Sort(ratios)
				b.ReportMetric(ratios[len(ratios)/2], "x-copy")
			})
		})
	}
}

// BenchmarkFillRunsImpl times FillRuns with a zero and a 4-byte pattern on
// 4 MiB of runs of 64 B (the padding of a row) to 64 KiB.
func BenchmarkFillRunsImpl(b *testing.B) {
	for _, n := range []int{64, 512, 4096, 64 << 10} {
		rows := (4 << 20) / n
		dst := make([]byte, n*rows)
		for _, p := range []struct {
			name    string
			pattern []byte
		}{{"zero", []byte{0, 0, 0, 0}}, {"f32one", []byte{0, 0, 0x80, 0x3f}}} {
			b.Run(fmt.Sprintf("%dB/%s", n, p.name), func(b *testing.B) {
				benchLevels(b, func(b *testing.B) {
					b.SetBytes(int64(len(dst)))
					for b.Loop() {
						FillRuns(dst, n, n, rows, p.pattern)
					}
				})
			})
		}
	}
}

// BenchmarkRepackBits unpacks 64 Mi 4-bit fields (32 MiB) to bytes and
// packs them back, at every level, beside copy() of the packed bytes.
// Throughput counts bytes read plus bytes written.
func BenchmarkRepackBits(b *testing.B) {
	const n = 64 << 20
	packed, unpacked := make([]byte, n/2), make([]byte, n)
	for i := range packed {
		packed[i] = byte(i * 7)
	}
	for i := range unpacked { // fault its pages in before timing
		unpacked[i] = byte(i)
	}
	benchCopy(b, unpacked[:n/2], packed)
	// 4-bit fields, then 2- and 1-bit ones, which only the generic code
	// has (E2 and E1 in the names).
	for _, bits := range []int{4, 2, 1} {
		suffix := ""
		if bits != 4 {
			suffix = fmt.Sprintf("E%d", bits)
		}
		size := int64(n + n*bits/8)
		b.Run("unpack"+suffix, func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				b.SetBytes(size)
				for b.Loop() {
					UnpackBits(unpacked, packed, n, bits, bits, true)
				}
			})
		})
		b.Run("pack"+suffix, func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				b.SetBytes(size)
				for b.Loop() {
					PackBits(packed, unpacked, n, bits)
				}
			})
		})
	}
}

// BenchmarkTransposeFields runs the field pass of a packed transpose of
// 8192 rows of 4096 bytes (32 MiB) at every level, for 1-, 2- and 4-bit
// fields, with ordinary and with non-temporal stores, and on 32 KiB of
// short rows back to back, beside copy() of the same bytes.
func BenchmarkTransposeFields(b *testing.B) {
	const rows, n = 8192, 4096
	src, dst := make([]byte, rows*n), make([]byte, rows*n)
	for i := range src {
		src[i], dst[i] = byte(i*7), byte(i)
	}
	benchCopy(b, dst, src)
	for _, bits := range []int{1, 2, 4} {
		for _, stream := range []bool{false, true} {
			b.Run(fmt.Sprintf("E%d/stream=%v", bits, stream), func(b *testing.B) {
				benchLevels(b, func(b *testing.B) {
					b.SetBytes(2 * rows * n)
					for b.Loop() {
						if stream {
							TransposeFieldsStreaming(dst, src, n, rows, n, bits)
						} else {
							TransposeFields(dst, src, n, rows, n, bits)
						}
					}
				})
			})
		}
		// Short rows back to back, 32 KiB of them: one batch of an
		// untiling from T(8,128)(8,1) packed fields.
		short := bits // bytes a row: a group of 8/bits rows fills 8 bytes
		b.Run(fmt.Sprintf("E%d/short%d", bits, short), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				b.SetBytes(2 * 32 << 10)
				for b.Loop() {
					TransposeFields(dst[:32<<10], src[:32<<10], short, 32<<10/short, short, bits)
				}
			})
		})
	}
}

// BenchmarkPackRows8 times PackRows8 and UnpackRows8 on 8 rows of 4096
// bytes (in cache) and of 4 MiB, per level; bytes are those read and
// written (8n + 4n).
func BenchmarkPackRows8(b *testing.B) {
	for _, n := range []int{4096, 4 << 20} {
		rows, words := make([]byte, 8*n), make([]byte, 4*n)
		for i := range rows {
			rows[i] = byte(i)
		}
		b.Run(fmt.Sprintf("pack/%d", n), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				b.SetBytes(int64(12 * n))
				for b.Loop() {
					PackRows8(words, rows, n, n)
				}
			})
		})
		b.Run(fmt.Sprintf("unpack/%d", n), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				b.SetBytes(int64(12 * n))
				for b.Loop() {
					UnpackRows8(rows, n, words, n, 4, true)
				}
			})
		})
	}
}

// BenchmarkInterleaveNibbles8 times InterleaveNibbles8 and
// DeinterleaveNibbles8 on 8 packed rows of n fields, n = 8192 (in cache)
// and 8 Mi, per level; bytes are those read and written (4n + 4n).
func BenchmarkInterleaveNibbles8(b *testing.B) {
	for _, n := range []int{8192, 8 << 20} {
		rows, words := make([]byte, 4*n), make([]byte, 4*n)
		for i := range rows {
			rows[i] = byte(i)
		}
		b.Run(fmt.Sprintf("interleave/%d", n), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				b.SetBytes(int64(8 * n))
				for b.Loop() {
					InterleaveNibbles8(words, rows, n/2, n)
				}
			})
		})
		b.Run(fmt.Sprintf("deinterleave/%d", n), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				b.SetBytes(int64(8 * n))
				for b.Loop() {
					DeinterleaveNibbles8(rows, n/2, words, n)
				}
			})
		})
	}
}

// BenchmarkTransposePacked times TransposePacked of 8192² 4-bit fields
// and 16384² 2- and 1-bit ones (32, 64 and 32 MiB each way) at each
// level, against copy() of as many bytes.
func BenchmarkTransposePacked(b *testing.B) {
	for _, bits := range []int{4, 2, 1} {
		n := map[int]int{4: 8192, 2: 16384, 1: 16384}[bits]
		e := 8 / bits
		src, dst := make([]byte, n*n/e), make([]byte, n*n/e)
		for i := range src {
			src[i] = byte(i * 7)
		}
		b.Run(fmt.Sprintf("E%d", bits), func(b *testing.B) {
			benchCopy(b, dst, src)
			benchLevels(b, func(b *testing.B) {
				b.SetBytes(int64(len(src) + len(dst)))
				for b.Loop() {
					TransposePacked(bits, dst, n/e, src, n/e, n, n)
				}
			})
		})
	}
}
