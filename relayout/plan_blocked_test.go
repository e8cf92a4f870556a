package relayout

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/tilecopy/tilecopy/internal/kernel"
	"github.com/tilecopy/tilecopy/internal/tuningtest"
)

// TestBlockedMatchesReference forces a blocked plan on every random pair
// that can take one (or, for packed pairs, on the byte plan that runs
// whole between their stages) and checks it against Reference: a whole Run on one
// to three goroutines and each chunk on its own, the buffers flush
// against guard pages, so that a gather or scatter past either end
// faults. A chunk run alone writes nothing outside DestinationRange.
func TestBlockedMatchesReference(t *testing.T) {
	n := uint64(3000)
	if testing.Short() {
		n = 800
	}
	took, stagedTook := 0, 0
	for seed := range n {
		from, to, opts := randomPair(seed)
		opts.forceBlocked = true
		opts.Threads = 1 + int(seed%3)
		p, err := Compile(from, to, &opts)
		if err != nil {
			continue
		}
		_, ok := p.exec.(*blocked)
		if st := p.stages(); st != nil {
			_, ok = st.mid.exec.(*blocked) // a byte plan that runs whole
			if ok {
				stagedTook++
			}
		}
		if !ok {
			continue
		}
		took++
		p.parallelMin = 0
		src, want := runGuarded(t, seed, p, opts.Pad)
		whole := bytes.Repeat([]byte{0x5a}, len(want))
		for c := range p.Chunks() {
			part := bytes.Repeat([]byte{0x5a}, len(want))
			if err := p.RunRange(part, src, c, c+1); err != nil {
				t.Fatalf("seed %d: chunk %d: %v", seed, c, err)
			}
			lo, hi := p.DestinationRange(c, c+1)
			for i := range part {
				if (int64(i) < lo || int64(i) >= hi) && part[i] != 0x5a {
					t.Fatalf("seed %d: chunk %d of %d wrote byte %d, outside [%d,%d)\n%s", seed, c, p.Chunks(), i, lo, hi, p)
				}
			}
			copy(whole[lo:hi], part[lo:hi])
		}
		if !bytes.Equal(whole, want) {
			t.Fatalf("seed %d: %s -> %s: chunks run one at a time give wrong bytes\n%s", seed, from, to, p)
		}
	}
	if took < int(n)/40 || stagedTook == 0 {
		t.Fatalf("only %d of %d random pairs took a blocked plan, %d of them staged", took, n, stagedTook)
	}
	t.Logf("%d of %d random pairs took a blocked plan, %d of them staged", took, n, stagedTook)
}

