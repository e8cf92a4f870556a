package relayout

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestStagedSlabPath checks which staged plans run slab by slab at the
// default slab size (in Run, or only in RunRange), and that the others
// keep whole-array temporaries.
func TestStagedSlabPath(t *testing.T) {
	tests := []struct {
		from, to  string
		slabs     bool
		identity  bool  // the byte plan is a plain copy
		rangeOnly bool  // Run keeps whole-array temporaries
		unit      int64 // bytes a unit of the slabs' byte plan
	}{
		{"s4[8192,8192]", "s4[8192,8192]{1,0:T(8,128)(8,1)E(4)}", true, false, false, 1}, // tpu upload of unpacked 4-bit values
		{"s4[8192,8192]{1,0:T(8,128)(8,1)E(4)}", "s4[8192,8192]", true, false, false, 1}, // and download
		{"u2[8192,8192]", "u2[8192,8192]{1,0:T(8,128)(8,1)E(4)}", true, false, false, 1},
		{"u2[4096,4096]{1,0:E(2)}", "u2[4096,4096]{1,0:T(8,128)(8,1)E(4)}", true, false, false, 1},
		{"s4[4096,4096]{1,0:E(4)}", "s4[4096,4096]{0,1}", false, false, false, 1},             // each slab would unpack all the packed source (RunRange: field bands)
		{"s4[4096,4096]", "s4[4096,4096]{0,1:E(4)}", true, false, true, 1},                    // or read a strip of every source row: RunRange only
		{"s4[8192,8192]{0,1}", "s4[8192,8192]{1,0:T(8,128)(8,1)E(4)}", true, false, true, 8},  // runs of 8 bytes of every source row, as units
		{"u2[8192,8192]{0,1}", "u2[8192,8192]{1,0:T(8,128)(8,1)E(4)}", true, false, false, 8}, // and in Runs, without a unit plan
		{"s4[256,256]", "s4[256,256]{1,0:T(8,128)(8,1)E(4)}", false, false, false, 1},         // one slab
		{"s4[8192,8192]", "s4[8192,8192]{1,0:E(4)}", true, true, false, 1},                    // packing alone
		{"u2[8192,8192]{1,0:E(2)}", "u2[8192,8192]", true, true, false, 1},
		{"u2[64,64]{1,0:E(2)}", "u2[64,64]{1,0:E(4)}", true, true, false, 1},
		{"s4[7,5]{1,0:T(4)E(4)}", "s4[7,5]{1,0:T(8)}", false, false, false, 1}, // a copy, but with padding
	}
	for _, tc := range tests {
		t.Run(tc.from+"->"+tc.to, func(t *testing.T) {
			from, to := parsePair(t, tc.from, tc.to)
			p, err := Compile(from, to, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p.stages() == nil || p.stages().fields != nil && !p.stages().fields.rangeOnly {
				t.Fatalf("not a staged plan:\n%s", p)
			}
			sl := p.stages().slabs
			if got := sl != nil; got != tc.slabs || got && (sl.identity != tc.identity || sl.rangeOnly != tc.rangeOnly || sl.unit() != tc.unit) {
				t.Fatalf("slabs %v, want %v (identity %v, range only %v, units of %d)\n%s", got, tc.slabs, tc.identity, tc.rangeOnly, tc.unit, p)
			}
			if sl != nil && (sl.tempA+sl.tempB > 4*slabBytes || sl.count != p.Chunks()) {
				t.Errorf("%d slabs, temporaries %d + %d bytes, %d chunks", sl.count, sl.tempA, sl.tempB, p.Chunks())
			}
			if whole := p.stages().tempBytes(); sl != nil && (whole > 4*slabBytes) != tc.rangeOnly {
				t.Errorf("a Run's temporaries: %d bytes", whole)
			}
		})
	}
}

// randomPackedPair draws a relayout of a sub-byte type with at least one
// side packed, and tiles on either side.
func randomPackedPair(r *rand.Rand) (from, to Shape, opts Options) {
	types := []DType{S1, U1, S2, U2, S4, U4, F4E2M1FN}
	typ := types[r.IntN(len(types))]
	rank := 1 + r.IntN(4)
	dims := make([]int64, rank)
	count := int64(1)
	for i := range dims {
		dims[i] = sizes[r.IntN(len(sizes))] + int64(r.IntN(3))
		if count*max(dims[i], 1) > 4000 {
			dims[i] = 1
		}
		count *= max(dims[i], 1)
	}
	layout := func() *Layout {
		if r.IntN(2) == 0 {
			return randomLayout(r, typ, rank)
		}
		// A device-like layout: a minor_to_major, a 2-D tile (1-D at
		// rank 1), sometimes a second level of rows per word.
		l := &Layout{MinorToMajor: r.Perm(rank)}
		if r.IntN(2) == 0 {
			l.MinorToMajor = RowMajor(rank)
		}
		edge := []int64{1, 2, 4, 8}
		tile := Tile{edge[r.IntN(4)], edge[r.IntN(4)]}
		if rank == 1 {
			tile = tile[1:]
		}
		l.Tiles = []Tile{tile}
		if rank > 1 && r.IntN(2) == 0 {
			l.Tiles = append(l.Tiles, Tile{edge[r.IntN(4)], 1})
		}
		if r.IntN(2) == 0 {
			l.ElementSizeInBits = []int64{4, 4, 2, 1}[r.IntN(4)]
			if l.ElementSizeInBits < int64(typ.Bits()) {
				l.ElementSizeInBits = 4
			}
		}
		return l
	}
	lf, lt := layout(), layout()
	if lf.ElementSizeInBits == 0 && lt.ElementSizeInBits == 0 {
		lt.ElementSizeInBits = []int64{4, 4, 2, 1}[r.IntN(4)]
		if lt.ElementSizeInBits < int64(typ.Bits()) {
			lt.ElementSizeInBits = 4
		}
	}
	opts.Pad = padKinds[r.IntN(len(padKinds))]
	return NewShape(typ, dims, lf), NewShape(typ, dims, lt), opts
}

// TestStagedSlabs runs random packed relayouts slab by slab, with slabs
// from a single value of the split loop up, on one or more goroutines and
// through RunRange in random pieces, against the oracle; each RunRange
// piece must write inside its DestinationRange. Slabs that only RunRange
// takes run there.
func TestStagedSlabs(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 1200
	}
	slabbed, ranged, widened := 0, 0, 0
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 0x51ab))
		from, to, opts := randomPackedPair(r)
		opts.Threads = 1 + r.IntN(3)
		target := []int64{1, 5, 16, 64, 1000}[r.IntN(5)]
		var plan *Plan
		ok := checkPairWith(t, seed, from, to, opts, []int64{-1, 0}[r.IntN(2)], func(p *Plan) {
			plan = p
			st := p.stages()
			if st == nil || st.fields != nil {
				return
			}
			if err := st.chooseSlabs(p, &opts, target); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			st.parallelMin = 0
			if st.slabs != nil {
				slabbed++
				if st.slabs.rangeOnly {
					ranged++
				}
				if st.slabs.unit() > 1 {
					widened++
				}
			}
		})
		if !ok || plan.stages() == nil || plan.stages().slabs == nil {
			continue
		}
		src := fillRandom(plan.SourceSize(), seed)
		want := make([]byte, plan.DestinationSize())
		if err := plan.Run(want, src); err != nil {
			t.Fatal(err)
		}
		checkRunRange(t, seed, plan, src, want, r)
	}
	t.Logf("%d of %d cases ran in slabs, %d of them in RunRange only, %d widened", slabbed, n, ranged, widened)
	if slabbed < n/10 || ranged < n/100 {
		t.Errorf("only %d of %d cases ran in slabs (%d in RunRange only), want a tenth at least (a hundredth)", slabbed, n, ranged)
	}
}

