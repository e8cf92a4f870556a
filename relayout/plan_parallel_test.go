package relayout

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestChunkBand checks, over random pairs and random chunk ranges, that
// RunRange reads no source element outside the band ChunkBand reports:
// with every other element's bytes changed, the run writes the same
// bytes.
func TestChunkBand(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 600
	}
	banded := 0
	for seed := range uint64(n) {
		from, to, opts := randomPair(seed)
		opts.Threads = 1
		p, err := Compile(from, to, &opts)
		if err != nil {
			continue
		}
		chunks := p.Chunks()
		if _, _, _, ok := p.ChunkBand(0, chunks); !ok {
			continue
		}
		r := rand.New(rand.NewPCG(seed, 3))
		lo := r.Int64N(chunks)
		hi := lo + 1 + r.Int64N(chunks-lo)
		dim, a, b, ok := p.ChunkBand(lo, hi)
		if !ok || a > b || b > from.dims[dim] {
			t.Fatalf("seed %d: %s -> %s: ChunkBand(%d, %d) = d%d [%d, %d) %v", seed, from, to, lo, hi, dim, a, b, ok)
		}
		banded++
		src := fillRandom(p.SourceSize(), seed)
		poisoned := bytes.Clone(src)
		width := int64(from.dtype.ByteWidth())
		idx := make([]int64, len(from.dims))
		for {
			if idx[dim] < a || idx[dim] >= b {
				off := p.fm.Offset(idx) * width
				for i := range width {
					poisoned[off+i] ^= 0xff
				}
			}
			if !nextIndex(idx, from.dims) {
				break
			}
		}
		got := bytes.Repeat([]byte{0x5a}, int(p.DestinationSize()))
		want := bytes.Clone(got)
		if err := p.RunRange(want, src, lo, hi); err != nil {
			t.Fatal(err)
		}
		if err := p.RunRange(got, poisoned, lo, hi); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("seed %d: %s -> %s: chunks [%d,%d) read outside d%d [%d, %d)\n%s", seed, from, to, lo, hi, dim, a, b, p)
		}
	}
	t.Logf("%d of %d cases have bands", banded, n)
	if banded < n/10 {
		t.Errorf("only %d of %d cases have bands", banded, n)
	}
}

// nextIndex advances idx over dims in row-major order and reports
// whether it did not wrap around (false also for an empty array).
func nextIndex(idx, dims []int64) bool {
	for i := len(idx) - 1; i >= 0; i-- {
		if idx[i]++; idx[i] < dims[i] {
			return true
		}
		idx[i] = 0
	}
	return false
}

// splitCase is a pair that a Run on more than one goroutine shares out
// in a way of its own (shared), or not.
type splitCase struct {
	from, to string
	pad      Padding
	shared   bool
}

// checkShares runs each case on 1-3 goroutines, streamed or not, against
// the reference, and checks that shares says a Run shares it out so
// exactly where the case is shared and the Run has more than one
// goroutine; what names the way in the errors.
func checkShares(t *testing.T, seed uint64, what string, cases []splitCase, shares func(*walkPlan) bool) {
	t.Helper()
	for _, c := range cases {
		from, to := parsePair(t, c.from, c.to)
		for _, streamMin := range []int64{-1, 0} {
			for _, threads := range []int{1, 2, 3} {
				p := checkSplit(t, seed, from, to, Options{Pad: c.pad, Threads: threads}, streamMin)
				w := p.walk()
				if got := w != nil && shares(w); got != (c.shared && threads > 1) {
					t.Errorf("%s -> %s on %d threads: %s shared %v, want %v\n%s", c.from, c.to, threads, what, got, c.shared && threads > 1, p)
				}
			}
		}
	}
}

// TestSplitColumns runs transposes that are one block of a few rows
// (de-interleaves into 2 or 3 planes, one of odd length, a transpose
// into 5 rows) on 1-3 goroutines, streamed or not, against the
// reference, and checks that those of more than one goroutine share out
// the block's columns (runColumns); an interleave (thousands of rows),
// one with padding in its rows, and one of 12 rows share out their rows
// as before.
func TestSplitColumns(t *testing.T) {
	checkShares(t, 3, "columns", []splitCase{
		{"bf16[3,5000]{0,1}", "bf16[3,5000]{1,0}", Padding{}, true},
		{"bf16[3,5000]{1,0}", "bf16[3,5000]{0,1}", Padding{}, false}, // 5000 destination rows
		{"u8[2,7001]{0,1}", "u8[2,7001]{1,0}", Padding{}, true},
		{"f32[5,3000]{0,1}", "f32[5,3000]{1,0}", Padding{}, true},
		{"s8[1,1,3,9000]{2,3,0,1}", "s8[1,1,3,9000]{3,1,0,2}", Padding{}, true},
		{"f32[3,3000]{0,1}", "f32[3,3000]{1,0:T(8,128)}", PadWith(2), false},
		{"f32[12,3000]{0,1}", "f32[12,3000]{1,0}", Padding{}, false},
	}, (*walkPlan).splitsColumns)
}