// TestBlockedChosen checks which plans Compile makes blocked: those
// whose walk moves tiny kernel blocks (swapped or not), and not those
// whose kernels move large ones.
func TestBlockedChosen(t *testing.T) {
	tuningtest.Reference(t)
	for _, c := range []struct {
		from, to string
		want     bool
	}{
		{"f16[22,17,4,25,256]{4,3,2,1,0:T(8,128)(2,1)}", "f16[22,17,4,25,256]{2,3,0,1,4}", true},
		{"s8[128,941,128]{1,0,2:T(8,128)(4,1)}", "s8[128,941,128]{2,1,0:T(8,128)(4,1)}", true},
		{"bf16[257,128,142,1,3]{1,0,2,4,3:T(8,128)(2,1)}", "bf16[257,128,142,1,3]{2,0,4,1,3:T(8,8)}", true},
		{"bf16[2048,2048]{1,0:T(8,128)(2,1)}", "bf16[2048,2048]{0,1:T(8,128)(2,1)}", true},
		{"s8[4096,4096]{1,0:T(8,128)(4,1)}", "s8[4096,4096]{0,1:T(8,128)(4,1)}", true},
		{"f32[512,512]", "f32[512,512]{0,1}", false},
		{"bf16[1536,6144]{1,0:T(8,128)(2,1)}", "bf16[1536,6144]{1,0}", false},
		{"f32[64,64]", "f32[64,64]", false},
		// Streamed walks that write 2 or 4 bytes of each destination row
		// a block, the rows far apart; 32 bytes stay a walk, as does a
		// destination in the caches.
		{"u8[13568,4619]{0,1:T(2,128)}", "u8[13568,4619]{1,0}", true},
		{"bf16[429,128,512]{2,1,0:T(16,64)}", "bf16[429,128,512]{0,1,2:T(8,128)(2,1)}", true},
		{"f32[787,9344]{1,0:T(8,128)}", "f32[787,9344]{0,1:T(8,128)}", false},
		{"u8[256,300]{0,1:T(2,128)}", "u8[256,300]{1,0}", false},
		{"f32[64,128,256,32]{3,2,1,0}", "f32[64,128,256,32]{0,1,2,3}", false},
		// 4-byte rows whose next step goes on along them.
		{"s8[4,1,770,2,8138]{4,3,2,1,0}", "s8[4,1,770,2,8138]{0,3,1,4,2}", false},
		// Source rows shorter than a line whose lines come back only
		// after more than the caches keep (32 bytes of each of 32 rows
		// a block, the next 32 bytes 704 KiB of lines on; 17 bytes,
		// 573 KiB on) run blocked; rows of 57 bytes whose lines never
		// come back (the rest of each is a T(1,128) tile's padding)
		// stay a walk.
		{"s8[4705,11235]{0,1}", "s8[4705,11235]{1,0:T(32,32)}", true},
		{"u8[128,70,128,17]{3,2,1,0:L(1024)}", "u8[128,70,128,17]{0,3,1,2}", true},
		{"s8[57,34,127,106]{0,1,3,2:T(1,128)}", "s8[57,34,127,106]{1,0,2,3}", false},
		// Destination rows of 8 bytes that the next step goes on
		// along 2 MiB of lines later.
		{"s32[2,2,128,256,128]{4,3,2,1,0}", "s32[2,2,128,256,128]{0,2,4,3,1}", true},
		// Blocks too narrow for the kernels whose source lies in a line
		// or two, and those of 8-byte elements, stay a walk (see
		// TestBlockedNarrow).
		{"s8[640,593,59,2]{3,2,1,0}", "s8[640,593,59,2]{2,3,1,0}", false},
		{"u8[2,325,574,40]{3,2,1,0:T(32,32)}", "u8[2,325,574,40]{3,2,1,0:T(8,128)(4,1)}", false},
		{"f64[512,3,933]{1,2,0}", "f64[512,3,933]{2,1,0:T(8,128)}", false},
		// 16 bytes of each of 8 source rows a step, read on along them
		// 1872 steps later (a MiB of lines on); and of 128 rows, 15
		// steps later (120 KiB), which the L2 holds.
		{"bf16[14976,1902]{1,0}", "bf16[14976,1902]{0,1:T(8,8)}", true},
		{"c64[1,1485,1793]{0,1,2}", "c64[1,1485,1793]{2,1,0:T(2,128)}", false},
		// Not streamed (14 and 12 MiB): 4-byte rows, 214 of them a set
		// of the L1 apart; 16-byte rows over 4 sets.
		{"s8[250,128,214]{2,1,0}", "s8[250,128,214]{0,1,2:T(8,128)(4,1)}", true},
		{"f16[150,103,34,4]{2,0,3,1:T(8,8)}", "f16[150,103,34,4]{0,3,2,1:T(4,128)}", false},
		// Streamed (28 MiB): the same 4-byte rows.
		{"s8[505,128,214]{2,1,0}", "s8[505,128,214]{0,1,2:T(8,128)(4,1)}", true},
		// 4 bytes of each of 384 source rows 64 KiB apart, which the
		// next step goes on along but which crowd one set of the L1: 1-
		// byte elements blocked, 4-byte ones not.
		{"s8[252,181,384,1]{1,0,3,2:T(8,128)(4,1)}", "s8[252,181,384,1]{3,2,1,0}", true},
		{"s32[256,1,81,512]{2,0,3,1:T(16,128)}", "s32[256,1,81,512]{3,2,1,0:T(4,128)}", false},
		// Kernel rows that merge d4 into d3 (a loop of scale 3), and an
		// outer loop that merges d2 into d0: blocked all the same, the
		// loops cut back (unmerged).
		{"s8[128,128,48,17,3]{4,3,2,1,0}", "s8[128,128,48,17,3]{0,2,1,4,3:T(8,128)(4,1)}", true},
		{"u8[3,128,4,288,90]{4,3,2,0,1:T(8,128)(4,1)}", "u8[3,128,4,288,90]{3,1,4,2,0:T(8,128)(4,1)}", true},
	} {
		p := checkBlocked(t, c.from, c.to, c.want)
		if _, got := p.exec.(*blocked); got && !strings.Contains(p.String(), "mode: blocked") {
			t.Errorf("%s -> %s: String does not say the plan is blocked\n%s", c.from, c.to, p)
		}
	}
}

