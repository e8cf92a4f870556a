package relayout

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

// TestPackedTransposePath checks which packed relayouts take the field
// plan (a transpose without unpacking, or unpacking band by band) and
// that each gives the oracle's bytes either way, and in bands from Run.
func TestPackedTransposePath(t *testing.T) {
	tests := []struct {
		from, to string
		fields   bool
	}{
		{"s4[8,64]{1,0:E(4)}", "s4[8,64]{0,1:E(4)}", true},
		{"u4[64,130]{1,0:E(4)}", "u4[64,130]{0,1:E(4)}", true},
		{"s2[12,40]{1,0:E(2)}", "s2[12,40]{0,1:E(2)}", true},
		{"u1[16,72]{0,1:E(1)}", "u1[16,72]{1,0:E(1)}", true},
		{"s4[3,10,64]{2,1,0:E(4)}", "s4[3,10,64]{1,2,0:E(4)}", true},       // batched
		{"s4[4,6,2,64]{3,2,1,0:E(4)}", "s4[4,6,2,64]{0,1,2,3:E(4)}", true}, // 4-D reversal
		{"s4[7,6]{1,0:E(4)}", "s4[7,6]{0,1:E(4)}", false},                  // odd rows: fields straddle bytes
		{"s4[8,5]{1,0:E(4)}", "s4[8,5]{0,1:E(4)}", false},
		{"s2[8,6]{1,0:E(4)}", "s2[8,6]{0,1:E(4)}", false}, // 2-bit values in 4-bit fields
		{"u2[8,8]{1,0:E(2)}", "u2[8,8]{0,1:E(4)}", false}, // different packing
		{"s4[8,6]{1,0:E(4)}", "s4[8,6]{1,0:E(4)}", false}, // no transpose
		{"s4[8,6]{1,0:E(4)}", "s4[8,6]{0,1}", false},      // unpacked destination, but rows of 3 bytes
		{"s4[8,6]{1,0}", "s4[8,6]{0,1:E(4)}", false},      // unpacked source: slabs
		{"u2[12,40]{1,0:E(2)}", "u2[12,40]{0,1}", true},
		{"s1[16,72]{0,1:E(1)}", "s1[16,72]{1,0}", true},
		{"s2[8,64]{1,0:E(4)}", "s2[8,64]{0,1}", true}, // 2-bit values in 4-bit fields, sign-extended
		{"s4[3,10,64]{2,1,0:E(4)}", "s4[3,10,64]{1,2,0}", true},
		{"s4[16,256]{1,0:E(4)}", "s4[16,256]{0,1:T(8,128)E(4)}", false}, // padded tiles
		{"s4[16,256]{1,0:E(4)}", "s4[16,256]{1,0:T(8,128)(8,1)E(4)}", true},
		{"s4[16,256]{1,0:T(8,128)(8,1)E(4)}", "s4[16,256]{1,0:E(4)}", true}, // short rows back to back
		{"s4[16,256]{1,0:T(8,128)(4,1)E(4)}", "s4[16,256]{1,0:E(4)}", true},
		{"s4[256,12]{1,0:E(4)}", "s4[256,12]{0,1:E(4)}", false},              // rows of 6 bytes
		{"s4[5,2,13]{2,1,0:T(8)(1,2)E(4)}", "s4[5,2,13]{1,2,0:E(4)}", false}, // loops over a tile's padding
		{"u2[16,256]{1,0:T(8,128)(4,1)E(2)}", "u2[16,256]{1,0:E(2)}", true},
		// Many batches of 128 or 256 bytes (fieldBatchMin) go staged.
		{"s4[64,1024]{1,0:E(4)}", "s4[64,1024]{1,0:T(8,128)(2,1)E(4)}", false},
		{"s4[64,1024]{1,0:T(8,128)(4,1)E(4)}", "s4[64,1024]{1,0:E(4)}", false},
		{"u2[64,1024]{1,0:E(2)}", "u2[64,1024]{1,0:T(8,128)(4,1)E(2)}", true}, // 2-bit: no unpacking kernels
	}
	for _, tc := range tests {
		t.Run(tc.from+"->"+tc.to, func(t *testing.T) {
			from, to := parsePair(t, tc.from, tc.to)
			p, err := Compile(from, to, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.stages() != nil && p.stages().fields != nil; got != tc.fields {
				t.Fatalf("field plan %v, want %v\n%s", got, tc.fields, p)
			}
			for _, threads := range []int{1, 2} {
				for _, stream := range []int64{-1, 0} {
					checkPairWith(t, 1, from, to, Options{Threads: threads}, stream, splitFields)
					// Run takes the bands of an unpacked destination too.
					checkPairWith(t, 1, from, to, Options{Threads: threads}, stream, func(p *Plan) {
						splitFields(p)
						if p.stages() != nil && p.stages().fields != nil {
							p.stages().fields.rangeOnly = false
						}
					})
				}
			}
		})
	}
}

// splitFields lowers a field plan's threshold for sharing its passes
// among goroutines, so that small cases split.
func splitFields(p *Plan) {
	if p.stages() != nil && p.stages().fields != nil {
		p.stages().fields.parallelMin = 0
	}
}

// TestPackedTransposes runs random permutations of packed sub-byte arrays
// whose dims are mostly whole bytes of fields against the oracle, on one
// or more goroutines, streaming or not, and requires a quarter of them at
// least to take the field plan.
func TestPackedTransposes(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 150
	}
	fields := 0
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 0xf1e1d))
		from, to := randomPackedPermutation(r)
		opts := Options{Threads: 1 + r.IntN(3)}
		stream := []int64{-1, 0}[r.IntN(2)]
		var took bool
		ok := checkPairWith(t, seed, from, to, opts, stream, func(p *Plan) {
			took = p.stages() != nil && p.stages().fields != nil
			splitFields(p)
		})
		if !ok {
			t.Fatalf("seed %d: %s -> %s did not run", seed, from, to)
		}
		if took {
			fields++
		}
	}
	t.Logf("%d of %d cases took the field plan", fields, n)
	if fields < n/4 {
		t.Errorf("only %d of %d cases took the field plan, want a quarter at least", fields, n)
	}
}