// TestStagedWideSlabs runs relayouts from 4- and 2-bit values held a
// byte, in an order whose byte plan moves short runs of another source
// row each (column-major to the tpu preset's (8,1) tiles), to packed
// layouts against the oracle, with slabs of every size: their byte plans
// move those runs as units, in chunk ranges, and in Runs too where there
// is no unit plan. The rest keep bytes.
func TestStagedWideSlabs(t *testing.T) {
	tests := []struct {
		from, to string
		unit     int64 // the unit of the widened slabs' byte plan, where one splits
		run      bool  // whether Runs take them
	}{
		{"s4[256,256]{0,1}", "s4[256,256]{1,0:T(8,128)(8,1)E(4)}", 8, false},
		{"u4[200,300]{0,1}", "u4[200,300]{1,0:T(8,128)(8,1)E(4)}", 8, false}, // padded rows and columns
		{"s2[256,384]{0,1}", "s2[256,384]{1,0:T(8,128)(8,1)E(4)}", 8, true},  // 2-bit values in 4-bit fields: no unit plan
		{"u2[200,300]{0,1}", "u2[200,300]{1,0:T(8,128)(8,1)E(4)}", 8, true},
		{"u4[256,64]{0,1}", "u4[256,64]{1,0:T(4,64)(4,1)E(4)}", 4, false},
		{"u4[200,300]{0,1}", "u4[200,300]{1,0:T(8,128)(8,1)L(16384)E(4)}", 8, false}, // tail padding of whole units
		{"s4[256,256]{0,1}", "s4[256,256]{1,0:T(8,128)(8,1)L(3)E(4)}", 1, false},     // and of a part of one
		{"u2[201,130]{0,1}", "u2[201,130]{1,0:T(8,128)(8,1)E(4)}", 1, false},         // runs cut by the padding
		{"s4[256,256]{0,1}", "s4[256,256]{1,0:E(4)}", 1, false},                      // a transpose of bytes
	}
	for i, tc := range tests {
		t.Run(tc.from+"->"+tc.to, func(t *testing.T) {
			from, to := parsePair(t, tc.from, tc.to)
			srcBytes, err := from.ByteSize()
			if err != nil {
				t.Fatal(err)
			}
			dstBytes, err := to.ByteSize()
			if err != nil {
				t.Fatal(err)
			}
			src := fillRandom(srcBytes, uint64(i))
			want := make([]byte, dstBytes)
			if err := Reference(want, src, from, to, Padding{}); err != nil {
				t.Fatal(err)
			}
			wide := 0
			for _, target := range []int64{1, 16, 100, 1000, 4096} {
				opts := Options{Threads: 1 + int(target%2)}
				p, err := Compile(from, to, &opts)
				if err != nil {
					t.Fatal(err)
				}
				st := p.stages()
				if err := st.chooseSlabs(p, &opts, target); err != nil {
					t.Fatal(err)
				}
				st.takeWideSlabs()
				sl := st.slabs
				if sl == nil || !sl.rangeOnly && sl.unit() == 1 {
					continue
				}
				// Slabs too large for a widened byte plan to split keep
				// bytes.
				if sl.unit() != tc.unit && (tc.unit == 1 || sl.unit() != 1) {
					t.Fatalf("target %d: slabs of %d-element units, want %d\n%s", target, sl.unit(), tc.unit, p)
				}
				if sl.unit() > 1 {
					wide++
					if sl.rangeOnly == tc.run {
						t.Fatalf("target %d: Runs take the slabs: %v, want %v\n%s", target, !sl.rangeOnly, tc.run, p)
					}
				}
				st.parallelMin = 0
				got := make([]byte, len(want))
				if err := p.Run(got, src); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("target %d: Run gives wrong bytes\n%s", target, p)
				}
				checkRunRange(t, uint64(i), p, src, want, rand.New(rand.NewPCG(uint64(target), 7)))
			}
			if wide == 0 && tc.unit > 1 {
				t.Errorf("no target gave slabs of %d-element units", tc.unit)
			}
		})
	}
}

