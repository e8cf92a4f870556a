package relayout

import (
	"math/rand/v2"
	"testing"
)

// randomMixedPair draws a pair of 4-bit layouts whose bytes pair two
// different dims where they can: even sizes, a device-like layout
// (randomPackedPair's) on each side or a permutation.
func randomMixedPair(r *rand.Rand) (from, to Shape, opts Options) {
	typ := []DType{S4, U4}[r.IntN(2)]
	rank := 2 + r.IntN(3)
	dims := make([]int64, rank)
	count := int64(1)
	for i := range dims {
		dims[i] = []int64{2, 4, 6, 8, 10, 16, 18, 34}[r.IntN(8)]
		switch r.IntN(60) {
		case 0, 1, 2, 3, 4, 5, 6, 7, 8, 9:
			dims[i]++ // an odd dim now and then: the plan must decline it or move it right
		case 10:
			dims[i] = 0 // an empty array: no pairs
		}
		if count*dims[i] > 6000 {
			dims[i] = 2
		}
		count *= dims[i]
	}
	layout := func() *Layout {
		l := &Layout{MinorToMajor: r.Perm(rank), ElementSizeInBits: 4}
		edge := []int64{1, 2, 4, 8}
		switch r.IntN(3) {
		case 1:
			l.Tiles = []Tile{{edge[r.IntN(4)], edge[r.IntN(4)]}}
		case 2:
			l.Tiles = []Tile{{edge[r.IntN(4)], edge[r.IntN(4)]}, {edge[r.IntN(4)], 1}}
		}
		if r.IntN(5) == 0 {
			l.TailPaddingAlignment = []int64{2, 8, 64}[r.IntN(3)]
		}
		return l
	}
	opts.Pad = padKinds[r.IntN(len(padKinds))]
	opts.Threads = 1 + r.IntN(3)
	opts.forceMixed = true
	return NewShape(typ, dims, layout()), NewShape(typ, dims, layout()), opts
}

// TestMixedMatchesReference runs random 4-bit pairs whose bytes pair
// different dims against the reference, on one to three goroutines,
// and counts those that ran mixed, and of them those whose blocked byte
// plan turned the pairs in its blocks.
func TestMixedMatchesReference(t *testing.T) {
	n := uint64(4000)
	if testing.Short() {
		n = 1500
	}
	took, inBox := 0, 0
	for seed := range n {
		r := rand.New(rand.NewPCG(seed, 0x313ed))
		from, to, opts := randomMixedPair(r)
		checkPairWith(t, seed, from, to, opts, -1, func(p *Plan) {
			if m, ok := p.exec.(*mixed); ok {
				took++
				if m.inBox {
					inBox++
				}
				p.parallelMin = 0
			}
		})
	}
	if took < int(n)/5 || inBox < took/20 {
		t.Errorf("only %d of %d draws ran mixed, %d turning the pairs in blocks", took, n, inBox)
	}
	t.Logf("%d of %d ran mixed, %d turning the pairs in blocks", took, n, inBox)
}

// TestMixedChosen checks which pairs Compile moves mixed: those it would
// otherwise slice or stage whole, whose byte plan moves blocks of more
// than a few bytes.
func TestMixedChosen(t *testing.T) {
	for _, c := range []struct {
		from, to string
		mixed    bool
	}{
		// Sliced, its slabs walked 4 rows into groups of 8 bytes a call.
		{"s4[2576,16896]{1,0:T(4,128)E(4)}", "s4[2576,16896]{1,0:T(8,128)(8,1)E(4)}", true},
		// Odd dims in tiles on both sides: the tiles hold the last
		// value's pair.
		{"s4[2577,16897]{1,0:T(4,128)E(4)}", "s4[2577,16897]{1,0:T(8,128)(8,1)E(4)}", true},
		{"u4[2,10752,1621]{2,1,0:T(16,64)E(4)}", "u4[2,10752,1621]{1,2,0:T(8,8)E(4)}", true},
		// An odd dim of 73 that the destination holds untiled: no
		// place for a 74th value.
		{"s4[73,590,512]{2,0,1:T(8,128)(8,1)E(4)}", "s4[73,590,512]{1,2,0:T(8,128)(8,1)E(4)}", false},
		// The byte plan would move 2×4 blocks, each a byte and three
		// of padding.
		{"u4[1408,1,4,2,9344]{2,4,1,0,3:E(4)}", "u4[1408,1,4,2,9344]{4,3,2,1,0:T(8,128)(8,1)E(4)}", false},
		// Fields transposed in one pass, without unpacking: they stay.
		{"u4[7168,4992]{0,1:E(4)}", "u4[7168,4992]{1,0:E(4)}", false},
		// Bytes that pair the same dim: a plan over the packed bytes.
		{"u4[4096,4096]{1,0:E(4)}", "u4[4096,4096]{1,0:T(8,128)E(4)}", false},
	} {
		from, to := parsePair(t, c.from, c.to)
		p, err := Compile(from, to, &Options{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := p.exec.(*mixed); ok != c.mixed {
			t.Errorf("%s -> %s: mixed %v, want %v:\n%s", c.from, c.to, ok, c.mixed, p)
		}
	}
}