// randomPackedPermutation returns a random permutation of a packed
// sub-byte array of rank 2 to 4 whose dims are mostly whole bytes of
// fields, up to 32768 elements.
func randomPackedPermutation(r *rand.Rand) (from, to Shape) {
	types := []DType{S1, U1, S2, U2, S4, U4}
	typ := types[r.IntN(len(types))]
	e := int64(8 / typ.Bits())
	rank := 2 + r.IntN(3)
	dims := make([]int64, rank)
	count := int64(1)
	for i := range dims {
		dims[i] = e * int64(1+r.IntN(12))
		if r.IntN(8) == 0 {
			dims[i] = int64(1 + r.IntN(9))
		}
		if count*dims[i] > 1<<15 {
			dims[i] = e
		}
		count *= dims[i]
	}
	layout := func() *Layout {
		return &Layout{MinorToMajor: r.Perm(rank), ElementSizeInBits: int64(typ.Bits())}
	}
	return NewShape(typ, dims, layout()), NewShape(typ, dims, layout())
}

// TestFieldBands runs field plans in bands of their destination rows (a
// random multiple of the fields to a byte, where a batch has more than
// one) against the oracle: whole, streaming or not, on up to three
// goroutines, and chunk range by chunk range, each range writing inside
// its DestinationRange. A third of the destinations hold a byte an
// element (unpacked band by band; Run takes the bands in half of those).
func TestFieldBands(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 100
	}
	banded := 0
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 0xba2d))
		from, to := randomPackedPermutation(r)
		if r.IntN(3) == 0 {
			to = unpacked(to)
		}
		var plan *Plan
		checkPairWith(t, seed, from, to, Options{Threads: 1 + r.IntN(3)}, []int64{-1, 0}[r.IntN(2)], func(p *Plan) {
			if p.stages() == nil { // a plan over whole units (packedUnits)
				return
			}
			if f := p.stages().fields; f != nil && f.rows > f.e {
				f.band = f.e * (1 + r.Int64N(f.rows/f.e-1))
				f.parallelMin = 0
				f.rangeOnly = f.rangeOnly && r.IntN(2) == 0
				plan = p
			}
		})
		if plan == nil {
			continue
		}
		banded++
		src := fillRandom(plan.SourceSize(), seed)
		want := make([]byte, plan.DestinationSize())
		if err := Reference(want, src, from, to, Padding{}); err != nil {
			t.Fatal(err)
		}
		checkRunRange(t, seed, plan, src, want, r)
	}
	t.Logf("%d of %d cases ran in bands", banded, n)
	if banded < n/8 {
		t.Errorf("only %d of %d cases ran in bands", banded, n)
	}
}