// TestStagedRows8 runs relayouts to and from the tpu preset's 4-bit
// layout, whose slabs pack or unpack (8,1) tiles in one pass where they
// hold no padding, against the oracle: sizes with and without padding,
// 2- and 4-bit values, signed or not, a packed or unpacked row-major
// side (direct when packed and its rows start on whole bytes), slabs of
// every size, one or more goroutines, streaming or not.
func TestStagedRows8(t *testing.T) {
	tests := []struct {
		host   string
		dev    string  // the tpu preset's when empty
		rows8  [2]bool // to the device, back
		direct [2]bool // both sides packed, moved without unpacking
		widths []int64 // the host's padded widths on the way back
	}{
		{"s4[64,256]", "", [2]bool{true, true}, [2]bool{}, nil},
		{"u4[40,300]", "", [2]bool{true, true}, [2]bool{}, nil}, // padded rows and columns
		{"s2[3,16,384]", "", [2]bool{true, true}, [2]bool{}, nil},
		{"u2[17,130]", "", [2]bool{true, true}, [2]bool{}, nil},
		{"f4e2m1fn[16,256]", "", [2]bool{true, true}, [2]bool{}, nil},
		{"s4[64,256]{0,1}", "", [2]bool{false, false}, [2]bool{}, nil}, // a transpose, not the tile's interleave
		// One tile row: the slabs split the 8 rows, which a
		// de-interleave of whole tiles cannot take.
		{"u4[8,512]", "", [2]bool{true, false}, [2]bool{}, nil},
		// Both sides packed (2-bit values in 4-bit fields, which the
		// field plan does not take): the row-major side goes through a
		// temporary.
		{"u2[40,300]{1,0:E(4)}", "", [2]bool{true, true}, [2]bool{}, nil},
		{"s2[17,256]{1,0:E(4)}", "", [2]bool{true, true}, [2]bool{}, nil},
		// 4-bit values on both sides move direct, padding and partial
		// tiles a field at a time; rows of an odd number of fields go
		// through the temporary (TestStagedOddRows: unless the slabs
		// would unpack too much of it).
		{"s4[64,256]{1,0:E(4)}", "", [2]bool{true, true}, [2]bool{true, true}, nil},
		{"u4[40,300]{1,0:E(4)}", "", [2]bool{true, true}, [2]bool{true, true}, nil},
		{"u4[40,300]{1,0:E(4)}", "", [2]bool{true, true}, [2]bool{true, true}, []int64{48, 304}},
		{"u4[20,256]{1,0:E(4)}", "", [2]bool{true, true}, [2]bool{true, true}, nil},
		{"f4e2m1fn[3,16,384]{2,1,0:E(4)}", "", [2]bool{true, true}, [2]bool{true, true}, nil},
		{"s4[8,512]{1,0:E(4)}", "", [2]bool{true, false}, [2]bool{true, false}, nil},
		{"u4[24,131]{1,0:E(4)}", "", [2]bool{true, true}, [2]bool{}, nil},
		{"s4[16,256]{1,0:E(4)}", "s4[16,256]{1,0:T(8,128)(8,1)L(3)E(4)}", [2]bool{true, true}, [2]bool{true, true}, nil},
		// Tail padding after the tiles (an odd number of fields).
		{"s4[16,256]", "s4[16,256]{1,0:T(8,128)(8,1)L(3)E(4)}", [2]bool{true, true}, [2]bool{}, nil},
		{"u4[24,130]", "u4[24,130]{1,0:T(8,128)(8,1)L(5)E(4)}", [2]bool{true, true}, [2]bool{}, nil},
	}
	for _, tc := range tests {
		host, err := ParseShape(tc.host)
		if err != nil {
			t.Fatal(err)
		}
		dev, err := ForDevice(host, PresetTPU)
		if tc.dev != "" {
			dev, err = ParseShape(tc.dev)
		}
		if err != nil {
			t.Fatal(err)
		}
		for dir, pair := range [][2]Shape{{host, dev}, {dev, host}} {
			from, to := pair[0], pair[1]
			took, direct := false, false
			for _, target := range []int64{1, 300, 2048, 5000, 1 << 20} {
				for _, threads := range []int{1, 3} {
					opts := Options{Threads: threads, Pad: PadWith(1)}
					if dir == 1 {
						opts.Pad.Widths = tc.widths
					}
					// 0: the byte plan streams; the largest: it never does (as
					// Compile plans a small array, but staged, never mixed).
					stream := []int64{math.MaxInt64, 0}[threads%2]
					checkPairWith(t, uint64(target), from, to, opts, stream, func(p *Plan) {
						st := p.stages()
						if err := st.chooseSlabs(p, &opts, target); err != nil {
							t.Fatal(err)
						}
						st.parallelMin = 0
						if st.slabs != nil {
							st.fields = nil // run the slabs
						}
						took = took || st.slabs != nil && st.slabs.rows8 != rows8None
						direct = direct || st.slabs != nil && st.slabs.direct
					})
				}
			}
			if took != tc.rows8[dir] {
				t.Errorf("%s -> %s: slabs of (8,1) tiles %v, want %v", from, to, took, tc.rows8[dir])
			}
			if direct != tc.direct[dir] {
				t.Errorf("%s -> %s: direct slabs %v, want %v", from, to, direct, tc.direct[dir])
			}
		}
	}
}

