package kernel

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// testName is the subtest name of a level, as the standard library's
// crypto/internal/impl names implementations.
func testName(level string) string {
	switch level {
	case levelAVX512:
		return "AVX512"
	case levelAVX2:
		return "AVX2"
	case levelNEON:
		return "NEON"
	}
	return "Generic"
}

// forEachLevel runs f once per kernel level of this build's architecture,
// as subtests, with the kernels switched to that level. A level the CPU
// lacks is skipped; TestLevelsMatchCPU fails if the CPU has it after all.
func forEachLevel(t *testing.T, f func(t *testing.T)) {
	saved := Level()
	t.Cleanup(func() { setLevel(saved) })
	for _, l := range archLevels() {
		t.Run(testName(l), func(t *testing.T) {
			if !setLevel(l) {
				t.Skipf("this CPU cannot run %s kernels", l)
			}
			defer setLevel(saved)
			f(t)
		})
	}
}

// cpuinfoFlags returns the feature flags Linux reports in /proc/cpuinfo,
// or nil where there is no such file.
func cpuinfoFlags() map[string]bool {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return nil
	}
	flags := map[string]bool{}
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(line, ":")
		k = strings.TrimSpace(k)
		if ok && (k == "flags" || k == "Features") {
			for _, f := range strings.Fields(v) {
				flags[f] = true
			}
		}
	}
	return flags
}

// TestLevelsMatchCPU checks dispatch against the kernel's own view of the
// CPU: a level the CPU can run must be enabled, and with no TILECOPY_CPU
// the best one must be in use.
func TestLevelsMatchCPU(t *testing.T) {
	flags := cpuinfoFlags()
	if haveAsm && runtime.GOARCH == "amd64" && flags != nil {
		if flags["avx2"] && !hasAVX2 {
			t.Errorf("/proc/cpuinfo has avx2 but the AVX2 kernels are off")
		}
		if flags["erms"] != hasERMS {
			t.Errorf("/proc/cpuinfo erms %v, hasERMS %v", flags["erms"], hasERMS)
		}
		if flags["avx512f"] && flags["avx512bw"] && flags["avx512dq"] && flags["avx512vl"] && !hasAVX512 {
			t.Errorf("/proc/cpuinfo has AVX-512 F/BW/DQ/VL but the AVX-512 kernels are off")
		}
		if flags["avx2"] && flags["f16c"] && !hasF16C {
			t.Errorf("/proc/cpuinfo has f16c but the f16 conversion kernels are off")
		}
		if flags["avx512vbmi"] && !hasVBMI {
			t.Errorf("/proc/cpuinfo has avx512vbmi but the VBMI kernel is off")
		}
	}
	if haveAsm && runtime.GOARCH == "arm64" && !hasNEON {
		t.Errorf("arm64 without NEON kernels")
	}
	if os.Getenv("TILECOPY_CPU") == "" {
		if want := archLevels()[0]; cpuHas(want) && Level() != want {
			t.Errorf("Level() = %q, want %q", Level(), want)
		}
	}
	t.Logf("level %s; levels %v; kernels: 1:%s 2:%s 4:%s 8:%s 16:%s", Level(), Levels(),
		Kernel(1), Kernel(2), Kernel(4), Kernel(8), Kernel(16))
}

func TestBestLevel(t *testing.T) {
	best := archLevels()[0]
	if !cpuHas(best) {
		best = levelGeneric
		for _, l := range archLevels() {
			if cpuHas(l) {
				best = l
				break
			}
		}
	}
	for _, tc := range []struct{ env, want string }{
		{"", best},
		{"generic", levelGeneric},
		{"GENERIC", levelGeneric},
		{"bogus", levelGeneric},
	} {
		if got := bestLevel(tc.env); got != tc.want {
			t.Errorf("bestLevel(%q) = %q, want %q", tc.env, got, tc.want)
		}
	}
	for _, l := range archLevels() {
		got := bestLevel(l)
		if cpuHas(l) && got != l {
			t.Errorf("bestLevel(%q) = %q on a CPU that has it", l, got)
		}
		if !cpuHas(got) {
			t.Errorf("bestLevel(%q) = %q, which this CPU lacks", l, got)
		}
	}
	other := map[string]string{"amd64": levelNEON, "arm64": levelAVX2}[runtime.GOARCH]
	if other != "" {
		if got := bestLevel(other); got != levelGeneric {
			t.Errorf("bestLevel(%q) on %s = %q, want generic", other, runtime.GOARCH, got)
		}
	}
}

// geometry is one Transpose call.
type geometry struct {
	width, rows, cols, dstStride, srcStride int
	dstAtEnd, srcAtEnd                      bool // which end of the guarded buffers is flush
	dstOff                                  int  // bytes of the destination's buffer before it
}

func (g geometry) String() string {
	return fmt.Sprintf("w%d %dx%d ds=%d ss=%d doff=%d", g.width, g.rows, g.cols, g.dstStride, g.srcStride, g.dstOff)
}

func (g geometry) dstLen() int { return span(g.rows, g.dstStride, g.cols*g.width) }
func (g geometry) srcLen() int { return span(g.cols, g.srcStride, g.rows*g.width) }

// randomDim returns a size around multiples of the register blocks (16,
// 32, 64 and their neighbours) or a small arbitrary one.
func randomDim(r *rand.Rand, maxDim int) int {
	switch r.IntN(3) {
	case 0:
		return r.IntN(maxDim + 1)
	case 1:
		return min(maxDim, (1+r.IntN(4))*[]int{4, 8, 16, 32, 64}[r.IntN(5)])
	}
	return max(0, min(maxDim, (1+r.IntN(4))*[]int{16, 32, 64}[r.IntN(3)]+r.IntN(5)-2))
}

func randomGeometry(r *rand.Rand, width, maxDim int) geometry {
	g := geometry{width: width, rows: randomDim(r, maxDim), cols: randomDim(r, maxDim)}
	pad := func(n int) int {
		switch r.IntN(4) {
		case 0:
			return n
		case 1:
			return (n + 63) / 64 * 64
		case 2:
			return n + 64*r.IntN(3)
		}
		return n + r.IntN(70)
	}
	g.dstStride = pad(g.cols * width)
	g.srcStride = pad(g.rows * width)
	g.dstAtEnd = r.IntN(2) == 0
	g.srcAtEnd = r.IntN(2) == 0
	return g
}

// naiveTranspose is the definition of Transpose, element by element.
func naiveTranspose(w int, dst []byte, ds int, src []byte, ss int, rows, cols int) {
	for i := range rows {
		for j := range cols {
			copy(dst[i*ds+j*w:i*ds+j*w+w], src[j*ss+i*w:j*ss+i*w+w])
		}
	}
}

// checkTranspose runs Transpose at the level in use on g inside guarded
// buffers and compares the whole destination buffer, written region and
// the bytes around it, with the generic kernel's and the naive loop's.
func checkTranspose(t testing.TB, r *rand.Rand, g geometry) {
	t.Helper()
	checkTransposeWith(t, r, g, Transpose)
}

// checkTransposeWith is checkTranspose for the entry under test, kernel:
// Transpose or TransposeStreaming.
func checkTransposeWith(t testing.TB, r *rand.Rand, g geometry, kernel func(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int)) {
	t.Helper()
	src := guarded(t, g.srcLen(), g.srcAtEnd)
	buf := guarded(t, g.dstOff+g.dstLen(), g.dstAtEnd)
	dst := buf[g.dstOff:]
	randomize(r, src, buf)
	orig := bytes.Clone(buf)
	want := bytes.Clone(buf)
	naive := bytes.Clone(buf)
	if g.rows > 0 && g.cols > 0 {
		transposeGeneric(g.width, want[g.dstOff:], g.dstStride, src, g.srcStride, g.rows, g.cols)
	}
	naiveTranspose(g.width, naive[g.dstOff:], g.dstStride, src, g.srcStride, g.rows, g.cols)
	srcCopy := bytes.Clone(src)
	kernel(g.width, dst, g.dstStride, src, g.srcStride, g.rows, g.cols)
	if !bytes.Equal(src, srcCopy) {
		t.Fatalf("%v: source modified", g)
	}
	if !bytes.Equal(want, naive) {
		t.Fatalf("%v: generic kernel differs from the definition at byte %d", g, firstDiff(want, naive))
	}
	if !bytes.Equal(buf, want) {
		k := firstDiff(buf, want)
		if k < g.dstOff {
			t.Fatalf("%v (%s): byte %d of the %d before the destination overwritten", g, Kernel(g.width), k, g.dstOff)
		}
		dst, want, orig := buf[g.dstOff:], want[g.dstOff:], orig[g.dstOff:]
		k -= g.dstOff
		i, j := k/max(g.dstStride, 1), k%max(g.dstStride, 1)/g.width
		where := "inside the block"
		if j >= g.cols || i >= g.rows {
			where = "outside the written region (sentinel overwritten)"
		}
		t.Fatalf("%v (%s): byte %d (row %d, element %d) = %#x, want %#x (was %#x), %s",
			g, Kernel(g.width), k, i, j, dst[k], want[k], orig[k], where)
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// testWidths are the element widths the transpose tests run: the powers
// of two and the records of 3, 6 and 12 bytes (RGB pixels of u8, of 16-bit
// floats and of f32). TestTransposeRecords takes the other widths.
var testWidths = []int{1, 2, 3, 4, 6, 8, 12, 16}

// TestTransposeRecords runs every element width from 1 to 16 bytes at
// every level, fewer geometries each than TestTransposeLevels.
func TestTransposeRecords(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for w := 1; w <= 16; w++ {
			r := rand.New(rand.NewPCG(uint64(w), 21))
			for range 20 {
				checkTranspose(t, r, randomGeometry(r, w, 120))
			}
		}
	})
}

