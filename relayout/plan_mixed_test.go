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
		if r.IntN(6) == 0 {
			dims[i]++ // an odd dim now and then: the plan must decline it or move it right
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
// and counts those that ran mixed.
func TestMixedMatchesReference(t *testing.T) {
	n := uint64(4000)
	if testing.Short() {
		n = 1500
	}
	took := 0
	for seed := range n {
		r := rand.New(rand.NewPCG(seed, 0x313ed))
		from, to, opts := randomMixedPair(r)
		checkPairWith(t, seed, from, to, opts, -1, func(p *Plan) {
			if _, ok := p.exec.(*mixed); ok {
				took++
				p.parallelMin = 0
			}
		})
	}
	if took < int(n)/5 {
		t.Errorf("only %d of %d draws ran mixed", took, n)
	}
	t.Logf("%d of %d ran mixed", took, n)
}