// TestStagedPartialTiles runs packings into (8,1) tiles whose last tile
// rows padding cuts (rows8Walk.partialTiles) against the reference,
// streamed or not, on one and two threads, and checks that the path ran.
func TestStagedPartialTiles(t *testing.T) {
	for _, tc := range []struct{ from, to string }{
		// Both sides packed: 3 of each tile's 8 rows hold elements.
		{"u4[3,3,64,2,96]{4,1,0,2,3:E(4)}", "u4[3,3,64,2,96]{4,1,2,3,0:T(8,128)(8,1)E(4)}"},
		// Source rows of an odd number of fields: every other row
		// starts inside a byte.
		{"s4[3,3,5,2,95]{4,1,0,2,3:E(4)}", "s4[3,3,5,2,95]{4,1,2,3,0:T(8,128)(8,1)E(4)}"},
		// 20 rows: the third tile holds 4.
		{"u4[20,256]{1,0:E(4)}", "u4[20,256]{1,0:T(8,128)(8,1)E(4)}"},
		// Rows far apart, so that a slab spans the source: direct
		// slabs read a run of each row all the same.
		{"u4[4,4096]{1,0:E(4)}", "u4[4,4096]{1,0:T(8,128)(8,1)E(4)}"},
		// One byte a value on the source side (PackRows8).
		{"u4[20,256]{1,0}", "u4[20,256]{1,0:T(8,128)(8,1)E(4)}"},
		{"s4[2,5,300]{2,1,0}", "s4[2,5,300]{2,1,0:T(8,128)(8,1)E(4)}"},
	} {
		checkSlabPath(t, 3, tc.from, tc.to, "no partial tile packed whole", func(st *staged) int64 { return st.partials.Load() })
	}
}