// TestBlockedUnmerged runs walks whose loops merge full dims into
// another's (scale > 1), blocked, against the reference, and checks that
// the blocks cut those loops back (walkPlan.unmerged) and say so.
func TestBlockedUnmerged(t *testing.T) {
	for _, c := range [][2]string{
		{"s8[8,16,48,17,3]{4,3,2,1,0}", "s8[8,16,48,17,3]{0,2,1,4,3:T(8,128)(4,1)}"},
		{"u8[3,8,4,40,90]{4,3,2,0,1:T(8,128)(4,1)}", "u8[3,8,4,40,90]{3,1,4,2,0:T(8,128)(4,1)}"},
		{"f32[6,5,7,64]{3,2,1,0}", "f32[6,5,7,64]{1,0,3,2:T(8,128)}"},
	} {
		from, to := parsePair(t, c[0], c[1])
		for _, threads := range []int{1, 3} {
			opts := Options{Threads: threads, Pad: PadWith(3), forceBlocked: true}
			var plan *Plan
			checkPairWith(t, 7, from, to, opts, -1, func(p *Plan) {
				plan = p
				p.parallelMin = 0
			})
			b, ok := plan.exec.(*blocked)
			if !ok || len(b.folded) == 0 {
				t.Errorf("%s -> %s: no blocked plan of loops cut back\n%s", c[0], c[1], plan)
				continue
			}
			if !strings.Contains(plan.String(), "the full dims that") {
				t.Errorf("%s -> %s: String does not say which dims the blocks cut out\n%s", c[0], c[1], plan)
			}
		}
	}
}

// TestBlockedNarrow checks that walks of blocks of a few source rows far
// apart, too narrow for the level's kernels, run blocked: 4 rows of 181
// bytes into rows of 4. At a level without kernels (the generic one)
// every block moves an element at a time, blocked or not, and they stay
// walks. (3 rows into a tile's groups of 4, the rest padding, stay
// walks where the grids pad the groups: TestKeptRowsWalk.)
func TestBlockedNarrow(t *testing.T) {
	want := kernel.Elementwise(1, 128, 3, 4, 1<<20)
	for _, c := range [][2]string{
		{"s8[42,473,181,4]{2,0,1,3}", "s8[42,473,181,4]{3,0,1,2}"},
	} {
		checkBlocked(t, c[0], c[1], want)
	}
}

// TestKeptRowsWalk checks that walks whose kernel takes the first rows
// of the source's groups, or the first columns of the destination's with
// padding after them (a tile's partial group untiled, or tiled: 3 or 2
// rows of (4,1) tiles), stay walks where the level's grid kernels keep
// them (kernel.KeepsRows, KeepsCols): the grids read, or write, the
// groups whole.
func TestKeptRowsWalk(t *testing.T) {
	for _, c := range []struct {
		from, to    string
		width       int
		rows, group int
		tiled       bool
	}{
		{"u8[3,22283110]{1,0:T(8,128)(4,1)}", "u8[3,22283110]{1,0}", 1, 3, 4, false},
		{"s8[1619,3,7296]{2,1,0:T(8,128)(4,1)}", "s8[1619,3,7296]{2,1,0}", 1, 3, 4, false},
		{"u8[3,22283110]{1,0}", "u8[3,22283110]{1,0:T(8,128)(4,1)}", 1, 3, 4, true},
		{"s8[2,7185408]{1,0}", "s8[2,7185408]{1,0:T(8,128)(4,1)}", 1, 2, 4, true},
	} {
		keeps := kernel.KeepsRows(c.width, c.rows, c.group*c.width)
		if c.tiled {
			keeps = kernel.KeepsCols(c.width, c.rows, c.group*c.width)
		}
		if keeps {
			checkBlocked(t, c.from, c.to, false)
		}
	}
}