func TestTransposeLevels(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	forEachLevel(t, func(t *testing.T) {
		for _, w := range testWidths {
			t.Run(fmt.Sprintf("w%d", w), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(w), 1))
				for range n {
					checkTranspose(t, r, randomGeometry(r, w, 200))
				}
			})
		}
	})
}

// TestLargeDestination checks when Transpose streams: past the last-level
// cache (here 32 MiB), and past Tuning.LineStreamBytes (here 2 MiB)
// for rows on lines.
func TestLargeDestination(t *testing.T) {
	setTuning(t, func(tu *Tuning) { tu.TransposeStreamBytes, tu.LineStreamBytes = 32<<20, 2<<20 })
	buf := make([]byte, 64+1<<10)
	at := 64 - int(uintptr(unsafe.Pointer(&buf[0]))%64) // on a line
	for _, c := range []struct {
		name         string
		off, stride  int
		rows         int
		wantStreamed bool
	}{
		{"small", at, 2048, 64, false},
		{"on lines, under 2 MiB", at, 2048, 1023, false},
		{"on lines, 2 MiB", at, 2048, 1024, true},
		{"stride off lines, 2 MiB", at, 2064, 1017, false},
		{"start off lines, 2 MiB", at + 4, 2048, 1024, false},
		{"stride off lines, LLC", at, 2064, 16 << 10, true},
		{"start off lines, LLC", at + 4, 4096, 8 << 10, true},
	} {
		if got := largeDestination(buf[c.off:], c.stride, c.rows); got != c.wantStreamed {
			t.Errorf("%s: largeDestination(stride %d, %d rows) = %v, want %v", c.name, c.stride, c.rows, got, c.wantStreamed)
		}
	}
}

// TestTransposeStreaming forces the non-temporal path (it needs a
// 64-aligned destination and stride), through Transpose and
// TransposeStreaming, with small tiles and bands; one source in three at
// a stride of whole KiB, whose rows crowd the L1 sets, for the gather
// kernels to read through slabs (slabbed) or, every other time, copied
// a tile at a time (copyRowsFirst, with small tiles).
func TestTransposeStreaming(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for _, w := range testWidths {
			r := rand.New(rand.NewPCG(uint64(w), 2))
			for k := range 40 {
				g := randomGeometry(r, w, 300)
				g.dstStride = (g.cols*w + 63) / 64 * 64
				g.dstAtEnd = false // page-aligned
				if k%3 == 0 {
					g.srcStride = (g.rows*w + 1023) / 1024 * 1024
				}
				if k%5 == 1 { // source rows on pages of their own: TileRows applies
					g.srcStride = (g.rows*w + 4095) / 4096 * 4096
				}
				setTuning(t, func(tu *Tuning) {
					tu.TileRows = []int{0, 8, 32}[k%3]
					tu.CopyRowsFirst = k%2 == 0
					tu.CopiedRow = []int{64, 128, 512}[k%3]
					tu.CopiedCol = []int{16, 64, 128, 256}[k%4]
					tu.Band = []int{64, 256, 1024, 4096}[k%4]
				})
				checkStreamed(t, r, g, k)
			}
		}
	})
}

// checkStreamed checks g streamed, with the k-th of 16 staging tiles:
// through Transpose because the one call's destination is large (the
// threshold at 0), and through TransposeStreaming because the caller
// says the whole is. The tuning is restored when t ends.
func checkStreamed(t *testing.T, r *rand.Rand, g geometry, k int) {
	t.Helper()
	threshold := tuning.TransposeStreamBytes
	setTuning(t, func(tu *Tuning) {
		tu.StageRow = []int{64, 128, 256, 1024}[k%4]
		tu.StageCol = []int{64, 192, 512, 1024}[(k/4)%4]
		tu.TransposeStreamBytes = 0
	})
	checkTranspose(t, r, g)
	setTuning(t, func(tu *Tuning) { tu.TransposeStreamBytes = threshold })
	checkTransposeWith(t, r, g, TransposeStreaming)
}

// TestTransposeSkewed forces the non-temporal path on destinations whose
// rows start off line boundaries (the skew twins of the streaming
// kernels, for elements of 4 bytes and up, and for 1- and 2-byte ones
// at AVX-512 where Intel cores stream them from
// Tuning.StagedOffLinesBytes and StagedOffLinesWordsBytes; the staged tiles, for records of 3, 6
// and 12 bytes and for 1- and 2-byte elements at AVX2): strides and
// starts that are no multiple of 64, with small tiles and bands, through
// Transpose and TransposeStreaming; 2-byte sources whose rows crowd the
// L1 sets too (transpose2LinesSkewAVX512).
func TestTransposeSkewed(t *testing.T) {
	setTuning(t, func(tu *Tuning) { tu.StagedOffLinesBytes, tu.StagedOffLinesWordsBytes = 1, 1 })
	forEachLevel(t, func(t *testing.T) {
		for _, w := range []int{4, 8, 16, 3, 6, 12, 1, 2} { // records stream staged; bytes and halves skewed at AVX-512, staged at AVX2
			r := rand.New(rand.NewPCG(uint64(w), 5))
			for k := range 60 {
				g := randomGeometry(r, w, 300)
				switch k % 3 {
				case 0: // a stride off line boundaries
					g.dstStride = g.cols*w + w*(1+r.IntN(64/w-1))
				case 1: // whole lines, from a start off them
					g.dstStride = (g.cols*w + 63) / 64 * 64
					g.dstAtEnd = true
				}
				if k < 6 {
					// One block of columns, or two: the first block
					// only, or it and one the kernels join to it.
					g.cols = (1 + k%2) * 64 / w
					g.dstStride = g.cols*w + w
				}
				if w == 2 && k%4 == 2 {
					// Source rows whole KiB apart, which crowd the L1
					// sets: the 2-byte lines kernel's twin.
					g.srcStride = (g.rows*w + 1023) / 1024 * 1024
				}
				checkStreamed(t, r, g, k)
			}
		}
	})
}

// TestTransposeShifted forces the non-temporal path on destinations
// whose rows all start the same distance inside a line (strides of whole
// lines, a start off them), which transposeShifted streams from each
// row's first line boundary on where the distance is whole elements of
// 4 bytes or more: every element width with a streaming kernel, starts
// at whole elements or not, with small tiles, through Transpose and
// TransposeStreaming.
func TestTransposeShifted(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for _, w := range []int{1, 2, 4, 8, 16} {
			r := rand.New(rand.NewPCG(uint64(w), 29))
			for k := range 40 {
				g := randomGeometry(r, w, 300)
				g.dstStride = (g.cols*w+63)/64*64 + 64*r.IntN(2)
				g.dstOff = w * (1 + r.IntN(64/w-1))
				if k%4 == 3 {
					g.dstOff = 1 + r.IntN(63)
				}
				g.dstAtEnd = false
				checkStreamed(t, r, g, k)
			}
		}
	})
}

// TestTransposeCrowded forces the non-temporal path on 1- and 2-byte
// elements whose destination rows start off line boundaries at strides
// within a few bytes of a multiple of 4 KiB, which stream from each
// row's first line boundary on (skewed, or staged at AVX2), carrying
// each tile's part lines to the next: such strides below and
// above 4 KiB, from starts on and off a line, with small tiles, through
// Transpose and TransposeStreaming.
func TestTransposeCrowded(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for _, w := range []int{1, 2} {
			r := rand.New(rand.NewPCG(uint64(w), 17))
			for k := range 32 {
				g := randomGeometry(r, w, 100)
				g.cols = []int{64, 192, 1000, 4090}[k%4] / w
				g.dstStride = 4096 + (1+r.IntN(6))*[]int{-1, 1}[r.IntN(2)]
				checkStreamed(t, r, g, k)
			}
		}
	})
}

// TestTransposeAliased covers blocks at strides that are multiples of 2
// KiB, which Transpose stages through a scratch tile.
func TestTransposeAliased(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(4, 4))
		for _, w := range testWidths {
			for range 6 {
				g := geometry{width: w, rows: 64 + r.IntN(200), cols: 64 + r.IntN(200)}
				g.dstStride = (g.cols*w + 2047) / 2048 * 2048
				g.srcStride = (g.rows*w + 2047) / 2048 * 2048
				if r.IntN(3) == 0 {
					g.srcStride += 64 * (1 + r.IntN(3))
				}
				g.dstAtEnd, g.srcAtEnd = r.IntN(2) == 0, r.IntN(2) == 0
				checkTranspose(t, r, g)
			}
		}
	})
}