// TestStagedOddRows runs packings into (8,1) tiles from packed rows of an
// odd number of fields, far apart, against the reference: the slabs run
// direct, a run of each source row a slab through a buffer
// (rows8Walk.bufferTiles), and the test checks that the path ran.
func TestStagedOddRows(t *testing.T) {
	for _, tc := range []struct{ from, to string }{
		// 3 rows: each tile's last 5 rows are padding.
		{"u4[3,4001]{1,0:E(4)}", "u4[3,4001]{1,0:T(8,128)(8,1)E(4)}"},
		// Whole tiles of 8 rows.
		{"s4[8,2001]{1,0:E(4)}", "s4[8,2001]{1,0:T(8,128)(8,1)E(4)}"},
	} {
		checkSlabPath(t, 7, tc.from, tc.to, "no tile packed from odd rows", func(st *staged) int64 { return st.buffered.Load() })
	}
}

// TestStagedDirectTranspose runs transposes of T(8,128)(8,1) tiles into
// such tiles, 8×8 blocks of 4-bit fields, in slabs that read across
// every source tile row: with no padding, direct slabs take them, which
// unpack nothing; the test checks that they ran.
func TestStagedDirectTranspose(t *testing.T) {
	for _, tc := range []struct{ from, to string }{
		{"s4[128,256]{1,0:T(8,128)(8,1)E(4)}", "s4[128,256]{0,1:T(8,128)(8,1)E(4)}"},
		{"u4[2,128,256]{2,1,0:T(8,128)(8,1)E(4)}", "u4[2,128,256]{1,2,0:T(8,128)(8,1)E(4)}"},
	} {
		checkSlabPath(t, 11, tc.from, tc.to, "no direct slab", func(st *staged) int64 {
			if st.slabs != nil && st.slabs.direct {
				return 1
			}
			return 0
		})
	}
}

// checkSlabPath runs a packed pair slab by slab, as a large array of it
// runs, in slabs of two sizes, streamed or not, on one and two threads,
// against the reference (checkPairWith), and reports missing where the
// path whose runs ran counts stays at 0.
func checkSlabPath(t *testing.T, seed uint64, fromText, toText, missing string, ran func(*staged) int64) {
	t.Helper()
	from, to := parsePair(t, fromText, toText)
	for _, target := range []int64{300, 2048} {
		for _, threads := range []int{1, 2} {
			opts := Options{Threads: threads, Pad: PadWith(5)}
			// 0: the byte plan streams; the largest: it never does (as
			// Compile plans a small array, but staged, never mixed).
			stream := []int64{math.MaxInt64, 0}[threads%2]
			var plan *Plan
			if !checkPairWith(t, seed, from, to, opts, stream, func(p *Plan) {
				plan = p
				st := p.stages()
				if err := st.chooseSlabs(p, &opts, target); err != nil {
					t.Fatal(err)
				}
				st.parallelMin, st.fields = 0, nil
			}) {
				t.Fatalf("%s -> %s: did not run", fromText, toText)
			}
			if ran(plan.stages()) == 0 {
				t.Errorf("%s -> %s (slabs of %d bytes, %d threads): %s\n%s", fromText, toText, target, threads, missing, plan)
			}
		}
	}
}