// checkBlocked compiles from → to as Compile plans it and fails the test
// unless the plan is blocked just where want says; it returns the plan.
func checkBlocked(t *testing.T, from, to string, want bool) *Plan {
	t.Helper()
	f, g := parsePair(t, from, to)
	p, err := Compile(f, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, got := p.exec.(*blocked); got != want {
		t.Errorf("%s -> %s: blocked %v, want %v\n%s", from, to, got, want, p)
	}
	return p
}

// TestBlockedUnits checks that walks of 16-bit elements widened into
// units whose kernel blocks are tiny, in arrays the caches do not hold
// (the smaller ones of about a MiB), run blocked over the elements as
// they are, and match the reference: (2,1) tiles transposed into
// T(4,128) and T(8,8), whose units' last pair of a column of tiles is
// partial. Units of 1-byte elements keep their walks.
func TestBlockedUnits(t *testing.T) {
	tuningtest.Reference(t)
	for _, c := range []struct {
		from, to string
		want     bool
	}{
		{"bf16[1445,19833]{1,0:T(8,128)(2,1)}", "bf16[1445,19833]{0,1:T(4,128)}", true},
		{"bf16[333,700]{1,0:T(8,128)(2,1)}", "bf16[333,700]{0,1:T(4,128)}", true},
		{"f16[2,700,300]{1,2,0:T(8,128)(2,1)}", "f16[2,700,300]{2,1,0:T(8,8)}", true},
		{"u8[11136,1920]{0,1:T(16,128)}", "u8[11136,1920]{1,0:T(8,128)(4,1)}", false},
	} {
		p := checkBlocked(t, c.from, c.to, c.want)
		if b, _ := p.from.ByteSize(); b <= maxPairBytes {
			checkPair(t, 1, p.from, p.to, Options{})
		}
	}
}

// TestBlockedGroups checks the gather order of blocks whose source runs
// are shorter than the groups the next digit steps over: that digit
// goes just outside the runs where its groups make four vectors or more
// (64 of the 8-byte groups of (8,1) tiles' rows, 3 bytes held of each),
// so that kernel.CopyRuns gathers them a vector at a time; 20 groups of
// T(8,8) tiles' rows stay outside the next digit of the destination.
func TestBlockedGroups(t *testing.T) {
	tuningtest.Reference(t)
	for _, c := range []struct {
		from, to string
		next     int // the dim of the digit just outside the runs
	}{
		{"u8[2176,3,128]{2,1,0:T(8,128)(8,1)}", "u8[2176,3,128]{0,2,1}", 2},
		{"u8[551,3,7079,4]{3,2,1,0:T(8,8)}", "u8[551,3,7079,4]{0,3,1,2}", 0},
	} {
		from, to := parsePair(t, c.from, c.to)
		p, err := Compile(from, to, &Options{Threads: 1, forceBlocked: true})
		if err != nil {
			t.Fatal(err)
		}
		b, ok := p.exec.(*blocked)
		if !ok {
			t.Fatalf("%s -> %s: not blocked\n%s", c.from, c.to, p)
		}
		at := b.gather.at
		if n := len(at); n < 2 || b.digits[at[n-2]].dim != c.next {
			t.Errorf("%s -> %s: gather order %v, want d%d just outside the runs\n%s", c.from, c.to, at, c.next, p)
		}
	}
}

// TestBlockedContinuesSource checks which blocked plans take the loop
// over blocks that continues the source runs innermost
// (continueSource): one whose blocks were megabytes apart in the
// source, not one whose source runs continue megabytes apart in the
// destination; each runs against the reference where it is small.
func TestBlockedContinuesSource(t *testing.T) {
	for _, c := range []struct {
		from, to string
		want     bool
	}{
		{"bf16[54,128,22,128,1]{4,3,2,1,0}", "bf16[54,128,22,128,1]{0,1,4,2,3:T(8,128)(2,1)}", true},
		{"bf16[6,16,22,128,1]{4,3,2,1,0}", "bf16[6,16,22,128,1]{0,1,4,2,3:T(8,128)(2,1)}", true},
		{"s8[256,320,156]{2,1,0:T(8,8)}", "s8[256,320,156]{1,0,2:T(16,128)}", false},
	} {
		p := checkBlocked(t, c.from, c.to, true)
		b, ok := p.exec.(*blocked)
		if !ok {
			continue
		}
		_, run := b.runDigits(srcOf)
		if got := b.outer[len(b.outer)-1].src == run; got != c.want {
			t.Errorf("%s -> %s: innermost loop continues the source runs %v, want %v\n%s", c.from, c.to, got, c.want, p)
		}
		if n, _ := p.from.ByteSize(); n <= maxPairBytes {
			checkPair(t, 1, p.from, p.to, Options{})
		}
	}
}

// TestBlockedWholeSourceRuns checks the runs of blocked plans: bf16
// (2,1) tiles' rows of 512 bytes are read whole, and with them the
// whole tile (1024 elements a run; cut to blockTargetBytes, 128); u8
// (4,1) tiles keep the block whose destination runs the whole rows would
// have cut (1024 elements each side). Each plan, forced blocked on a
// smaller array of the same tiles, runs against the reference.
func TestBlockedWholeSourceRuns(t *testing.T) {
	tuningtest.Reference(t)
	for _, c := range []struct {
		from, to    string
		small       [2]string
		run, dstRun int64
	}{
		{"bf16[128,352,384]{2,1,0:T(8,128)(2,1)}", "bf16[128,352,384]{1,0,2:T(8,128)(2,1)}",
			[2]string{"bf16[8,40,256]{2,1,0:T(8,128)(2,1)}", "bf16[8,40,256]{1,0,2:T(8,128)(2,1)}"}, 1024, 128},
		{"u8[82,747,213]{2,1,0:T(8,128)(4,1)}", "u8[82,747,213]{1,2,0:T(8,128)(4,1)}",
			[2]string{"u8[6,40,213]{2,1,0:T(8,128)(4,1)}", "u8[6,40,213]{1,2,0:T(8,128)(4,1)}"}, 1024, 1024},
	} {
		p := checkBlocked(t, c.from, c.to, true)
		b, ok := p.exec.(*blocked)
		if !ok {
			continue
		}
		_, run := b.runDigits(srcOf)
		_, dstRun := b.runDigits(dstOf)
		if run != c.run || dstRun != c.dstRun {
			t.Errorf("%s -> %s: runs of %d source and %d destination elements, want %d and %d\n%s", c.from, c.to, run, dstRun, c.run, c.dstRun, p)
		}
		from, to := parsePair(t, c.small[0], c.small[1])
		checkPair(t, 7, from, to, Options{forceBlocked: true})
	}
}

// TestBlockedValuesShared runs blocked plans of fewer chunks than two a
// goroutine (one, where the outermost loop's values write interleaved
// parts of the destination) on 1-3 goroutines, streamed or not, against
// the reference: a Run shares out the values of the outermost loops over
// blocks (blocked.runShared) all the same, of the first loop alone where
// it has two values a goroutine or more, else of the first two together.
func TestBlockedValuesShared(t *testing.T) {
	tuningtest.Reference(t) // the blocks' sizes, and so the loops over them
	for _, c := range []struct {
		from, to string
		loops    int // the loops shared on 2 and 3 goroutines
	}{
		// One chunk, 16 values outermost.
		{"s8[16,16,48,17,3]{4,3,2,1,0}", "s8[16,16,48,17,3]{0,2,1,4,3:T(8,128)(4,1)}", 1},
		// One chunk, loops of 3 and 2 values outermost.
		{"bf16[9,128,20,1,3]{1,0,2,4,3:T(8,128)(2,1)}", "bf16[9,128,20,1,3]{2,0,4,1,3:T(8,8)}", 2},
		// Two chunks, loops of 2 and 3 values outermost.
		{"bf16[24,128,40,1,3]{1,0,2,4,3:T(8,128)(2,1)}", "bf16[24,128,40,1,3]{2,0,4,1,3:T(8,8)}", 2},
	} {
		from, to := parsePair(t, c.from, c.to)
		for _, streamMin := range []int64{-1, 0} {
			for _, threads := range []int{1, 2, 3} {
				p := checkSplit(t, 6, from, to, Options{Threads: threads, forceBlocked: true}, streamMin)
				b, ok := p.exec.(*blocked)
				if !ok || b.chunks() > 2 || len(b.outer) == 0 {
					t.Fatalf("%s -> %s: want a blocked plan of one or two chunks\n%s", c.from, c.to, p)
				}
				if k, _ := b.sharedLoops(2 * int64(threads)); threads > 1 && k != c.loops {
					t.Errorf("%s -> %s: %d goroutines share %d loops, want %d\n%s", c.from, c.to, threads, k, c.loops, p)
				}
			}
		}
	}
}

// TestStagedBlocked checks which byte plans of packed pairs run
// blocked: one that runs whole may (tiny blocks, or tiny runs from rows
// apart), one whose slabs read its loops may not.
func TestStagedBlocked(t *testing.T) {
	for _, c := range []struct {
		from, to string
		want     bool
	}{
		{"u4[63,2,930,768]{3,2,1,0:T(8,128)(8,1)E(4)}", "u4[63,2,930,768]{0,3,2,1:T(8,128)(8,1)E(4)}", true},
		{"s4[4821,2560,3]{0,2,1:E(4)}", "s4[4821,2560,3]{2,1,0:T(8,8)E(4)}", false},             // its rows go on from step to step
		{"s4[128,19,128,128,3]{4,3,2,1,0:E(4)}", "s4[128,19,128,128,3]{1,4,2,3,0:E(4)}", false}, // slabs
		// A run copy of 8 bytes of each of 8 source rows 873600 bytes
		// apart a call (tinyRuns); runs of rows one after another stay
		// a walk.
		{"s4[128,325,138,21]{3,1,0,2:L(1024)E(4)}", "s4[128,325,138,21]{3,2,1,0:T(8,8)E(4)}", true},
		{"s4[3,128,909,173]{3,2,1,0:T(8,8)E(4)}", "s4[3,128,909,173]{3,2,1,0:E(4)}", false},
	} {
		from, to := parsePair(t, c.from, c.to)
		// The stages as Compile plans them before it slices them.
		p, err := compile(from, to, &Options{}, int64(currentTuning().RunStreamBytes), true)
		if err != nil {
			t.Fatal(err)
		}
		st := p.stages()
		if st == nil {
			t.Fatalf("%s -> %s: not staged\n%s", c.from, c.to, p)
		}
		if _, got := st.mid.exec.(*blocked); got != c.want {
			t.Errorf("%s -> %s: byte plan blocked %v, want %v\n%s", c.from, c.to, got, c.want, p)
		}
	}
}

// TestRowsPerSet checks how many rows a stride apart share a set of the
// L1.
func TestRowsPerSet(t *testing.T) {
	for _, c := range []struct{ stride, rows, want int64 }{
		{65536, 214, 214}, // all in one set
		{4096, 8, 8},
		{3072, 8, 2},     // 48 lines: over 4 sets
		{76800, 214, 54}, // 1200 lines: 4 sets
		{64, 128, 2},     // over all 64
		{4619, 128, 2},   // off lines: spread
	} {
		if got := rowsPerSet(c.stride, c.rows); got != c.want {
			t.Errorf("rowsPerSet(%d, %d) = %d, want %d", c.stride, c.rows, got, c.want)
		}
	}
}

// TestBlockTurns checks the turns that take a block from its gather
// order to its scatter order: applied to the digit lists, they give the
// scatter order, whatever the two orders.
func TestBlockTurns(t *testing.T) {
	for _, c := range []struct{ from, to []int }{
		{[]int{0, 1}, []int{1, 0}},
		{[]int{0, 1, 2}, []int{2, 1, 0}},
		{[]int{0, 1, 2, 3}, []int{1, 3, 0, 2}},
		{[]int{3, 0, 1, 2}, []int{0, 1, 2, 3}},
		{[]int{0, 1, 2, 3, 4}, []int{4, 2, 0, 3, 1}},
		{[]int{0, 1, 2}, []int{0, 1, 2}},
	} {
		cur := c.from
		for _, g := range turns(c.from, c.to) {
			if len(g.x) == 0 || len(g.y) == 0 {
				t.Fatalf("%v -> %v: an empty turn %+v", c.from, c.to, g)
			}
			cur = append(append(append(append([]int{}, g.batch...), g.y...), g.x...), g.inner...)
		}
		if !slices.Equal(cur, c.to) {
			t.Errorf("%v -> %v: the turns end at %v", c.from, c.to, cur)
		}
	}
}

// TestBlockedPairs runs pairs of the families the blocked plans serve,
// at sizes of many blocks with edges cut by padding, against the
// reference: streamed and not, on one and two threads, split even when
// small, with a padding value; each must take a blocked plan.
func TestBlockedPairs(t *testing.T) {
	for _, tc := range []struct{ from, to string }{
		// (2,1) tiles of f16 to a permutation whose fastest dims are
		// the tiles' rows and another dim: 2×4 blocks for the walk.
		{"f16[3,5,4,25,200]{4,3,2,1,0:T(8,128)(2,1)}", "f16[3,5,4,25,200]{2,3,0,1,4}"},
		// (4,1) tiles of s8 on both sides of a transpose: 4×4 blocks.
		{"s8[16,94,128]{1,0,2:T(8,128)(4,1)}", "s8[16,94,128]{2,1,0:T(8,128)(4,1)}"},
		{"s8[9,47,130]{1,0,2:T(8,128)(4,1)}", "s8[9,47,130]{2,1,0:T(8,128)(4,1)}"},
		// (2,1) tiles to T(8,8) with dims permuted.
		{"bf16[33,20,30,1,3]{1,0,2,4,3:T(8,128)(2,1)}", "bf16[33,20,30,1,3]{2,0,4,1,3:T(8,8)}"},
		// T(8,8) tiles of u8 to (4,1) tiles.
		{"u8[64,85,138]{2,1,0:T(8,8)}", "u8[64,85,138]{2,1,0:T(8,128)(4,1)}"},
		// Transposes between (2,1) and (4,1) tiles, padded, whose
		// swapped walk would move 4×4 blocks of pairs or quadruples.
		{"bf16[200,300]{1,0:T(8,128)(2,1)}", "bf16[200,300]{0,1:T(8,128)(2,1)}"},
		{"s8[200,300]{1,0:T(8,128)(4,1)}", "s8[200,300]{0,1:T(8,128)(4,1)}"},
	} {
		runVariants(t, 7, tc.from, tc.to, PadWith(3), func(p *Plan) {
			if _, ok := p.exec.(*blocked); !ok {
				t.Errorf("%s -> %s: not blocked\n%s", tc.from, tc.to, p)
			}
		})
	}
}

// TestBlockedWidePermutes runs blocked pairs whose turns are blocks of
// 65 to 128 bytes against the reference, as TestBlockedPairs does, and
// checks that where the level has the kernel such a turn is one byte
// permutation a block (kernel.PermutesBlocks).
func TestBlockedWidePermutes(t *testing.T) {
	for _, tc := range []struct{ from, to string }{
		// 8×8 blocks of 16-bit elements, 128 bytes (blocked where they
		// stream).
		{"f16[40,56]{1,0:T(8,8)}", "f16[40,56]{0,1}"},
		{"f16[12,3,34,4]{2,0,3,1:T(8,8)}", "f16[12,3,34,4]{0,3,2,1:T(4,128)}"},
		// 4×4 blocks of 8-byte elements; 8×4 of 4-byte ones, padded.
		{"f64[20,24]{1,0:T(4,4)}", "f64[20,24]{0,1:T(4,4)}"},
		{"f32[30,21]{1,0:T(8,4)}", "f32[30,21]{0,1:T(4,8)}"},
	} {
		took := false
		runVariants(t, 9, tc.from, tc.to, PadWith(3), func(p *Plan) {
			b, ok := p.exec.(*blocked)
			if !ok {
				return
			}
			took = true
			wide := false
			for _, op := range b.ops {
				wide = wide || len(op.bytes) > 64
			}
			if wide != kernel.PermutesBlocks(128) {
				t.Errorf("%s -> %s: a turn of more than 64 bytes permuted: %v\n%s", tc.from, tc.to, wide, p)
			}
		})
		if !took {
			t.Errorf("%s -> %s: no variant blocked", tc.from, tc.to)
		}
	}
}

// TestBlockedRunAllocations checks that a blocked plan's Run allocates
// nothing: its buffers come from the plan's pool, and what it counts
// of its blocks is counted when it is built.
func TestBlockedRunAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops buffers at random")
	}
	from, to := parsePair(t, "f32[4,16,32,32]{3,2,1,0}", "f32[4,16,32,32]{0,1,2,3}")
	p, err := Compile(from, to, &Options{Threads: 1, forceBlocked: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.exec.(*blocked); !ok {
		t.Fatalf("not blocked:\n%s", p)
	}
	src := make([]byte, p.SourceSize())
	dst := make([]byte, p.DestinationSize())
	if n := testing.AllocsPerRun(20, func() { p.Run(dst, src) }); n != 0 {
		t.Errorf("%v allocations a Run\n%s", n, p)
	}
}

// TestTinyRunsBlocked runs a packed pair whose byte plan copies runs of
// 8 bytes from source rows apart (tinyRuns), its byte plan blocked,
// against the reference, on one and three threads.
func TestTinyRunsBlocked(t *testing.T) {
	from, to := parsePair(t, "s4[16,25,18,21]{3,1,0,2:L(1024)E(4)}", "s4[16,25,18,21]{3,2,1,0:T(8,8)E(4)}")
	for _, threads := range []int{1, 3} {
		opts := Options{Threads: threads, Pad: PadWith(2), forceBlocked: true}
		var plan *Plan
		checkPairWith(t, 9, from, to, opts, -1, func(p *Plan) { plan = p })
		st := plan.stages()
		if st == nil {
			t.Fatalf("not staged:\n%s", plan)
		}
		if b, ok := st.mid.exec.(*blocked); !ok || b.kern != kernRun {
			t.Errorf("the byte plan is not a blocked run copy:\n%s", plan)
		}
	}
}

// TestBlockedTilings runs blocked pairs between two tilings of one order
// (bytes between T(8,8) and the (4,1) rows of T(8,128)(4,1), 16-bit
// elements between T(8,8) and T(8,128)(2,1)) against the reference, as
// TestBlockedPairs does, with edges, padding and more than one box, and
// checks that where the level has the kernel the turns run as one
// (kernel.PermuteWide), straight from the source to the destination
// where a box lies in one run on each side, with the padding every box
// holds from its pattern where it repeats from block to block.
func TestBlockedTilings(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		direct   bool // boxes in one run each side
		padded   bool // every box's padding straight across too
	}{
		{"u8[48,768]{1,0:T(8,8)}", "u8[48,768]{1,0:T(8,128)(4,1)}", true, false},
		{"u8[40,1024]{1,0:T(8,128)(4,1)}", "u8[40,1024]{1,0:T(8,8)}", true, false},
		{"bf16[24,1024]{1,0:T(8,128)(2,1)}", "bf16[24,1024]{1,0:T(8,8)}", true, false},
		{"u8[301,640]{1,0:T(8,8)}", "u8[301,640]{1,0:T(8,128)(4,1)}", true, false}, // the last box padded
		{"u8[37,3,300]{2,1,0:T(8,8)}", "u8[37,3,300]{2,1,0:T(8,128)(4,1)}", false, false},
		{"f16[4,4096]{1,0:T(8,8)}", "f16[4,4096]{1,0:T(8,128)(2,1)}", true, true}, // rows 4-7 of every tile
		{"u8[3,2048]{1,0:T(8,8)}", "u8[3,2048]{1,0:T(8,128)(4,1)}", true, true},
		{"u8[45,640]{1,0:T(8,8)}", "u8[45,640]{1,0:T(8,128)(4,1)}", false, false}, // one box, its last tiles' rows padded
	} {
		took := false
		runVariants(t, 11, tc.from, tc.to, PadWith(7), func(p *Plan) {
			b, ok := p.exec.(*blocked)
			if !ok {
				return
			}
			took = true
			if (b.wide != nil) != kernel.PermutesWide() {
				t.Errorf("%s -> %s: turns as one: %v\n%s", tc.from, tc.to, b.wide != nil, p)
			}
			if b.wide != nil && (b.direct != tc.direct || (b.widePad != nil) != tc.padded) {
				t.Errorf("%s -> %s: boxes permuted straight across: %v, with every box's padding: %v; want %v, %v\n%s", tc.from, tc.to, b.direct, b.widePad != nil, tc.direct, tc.padded, p)
			}
		})
		if !took {
			t.Errorf("%s -> %s: no variant blocked", tc.from, tc.to)
		}
	}
}
