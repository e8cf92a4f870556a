package relayout

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// convertFloats and convertInts are the types conversions take, by kind.
var (
	convertFloats = []DType{F16, BF16, F32, F64, F8E5M2, F8E4M3, F8E4M3FN, F8E4M3B11FNUZ, F8E3M4, F8E5M2FNUZ, F8E4M3FNUZ}
	convertInts   = []DType{S1, S2, S4, S8, S16, S32, S64, U1, U2, U4, U8, U16, U32, U64}
)

// convertPair draws a case as randomPair does, then gives the
// destination another type of the source's kind (float or integer) and
// a layout drawn for it, and draws Saturate; a source of a type without
// conversions keeps its type.
func convertPair(seed uint64) (from, to Shape, opts Options) {
	r := rand.New(rand.NewPCG(seed, 0xc0417e27))
	for {
		from, to, opts = randomPair(seed)
		kind := convertFloats
		if !slices.Contains(kind, from.dtype) {
			kind = convertInts
		}
		if slices.Contains(kind, from.dtype) {
			t := kind[r.IntN(len(kind))]
			for t == from.dtype {
				t = kind[r.IntN(len(kind))]
			}
			to = NewShape(t, to.dims, randomLayout(r, t, to.Rank()))
		}
		opts.Saturate = r.IntN(2) == 0
		if fits(from, to, opts) {
			return from, to, opts
		}
		seed += 1 << 40 // another draw of randomPair
	}
}

// TestConvertMatchesReference is the differential test of conversion
// plans: random layout pairs of different element types, compiled and
// run into fenced buffers, must give the oracle's bytes.
func TestConvertMatchesReference(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 1200
	}
	ran, slabbed, before, sourceSlabs, direct := 0, 0, 0, 0, 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		from, to, opts := convertPair(seed)
		var plan *Plan
		if checkPairWith(t, seed, from, to, opts, -1, func(p *Plan) { plan = p }) {
			ran++
			switch c := plan.conversion(); {
			case c != nil && c.direct:
				direct++
			case c != nil && c.before && c.loop != nil:
				sourceSlabs++
			case c != nil && c.before:
				before++
			case c != nil && c.loop != nil:
				slabbed++
			}
		}
	}
	t.Logf("%d of %d cases ran; %d converted straight, %d converted first in slabs, %d converted first whole, %d relayouted first in slabs",
		ran, n, direct, sourceSlabs, before, slabbed)
	if ran < n/2 || before == 0 || direct == 0 {
		t.Errorf("%d of %d cases ran, %d converting first: too few", ran, n, before)
	}
}

// TestConvertSlabs runs conversion plans slab by slab, with slabs cut
// small (from one value of the split loop up), on several goroutines
// and chunk range by chunk range, against the oracle.
func TestConvertSlabs(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 800
	}
	slabbed, sourceSlabs, direct, streamed := 0, 0, 0, 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		from, to, opts := convertPair(seed)
		r := rand.New(rand.NewPCG(seed, 0x51ab5))
		opts.Threads = 1 + r.IntN(3)
		target := []int64{1, 8, 64, 512}[r.IntN(4)]
		var plan *Plan
		// Half the cases stream (streamMin 0): the conversion into the
		// destination too.
		ok := checkPairWith(t, seed, from, to, opts, []int64{-1, 0}[r.IntN(2)], func(p *Plan) {
			plan = p
			p.parallelMin = 0
			if p.conversion() != nil {
				if err := p.conversion().choose(p, &opts, target); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
			}
		})
		if !ok || plan.conversion() == nil {
			continue
		}
		if c := plan.conversion(); c.cv.stream && c.cv.bulk != nil {
			streamed++
		}
		switch c := plan.conversion(); {
		case c.direct && c.count > 1:
			direct++
		case c.loop != nil && c.before:
			sourceSlabs++
		case c.loop != nil:
			slabbed++
		}
		src := fillRandom(plan.SourceSize(), seed)
		want := make([]byte, plan.DestinationSize())
		if err := ReferenceOptions(want, src, from, to, &opts); err != nil {
			t.Fatal(err)
		}
		checkRunRange(t, seed, plan, src, want, r)
	}
	t.Logf("%d cases ran in slabs of converted source, %d in slabs relayouted first, %d straight in parts; %d streamed a kernel's conversion",
		sourceSlabs, slabbed, direct, streamed)
	if sourceSlabs < n/40 || slabbed < n/40 || direct == 0 || streamed == 0 {
		t.Errorf("only %d, %d and %d of %d cases ran in slabs", sourceSlabs, slabbed, direct, n)
	}
}