// TestTransposeOffLines covers blocks of 32 KiB or more, in the caches,
// whose destination rows start off line boundaries (a stride no multiple
// of 64, or a start inside a line): where the kernel writes a vector of
// each row at a time, Transpose stages them through the scratch tile.
// Rows of 456 bytes, as a 3-D reversal of c64 [57,179,331] writes, and
// random ones, with ragged edges, under the streaming threshold.
func TestTransposeOffLines(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(6, 6))
		for _, w := range []int{2, 4, 8, 16} {
			for k := range 6 {
				g := geometry{width: w, rows: 64 + r.IntN(300), cols: (32<<10)/(64*w) + r.IntN(80)}
				g.dstStride = g.cols*w + 1 + r.IntN(63)
				if k == 0 {
					g.rows, g.cols, g.dstStride = 331, 456/w, 5000
				}
				g.srcStride = g.rows*w + r.IntN(65)
				if k%2 == 1 {
					g.dstStride = (g.cols*w + 63) / 64 * 64
					g.dstOff = 8 * (1 + r.IntN(7))
				}
				g.dstAtEnd, g.srcAtEnd = r.IntN(2) == 0, r.IntN(2) == 0
				checkTranspose(t, r, g)
			}
		}
	})
}

// TestTransposeWalks covers the orders blockWalk chooses for the direct
// blocks: strides that are multiples of 1, 2 and 4 KiB (and neither) on
// each side, with ragged edges and more block rows than columns and
// fewer, at every level. At the levels whose kernels crowdWalks orders
// it also checks that the table reaches every walk.
func TestTransposeWalks(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 5))
		seen := map[walk]bool{}
		for _, w := range []int{1, 2, 4, 8, 16} {
			for _, ds := range []int{0, 1024, 2048, 4096} {
				for _, ss := range []int{0, 1024, 2048, 4096} {
					g := geometry{width: w, rows: 16 + r.IntN(300), cols: 16 + r.IntN(300)}
					g.dstStride, g.srcStride = stridePast(g.cols*w, ds, r), stridePast(g.rows*w, ss, r)
					g.dstAtEnd, g.srcAtEnd = r.IntN(2) == 0, r.IntN(2) == 0
					checkTranspose(t, r, g)
					if k := transposeKernel(w); k != kNone {
						seen[blockWalk(w, shapes[k], g.dstStride, g.srcStride)] = true
					}
				}
			}
		}
		if crowdWalks && (Level() == levelAVX512 || Level() == levelAVX2) {
			want := []walk{walkStaged, walkBands, walkAlong, walkDiagonal}
			if Level() == levelAVX512 {
				want = append(want, walkSplit) // the gathers, which AVX2 lacks
			}
			for _, w := range want {
				if !seen[w] {
					t.Errorf("no geometry took walk %d", w)
				}
			}
		}
	})
}

// stridePast returns the least multiple of m at or above n, or for m = 0
// n plus 64 bytes or fewer (a stride that crowds no L1 set, mostly).
func stridePast(n, m int, r *rand.Rand) int {
	if m == 0 {
		return n + r.IntN(65)
	}
	return (n + m - 1) / m * m
}

// TestTransposeTiny covers the interleave shapes the planner uses for
// tiled 8- and 16-bit layouts (a few source rows, many elements) and their
// inverse (a few destination rows; 8 of them for 4-bit untiling).
func TestTransposeTiny(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 3))
		for _, w := range testWidths {
			for _, cols := range []int{1, 2, 3, 4, 5, 8} {
				for _, rows := range []int{1, 7, 31, 32, 33, 64, 127, 128, 129, 300, 1100} {
					g := geometry{width: w, rows: rows, cols: cols, dstStride: cols * w, srcStride: rows*w + r.IntN(3)*64}
					g.dstAtEnd, g.srcAtEnd = r.IntN(2) == 0, r.IntN(2) == 0
					checkTranspose(t, r, g)
					g.dstStride += 64 // strided destination rows
					checkTranspose(t, r, g)
					// The inverse: a few destination rows, many
					// columns, contiguous source (untiling).
					h := geometry{width: w, rows: cols, cols: rows, dstStride: rows*w + r.IntN(3)*64, srcStride: cols * w}
					h.dstAtEnd, h.srcAtEnd = r.IntN(2) == 0, r.IntN(2) == 0
					checkTranspose(t, r, h)
					h.srcStride += 64
					checkTranspose(t, r, h)
				}
			}
		}
	})
}

// TestTransposeNarrow covers the narrow kernels of 4-byte elements:
// blocks of 2 to 9 destination rows and many source rows (a column-major
// array to the tpu preset's tiles, in 4-byte units), and the inverse,
// at unit and padded strides.
func TestTransposeNarrow(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(4, 13))
		for _, few := range []int{2, 3, 4, 5, 7, 8, 9, 15} {
			for _, many := range []int{8, 15, 16, 17, 40, 128, 131} {
				pad := func() int { return []int{0, 4, 64, 4096}[r.IntN(4)] }
				g := geometry{width: 4, rows: few, cols: many}
				g.dstStride, g.srcStride = many*4+pad(), few*4+pad()
				g.dstAtEnd, g.srcAtEnd = r.IntN(2) == 0, r.IntN(2) == 0
				checkTranspose(t, r, g)
				h := geometry{width: 4, rows: many, cols: few}
				h.dstStride, h.srcStride = few*4+pad(), many*4+pad()
				h.dstAtEnd, h.srcAtEnd = r.IntN(2) == 0, r.IntN(2) == 0
				checkTranspose(t, r, h)
			}
		}
	})
}

// TestWeaveRests checks interleaves of a few rows into one stream, and
// de-interleaves back (2, 3 or 4 rows of 1, 2 or 4 bytes, 8 of 1 or 2;
// at AVX-512, 2, 3 or 4 of 8 bytes and 2 of 16),
// of every length from 16 to 140 elements: the
// whole chunks of the level's kernels, the rest of a half chunk that the
// AVX2 kernels take on an AVX-512 level, and the last chunk run again
// to end at the edge (weaveRest), in guarded buffers.
func TestWeaveRests(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 31))
		for _, w := range []int{1, 2, 4, 8, 16} {
			for _, ways := range []int{2, 3, 4, 8} {
				if ways == 8 && w > 2 {
					continue
				}
				for n := 16; n <= 140; n++ {
					pad := []int{0, 4, 64}[r.IntN(3)]
					in := geometry{width: w, rows: n, cols: ways, dstStride: ways * w, srcStride: n*w + pad}
					in.dstAtEnd, in.srcAtEnd = r.IntN(2) == 0, r.IntN(2) == 0
					checkTranspose(t, r, in)
					out := geometry{width: w, rows: ways, cols: n, dstStride: n*w + pad, srcStride: ways * w}
					out.dstAtEnd, out.srcAtEnd = r.IntN(2) == 0, r.IntN(2) == 0
					checkTranspose(t, r, out)
				}
			}
		}
	})
}

// TestFillRuns compares FillRuns at each level with the generic fill on
// random run lengths, strides and patterns, in guarded buffers.
func TestFillRuns(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 5))
		for k := range 400 {
			plen := []int{1, 2, 4, 8, 16, 32, 3, 12}[k%8]
			pattern := make([]byte, plen)
			for i := range pattern {
				pattern[i] = byte(r.Uint32())
			}
			if k%5 == 0 {
				clear(pattern)
			}
			n := plen * r.IntN(80/plen+2)
			if k%7 == 0 {
				n = plen * (r.IntN(3000) / plen)
			}
			rows := r.IntN(20)
			stride := n + r.IntN(3)*r.IntN(100)
			size := span(rows, stride, n)
			dst := guarded(t, size, k%2 == 0)
			randomize(r, dst)
			want := bytes.Clone(dst)
			if n > 0 && rows > 0 {
				fillRunsGeneric(want, stride, n, rows, pattern)
			}
			FillRuns(dst, stride, n, rows, pattern)
			if !bytes.Equal(dst, want) {
				t.Fatalf("fill of %d runs of %d bytes at stride %d with %x: byte %d differs", rows, n, stride, pattern, firstDiff(dst, want))
			}
		}
	})
}

// runGrid is the geometry of a run copy: steps × rows runs of n bytes,
// run r of step s at dst[s*dstep + r*ds:] and src[s*sstep + r*ss:].
type runGrid struct {
	n, rows, ds, ss     int
	steps, dstep, sstep int
	ahead               int
}