// TestSplitRun runs relayouts that are one run copy (out of and into
// layouts that only pad the array's end, 1-D tiles of one row, packed
// arrays moved as bytes, 3-byte units) or one row gathered at a stride
// (the 2 places of 8 that T(8,8) tiles' rows hold) on 1-3 goroutines,
// streamed or not, against the reference, and checks that those of more
// than one goroutine share out the run in pieces (runPieces), the last
// with the padding; a transpose and a run too short for two pages keep
// one.
func TestSplitRun(t *testing.T) {
	checkShares(t, 5, "run", []splitCase{
		{"c64[1,3107]{1,0:T(128)}", "c64[1,3107]{1,0}", Padding{}, true},
		{"f32[3,1111,7]{2,1,0}", "f32[3,1111,7]{2,1,0:L(1024)}", PadWith(5), true},
		{"u8[2,9001]{1,0:L(1024)}", "u8[2,9001]{1,0:L(1024)}", Padding{}, true},
		{"u4[91,300]{1,0:E(4)}", "u4[91,300]{1,0:L(1024)E(4)}", PadWith(3), true},
		{"s4[4,13378]{1,0:L(1024)E(4)}", "s4[4,13378]{1,0:E(4)}", Padding{}, true},
		{"u8[3,5001,3]{2,1,0}", "u8[3,5001,3]{2,1,0:L(1024)}", Padding{}, true},
		{"c64[1100,2]{1,0:T(8,8)}", "c64[1100,2]{1,0:L(1024)}", PadWith(1), true}, // a row at a stride
		{"bf16[300]{0}", "bf16[300]{0:L(1024)}", Padding{}, false},                // under two pages
		{"u8[2,9001]{1,0}", "u8[2,9001]{0,1}", Padding{}, false},
	}, (*walkPlan).splitsRun)
}

// TestThreadLoop runs on 2 goroutines, streamed or not, against the
// reference, pairs whose kernel rows are too few to share out evenly,
// and checks which loop a Run shares out: the outermost loop where it
// has values enough (the 4 rows of T(4,128) tiles, the 2 of T(2,128);
// 42 rows whose shares lie in a line or two of the source);
// a loop further in where it has not either (3 planes and 3 values
// outermost), among them a tile loop's dim with padding and a dim whose
// values a streamed walk's bands stage (each chunk's band must end with
// the chunk).
func TestThreadLoop(t *testing.T) {
	for _, c := range []struct {
		from, to string
		further  bool // a loop further in; else the outermost
	}{
		{"u8[4,20000]{1,0:T(4,128)}", "u8[4,20000]{1,0:T(256)}", false},
		{"bf16[64,2,1,300]{3,1,0,2:T(2,128)}", "bf16[64,2,1,300]{2,3,0,1}", false},
		{"f16[42,9,8,1,115]{0,4,3,2,1:T(8,128)(2,1)}", "f16[42,9,8,1,115]{4,3,2,1,0}", false}, // 21 rows 4 bytes apart a share
		{"bf16[3,128,7,20,3]{0,1,3,2,4}", "bf16[3,128,7,20,3]{1,2,4,3,0:T(16,128)}", true},
		{"c64[16,3,8,11,1]{2,0,1,3,4:T(8,1,5)L(3)}", "c64[16,3,8,11,1]{3,2,4,0,1}", true},
	} {
		from, to := parsePair(t, c.from, c.to)
		for _, streamMin := range []int64{-1, 0} {
			for seed := range uint64(4) {
				p := checkSplit(t, 4+seed, from, to, Options{Threads: 2}, streamMin)
				w := p.walk()
				if w == nil || len(w.loops) == 0 {
					t.Fatalf("%s -> %s: no loops to share out\n%s", c.from, c.to, p)
				}
				l := w.threadLoop()
				if got := l != w.splitLoop() && l != &w.loops[0]; got != c.further || !c.further && l != &w.loops[0] {
					t.Fatalf("%s -> %s: a Run shares out d%d ×%d, want a loop further in %v\n%s", c.from, c.to, l.dim, l.size, c.further, p)
				}
			}
		}
	}
}
