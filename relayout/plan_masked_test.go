package relayout

import (
	"math/rand/v2"
	"testing"
)

// TestMasked checks which arrays relayout to themselves Compile runs as
// a masked copy, with what units, segments and masks, and runs each
// against the reference, whole and chunk by chunk.
func TestMasked(t *testing.T) {
	tests := []struct {
		shape       string
		masked      bool
		unit        int64 // bytes
		tiles       int64
		segs, masks int
	}{
		// Every 4 bytes hold 2 of elements: one kind of unit, a slice.
		{"s4[4,4,2304]{2,1,0:T(8,128)(8,1)E(4)}", true, 18 * 512, 18, 1, 1},
		{"u8[6,2,256]{2,1,0:T(8,128)(4,1)}", true, 2 * 1024, 2, 1, 1},
		// Tiles that end partial on both dims, in slices of 15 tiles:
		// one kind still.
		{"s4[35,300]{1,0:T(8,128)(8,1)E(4)}", true, 15 * 512, 15, 1, 1},
		{"u4[3,17,256]{2,1,0:T(8,128)(8,1)E(4)}", true, 6 * 512, 6, 1, 1},
		// A slice past maxMaskUnit: rows of tiles, the last of each
		// slice its own kind.
		{"f32[2,21,2048]{2,1,0:T(8,128)}", true, 16 * 4096, 16, 4, 2},
		// A row of tiles past maxMaskUnit: tiles, the last of each row
		// its own kind, and the last row's two more; 18 segments a
		// slice.
		{"f32[3,70,2200]{2,1,0:T(8,128)}", true, 4096, 1, 54, 4},
		{"f32[16,128]{1,0:T(8,128)}", false, 0, 0, 0, 0}, // whole tiles: a copy
		{"f32[21,128]{1,0}", false, 0, 0, 0, 0},          // no tiles
		{"f32[21,128]{1,0:T(8,128)L(1024)}", false, 0, 0, 0, 0},
		{"f32[64,64]{1,0:T(*,8)}", false, 0, 0, 0, 0},
		{"u4[1015,256]{1,0:T(8,128)(8,1)E(4)}", false, 0, 0, 0, 0}, // peeled
		{"s2[5,3]{1,0:T(2,2)E(4)}", false, 0, 0, 0, 0},             // s2 sign-extended into E(4)
		{"s4[5,3]{1,0:T(2,2)}", false, 0, 0, 0, 0},                 // s4 sign-extended into bytes
	}
	for _, tc := range tests {
		s, _ := parsePair(t, tc.shape, tc.shape)
		for _, pad := range []Padding{{}, PadWith(1)} {
			p, err := Compile(s, s, &Options{Pad: pad, Threads: 1})
			if err != nil {
				t.Fatalf("%s: %v", tc.shape, err)
			}
			m, ok := p.exec.(*maskedCopy)
			if ok != tc.masked {
				t.Errorf("%s: masked %v, want %v\n%s", tc.shape, ok, tc.masked, p)
				continue
			}
			if ok && (m.unit != tc.unit || m.tiles != tc.tiles || len(m.segs) != tc.segs || len(m.masks) != tc.masks) {
				t.Errorf("%s: unit %d of %d tiles, %d segments, %d masks; want %d %d, %d, %d\n%s", tc.shape, m.unit, m.tiles, len(m.segs), len(m.masks), tc.unit, tc.tiles, tc.segs, tc.masks, p)
			}
			if ok {
				runGuarded(t, 1, p, pad)
				checkRangesAgainstReference(t, 1, p, pad)
			}
		}
	}
}

// maskable draws a tiled array relayout to itself that often holds
// padding inside its tiles: dims smaller than their tile, or not a
// multiple of it, on any of them, one or two levels of tiles.
func maskable(r *rand.Rand) Shape {
	types := []DType{PRED, U4, S4, U2, S2, S8, U8, BF16, F16, F32, S32, F64, C64}
	t := types[r.IntN(len(types))]
	rank := 1 + r.IntN(4)
	l := &Layout{MinorToMajor: r.Perm(rank)}
	if t.IsSubByte() {
		l.ElementSizeInBits = int64(t.Bits())
		if r.IntN(4) == 0 {
			l.ElementSizeInBits = 4 // E(4) for any sub-byte type, which masked refuses for s2 and u2
		}
	}
	k := 1 + r.IntN(rank)
	first := make(Tile, k)
	for j := range first {
		first[j] = []int64{1, 2, 4, 8, 16, 128}[r.IntN(6)]
	}
	l.Tiles = append(l.Tiles, first)
	if r.IntN(2) == 0 {
		second := make(Tile, 1+r.IntN(k))
		for j := range second {
			second[j] = []int64{1, 2, 4, 8}[r.IntN(4)]
		}
		l.Tiles = append(l.Tiles, second)
	}
	dims := make([]int64, rank)
	for i := range dims {
		dims[i] = []int64{1, 2, 3, 5, 8, 17, 24, 130, 256}[r.IntN(9)]
	}
	return NewShape(t, dims, l)
}

// TestMaskedMatchesReference runs random tiled arrays relayout to
// themselves (maskable) that Compile runs as masked copies against the
// reference, in fenced buffers, with every padding kind, on 1-3
// goroutines (from any size), through the caches and streamed (the
// kernels' parts and their bytes before and after), and chunk by chunk.
func TestMaskedMatchesReference(t *testing.T) {
	n := uint64(3000)
	if testing.Short() {
		n = 800
	}
	took := 0
	for seed := range n {
		r := rand.New(rand.NewPCG(seed, 0x3a5c))
		s := maskable(r)
		if b, err := s.ByteSize(); err != nil || b > maxPairBytes {
			continue
		}
		opts := Options{Pad: padKinds[r.IntN(len(padKinds))], Threads: 1 + int(seed%3)}
		p, err := Compile(s, s, &opts)
		if err != nil {
			continue // a padding value the type has not
		}
		m, ok := p.exec.(*maskedCopy)
		if !ok {
			continue
		}
		took++
		stream := seed%2 == 0
		// Lowered, parallelMin shares small arrays out in pages, whose
		// starts fall inside units.
		checkPairWith(t, seed, s, s, opts, -1, func(p *Plan) {
			p.exec.(*maskedCopy).stream, p.parallelMin = stream, 0
		})
		if seed%5 == 0 {
			m.stream = stream
			checkRangesAgainstReference(t, seed, p, opts.Pad)
		}
	}
	if took < int(n)/10 {
		t.Errorf("only %d of %d draws ran as masked copies", took, n)
	}
}