// TestCopyRuns checks CopyRuns, CopyRunsGrid and, at each level,
// CopyRunsAhead and CopyRunsStreaming (fenced each call or after it)
// against a loop of copies, in guarded buffers; the prefetch offsets
// point anywhere, past both ends of the source too. The grids include
// steps that continue each other's destination rows.
func TestCopyRuns(t *testing.T) {
	kernels := []struct {
		name string
		grid bool // takes steps; the others copy one step
		run  func(dst, src []byte, g runGrid)
	}{
		{"CopyRuns", false, func(dst, src []byte, g runGrid) { CopyRuns(dst, g.ds, src, g.ss, g.n, g.rows) }},
		{"CopyRunsAhead", false, func(dst, src []byte, g runGrid) { CopyRunsAhead(dst, g.ds, src, g.ss, g.n, g.rows, g.ahead) }},
		{"CopyRunsGrid", true, func(dst, src []byte, g runGrid) {
			CopyRunsGrid(dst, g.ds, g.dstep, src, g.ss, g.sstep, g.n, g.rows, g.steps)
		}},
		{"CopyRunsStreaming", true, func(dst, src []byte, g runGrid) {
			CopyRunsStreaming(dst, g.ds, g.dstep, src, g.ss, g.sstep, g.n, g.rows, g.steps)
		}},
		{"CopyRunsStreamingUnfenced", true, func(dst, src []byte, g runGrid) {
			CopyRunsStreamingUnfenced(dst, g.ds, g.dstep, src, g.ss, g.sstep, g.n, g.rows, g.steps)
			StoreFence()
		}},
		{"StreamPrefetch", true, func(dst, src []byte, g runGrid) {
			// Memory to prefetch in place of the next steps' source: the
			// source from anywhere in it (empty at its end), shorter
			// than the copy or not.
			pf := src[(g.ahead&math.MaxInt32)%(len(src)+1):]
			Stream{Prefetch: pf, Unfenced: g.ahead%2 == 0}.CopyRuns(dst, g.ds, g.dstep, src, g.ss, g.sstep, g.n, g.rows, g.steps)
			StoreFence()
		}},
	}
	for _, kern := range kernels {
		t.Run(kern.name, func(t *testing.T) {
			forEachLevel(t, func(t *testing.T) {
				r := rand.New(rand.NewPCG(6, 6))
				for k := range 300 {
					g := runGrid{n: r.IntN(400), rows: r.IntN(20), steps: 1}
					if k%7 == 3 {
						g.n = []int{8, 16, 24, 32}[r.IntN(4)] // the short runs' own loop
					}
					if k%9 == 2 {
						g.n = 1 + r.IntN(15) // a few bytes: copyShortRuns, copyOddRuns
					}
					g.ds, g.ss = g.n+r.IntN(2)*r.IntN(256), g.n+r.IntN(2)*r.IntN(256)
					if k%4 == 0 {
						g.ds, g.ss = g.n, g.n
					}
					if k%6 == 1 {
						// Runs of a few bytes in groups of a power of two
						// on one side, side by side on the other
						// (copyRunsPermuted), several groups a vector.
						group := 2 << r.IntN(6)
						g.n, g.rows = 1+r.IntN(group-1), r.IntN(300)
						g.ds, g.ss = g.n, group
						if r.IntN(2) == 0 {
							g.ds, g.ss = group, g.n
						}
					}
					g.ahead = r.IntN(1<<20) - 1<<19
					if kern.grid {
						// Steps beside the rows, or past them.
						g.steps = r.IntN(5)
						g.dstep, g.sstep = g.n+r.IntN(64), span(g.rows, g.ss, g.n)+r.IntN(64)
						if k%3 == 0 {
							g.dstep, g.sstep = span(g.rows, g.ds, g.n)+r.IntN(64), g.n+r.IntN(64)
						}
						g.ds = max(g.ds, g.steps*g.dstep) // runs of one step and the next do not meet
						if k%5 == 4 {
							// Runs of 16 or 32 bytes side by side in whole
							// lines of the destination (joinRunsStream),
							// the steps continuing the source rows or not.
							g.n = 16 << r.IntN(2)
							g.ds, g.rows, g.steps = g.n, 64/g.n*(1+r.IntN(6)), 1+r.IntN(4)
							g.ss = g.steps*g.n + r.IntN(3)*r.IntN(200)
							g.dstep, g.sstep = (g.rows*g.n+63)/64*64+64*r.IntN(2), g.n
							if k%3 == 0 {
								g.ss = g.n + r.IntN(3)*r.IntN(200)
								g.sstep = span(g.rows, g.ss, g.n) + r.IntN(64)
							}
						}
						if k%11 == 5 {
							// Runs of whole lines' length whose steps
							// continue each other's destination rows,
							// rows anywhere (joinStepsStream): a tile's
							// rows untiled.
							g.n, g.rows, g.steps = 64*(1+r.IntN(5)), 1+r.IntN(6), 2+r.IntN(6)
							g.dstep, g.ds = g.n, g.steps*g.n+r.IntN(3)*r.IntN(130)
							g.ss = g.n + r.IntN(2)*r.IntN(200)
							g.sstep = span(g.rows, g.ss, g.n) + r.IntN(64)
						}
						if k%13 == 7 {
							// Runs of 16 or 32 bytes whose steps lie side
							// by side in the destination, each row's
							// making whole lines (joinRunsStream, rows and
							// steps swapped): the 8 rows of a T(8,8) tile
							// of f32, the steps the tiles along a row.
							g.n = 16 << r.IntN(2)
							g.rows, g.steps = 2+r.IntN(8), 64/g.n*(1+r.IntN(4))
							g.dstep, g.ds = g.n, (g.steps*g.n+63)/64*64+64*r.IntN(2)
							g.ss = g.n + r.IntN(3)*r.IntN(200)
							g.sstep = span(g.rows, g.ss, g.n) + r.IntN(64)
						}
					}
					dst := guarded(t, span(g.steps, g.dstep, span(g.rows, g.ds, g.n)), k%2 == 0)
					if kern.grid && (k%5 == 4 && k%10 != 9 || k%13 == 7 && k%26 != 20) {
						// Start on a line: the rest of the buffer, up to
						// 63 bytes, stays after the copy to be checked.
						d := guarded(t, len(dst)+63, true)
						off := int(-uintptr(unsafe.Pointer(&d[0])) & 63)
						dst = d[off:]
					}
					src := guarded(t, span(g.steps, g.sstep, span(g.rows, g.ss, g.n)), k%3 == 0)
					randomize(r, src, dst)
					want := bytes.Clone(dst)
					for s := range g.steps * min(g.n, 1) {
						for j := range g.rows {
							d, o := s*g.dstep+j*g.ds, s*g.sstep+j*g.ss
							copy(want[d:d+g.n], src[o:o+g.n])
						}
					}
					kern.run(dst, src, g)
					if !bytes.Equal(dst, want) {
						t.Fatalf("copy of %+v: byte %d differs", g, firstDiff(dst, want))
					}
				}
			})
		})
	}
}

func TestTransposePanics(t *testing.T) {
	buf := make([]byte, 64)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"width 0", func() { Transpose(0, buf, 8, buf, 8, 1, 1) }},
		{"width 17", func() { Transpose(17, buf, 32, buf, 32, 1, 1) }},
		{"dst short", func() { Transpose(4, buf[:15], 16, buf, 16, 4, 4) }},
		{"src short", func() { Transpose(4, buf, 16, buf[:15], 16, 4, 4) }},
		{"negative", func() { Transpose(4, buf, 16, buf, 16, -1, 4) }},
		{"grid dst short", func() { TransposeGrid(4, buf, 16, buf, 16, 2, 2, Grid{Inner: 2, Outer: 1, DstInner: 48}) }},
		{"blocks width 17", func() { TransposeBlocks(17, buf, 32, buf, 32, 1, 1, Grid{Inner: 1, Outer: 1}) }},
		{"record dst short", func() { Transpose(3, buf[:47], 48, buf, 3, 1, 16) }},
		{"blocks src short", func() { TransposeBlocks(4, buf, 8, buf, 16, 2, 2, Grid{Inner: 1, Outer: 2, SrcOuter: 48}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			tc.f()
		})
	}
}

// FuzzTranspose compares the level in use (the best this CPU has, or
// TILECOPY_CPU's) with the generic kernel on fuzzer-chosen geometry.
func FuzzTranspose(f *testing.F) {
	f.Add(uint8(4), uint16(16), uint16(16), uint8(0), uint8(0), uint8(0), uint64(1))
	f.Add(uint8(1), uint16(64), uint16(130), uint8(5), uint8(64), uint8(3), uint64(2))
	f.Add(uint8(2), uint16(33), uint16(65), uint8(64), uint8(1), uint8(1), uint64(3))
	f.Add(uint8(8), uint16(17), uint16(9), uint8(8), uint8(8), uint8(2), uint64(4))
	f.Add(uint8(16), uint16(5), uint16(4), uint8(0), uint8(16), uint8(0), uint64(5))
	f.Add(uint8(2), uint16(128), uint16(2), uint8(0), uint8(0), uint8(1), uint64(6))
	f.Add(uint8(0), uint16(3), uint16(200), uint8(0), uint8(0), uint8(2), uint64(7))  // 3-way de-interleave
	f.Add(uint8(2), uint16(150), uint16(3), uint8(0), uint8(0), uint8(1), uint64(8))  // 3-way interleave
	f.Add(uint8(5), uint16(40), uint16(70), uint8(0), uint8(0), uint8(0), uint64(9))  // 3-byte records
	f.Add(uint8(7), uint16(9), uint16(33), uint8(12), uint8(0), uint8(6), uint64(10)) // 12-byte records, streamed
	f.Fuzz(func(t *testing.T, wsel uint8, rows, cols uint16, dpad, spad, flags uint8, seed uint64) {
		// The first five as before the records joined, so the seeds keep
		// their widths.
		w := []int{1, 2, 4, 8, 16, 3, 6, 12, 5, 7, 9, 10, 11, 13, 14, 15}[int(wsel)%16]
		g := geometry{width: w, rows: int(rows) % 513, cols: int(cols) % 513}
		g.dstStride = g.cols*w + int(dpad)
		g.srcStride = g.rows*w + int(spad)
		g.dstAtEnd, g.srcAtEnd = flags&1 != 0, flags&2 != 0
		if flags&4 != 0 {
			setTuning(t, func(tu *Tuning) { tu.TransposeStreamBytes = 0 })
			g.dstStride = (g.dstStride + 63) / 64 * 64
			g.dstAtEnd = false
		}
		checkTranspose(t, rand.New(rand.NewPCG(seed, 7)), g)
	})
}

