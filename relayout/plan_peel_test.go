package relayout

import (
	"math/rand/v2"
	"testing"
)

// TestPeel checks which pairs Compile peels, and where it cuts.
func TestPeel(t *testing.T) {
	tests := []struct {
		from, to string
		dim      int   // -1: not peeled
		bulk     int64 // the values of dim in the copied part
	}{
		{"u4[1015,256]{1,0:T(8,128)(8,1)E(4)}", "u4[1015,256]{1,0:T(8,128)(8,1)E(4)}", 0, 1008},
		{"f16[526,384]{1,0:T(8,128)(2,1)}", "f16[526,384]{1,0:T(8,128)(2,1)}", 0, 520},
		{"f32[3,70,260]{2,1,0:T(8,128)}", "f32[3,70,260]{2,1,0:T(8,128)}", -1, 0},       // no tile reaches d0: no padding there
		{"f32[19,8,128]{1,2,0:T(8,128)}", "f32[19,8,128]{1,2,0:T(8,128)}", -1, 0},       // whole tiles: a copy already
		{"s8[21,256]{1,0:T(4,128)}", "s8[21,256]{1,0:T(8,128)}", -1, 0},                 // the bulk does not copy
		{"f32[21,128]{1,0:T(8,128)}", "f32[21,128]{0,1:T(8,128)}", -1, 0},               // not the same slowest dim
		{"f32[21,128]{1,0:T(8,128)}", "f32[21,128]{1,0:T(8,128)L(1024)}", -1, 0},        // tail alignment
		{"f32[21,24,128]{2,1,0:T(2,8,128)}", "f32[21,24,128]{2,1,0:T(2,8,128)}", 0, 20}, // a tile over every dim
		{"f32[5,128]{1,0:T(8,128)}", "f32[5,128]{1,0:T(8,128)}", -1, 0},                 // no whole tile
		{"u4[4,3]{1,0:T(3,1)E(4)}", "u4[4,3]{1,0:T(3,1)E(4)}", -1, 0},                   // the bulk ends inside a byte
		{"u4[9,3]{1,0:T(2,1)E(4)}", "u4[9,3]{1,0:T(2,1)E(4)}", 0, 8},
		{"u4[10,4]{1,0:T(4,1)E(4)}", "u4[10,4]{1,0:T(4,1)E(4)}", 0, 8},
	}
	for _, tc := range tests {
		from, to := parsePair(t, tc.from, tc.to)
		p, err := Compile(from, to, nil)
		if err != nil {
			t.Fatalf("%s -> %s: %v", tc.from, tc.to, err)
		}
		pe, ok := p.exec.(*peeled)
		switch {
		case ok != (tc.dim >= 0):
			t.Errorf("%s -> %s: peeled %v, want %v\n%s", tc.from, tc.to, ok, tc.dim >= 0, p)
		case ok && (pe.dim != tc.dim || pe.parts[0].from.dims[pe.dim] != tc.bulk):
			t.Errorf("%s -> %s: cut d%d after %d, want d%d after %d", tc.from, tc.to, pe.dim, pe.parts[0].from.dims[pe.dim], tc.dim, tc.bulk)
		}
		if ok {
			checkRangesAgainstReference(t, 1, p, Padding{})
		}
	}
}

// peelable draws an array that Compile peels, relayout to itself, often:
// its tiles most often reach its slowest dim, and divide every other dim
// they reach, so that only the slowest can end in partial tiles.
func peelable(r *rand.Rand) Shape {
	types := []DType{U4, S4, U2, S8, BF16, F32, F64, C64}
	t := types[r.IntN(len(types))]
	rank := 1 + r.IntN(3)
	l := &Layout{MinorToMajor: r.Perm(rank)}
	if t.IsSubByte() {
		l.ElementSizeInBits = int64(t.Bits())
	}
	k := rank // the first tile's dims: most often all, so that it reaches the slowest
	if r.IntN(3) == 0 {
		k = r.IntN(rank + 1)
	}
	if k > 0 {
		first := make(Tile, k)
		for j := range first {
			first[j] = []int64{1, 2, 3, 4, 8}[r.IntN(5)]
		}
		l.Tiles = append(l.Tiles, first)
		if r.IntN(2) == 0 {
			second := make(Tile, 1+r.IntN(k))
			for j := range second {
				second[j] = 1 + int64(r.IntN(2))
			}
			l.Tiles = append(l.Tiles, second)
		}
	}
	dims := make([]int64, rank)
	for i, d := range l.MinorToMajor { // i: physical place, minor first
		switch {
		case i == rank-1:
			dims[d] = 1 + int64(r.IntN(30))
		case i < k:
			dims[d] = 24 // every tile extent drawn divides it
		default:
			dims[d] = 1 + int64(r.IntN(6))
		}
	}
	return NewShape(t, dims, l)
}

// TestPeelBadPairs checks that Compile refuses pairs of mismatched
// shapes before it looks for a dim to peel (the fuzzer found a panic).
func TestPeelBadPairs(t *testing.T) {
	for _, c := range [][2]string{
		{"f32[2,3]", "pred[]"},
		{"f32[2,3]", "f32[3]"},
		{"f32[2,3]", "f32[2,3,1]"},
		{"f32[5,128]{1,0:T(4,128)}", "f32[6,128]{1,0:T(4,128)}"},
	} {
		from, to := parsePair(t, c[0], c[1])
		if p, err := Compile(from, to, nil); err == nil {
			t.Errorf("%s -> %s: no error\n%s", c[0], c[1], p)
		}
	}
}

// TestPeeledMatchesReference runs random arrays relayout to themselves
// (peelable), which Compile peels where their slowest dim ends in
// partial tiles, against the reference: in fenced buffers, with every
// padding kind, on 1-3 threads, and chunk by chunk (checkRunRange: each
// chunk inside its DestinationRange).
func TestPeeledMatchesReference(t *testing.T) {
	n := uint64(2000)
	if testing.Short() {
		n = 500
	}
	took := 0
	for seed := range n {
		r := rand.New(rand.NewPCG(seed, 0x9ee1))
		from := peelable(r)
		opts := Options{Pad: padKinds[r.IntN(len(padKinds))], Threads: 1 + int(seed%3)}
		p, err := Compile(from, from, &opts)
		if err != nil {
			continue // a padding value the type has not
		}
		pe, ok := p.exec.(*peeled)
		if !ok {
			continue
		}
		took++
		for _, q := range pe.parts {
			q.parallelMin = 0
		}
		src, want := runGuarded(t, seed, p, opts.Pad)
		checkRunRange(t, seed, p, src, want, rand.New(rand.NewPCG(seed, 9)))
	}
	if took < int(n/4) {
		t.Errorf("%d of %d arrays peeled: too few to test", took, n)
	}
	t.Logf("%d of %d arrays peeled", took, n)
}