// TestConvertPlans checks a few conversions by hand: the values, the
// padding, and what Plan.String says.
func TestConvertPlans(t *testing.T) {
	tests := []struct {
		from, to string
		pad      Padding
		before   bool   // converts first
		says     string // in Plan.String
	}{
		// T(8,128) without the (2,1) sub-tiles: those fuse (plan_fused_test.go).
		{"f32[20,300]{1,0}", "bf16[20,300]{1,0:T(8,128)}", Padding{}, false, "kernel.ConvertF32ToBF16"},
		{"bf16[20,300]{1,0:T(8,128)}", "f32[20,300]{1,0}", Padding{}, false, "kernel.ConvertBF16ToF32"},
		{"f32[20,300]{1,0}", "f8e4m3fn[20,300]{1,0:T(8,128)(4,1)}", Padding{Kind: PadNaN}, false, "one element at a time"},
		// s32's lowest is not an s8 value: the source converts first.
		{"s8[5,7]{0,1}", "s32[5,7]{1,0:T(4,4)}", Padding{Kind: PadLowest}, true, "convert the source in its own layout from s8 to s32"},
		{"s32[5,7]{0,1}", "s4[5,7]{1,0:T(8,128)(8,1)E(4)}", Padding{Kind: PadValue, Value: -3}, false, "convert from s32 to s4"},
		{"s4[5,7]{1,0:E(4)}", "s16[5,7]{0,1:T(2,4)}", Padding{Kind: PadValue, Value: 3}, false, "relayout at the source's type (s4)"},
		{"f32[64,130]{1,0}", "bf16[64,130]{1,0}", Padding{}, true, "straight from source to destination (kernel.ConvertF32ToBF16)"},
		{"s4[64,130]{1,0:E(4)}", "s32[64,130]{1,0}", Padding{}, true, "through a table of every source pattern"},
		{"s32[64,130]{1,0}", "s2[64,130]{1,0:E(2)}", Padding{}, false, "straight from source to destination"},
	}
	for i, tc := range tests {
		from, to := parsePair(t, tc.from, tc.to)
		p, err := Compile(from, to, &Options{Pad: tc.pad})
		if err != nil {
			t.Fatalf("%s -> %s: %v", tc.from, tc.to, err)
		}
		if p.conversion() == nil || p.conversion().before != tc.before || !strings.Contains(p.String(), tc.says) {
			t.Errorf("%s -> %s: before %v, want %v; String lacks %q:\n%s", tc.from, tc.to, p.conversion() != nil && p.conversion().before, tc.before, tc.says, p)
		}
		checkRangesAgainstReference(t, uint64(i), p, tc.pad)
	}
	// Values through a round trip that bf16 holds exactly.
	from, to := parsePair(t, "f32[3,130]{1,0}", "bf16[3,130]{0,1:T(8,128)(2,1)}")
	src := make([]byte, 4*3*130)
	for i := range 3 * 130 {
		putElement(src, int64(i), 32, uint64(0x3f800000+i<<16))
	}
	up, err := Compile(from, to, nil)
	if err != nil {
		t.Fatal(err)
	}
	mid := make([]byte, up.DestinationSize())
	back := make([]byte, len(src))
	down, err := Compile(to, from, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := up.Run(mid, src); err != nil {
		t.Fatal(err)
	}
	if err := down.Run(back, mid); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, src) {
		t.Errorf("f32 through bf16 tiles and back changed values that bf16 holds")
	}
}