// randomize fills each buffer with random bytes from r.
func randomize(r *rand.Rand, bufs ...[]byte) {
	for _, b := range bufs {
		for ; len(b) >= 8; b = b[8:] {
			binary.LittleEndian.PutUint64(b, r.Uint64())
		}
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	}
}

// gridKernels are TransposeGrid, fenced at each call or once after it
// (Grid.Unfenced), and TransposeBlocks, which the grid tests run on the
// same buffers.
var gridKernels = []struct {
	name string
	f    func(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, g Grid)
}{
	{"TransposeGrid", TransposeGrid},
	{"TransposeGrid unfenced", func(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, g Grid) {
		g.Unfenced = true
		TransposeGrid(width, dst, dstStride, src, srcStride, rows, cols, g)
		StoreFence()
	}},
	{"TransposeBlocks", TransposeBlocks},
}

// TestTransposeGrid runs TransposeGrid and TransposeBlocks at every level
// against the generic kernel block by block: interleaves and
// de-interleaves (the grid kernels; de-interleaves that keep the first
// rows of each group too, their source ending at the last group's last
// kept element or after its whole group), with aligned and unaligned
// destinations, and other blocks.
func TestTransposeGrid(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for _, w := range []int{1, 2, 3, 4, 8, 12} {
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for k := range 60 {
				g := randomGeometry(r, w, 300)
				switch k % 3 {
				case 0: // an interleave: a contiguous destination of groups of k, all or the first columns of each from the source
					k := 2 << r.IntN(2)
					g.cols, g.dstStride = k, k*w
					if r.IntN(2) == 0 {
						g.cols = 1 + r.IntN(k)
					}
					g.srcStride = g.rows*w + r.IntN(3)*64
				case 1: // a de-interleave: a contiguous source of groups of k, all or the first rows of each kept
					k := 2 << r.IntN(2)
					g.rows, g.srcStride = k, k*w
					if r.IntN(2) == 0 {
						g.rows = 1 + r.IntN(k)
					}
					g.dstStride = (g.cols*w+63)/64*64 + r.IntN(2)*64
				}
				align := 64
				if k%5 == 4 {
					align = 1 + r.IntN(64)
				}
				dBlock, sBlock := span(g.rows, g.dstStride, g.cols*w), span(g.cols, g.srcStride, g.rows*w)
				grid := Grid{Inner: r.IntN(4), Outer: r.IntN(3)}
				grid.DstInner = (dBlock + align - 1) / align * align
				grid.DstOuter = grid.Inner*grid.DstInner + r.IntN(2)*align
				grid.SrcInner, grid.SrcOuter = sBlock+r.IntN(100), r.IntN(2*sBlock+1)
				grid.Ahead = r.IntN(1<<20) - 1<<19 // prefetches, anywhere
				dstBytes := span(grid.Outer, grid.DstOuter, span(grid.Inner, grid.DstInner, dBlock))
				if k%3 == 0 && g.cols*w < g.dstStride && PadBytes%w == 0 {
					// The rest of each group from a pattern.
					pat := make([]byte, w)
					randomize(r, pat)
					grid.Pad = PadVector(pat)
					if grid.Outer > 0 && grid.Inner > 0 {
						dstBytes += g.dstStride - g.cols*w
					}
				}
				dst := guarded(t, dstBytes, k%5 == 4)
				srcBytes := span(grid.Outer, grid.SrcOuter, span(grid.Inner, grid.SrcInner, sBlock))
				if k%3 == 1 && k%4 != 0 && grid.Outer > 0 && grid.Inner > 0 {
					srcBytes += g.srcStride - g.rows*w // the last group whole
				}
				src := guarded(t, srcBytes, k%2 == 0)
				randomize(r, src, dst)
				orig, want := bytes.Clone(dst), bytes.Clone(dst)
				for a := range grid.Outer * min(g.rows, g.cols, 1) {
					for b := range grid.Inner {
						transposeGeneric(w, want[a*grid.DstOuter+b*grid.DstInner:], g.dstStride, src[a*grid.SrcOuter+b*grid.SrcInner:], g.srcStride, g.rows, g.cols)
					}
				}
				padded := slices.Clone(want) // the same with the groups' rest padded
				for a := range grid.Outer * min(g.rows, g.cols, 1) {
					for b := range grid.Inner {
						for i := range g.rows {
							for c := g.cols; grid.Pad != nil && (c+1)*w <= g.dstStride; c++ {
								if at := a*grid.DstOuter + b*grid.DstInner + i*g.dstStride + c*w; at+w <= len(padded) {
									copy(padded[at:at+w], grid.Pad)
								}
							}
						}
					}
				}
				for _, k := range gridKernels {
					copy(dst, orig)
					k.f(w, dst, g.dstStride, src, g.srcStride, g.rows, g.cols, grid)
					// A padded grid writes the rest of every group.
					if grid.Pad != nil && partialGroup(w, g.cols, g.dstStride) {
						want = padded
					}
					if !bytes.Equal(dst, want) {
						t.Fatalf("%s %v, %+v: byte %d differs", k.name, g, grid, firstDiff(dst, want))
					}
				}
			}
		}
	})
}

// TestKeptRowsSourceEnd runs de-interleaves that keep the first rows of
// each group (1 of 2, 3 of 4) at every level, their source ending at the
// last group's last kept element, at the end of a guarded buffer, and
// with the last group whole: the kernels, which read whole groups, take
// only the second; both match the generic kernel.
func TestKeptRowsSourceEnd(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for _, c := range []struct{ w, rows, k, cols int }{{2, 1, 2, 100}, {1, 3, 4, 200}, {4, 1, 2, 37}} {
			for _, whole := range []bool{false, true} {
				ss := c.k * c.w
				n := (c.cols-1)*ss + c.rows*c.w
				if whole {
					n = c.cols * ss
				}
				src := guarded(t, n, true)
				dst := make([]byte, c.rows*c.cols*c.w)
				r := rand.New(rand.NewPCG(uint64(c.cols), 3))
				randomize(r, src, dst)
				want := bytes.Clone(dst)
				transposeGeneric(c.w, want, c.cols*c.w, src, ss, c.rows, c.cols)
				TransposeGrid(c.w, dst, c.cols*c.w, src, ss, c.rows, c.cols, Grid{Inner: 1, Outer: 1})
				if !bytes.Equal(dst, want) {
					t.Fatalf("%+v whole %v: byte %d differs", c, whole, firstDiff(dst, want))
				}
			}
		}
	})
}

// TestDeinterleaveKept runs Transpose on de-interleaves of which the
// destination keeps the first rows of each group of k (deinterleaveKept:
// a tile's partial group of (8,1) rows, unpacked), at every level, for
// column counts around the kernels' chunks and the stack buffer's
// pieces, the source ending at a guard page inside its last group or
// after it, the destination's rows padded or not and ending at a guard
// page.
func TestDeinterleaveKept(t *testing.T) {
	type shape struct{ w, k, rows int }
	shapes := []shape{{1, 8, 1}, {1, 8, 3}, {1, 8, 4}, {1, 8, 7}, {1, 4, 3}, {1, 3, 2}, {1, 2, 1}, {2, 8, 3}, {2, 8, 6}, {2, 4, 1}, {2, 3, 2}, {2, 2, 1}, {4, 8, 5}, {4, 4, 3}, {4, 2, 1}}
	forEachLevel(t, func(t *testing.T) {
		for _, c := range shapes {
			for _, cols := range []int{1, 31, 32, 33, 64, 95, 100, 511, 512, 513, 1000, 1031, 3000} {
				for _, whole := range []bool{false, true} {
					ss := c.k * c.w
					n := (cols-1)*ss + c.rows*c.w
					if whole {
						n = cols * ss
					}
					ds := cols*c.w + cols%3
					src := guarded(t, n, true)
					dst := guarded(t, (c.rows-1)*ds+cols*c.w, true)
					r := rand.New(rand.NewPCG(uint64(cols), uint64(c.k)))
					randomize(r, src, dst)
					want := bytes.Clone(dst)
					transposeGeneric(c.w, want, ds, src, ss, c.rows, cols)
					Transpose(c.w, dst, ds, src, ss, c.rows, cols)
					if !bytes.Equal(dst, want) {
						t.Fatalf("%+v cols %d whole %v: byte %d differs", c, cols, whole, firstDiff(dst, want))
					}
				}
			}
		}
	})
}

// TestInterleaveKept runs Transpose on interleaves into groups of k
// elements of which the source fills the first cols (interleaveKept) at
// every level, for row counts around the kernels' chunks and pieces, the
// destination ending at a guard page inside its last group or after it:
// the groups' other elements are left as they were.
func TestInterleaveKept(t *testing.T) {
	type shape struct{ w, k, cols int }
	shapes := []shape{{1, 8, 2}, {1, 8, 3}, {1, 8, 4}, {1, 4, 3}, {1, 4, 2}, {1, 16, 3}, {1, 64, 4}, {2, 8, 3}, {2, 4, 3}, {2, 32, 2}, {4, 4, 3}, {4, 8, 2}, {4, 16, 4}}
	forEachLevel(t, func(t *testing.T) {
		for _, c := range shapes {
			for _, rows := range []int{1, 8, 31, 32, 33, 64, 95, 100, 511, 512, 513, 1000, 1031, 1366, 3000} {
				for _, whole := range []bool{false, true} {
					ds := c.k * c.w
					n := (rows-1)*ds + c.cols*c.w
					if whole {
						n = rows * ds
					}
					ss := rows*c.w + rows%3
					src := guarded(t, (c.cols-1)*ss+rows*c.w, true)
					dst := guarded(t, n, true)
					r := rand.New(rand.NewPCG(uint64(rows), uint64(c.k)))
					randomize(r, src, dst)
					want := bytes.Clone(dst)
					transposeGeneric(c.w, want, ds, src, ss, rows, c.cols)
					Transpose(c.w, dst, ds, src, ss, rows, c.cols)
					if !bytes.Equal(dst, want) {
						t.Fatalf("%+v rows %d whole %v: byte %d differs", c, rows, whole, firstDiff(dst, want))
					}
				}
			}
		}
	})
}

