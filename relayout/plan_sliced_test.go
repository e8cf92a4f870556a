package relayout

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSliced checks which plans run slice by slice, along which dim, and
// how their slices lie in the buffers.
func TestSliced(t *testing.T) {
	cases := []struct {
		from, to string
		dim      int   // -1: not sliced
		per      int64 // values of dim a slice
		src, dst int64 // runs a slice on each side
		blocked  bool  // a slice's byte plan must run blocked (at every level)
	}{
		// d1 is the source's slowest dim; the destination's d0 is slower.
		{"u4[3,512,112,128]{0,3,2,1:E(4)}", "u4[3,512,112,128]{3,2,1,0:T(32,32)E(4)}", 1, 21, 1, 3, false},
		// A 4x padded destination: slices count its places.
		{"u4[1408,1,4,2,9344]{2,4,1,0,3:E(4)}", "u4[1408,1,4,2,9344]{4,3,2,1,0:T(8,128)(8,1)E(4)}", 0, 3, 2, 1, false},
		// Odd rows of 4-bit fields: slices of whole bytes take two rows.
		{"u4[83,226,1875]{2,0,1:E(4)}", "u4[83,226,1875]{2,1,0:E(4)}", 1, 6, 1, 83, false},
		// A transpose of odd dims: every other destination row starts
		// inside a byte, which neighbouring slices share; slices larger
		// than the target (512 values, not 262) make runs of 256 bytes;
		// the last slice of 417 values ends each row inside a byte.
		{"u4[4001,4001]{1,0:E(4)}", "u4[4001,4001]{0,1:E(4)}", 0, 512, 1, 4001, false},
		// Likewise, the destination's 2 runs a slice 40643751 fields
		// apart: the second starts inside a byte.
		{"u4[2,16251,2501]{2,1,0:T(8,128)(8,1)E(4)}", "u4[2,16251,2501]{2,1,0:E(4)}", 1, 200, 2, 2, false},
		// Slabs of a value of a dim of 2 each, too large for the caches,
		// give way to slices.
		{"u4[2,1,11941,896]{2,3,1,0:E(4)}", "u4[2,1,11941,896]{3,2,1,0:T(32,32)E(4)}", 3, 32, 2, 748, false},
		// Slabs of (8,1) tiles that move the fields direct stay.
		{"s4[8192,8192]{1,0:E(4)}", "s4[8192,8192]{1,0:T(8,128)(8,1)E(4)}", -1, 0, 0, 0, false},
		// Too small to slice.
		{"u4[64,1024]{1,0:E(4)}", "u4[64,1024]{0,1:T(8,128)(8,1)E(4)}", -1, 0, 0, 0, false},
		// A 2-D transpose: slices of the source's slowest dim are runs
		// of 424 fields (1696 bytes) of each row of the destination's
		// tiles.
		{"s4[2432,13665]{0,1:E(4)}", "s4[2432,13665]{1,0:T(8,8)E(4)}", 1, 424, 1, 304, false},
		// Slabs that RunRange alone takes: a slice would read 256
		// bytes of every source row too.
		{"s4[4096,4096]", "s4[4096,4096]{0,1:E(4)}", -1, 0, 0, 0, false},
		// Tail padding (L) on either side: the slices hold the places,
		// the last fills the tail.
		{"s4[3,23356092]{1,0:T(8,128)(8,1)E(4)}", "s4[3,23356092]{1,0:L(1024)E(4)}", 1, 131072, 1, 3, false},
		{"s4[15232,8103,1]{0,2,1:L(1024)E(4)}", "s4[15232,8103,1]{1,2,0:E(4)}", 0, 512, 8103, 1, false},
		// The whole byte plan is blocked; a slice's walk would widen
		// d3's runs of 8 bytes into units, which do not block.
		{"s4[128,325,138,21]{3,1,0,2:L(1024)E(4)}", "s4[128,325,138,21]{3,2,1,0:T(8,8)E(4)}", 0, 2, 138, 1, true},
		// Slices of 4 MiB of places, whose transposes do not stream.
		{"s4[4821,2560,3]{0,2,1:E(4)}", "s4[4821,2560,3]{2,1,0:T(8,8)E(4)}", 1, 64, 1, 4821, false},
		// Unpacked sides take their own plans.
		{"f32[64,1024,1024]{2,1,0}", "f32[64,1024,1024]{1,2,0}", -1, 0, 0, 0, false},
	}
	for _, c := range cases {
		from, to := parsePair(t, c.from, c.to)
		p, err := Compile(from, to, &Options{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		s, ok := p.exec.(*sliced)
		if c.dim < 0 {
			if ok {
				t.Errorf("%s -> %s: sliced along d%d, want no slices", c.from, c.to, s.dim)
			}
			continue
		}
		if !ok {
			t.Errorf("%s -> %s: not sliced, want slices of d%d", c.from, c.to, c.dim)
			continue
		}
		if s.dim != c.dim || s.per != c.per || s.src.n != c.src || s.dst.n != c.dst {
			t.Errorf("%s -> %s: slices of %d values of d%d, %d source runs and %d destination runs; want %d of d%d, %d and %d",
				c.from, c.to, s.per, s.dim, s.src.n, s.dst.n, c.per, c.dim, c.src, c.dst)
		}
		// Destination runs an odd count of 4-bit fields apart share
		// bytes with the neighbouring slices': the plan is one chunk.
		shares := c.from == "u4[4001,4001]{1,0:E(4)}" || c.from == "u4[2,16251,2501]{2,1,0:T(8,128)(8,1)E(4)}"
		if s.shares != shares || shares && p.Chunks() != 1 {
			t.Errorf("%s -> %s: shares %v in %d chunks, want %v", c.from, c.to, s.shares, p.Chunks(), shares)
		}
		if !strings.Contains(p.String(), "sliced: d") {
			t.Errorf("%s -> %s: String does not say it slices:\n%s", c.from, c.to, p)
		}
		// A slice's plans run in the caches: none streams.
		for _, q := range s.parts {
			if q == nil {
				continue
			}
			if q.streamMin != math.MaxInt64 || q.transposeMin != math.MaxInt64 {
				t.Errorf("%s -> %s: a slice's plan streams from %d bytes (transposes from %d)", c.from, c.to, q.streamMin, q.transposeMin)
			}
			if _, ok := q.exec.(*blocked); c.blocked && !ok {
				t.Errorf("%s -> %s: a slice's plan is not blocked:\n%s", c.from, c.to, q)
			}
		}
	}
}

// TestSlicedMatchesReference runs random packed relayouts slice by
// slice, in slices of a few places, against the reference: on one to
// three goroutines, streamed or not, and through RunRange in random
// pieces, each of which must write inside its DestinationRange.
func TestSlicedMatchesReference(t *testing.T) {
	n := uint64(3000)
	if testing.Short() {
		n = 1000
	}
	took := 0
	for seed := range n {
		r := rand.New(rand.NewPCG(seed, 0x511ce))
		from, to, opts := randomPackedPair(r)
		if r.IntN(3) == 0 {
			// An unpacked side now and then.
			if r.IntN(2) == 0 {
				from = bytesOf(from)
			} else {
				to = bytesOf(to)
			}
		}
		opts.Threads = 1 + r.IntN(3)
		// Slices of a few places: a fourth to an eleventh of the larger side's.
		whole, err := Compile(from, to, &opts)
		if err != nil {
			continue
		}
		opts.sliceElems = max(whole.fm.Elements(), whole.tm.Elements()) / int64(4+r.IntN(8))
		p, err := Compile(from, to, &opts)
		if err != nil {
			continue
		}
		if _, ok := p.exec.(*sliced); !ok {
			continue
		}
		took++
		stream := seed%2 == 0
		checkPairWith(t, seed, from, to, opts, -1, func(p *Plan) {
			p.exec.(*sliced).stream, p.parallelMin = stream, 0
		})
		if seed%4 == 0 {
			checkRangesAgainstReference(t, seed, p, opts.Pad)
		}
	}
	if took < int(n)/10 {
		t.Errorf("only %d of %d draws ran sliced", took, n)
	}
}

// TestSlicedShares runs transposes whose destination rows start and end
// inside bytes, shared between neighbouring slices (sliced.shares), in
// slices of a few rows on one to four goroutines against the reference,
// with a tail (L) after the last row or none. The slices that meet on
// different goroutines run last: run with -race (on buffers of the Go
// heap, which it watches), a plan that let them run at once fails.
func TestSlicedShares(t *testing.T) {
	for i, c := range []struct{ from, to string }{
		{"u4[301,203]{1,0:E(4)}", "u4[301,203]{0,1:E(4)}"},
		{"s4[7,61,33]{2,1,0:E(4)}", "s4[7,61,33]{1,0,2:E(4)}"},
		{"u4[255,101]{1,0:E(4)}", "u4[255,101]{0,1:L(64)E(4)}"},
	} {
		from, to := parsePair(t, c.from, c.to)
		for threads := 1; threads <= 4; threads++ {
			p, err := Compile(from, to, &Options{Threads: threads, sliceElems: 2048})
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := p.exec.(*sliced); !ok || !s.shares || p.Chunks() != 1 {
				t.Fatalf("%s -> %s: not sliced with shared bytes in one chunk:\n%s", c.from, c.to, p)
			}
			p.parallelMin = 0
			src := fillRandom(p.srcBytes, uint64(i))
			want, got := make([]byte, p.dstBytes), make([]byte, p.dstBytes)
			if err := Reference(want, src, from, to, Padding{}); err != nil {
				t.Fatal(err)
			}
			if err := p.Run(got, src); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s -> %s on %d goroutines: differs from the reference", c.from, c.to, threads)
			}
		}
	}
}