// TestCopyFields4 checks copyFields4 against field4 at every start and
// length over a buffer, at even and odd starts: rows shorter and longer
// than its 8-byte steps.
func TestCopyFields4(t *testing.T) {
	const fields = 50
	src := fillRandom(fields/2, 4)
	for from := int64(0); from < fields; from++ {
		for n := int64(1); from+n <= fields; n++ {
			dst := make([]byte, (n+1)/2)
			copyFields4(dst, src, from, n)
			for k := range n {
				if got, want := field4(dst, k), field4(src, from+k); got != want {
					t.Fatalf("from %d, %d fields: field %d is %x, want %x", from, n, k, got, want)
				}
			}
		}
	}
}

// TestCopyBits checks copyBits at every length up to 25 bytes: the
// first n bits of the source, the most significant of each byte first,
// and every other bit of the destination kept.
func TestCopyBits(t *testing.T) {
	src := fillRandom(25, 6)
	for n := int64(0); n <= 8*25; n++ {
		dst := fillRandom(25, uint64(n))
		want := slices.Clone(dst)
		for i := range n {
			m := byte(0x80) >> (i % 8)
			want[i/8] = want[i/8]&^m | src[i/8]&m
		}
		copyBits(dst, src, n)
		if !bytes.Equal(dst, want) {
			t.Fatalf("%d bits: got %x, want %x", n, dst, want)
		}
	}
}

// TestSlabsKeepKernelRows checks that slabs do not cut the byte plan's
// kernel rows below a register block's: a de-interleave of 3 rows of
// bytes keeps its rows whole, with whole-array stages.
func TestSlabsKeepKernelRows(t *testing.T) {
	from, to := parsePair(t, "u4[3,40000]{0,1:E(4)}", "u4[3,40000]{1,0:T(128)E(4)}")
	p, err := Compile(from, to, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := p.stages()
	if st == nil {
		t.Fatalf("not staged:\n%s", p)
	}
	if err := st.chooseSlabs(p, &Options{}, 1); err != nil {
		t.Fatal(err)
	}
	if st.slabs != nil {
		t.Errorf("slabs of %d of the kernel's %d rows:\n%s", st.slabs.per, st.mid.walk().outer.size, p)
	}
	checkRangesAgainstReference(t, 3, p, Padding{})
}

// TestStagedRows8Grids runs pairs whose byte plans move (8,1) tiles of
// 8 fields between packed sides or pack them from byte rows, T(8,8)E(4)
// on one side, against the
// reference, streamed or not, on one and two threads, and checks that
// their walks moved rows of tiles in grid calls (rows8Walk.blockGrid).
func TestStagedRows8Grids(t *testing.T) {
	for _, tc := range []struct{ from, to string }{
		{"s4[40,256]{1,0:T(8,8)E(4)}", "s4[40,256]{1,0:T(8,128)(8,1)E(4)}"},
		{"s4[40,256]{1,0:T(8,128)(8,1)E(4)}", "s4[40,256]{1,0:T(8,8)E(4)}"},
		{"s4[5,48,40]{1,2,0:E(4)}", "s4[5,48,40]{2,1,0:T(8,8)E(4)}"},
		{"u4[5,48,40]{2,1,0:T(8,8)E(4)}", "u4[5,48,40]{1,2,0:E(4)}"},
		// Padding: 21 rows, the last tile row holding 5.
		{"u4[21,256]{1,0:T(8,8)E(4)}", "u4[21,256]{1,0:T(8,128)(8,1)E(4)}"},
		// Columns that end in partial tiles: the rows' whole tiles go as
		// a grid (a corner), the rest a tile at a time.
		{"u4[21,200]{1,0:T(8,8)E(4)}", "u4[21,200]{1,0:T(8,128)(8,1)E(4)}"},
		{"s4[3,2,16,101]{3,2,1,0:T(8,128)(8,1)E(4)}", "s4[3,2,16,101]{3,2,1,0:T(8,8)E(4)}"},
		// Packing from byte rows: a packed source whose rows start
		// inside bytes, unpacked by the slabs first (PackRows8Grid).
		{"s4[4,16,17,6]{2,3,1,0:E(4)}", "s4[4,16,17,6]{1,2,3,0:T(8,8)E(4)}"},
	} {
		checkSlabPath(t, 5, tc.from, tc.to, "no grid of (8,1) tiles", func(st *staged) int64 { return st.grids.Load() })
	}
}