// TestWeaveStreamed runs transposeFast's 2-, 3- and 4-way interleaves and
// de-interleaves of a destination past the caches (large), whose whole
// chunks take streaming kernels where the destination is aligned for
// their stores (weaveStreamed: the 3-way weaves' streaming twins at any
// length, the 2- and 4-way grid kernels from weaveStreamBytes on), at
// every level: element widths 1, 2 and 4, row lengths around the
// kernels' chunks and past weaveStreamBytes, the destination on a line
// or 4, 16 or 32 bytes past one, flush against a guard page before it or
// after it, the source too.
func TestWeaveStreamed(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for _, k := range []int{2, 3, 4} {
			for _, w := range []int{1, 2, 4, 8} {
				for _, n := range []int{1, 15, 16, 17, 63, 64, 65, 100, 128, 129, 1000, 4096 + 3, weaveStreamBytes/(k*w) + 5} {
					for _, off := range []int{0, 4, 16, 32} {
						for _, inverse := range []bool{false, true} {
							r := rand.New(rand.NewPCG(uint64(n*k), uint64(w*64+off)))
							rows, cols, ss, ds := n, k, n*w+off, k*w // an interleave: k source rows
							if inverse {
								rows, cols, ss, ds = k, n, k*w, n*w+off // a de-interleave: k destination rows
								if off%w != 0 {
									continue
								}
							}
							src := guarded(t, span(cols, ss, rows*w), n%2 == 0)
							// On a line or off bytes past one, flush against a
							// guard page before it; 4 bytes past one, flush
							// against one after it.
							dst := guarded(t, span(rows, ds, cols*w)+off, off == 4)[off:]
							randomize(r, src, dst)
							want := bytes.Clone(dst)
							transposeGeneric(w, want, ds, src, ss, rows, cols)
							transposeFast(w, dst, ds, src, ss, rows, cols, true, nil)
							if !bytes.Equal(dst, want) {
								t.Fatalf("%d-way, width %d, %d elements a row, inverse %v, %d bytes past a line: byte %d differs", k, w, n, inverse, off, firstDiff(dst, want))
							}
						}
					}
				}
			}
		}
	})
}

// TestTransposeOneRow runs Transpose on blocks of one row, a gather of an
// element from each source row (copyRunsPermuted where the rows are a
// power of two bytes apart, up to 64), at every level, for row counts
// around the kernel's steps, the source and the destination ending at
// guard pages.
func TestTransposeOneRow(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for _, w := range []int{1, 2, 4, 8, 16} {
			for _, ss := range []int{2 * w, 3 * w, 4 * w, 32, 64, 128} {
				if ss <= w {
					continue
				}
				for _, cols := range []int{1, 3, 4, 15, 16, 17, 64, 100, 1000} {
					src := guarded(t, (cols-1)*ss+w, true)
					dst := guarded(t, cols*w, true)
					r := rand.New(rand.NewPCG(uint64(cols), uint64(ss)))
					randomize(r, src, dst)
					want := bytes.Clone(dst)
					transposeGeneric(w, want, cols*w, src, ss, 1, cols)
					Transpose(w, dst, cols*w, src, ss, 1, cols)
					if !bytes.Equal(dst, want) {
						t.Fatalf("width %d, source rows %d apart, %d of them: byte %d differs", w, ss, cols, firstDiff(dst, want))
					}
				}
			}
		}
	})
}

// TestKeptColsPadded runs interleaves whose destination groups take the
// first columns from the source and the rest from Grid.Pad (1 of 2, 3 of
// 4: a tile's partial group of rows, tiled) at every level, the source's
// rows ending at the end of a guarded buffer: the groups are whole, the
// rest of each the pattern, whether the level's kernels take them
// (KeepsCols) or not.
func TestKeptColsPadded(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for _, c := range []struct{ w, cols, k, rows int }{{2, 1, 2, 100}, {1, 3, 4, 200}, {4, 1, 2, 37}, {1, 2, 4, 64}} {
			ds := c.k * c.w
			src := guarded(t, (c.cols-1)*c.rows*c.w+c.rows*c.w, true)
			dst := make([]byte, c.rows*ds)
			r := rand.New(rand.NewPCG(uint64(c.rows), 5))
			randomize(r, src, dst)
			pat := make([]byte, c.w)
			randomize(r, pat)
			pad := PadVector(pat)
			want := bytes.Clone(dst)
			transposeGeneric(c.w, want, ds, src, c.rows*c.w, c.rows, c.cols)
			for i := range c.rows {
				for j := c.cols; j < c.k; j++ {
					copy(want[i*ds+j*c.w:i*ds+(j+1)*c.w], pat)
				}
			}
			TransposeGrid(c.w, dst, ds, src, c.rows*c.w, c.rows, c.cols, Grid{Inner: 1, Outer: 1, Pad: pad})
			if !bytes.Equal(dst, want) {
				t.Fatalf("%+v: byte %d differs", c, firstDiff(dst, want))
			}
		}
	})
}

// TestTransposeGridTiled runs TransposeGrid and TransposeBlocks on grids
// whose blocks tile their buffers the way a 4-D reversal's do: the inner
// blocks continue each other's source rows, the outer ones each other's
// destination rows (or the other way round), so that the staged path
// groups them, with and without ragged edges, padding and an aligned
// destination.
func TestTransposeGridTiled(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for _, w := range testWidths {
			r := rand.New(rand.NewPCG(uint64(w), 11))
			for k := range 40 {
				rows, cols := 1+r.IntN(80), 1+r.IntN(160)
				if k%2 == 0 { // full register blocks, no edges
					rows, cols = 16*(1+r.IntN(4)), 64*(1+r.IntN(2))
				}
				inner, outer := 1+r.IntN(12), 1+r.IntN(12)
				if (w == 4 || w == 8 || w == 16) && k%4 == 1 { // the narrow kernels' blocks, or the generic transpose's
					few, many := []int{2, 4, 8}[r.IntN(3)], 16*(1+r.IntN(8))
					if w >= 8 { // no kernel takes fewer than 8 rows (4 for 16 bytes)
						few = []int{2, 3, 4}[r.IntN(3)]
					}
					rows, cols = few, many
					if k%8 == 1 {
						// Destination rows shorter than a line: enough
						// outer blocks side by side to make lines, a few
						// more than a group takes (gridPieceBytes), or
						// many groups' worth, which go along each row
						// carrying part lines where rows start off lines.
						rows, cols = many, few
						outer += 64 / (few * w)
						switch k % 16 {
						case 9:
							outer = 512/(few*w) + 1 + r.IntN(2)
						case 1:
							outer = 2*512/(few*w) + r.IntN(200)
						}
					}
				}
				pad := func() int { return []int{0, 0, 64, 3}[r.IntN(4)] }
				// Destination: outer blocks side by side in its rows,
				// inner blocks one after another; source the other way.
				grid := Grid{Inner: inner, Outer: outer}
				grid.DstOuter = cols * w
				grid.DstInner = outer*cols*w + pad()
				dstStride := inner*grid.DstInner + pad()
				grid.SrcInner = rows * w
				grid.SrcOuter = inner*rows*w + pad()
				srcStride := outer*grid.SrcOuter + pad()
				if k%3 == 2 { // the other way round: TransposeGrid swaps them
					grid = grid.swapped()
				}
				dst, src := gridBuffers(t, grid, rows, dstStride, cols*w, cols, srcStride, rows*w, k%2 == 0, k%2 == 1)
				checkGridKernels(t, r, w, dst, dstStride, src, srcStride, rows, cols, grid)
			}
		}
	})
}