// ExamplePlan_packed transposes a 4×4 array of s4 values, packed two to a
// byte with the first in the high nibble, from row-major to column-major.
func ExamplePlan_packed() {
	from, _ := ParseShape("s4[4,4]{1,0:E(4)}")
	to, _ := ParseShape("s4[4,4]{0,1:E(4)}")
	p, err := Compile(from, to, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	src := []byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef} // rows 0123 4567 89ab cdef
	dst := make([]byte, p.DestinationSize())
	if err := p.Run(dst, src); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("% x\n", dst)
	// Output: 04 8c 15 9d 26 ae 37 bf
}

// TestPackedOnePass checks which field plans streamed past the caches
// take the one-pass transpose (where the CPU has it: whole tiles only),
// and runs them whole and in bands of one tile's rows, chunk range by
// chunk range, against the oracle.
func TestPackedOnePass(t *testing.T) {
	tests := []struct {
		from, to string
		onePass  bool
	}{
		{"s4[256,384]{1,0:E(4)}", "s4[256,384]{0,1:E(4)}", true},
		{"u4[2,384,256]{2,1,0:E(4)}", "u4[2,384,256]{1,2,0:E(4)}", true}, // batched
		{"s4[1024,128]{1,0:E(4)}", "s4[1024,128]{0,1:E(4)}", true},       // one tile of rows: columns shared out
		{"s4[256,390]{1,0:E(4)}", "s4[256,390]{0,1:E(4)}", false},        // not whole tiles
		{"s2[256,384]{1,0:E(2)}", "s2[256,384]{0,1:E(2)}", false},        // 2-bit fields: tiles of 256
		{"s2[256,512]{1,0:E(2)}", "s2[256,512]{0,1:E(2)}", true},
		{"u1[512,1024]{1,0:E(1)}", "u1[512,1024]{0,1:E(1)}", true},
		{"s4[16,256]{1,0:T(8,128)(8,1)E(4)}", "s4[16,256]{1,0:E(4)}", false},
	}
	for _, tc := range tests {
		t.Run(tc.from+"->"+tc.to, func(t *testing.T) {
			from, to := parsePair(t, tc.from, tc.to)
			var plan *Plan
			checkPairWith(t, 1, from, to, Options{Threads: 2}, 0, func(p *Plan) {
				plan = p
				splitFields(p)
			})
			f := plan.stages().fields
			if want := tc.onePass && kernel.PackedOnePass(); f.onePass != want {
				t.Fatalf("one pass %v, want %v\n%s", f.onePass, want, plan)
			}
			if f.rows > f.unit() {
				f.band = f.unit()
			}
			src := fillRandom(plan.SourceSize(), 2)
			want := make([]byte, plan.DestinationSize())
			if err := Reference(want, src, from, to, Padding{}); err != nil {
				t.Fatal(err)
			}
			checkRunRange(t, 2, plan, src, want, rand.New(rand.NewPCG(2, 2)))
		})
	}
}