// TestTransposeGridPasses runs the grid kernels on grids of 2-, 4- and
// 8-byte blocks whose source rows lie a page or more apart, more than
// Tuning.TileRows of them a block, set here whatever the machine's
// tuning (transposeGridPasses moves them in passes of TileRows rows):
// blocks that continue each other's source rows along the inner or the
// outer blocks, or neither; destination rows on lines or off them; a
// source row count no multiple of TileRows; against guard pages.
func TestTransposeGridPasses(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for _, w := range []int{2, 4, 8} {
			r := rand.New(rand.NewPCG(uint64(w), 23))
			for k := range 16 {
				setTuning(t, func(tu *Tuning) { tu.TileRows = []int{32, 16, 64}[k%3] })
				rows := (64 / w) * (1 + r.IntN(3))
				cols := 32 * (2 + r.IntN(2))
				if k%5 == 4 {
					cols += 8 // no whole pass of 16 or 32 rows
				}
				inner, outer := 1+r.IntN(6), 1+r.IntN(3)
				grid := Grid{Inner: inner, Outer: outer}
				// The inner blocks continue each other's source rows;
				// each block's destination starts a line on.
				grid.SrcInner = rows * w
				grid.SrcOuter = inner * rows * w
				srcStride := max(outer*grid.SrcOuter, 4096) + []int{0, 64, 8}[r.IntN(3)]
				grid.DstOuter = (cols*w + 63) / 64 * 64
				grid.DstInner = outer * grid.DstOuter
				dstStride := inner * grid.DstInner
				switch k % 4 {
				case 1: // the outer blocks continue the source rows
					grid = grid.swapped()
				case 2: // neither: blocks of rows of their own
					grid.SrcInner = 2 * rows * w
					grid.SrcOuter = inner * grid.SrcInner
					srcStride = max(outer*grid.SrcOuter, 4096)
				case 3: // destination rows off lines
					dstStride += 8
				}
				dst, src := gridBuffers(t, grid, rows, dstStride, cols*w, cols, srcStride, rows*w, k%2 == 0, k%2 == 1)
				checkGridKernels(t, r, w, dst, dstStride, src, srcStride, rows, cols, grid)
			}
		}
	})
}

// TestTransposeGridContiguous runs the grid kernels on grids of blocks
// each of which fills a stretch of the destination, rows shorter than a
// line one after another (u8 T(32,32) tiles, bf16 T(8,8)): blocks one
// after another in the destination or apart, continuing each other's
// source rows along the inner or the outer blocks or neither, some
// destinations off lines; against guard pages.
func TestTransposeGridContiguous(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for _, w := range []int{1, 2, 4} {
			r := rand.New(rand.NewPCG(uint64(w), 29))
			for k := range 24 {
				cols := []int{8, 16, 32}[r.IntN(3)] / w // a destination row of 8 to 32 bytes
				if cols == 0 {
					cols = 1
				}
				rows := 64 / (cols * w) * (1 + r.IntN(4)) // whole lines a block
				if k%6 == 5 {
					rows++ // a block of no whole number of lines
				}
				blk := rows * cols * w
				inner, outer := 1+r.IntN(9), 1+r.IntN(3)
				grid := Grid{Inner: inner, Outer: outer}
				grid.DstInner = (blk + 63) / 64 * 64 * (1 + r.IntN(2))
				grid.DstOuter = inner * grid.DstInner
				grid.SrcInner = rows * w // continuing the source rows
				if k%3 == 1 {
					grid.SrcInner += 64 // apart
				}
				grid.SrcOuter = inner * grid.SrcInner
				srcStride := outer*grid.SrcOuter + r.IntN(5)
				if k%4 == 3 { // the outer blocks continue the source rows
					grid = grid.swapped()
				}
				grid.Unfenced = k%5 == 0
				dst, src := gridBuffers(t, grid, rows, cols*w, cols*w, cols, srcStride, rows*w, k%8 == 7, k%2 == 1)
				checkGridKernels(t, r, w, dst, cols*w, src, srcStride, rows, cols, grid)
			}
		}
	})
}

// gridBuffers returns guarded buffers for grid: a destination of its
// blocks' rows rows of row bytes, stride apart, and a source of its
// blocks' cols rows of srcRow bytes, srcStride apart, each at the end of
// its page where atEnd says so.
func gridBuffers(t *testing.T, grid Grid, rows, stride, row, cols, srcStride, srcRow int, dstAtEnd, srcAtEnd bool) (dst, src []byte) {
	t.Helper()
	dst = guarded(t, span(rows, stride, span(grid.Outer, grid.DstOuter, span(grid.Inner, grid.DstInner, row))), dstAtEnd)
	src = guarded(t, span(cols, srcStride, span(grid.Outer, grid.SrcOuter, span(grid.Inner, grid.SrcInner, srcRow))), srcAtEnd)
	return dst, src
}

// checkGridKernels fills src and dst with random bytes and checks every
// grid kernel against transposeGeneric block by block, each from the
// same starting dst.
func checkGridKernels(t *testing.T, r *rand.Rand, w int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, grid Grid) {
	t.Helper()
	randomize(r, src, dst)
	orig, want := bytes.Clone(dst), bytes.Clone(dst)
	for a := range grid.Outer {
		for b := range grid.Inner {
			transposeGeneric(w, want[a*grid.DstOuter+b*grid.DstInner:], dstStride, src[a*grid.SrcOuter+b*grid.SrcInner:], srcStride, rows, cols)
		}
	}
	for _, k := range gridKernels {
		copy(dst, orig)
		k.f(w, dst, dstStride, src, srcStride, rows, cols, grid)
		if !bytes.Equal(dst, want) {
			t.Fatalf("%s %d×%d width %d, strides %d/%d, %+v: byte %d differs", k.name, rows, cols, w, dstStride, srcStride, grid, firstDiff(dst, want))
		}
	}
}

// TestTransposeGridBytes8 runs the grid kernels on grids of 8×8 blocks
// of bytes (T(8,8) tiles of 8-bit types, and of 4-bit ones unpacked),
// which tinyGrid moves a word of each source row at a time: blocks side
// by side or apart on either side, at strides on and off words, against
// guard pages.
func TestTransposeGridBytes8(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(8, 8))
		for k := range 16 {
			inner, outer := 1+r.IntN(9), 1+r.IntN(5)
			grid := Grid{Inner: inner, Outer: outer, DstInner: 8 + r.IntN(2)*(8+r.IntN(5)), SrcInner: 8 * (8 + r.IntN(3))}
			grid.DstOuter = inner*grid.DstInner + r.IntN(9)
			grid.SrcOuter = inner*grid.SrcInner + r.IntN(9)
			dstStride := outer*grid.DstOuter + r.IntN(9)
			srcStride := outer*grid.SrcOuter + r.IntN(9)
			if k%2 == 1 { // the other way round
				grid = grid.swapped()
			}
			dst, src := gridBuffers(t, grid, 8, dstStride, 8, 8, srcStride, 8, k%4 < 2, k%2 == 0)
			checkGridKernels(t, r, 1, dst, dstStride, src, srcStride, 8, 8, grid)
		}
	})
}

// TestTransposeGridBoth runs TransposeGrid and TransposeBlocks on grids
// whose outer blocks continue each other's rows on both sides (a dim
// both keep between the block's, as in u8 [64,128,256,32] to {1,2,3,0}),
// the inner blocks elsewhere on both: the staged path groups the outer
// blocks for both sides' runs, and stacks those of bytes in its tile.
func TestTransposeGridBoth(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for _, w := range testWidths {
			r := rand.New(rand.NewPCG(uint64(w), 17))
			for k := range 12 {
				rows, cols := 1+r.IntN(80), 1+r.IntN(160)
				if k%2 == 0 { // full register blocks, no edges
					rows, cols = 32*(1+r.IntN(2)), 64*(1+r.IntN(2))
				}
				inner, outer := 1+r.IntN(3), 2+r.IntN(24)
				pad := func() int { return []int{0, 0, 64, 3}[r.IntN(4)] }
				grid := Grid{Inner: inner, Outer: outer, DstOuter: cols * w, SrcOuter: rows * w}
				grid.DstInner = outer*cols*w + pad()
				grid.SrcInner = outer*rows*w + pad()
				dstStride := inner*grid.DstInner + pad()
				srcStride := inner*grid.SrcInner + pad()
				dst, src := gridBuffers(t, grid, rows, dstStride, cols*w, cols, srcStride, rows*w, k%4 < 2, k%2 == 1)
				checkGridKernels(t, r, w, dst, dstStride, src, srcStride, rows, cols, grid)
			}
		}
	})
}

// TestTransposeGridSplit runs TransposeGrid on grids of one dimension
// whose blocks are too large to stage whole, laid out as f32
// [64,128,256,32] to {1,0,2,3} lays them: each block continues the last
// one's rows on both sides. The staged path cuts them into pieces along
// their longer side (splitGrid), either side, with what is left of that
// side (not a whole piece) transposed block by block.
func TestTransposeGridSplit(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for _, w := range testWidths {
			r := rand.New(rand.NewPCG(uint64(w), 13))
			for k := range 12 {
				short := 8 * (1 + r.IntN(8))
				if k%4 == 3 {
					short = 1 + r.IntN(64) // ragged edges too
				}
				long := tuning.GridGroup/(short*w) + 1 + r.IntN(300)
				rows, cols := short, long
				if k%2 == 1 {
					rows, cols = long, short
				}
				n := 2 + r.IntN(4)
				pad := func() int { return []int{0, 0, 64, 3}[r.IntN(4)] }
				grid := Grid{Inner: n, Outer: 1, DstInner: cols * w, SrcInner: rows * w}
				dstStride := n*cols*w + pad()
				srcStride := n*rows*w + pad()
				if k%3 == 2 { // the one dimension outer instead
					grid = Grid{Inner: 1, Outer: n, DstOuter: grid.DstInner, SrcOuter: grid.SrcInner}
				}
				dst := guarded(t, span(rows, dstStride, n*cols*w), k%4 == 1)
				src := guarded(t, span(cols, srcStride, n*rows*w), k%2 == 0)
				checkGridKernels(t, r, w, dst, dstStride, src, srcStride, rows, cols, grid)
			}
		}
	})
}

// TestTransposeGridCarried runs TransposeGrid on grids of one dimension
// whose blocks continue each other's rows on both sides, as a 3-D
// reversal lays them (c64 [57,179,331] to {0,1,2}: 179 blocks of 331 ×
// 57), with destination runs of no whole number of lines and columns
// past the kernels' last whole block: enough blocks that the streamed
// groups carry their runs' part lines (carriedBlocks), the last columns
// staged in a strip moved back, the blocks small enough to stage whole
// or cut into pieces (splitGrid), the rows on lines and off them.
func TestTransposeGridCarried(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for _, w := range testWidths {
			r := rand.New(rand.NewPCG(uint64(w), 29))
			for k := range 8 {
				cols := 9 + r.IntN(60)
				for cols*w%64 == 0 || cols%8 == 0 || gcd(cols*w, 64) < 4 {
					cols++
				}
				run := cols * w
				rows, more := 8*(1+r.IntN(4)), r.IntN(24)
				if k%2 == 1 {
					rows, more = tuning.GridGroup/run+1+r.IntN(50), r.IntN(3) // split
				}
				// Twice the blocks of a group on amd64, whose runs are
				// about 512 bytes (gridPieceBytes), made whole lines.
				u := 64 / gcd(run, 64)
				n := 2*((max(512/run, 1)+u-1)/u*u) + more
				pad := []int{0, 64, 3, 8}[k%4]
				grid := Grid{Inner: n, Outer: 1, DstInner: cols * w, SrcInner: rows * w}
				dstStride, srcStride := n*cols*w+pad, n*rows*w+pad
				dst := guarded(t, span(rows, dstStride, n*cols*w), k%4 < 2)
				src := guarded(t, span(cols, srcStride, n*rows*w), k%2 == 0)
				checkGridKernels(t, r, w, dst, dstStride, src, srcStride, rows, cols, grid)
			}
		}
	})
}

// TestTinyGrid runs grids of blocks of at most tinyBlockElems elements,
// which tinyGrid moves, through TransposeGrid and TransposeBlocks in
// guarded buffers, against the generic kernel block by block, at
// unaligned offsets too; and checks that tinyGrid takes them and leaves
// larger blocks.
func TestTinyGrid(t *testing.T) {
	for _, tc := range []struct {
		width, rows, cols int
		tiny              bool
	}{
		{2, 2, 2, true}, {1, 4, 4, true}, {2, 2, 4, true}, {2, 4, 2, true}, {4, 8, 4, true},
		{8, 1, 3, true}, {16, 2, 2, true}, {1, 32, 1, true}, {4, 3, 11, false}, {2, 8, 8, false}, {3, 2, 2, false},
	} {
		if got := tinyGrid(tc.width, nil, 0, nil, 0, tc.rows, tc.cols, Grid{}); got != tc.tiny && fastWords {
			t.Errorf("width %d, %d×%d: tinyGrid took it %v, want %v", tc.width, tc.rows, tc.cols, got, tc.tiny)
		}
		r := rand.New(rand.NewPCG(uint64(tc.width*1000+tc.rows*10+tc.cols), 3))
		for k := range 8 {
			w := tc.width
			dstStride := tc.cols*w + r.IntN(3)*w + k%2 // odd strides: unaligned rows
			srcStride := tc.rows*w + r.IntN(3)*w
			dBlock, sBlock := span(tc.rows, dstStride, tc.cols*w), span(tc.cols, srcStride, tc.rows*w)
			grid := Grid{Inner: 1 + r.IntN(40), Outer: 1 + r.IntN(3)}
			grid.DstInner = tc.cols*w + r.IntN(2)*dBlock // rows that continue each other, or blocks apart
			grid.DstOuter = span(grid.Inner, grid.DstInner, dBlock) + r.IntN(5)
			grid.SrcInner = tc.rows*w + r.IntN(2)*sBlock
			grid.SrcOuter = span(grid.Inner, grid.SrcInner, sBlock) + r.IntN(5)
			if grid.DstInner < dBlock && tc.rows > 1 || grid.SrcInner < sBlock && tc.cols > 1 {
				// Blocks that continue each other's rows overlap as
				// spans; keep them apart instead.
				grid.DstInner, grid.SrcInner = dBlock, sBlock
				grid.DstOuter = span(grid.Inner, grid.DstInner, dBlock) + r.IntN(5)
				grid.SrcOuter = span(grid.Inner, grid.SrcInner, sBlock) + r.IntN(5)
			}
			dst := guarded(t, span(grid.Outer, grid.DstOuter, span(grid.Inner, grid.DstInner, dBlock)), k%2 == 0)
			src := guarded(t, span(grid.Outer, grid.SrcOuter, span(grid.Inner, grid.SrcInner, sBlock)), k%3 == 0)
			checkGridKernels(t, r, w, dst, dstStride, src, srcStride, tc.rows, tc.cols, grid)
		}
	}
}

// TestGatherWeave runs grids whose blocks continue each other's
// destination rows and together make them up, in as many columns as an
// interleave takes, through TransposeGrid and TransposeBlocks in guarded
// buffers against the generic kernel block by block, and checks that
// gatherWeave takes them and leaves other grids.
func TestGatherWeave(t *testing.T) {
	for _, tc := range []struct {
		width, cols, inner int
		takes              bool
	}{
		{1, 4, 2, true}, {1, 2, 4, true}, {1, 1, 3, true}, {2, 2, 2, true}, {4, 1, 4, true}, {2, 1, 3, true},
		{1, 3, 2, false}, // 6 columns: no interleave kernel
		{8, 1, 2, false},
	} {
		r := rand.New(rand.NewPCG(uint64(tc.width*100+tc.cols*10+tc.inner), 5))
		for k := range 6 {
			w, cols := tc.width, tc.cols
			rows := 64 + r.IntN(3000)
			m := tc.inner * cols
			dstStride := m * w
			srcStride := rows*w + r.IntN(5)*w
			grid := Grid{Inner: tc.inner, Outer: 1 + r.IntN(3), DstInner: cols * w}
			grid.SrcInner = span(cols, srcStride, rows*w) + r.IntN(7)
			dBlock := span(rows, dstStride, m*w)
			grid.DstOuter = dBlock + r.IntN(2)*64
			grid.SrcOuter = span(tc.inner, grid.SrcInner, span(cols, srcStride, rows*w)) + r.IntN(9)
			if took := gatherWeave(w, nil, dstStride, nil, srcStride, rows, cols, Grid{Inner: tc.inner, Outer: 0, DstInner: grid.DstInner}, false); took != tc.takes {
				t.Errorf("%+v: gatherWeave took it %v, want %v", tc, took, tc.takes)
			}
			dst := guarded(t, span(grid.Outer, grid.DstOuter, dBlock), k%2 == 0)
			src := guarded(t, span(grid.Outer, grid.SrcOuter, span(tc.inner, grid.SrcInner, span(cols, srcStride, rows*w))), k%3 == 0)
			checkGridKernels(t, r, w, dst, dstStride, src, srcStride, rows, cols, grid)
		}
	}
}

// TestElementwise checks which blocks Elementwise says the level moves
// an element at a time: none at the generic level, which has no kernels
// to compare with; at the others, those too narrow for their register
// blocks and for their interleaves.
func TestElementwise(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		generic := Level() == levelGeneric
		for _, c := range []struct {
			width, rows, cols, dstStride, srcStride int
			want                                    bool
		}{
			{1, 128, 3, 4, 1 << 20, true},  // 3 rows into groups of 4
			{1, 128, 4, 4, 1 << 20, false}, // an interleave of 4 rows
			{1, 8, 4, 4, 1 << 20, true},    // too short for one
			{1, 40, 4, 4, 1 << 20, false},  // a half chunk of AVX-512's
			{1, 128, 2, 2, 1 << 20, false}, // of 2
			{1, 3, 128, 1 << 20, 3, false}, // a de-interleave of 3
			{4, 64, 64, 256, 256, false},   // whole register blocks
			{1, 3, 5, 1 << 20, 1 << 20, true},
			{2, 2, 100, 1 << 20, 1 << 20, true},
			{4, 0, 8, 32, 32, false}, // no block
		} {
			want := c.want && !generic
			if got := Elementwise(c.width, c.rows, c.cols, c.dstStride, c.srcStride); got != want {
				t.Errorf("Elementwise(%d, %d, %d, %d, %d) = %v, want %v", c.width, c.rows, c.cols, c.dstStride, c.srcStride, got, want)
			}
		}
	})
}

// TestSpan checks the reach of strided blocks, at the edge of overflow
// too, where span reports -1 and the kernels' checks panic.
func TestSpan(t *testing.T) {
	for _, c := range []struct{ rows, stride, n, want int }{
		{0, 5, 3, 0},
		{4, 5, 0, 0},
		{1, math.MaxInt, 7, 7},
		{3, 10, 4, 24},
		{2, math.MaxInt - 1, 1, math.MaxInt},
		{2, math.MaxInt, 1, -1},
		{3, math.MaxInt / 2, 2, -1},
		{3, math.MaxInt/2 - 1, 3, math.MaxInt},
		{1 << 32, 1 << 32, 1, -1},
		{1<<33 + 1, 1 << 32, 1, -1}, // the product's high word alone
		{1 << 31, 1 << 31, 1, 1<<62 - 1<<31 + 1},
	} {
		if got := span(c.rows, c.stride, c.n); got != c.want {
			t.Errorf("span(%d, %d, %d) = %d, want %d", c.rows, c.stride, c.n, got, c.want)
		}
	}
}
