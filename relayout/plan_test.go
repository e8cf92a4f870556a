package relayout

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/tilecopy/tilecopy/internal/golden"
	"github.com/tilecopy/tilecopy/internal/guard"
	"github.com/tilecopy/tilecopy/internal/kernel"
	"github.com/tilecopy/tilecopy/internal/tuningtest"
)

var sizes = []int64{0, 1, 1, 2, 2, 3, 3, 4, 5, 7, 8, 11, 13, 16}

// randomLayout draws a layout for dims and type t: any minor_to_major, 0-3
// tile levels (often nesting, sometimes not, sometimes combined), tail
// alignment, and packing for sub-byte types.
func randomLayout(r *rand.Rand, t DType, rank int) *Layout {
	l := &Layout{MinorToMajor: r.Perm(rank)}
	if rank > 0 && r.IntN(3) == 0 {
		l.MinorToMajor = RowMajor(rank)
	}
	levels := r.IntN(4)
	if r.IntN(3) == 0 {
		levels = 0
	}
	for lv := range levels {
		k := 1 + r.IntN(min(rank+2, 4))
		tile := make(Tile, k)
		for j := range tile {
			switch {
			case lv > 0 && r.IntN(2) == 0:
				tile[j] = 1 + int64(r.IntN(2)) // (2,1)-style second levels
			default:
				tile[j] = []int64{1, 2, 3, 4, 8, 5}[r.IntN(6)]
			}
			if j < k-1 && r.IntN(12) == 0 {
				tile[j] = CombineDim
			}
		}
		l.Tiles = append(l.Tiles, tile)
	}
	if r.IntN(5) == 0 {
		l.TailPaddingAlignment = int64(1 + r.IntN(8))
	}
	if t.IsSubByte() && r.IntN(2) == 0 {
		l.ElementSizeInBits = []int64{4, 4, 2, 1}[r.IntN(4)]
		if l.ElementSizeInBits < int64(t.Bits()) {
			l.ElementSizeInBits = 4
		}
	}
	return l
}

var padKinds = []Padding{{Kind: PadZero}, {Kind: PadLowest}, {Kind: PadHighest}, {Kind: PadNaN}, PadWith(1), PadWith(-1)}

// maxPairBytes bounds the buffers of randomPair's cases. Tiles of up to
// four levels on six dims can pad an array of 3000 elements to hundreds
// of MB (one draw in 2000 passed 4 MiB, the largest of two million 600
// MB); the oracle, which maps every place, took seconds on such cases,
// and the fuzzer stops a worker whose input runs 10 s.
const maxPairBytes = 1 << 20

// randomPair draws a (from, to, options) case from seed: of up to 3000
// elements, the buffers of both sides (the destination with its padding)
// at most maxPairBytes, or layouts that Compile must refuse.
func randomPair(seed uint64) (from, to Shape, opts Options) {
	r := rand.New(rand.NewPCG(seed, 0x7e1ec0e))
	for {
		from, to, opts = drawPair(r)
		if fits(from, to, opts) {
			return from, to, opts
		}
	}
}

// fits reports whether a case's buffers are within maxPairBytes, or its
// layouts or padding are invalid (an error case, whatever its size).
func fits(from, to Shape, opts Options) bool {
	n, err := from.ByteSize()
	if err != nil {
		return true
	}
	wide, err := opts.Pad.widened(to)
	if err != nil {
		return true
	}
	m, err := wide.ByteSize()
	return err != nil || max(n, m) <= maxPairBytes
}

// drawPair draws one case for randomPair from r.
func drawPair(r *rand.Rand) (from, to Shape, opts Options) {
	t := DType(1 + r.IntN(int(F8E8M0FNU)))
	rank := r.IntN(7)
	dims := make([]int64, rank)
	budget := int64(1)
	for i := range dims {
		dims[i] = sizes[r.IntN(len(sizes))]
		if budget*max(dims[i], 1) > 3000 {
			dims[i] = 1
		}
		budget *= max(dims[i], 1)
	}
	from = NewShape(t, dims, randomLayout(r, t, rank))
	to = NewShape(t, dims, randomLayout(r, t, rank))
	opts.Pad = padKinds[r.IntN(len(padKinds))]
	if r.IntN(6) == 0 && rank > 0 {
		opts.Pad.Widths = make([]int64, rank)
		for i, d := range dims {
			opts.Pad.Widths[i] = d + int64(r.IntN(3))
		}
	}
	return from, to, opts
}

// fillRandom returns n random bytes from seed.
func fillRandom(n int64, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// checkPair compiles and runs one case and compares it with Reference.
// It reports whether the case was runnable (padding and layout accepted).
func checkPair(t *testing.T, seed uint64, from, to Shape, opts Options) bool {
	t.Helper()
	return checkPairWith(t, seed, from, to, opts, -1, nil)
}

// parsePair parses the shape texts of a test's pair.
func parsePair(t *testing.T, from, to string) (Shape, Shape) {
	t.Helper()
	f, err := ParseShape(from)
	if err != nil {
		t.Fatal(err)
	}
	g, err := ParseShape(to)
	if err != nil {
		t.Fatal(err)
	}
	return f, g
}

// checkPairWith is checkPair with tweak applied to the compiled plan
// before it runs (to force a path the case's size would not choose).
//
// The plan runs twice, each time into a fresh destination fenced by
// inaccessible pages (guard.Alloc), flush against the page after it the
// first time and against the page before it the second, from a source
// so fenced and read-only: a read or write past either buffer, or a
// write into the source, faults, and the fault is this test's panic.
func checkPairWith(t *testing.T, seed uint64, from, to Shape, opts Options, streamMin int64, tweak func(*Plan)) bool {
	t.Helper()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	fromSize, err := from.ByteSize()
	if err != nil {
		return false
	}
	var bufs fencedBufs
	defer bufs.release(t)
	src := bufs.alloc(t, fromSize, seed%2 == 0)
	copy(src, fillRandom(fromSize, seed))
	if err := guard.ReadOnly(src); err != nil {
		t.Fatal(err)
	}
	wide, err := opts.Pad.widened(to)
	if err != nil {
		return false
	}
	toSize, err := wide.ByteSize()
	if err != nil {
		return false
	}
	want := bytes.Repeat([]byte{0xa5}, int(toSize))
	refErr := ReferenceOptions(want, src, from, to, &opts)
	var plan *Plan
	if streamMin < 0 { // as Compile plans it
		plan, err = Compile(from, to, &opts)
	} else {
		plan, err = compile(from, to, &opts, streamMin, true)
		if err == nil {
			plan.block(&opts)
		}
	}
	if (err != nil) != (refErr != nil) {
		t.Fatalf("seed %d: %s -> %s pad %v: Compile error %v, Reference error %v", seed, from, to, opts.Pad, err, refErr)
	}
	if err != nil {
		return false
	}
	if tweak != nil {
		tweak(plan)
	}
	// The second Run, into other bytes, takes the walker (and its
	// buffers) that the first left in the plan's pool.
	for k, fill := range []byte{0x5a, 0xa5} {
		got := bufs.alloc(t, toSize, k == 0)
		for i := range got {
			got[i] = fill
		}
		if err := plan.Run(got, src); err != nil {
			t.Fatalf("seed %d: %s -> %s: Run %d: %v", seed, from, to, k+1, err)
		}
		if !bytes.Equal(got, want) {
			i := 0
			for got[i] == want[i] {
				i++
			}
			t.Fatalf("seed %d: %s -> %s pad %v widths %v: Run %d: first difference at byte %d: got %x want %x\n%s",
				seed, from, to, opts.Pad, opts.Pad.Widths, k+1, i, got[i], want[i], plan)
		}
	}
	return true
}

// fencedBufs are the buffers of one case, fenced by inaccessible pages
// (guard.Alloc). The case releases them when it ends, not the test: the
// differential tests run thousands of cases under one test, and the
// system limits the mappings a process holds.
type fencedBufs []func() error

// alloc returns n fenced bytes, flush against the page after them with
// atEnd, else against the page before.
func (f *fencedBufs) alloc(t *testing.T, n int64, atEnd bool) []byte {
	t.Helper()
	b, release, err := guard.Alloc(int(n), atEnd)
	if err != nil {
		t.Fatal(err)
	}
	*f = append(*f, release)
	return b
}

// release unmaps the buffers.
func (f *fencedBufs) release(t *testing.T) {
	for _, r := range *f {
		if err := r(); err != nil {
			t.Error(err)
		}
	}
}

// TestCompileMatchesReference is the differential test: random layout
// pairs, compiled and run, must give the oracle's bytes. Replay one case
// with TILECOPY_SEED=n.
func TestCompileMatchesReference(t *testing.T) {
	// About 5 in 6 draws are runnable (NaN padding for an integer type,
	// say, is refused); a full run must run at least 10,000 pairs.
	n, want := 12500, 10000
	if testing.Short() {
		n, want = 2000, 1500
	}
	first := uint64(1)
	if s := os.Getenv("TILECOPY_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		first, n = v, 1
	}
	ran := 0
	for seed := first; seed < first+uint64(n); seed++ {
		from, to, opts := randomPair(seed)
		if checkPair(t, seed, from, to, opts) {
			ran++
		}
	}
	t.Logf("%d of %d cases ran", ran, n)
	if ran < want && os.Getenv("TILECOPY_SEED") == "" {
		t.Errorf("only %d of %d random cases were runnable, want %d", ran, n, want)
	}
}

// TestGoldenRelayouts runs the golden vectors (internal/golden) through
// Compile and Run.
func TestGoldenRelayouts(t *testing.T) {
	for _, tc := range golden.Cases() {
		t.Run(tc.To, func(t *testing.T) {
			from, to := parsePair(t, tc.From, tc.To)
			got := letters(t, from, to)
			if got != tc.Want {
				t.Errorf("got  %s\nwant %s", got, tc.Want)
			}
		})
	}
}

// letters relayouts the array whose k-th row-major element is k+1 and
// prints the destination as letters.
func letters(t *testing.T, from, to Shape) string {
	t.Helper()
	w := int64(from.DType().ByteWidth())
	n, _ := from.ElementCount()
	src := make([]byte, n*w)
	for k := range n {
		src[k*w] = byte(k + 1)
	}
	p, err := Compile(from, to, nil)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, p.DestinationSize())
	if err := p.Run(dst, src); err != nil {
		t.Fatal(err)
	}
	var out []byte
	for i := int64(0); i < int64(len(dst)); i += w {
		c := byte('_')
		if dst[i] != 0 {
			c = 'a' + dst[i] - 1
		}
		if len(out) > 0 {
			out = append(out, ' ')
		}
		out = append(out, c)
	}
	return string(out)
}

func TestRunErrors(t *testing.T) {
	from := NewShape(F32, []int64{2, 3}, nil)
	to := NewShape(F32, []int64{2, 3}, &Layout{MinorToMajor: []int{0, 1}})
	p, err := Compile(from, to, nil)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 48)
	tests := []struct {
		name     string
		dst, src []byte
		want     error
	}{
		{"short source", make([]byte, 24), make([]byte, 23), ErrBufferSize},
		{"long destination", make([]byte, 25), make([]byte, 24), ErrBufferSize},
		{"same buffer", buf[:24], buf[:24], ErrOverlap},
		{"overlap", buf[:24], buf[20:44], ErrOverlap},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := p.Run(tc.dst, tc.src); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if err := p.Run(buf[:24], buf[24:]); err != nil {
		t.Fatalf("adjacent buffers: %v", err)
	}
}

func TestCompileErrors(t *testing.T) {
	f23 := NewShape(F32, []int64{2, 3}, nil)
	tests := []struct {
		name     string
		from, to Shape
		opts     *Options
		want     error
	}{
		{"dims", f23, NewShape(F32, []int64{3, 2}, nil), nil, ErrShapeMismatch},
		{"rank", f23, NewShape(F32, []int64{6}, nil), nil, ErrShapeMismatch},
		{"type", f23, NewShape(S32, []int64{2, 3}, nil), nil, ErrTypeMismatch},
		{"dynamic", f23.WithDynamic(0), f23, nil, ErrDynamic},
		{"tuple", NewTuple(f23), f23, nil, ErrNotArray},
		{"repeated m2m", f23, NewShape(F32, []int64{2, 3}, &Layout{MinorToMajor: []int{0, 0}}), nil, ErrInvalidLayout},
		{"overflow", NewShape(F64, []int64{1 << 40, 1 << 40}, nil), NewShape(F64, []int64{1 << 40, 1 << 40}, nil), nil, ErrOverflow},
		{"nan for int", NewShape(S32, []int64{2}, nil), NewShape(S32, []int64{2}, nil), &Options{Pad: Padding{Kind: PadNaN}}, ErrBadPadding},
		{"narrow width", f23, f23, &Options{Pad: Padding{Widths: []int64{1, 3}}}, ErrShapeMismatch},
		{"negative threads", f23, f23, &Options{Threads: -1}, ErrBadOptions},
		{"float pad overflows", f23, NewShape(F32, []int64{2, 3}, &Layout{MinorToMajor: []int{0, 1}, Tiles: []Tile{{4, 4}}}), &Options{Pad: PadWith(1e40)}, ErrBadPadding},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Compile(tc.from, tc.to, tc.opts); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// TestConcurrentRuns runs one plan from several goroutines (run it with
// -race).
func TestConcurrentRuns(t *testing.T) {
	from := NewShape(BF16, []int64{37, 300}, nil)
	to := NewShape(BF16, []int64{37, 300}, &Layout{MinorToMajor: []int{1, 0}, Tiles: []Tile{{8, 128}, {2, 1}}})
	p, err := Compile(from, to, &Options{Pad: Padding{Kind: PadNaN}})
	if err != nil {
		t.Fatal(err)
	}
	src := fillRandom(p.SourceSize(), 9)
	want := make([]byte, p.DestinationSize())
	if err := Reference(want, src, from, to, Padding{Kind: PadNaN}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			dst := make([]byte, p.DestinationSize())
			for range 20 {
				if err := p.Run(dst, src); err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(dst, want) {
					t.Errorf("goroutine %d: wrong bytes", g)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestRunAllocations checks that a Run on one goroutine allocates nothing
// once the plan has run: its walker and the walker's buffers come back
// from the plan's pool. Where the heap is large a fresh page faults, and
// small arrays paid for that more than for their bytes.
func TestRunAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops walkers at random")
	}
	for _, tc := range []struct {
		from, to string
		pad      Padding
		stream   bool // compiled to stream however small
	}{
		{"f32[32,32]{1,0}", "f32[32,32]{0,1}", Padding{}, false},
		{"u8[100,100]{1,0}", "u8[100,100]{0,1}", Padding{}, false},
		{"f32[4,16,32,32]{3,2,1,0}", "f32[4,16,32,32]{0,1,2,3}", Padding{}, false},
		{"f32[4,16,32,32]{3,2,1,0}", "f32[4,16,32,32]{0,1,2,3}", Padding{}, true},
		{"f32[100,100]{1,0}", "f32[100,100]{1,0}", Padding{Widths: []int64{104, 128}}, false},
		{"f32[13,300]{1,0}", "f32[13,300]{1,0:T(8,128)}", Padding{Kind: PadValue, Value: 1.5}, true},
		{"bf16[250,130]{1,0}", "bf16[250,130]{1,0:T(8,128)(2,1)}", Padding{Kind: PadValue, Value: -2}, true},
		{"s8[3,21,1000]{2,1,0:T(8,128)(4,1)}", "s8[3,21,1000]{2,1,0}", Padding{}, true},
		{"s8[2,1001,1000]{2,1,0}", "s8[2,1001,1000]{2,1,0:T(8,128)(4,1)}", Padding{Kind: PadValue, Value: 5}, true},
		{"u8[9,37,3]{2,1,0}", "u8[9,37,3]{1,0,2}", Padding{}, false},
		{"s4[512,512]{1,0:E(4)}", "s4[512,512]{0,1:E(4)}", Padding{}, false},
		{"s4[64,256]{1,0:E(4)}", "s4[64,256]{1,0:T(8,128)(8,1)E(4)}", Padding{}, true},
		{"bf16[64,256]{1,0:T(8,128)(2,1)}", "bf16[64,256]{0,1:T(8,128)(2,1)}", Padding{}, false}, // swapped
		{"u8[256,300]{0,1:T(2,128)}", "u8[256,300]{1,0}", Padding{}, true},                       // blocked
		// Conversions: straight, in slabs either way, and whole.
		{"f32[64,130]{1,0}", "bf16[64,130]{1,0}", Padding{}, false},
		{"f32[600,700]{1,0}", "bf16[600,700]{1,0:T(8,128)(2,1)}", Padding{}, true},
		{"bf16[600,700]{1,0:T(8,128)(2,1)}", "f32[600,700]{1,0}", Padding{}, true},
		{"f32[600,700]{1,0}", "f8e4m3fn[600,700]{0,1}", Padding{}, false},
		{"s8[5,7]{0,1}", "s32[5,7]{1,0:T(4,4)}", Padding{Kind: PadLowest}, false},
	} {
		from, to := parsePair(t, tc.from, tc.to)
		streamMin := int64(-1)
		if tc.stream {
			streamMin = 0
		}
		var plan *Plan
		if !checkPairWith(t, 1, from, to, Options{Pad: tc.pad, Threads: 1}, streamMin, func(p *Plan) { plan = p }) {
			t.Fatalf("%s -> %s: did not run", tc.from, tc.to)
		}
		src := make([]byte, plan.SourceSize())
		dst := make([]byte, plan.DestinationSize())
		if n := testing.AllocsPerRun(20, func() { plan.Run(dst, src) }); n != 0 {
			t.Errorf("%s -> %s: %v allocations a Run\n%s", tc.from, tc.to, n, plan)
		}
	}
}

// TestParallelMatchesReference splits small random cases among goroutines
// (the size threshold lowered) and compares with the oracle. A tenth of
// them at least must be walks that a Run shares out.
func TestParallelMatchesReference(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 600
	}
	shared := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		from, to, opts := randomPair(seed)
		opts.Threads = 2 + int(seed%4)
		plan, err := Compile(from, to, &opts)
		if err != nil {
			continue
		}
		plan.parallelMin = 0
		if w := plan.walk(); w != nil && !plan.copies() && w.threadChunks() > 1 {
			shared++
		}
		src := fillRandom(plan.SourceSize(), seed)
		want := make([]byte, plan.DestinationSize())
		if err := Reference(want, src, from, to, opts.Pad); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		got := bytes.Repeat([]byte{0x5a}, len(want))
		if err := plan.Run(got, src); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("seed %d: %s -> %s with %d threads: wrong bytes\n%s", seed, from, to, opts.Threads, plan)
		}
	}
	t.Logf("%d of %d walks shared among goroutines", shared, n)
	if shared < n/10 {
		t.Errorf("only %d of %d random cases were walks shared among goroutines", shared, n)
	}
}

// TestPaddingOnlyChunks runs plans whose chunks of the kernel's rows can
// lie wholly in the destination's padding, past the elements, on 1 to 8
// threads: each chunk must fill its padding. Seed 1206 of the full
// TestParallelMatchesReference (the first case here) left such chunks
// unwritten from 4 threads up. Each case says whether a Run on some
// number of threads shares out such a chunk (paddingOnlyChunks).
func TestPaddingOnlyChunks(t *testing.T) {
	for i, tc := range []struct {
		from, to string
		pad      Padding
		padOnly  bool
	}{
		{"s16[8,1,5]{2,1,0:L(5)}", "s16[8,1,5]{1,0,2}", Padding{Kind: PadValue, Value: -1, Widths: []int64{9, 2, 7}}, true},
		{"f32[6,3]{1,0}", "f32[6,3]{0,1}", Padding{Kind: PadValue, Value: 2, Widths: []int64{6, 9}}, true},
		// Rows a byte apart in the source: each share of them must span
		// 4 lines at least for a Run to share them out (threadLoop).
		{"u8[5,40,300]{2,1,0}", "u8[5,40,300]{0,1,2}", Padding{Kind: PadValue, Value: 7, Widths: []int64{5, 40, 2400}}, true},
		// The threads split d1, which holds no padding: every chunk
		// holds elements, and its kernel rows padding.
		{"u8[5,40,3]{2,1,0}", "u8[5,40,3]{0,2,1}", Padding{Kind: PadValue, Value: 7, Widths: []int64{5, 40, 12}}, false},
	} {
		from, to := parsePair(t, tc.from, tc.to)
		padOnly := 0
		for threads := 1; threads <= 8; threads++ {
			opts := Options{Pad: tc.pad, Threads: threads}
			if !checkPairWith(t, uint64(i), from, to, opts, -1, func(p *Plan) {
				p.parallelMin = 0
				padOnly += paddingOnlyChunks(p.walk())
			}) {
				t.Fatalf("%s -> %s: did not run", tc.from, tc.to)
			}
		}
		if padOnly > 0 != tc.padOnly {
			t.Errorf("%s -> %s: %d chunks of Runs on 1 to 8 threads lie wholly in the padding, want some: %v", tc.from, tc.to, padOnly, tc.padOnly)
		}
	}
}

// paddingOnlyChunks counts the chunks that a Run of p shares out among
// goroutines (runParallel) which hold destination places and no element.
func paddingOnlyChunks(p *walkPlan) int {
	n := int64(p.threadChunks())
	if n <= 1 {
		return 0
	}
	l := p.threadLoop()
	count := 0
	for c := range n {
		size := l.size / l.scale
		w, _, _, ok := p.chunkWalker(nil, nil, l, size*c/n*l.scale, size*(c+1)/n*l.scale)
		if ok && w.b[l.dim] == 0 {
			count++
		}
		p.putWalker(w)
	}
	return count
}

// TestRunRange runs random cases chunk by chunk, in random partitions, and
// checks that each chunk writes only inside its DestinationRange and that
// the chunks together give the oracle's bytes.
func TestRunRange(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 400
	}
	split := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		from, to, opts := randomPair(seed)
		plan, err := Compile(from, to, &opts)
		if err != nil {
			continue
		}
		if plan.Chunks() > 1 {
			split++
		}
		src := fillRandom(plan.SourceSize(), seed)
		want := make([]byte, plan.DestinationSize())
		if err := Reference(want, src, from, to, opts.Pad); err != nil {
			t.Fatal(err)
		}
		checkRunRange(t, seed, plan, src, want, rand.New(rand.NewPCG(seed, 3)))
	}
	if split < n/10 {
		t.Errorf("only %d of %d random cases ran in more than one chunk", split, n)
	}
	p, err := Compile(NewShape(F32, []int64{4, 4}, nil), NewShape(F32, []int64{4, 4}, &Layout{MinorToMajor: []int{0, 1}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if err := p.RunRange(buf, make([]byte, 64), 0, p.Chunks()+1); !errors.Is(err, ErrUnsupportedPlan) {
		t.Errorf("range past the end: err = %v", err)
	}
}

// TestDenseCorner checks the dense corner a walk runs as one box where the
// array ends in partial tiles (the leading values of each loop, see
// walker.corner), and runs those plans against the reference: streamed
// and not, on one and two threads, and chunk range by chunk range.
func TestDenseCorner(t *testing.T) {
	tests := []struct {
		from, to string
		pad      Padding
		corner   []int64 // values of each loop in the corner; nil: dense, or no corner
	}{
		{"f32[20,300]{1,0}", "f32[20,300]{1,0:T(8,128)}", Padding{}, []int64{2, 2}},
		{"f32[20,300]{1,0:T(8,128)}", "f32[20,300]{1,0}", Padding{}, []int64{2, 2}},
		{"s8[20,300]{0,1}", "s8[20,300]{1,0:T(8,128)(4,1)}", Padding{Kind: PadValue, Value: 3}, []int64{2, 2}},
		{"s8[20,300]{1,0:T(8,128)(4,1)}", "s8[20,300]{0,1}", Padding{}, []int64{2, 2}},
		{"bf16[3,13,300]{2,1,0}", "bf16[3,13,300]{2,1,0:T(8,128)(2,1)}", Padding{Kind: PadNaN}, []int64{3, 1, 2, 4}},
		{"f32[300,700]{1,0}", "f32[300,700]{0,1:T(8,128)}", Padding{}, []int64{87, 2}},
		// A loop merged with a whole dim (scale 4) cut by the padded width.
		{"f32[13,4,8,8]{2,3,1,0}", "f32[13,4,8,8]{3,2,1,0}", Padding{Widths: []int64{16, 4, 8, 8}}, []int64{52}},
		// Partial tiles too large for the walker's edge buffer.
		{"f32[20,1100]{1,0}", "f32[20,1100]{1,0:T(8,1024)}", Padding{Kind: PadValue, Value: 2}, []int64{2, 1}},
		// No whole tile along d0, and an array of whole tiles.
		{"f32[5,300]{1,0}", "f32[5,300]{1,0:T(8,128)}", Padding{}, nil},
		{"f32[16,256]{1,0}", "f32[16,256]{1,0:T(8,128)}", Padding{}, nil},
	}
	for i, tc := range tests {
		runVariants(t, uint64(i), tc.from, tc.to, tc.pad, func(plan *Plan) {
			var got []int64
			if w := plan.walk().newWalker(nil, nil); !w.dense(0) && w.corner(0) {
				got = w.cornerN
			}
			if !slices.Equal(got, tc.corner) {
				t.Errorf("%s -> %s: corner %v, want %v\n%s", tc.from, tc.to, got, tc.corner, plan)
			}
			checkRangesAgainstReference(t, uint64(i), plan, tc.pad)
		})
	}
}

// TestAlignedBuffer checks that the walker's edge buffers start on a
// cache line and hold what was asked.
func TestAlignedBuffer(t *testing.T) {
	for _, n := range []int{1, 63, 64, 100, edgeBytes} {
		b := alignedBuffer(n)
		if len(b) != n || cap(b) != n || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%64 != 0 {
			t.Errorf("alignedBuffer(%d): len %d cap %d at %p", n, len(b), cap(b), unsafe.SliceData(b))
		}
	}
}

// runGuarded runs p from random source bytes from seed into a destination
// filled with 0x5a, each fenced by inaccessible pages (guard.Buffer), and
// fails t where it writes other bytes than Reference with pad. It
// returns the source and the reference's bytes.
func runGuarded(t *testing.T, seed uint64, p *Plan, pad Padding) (src, want []byte) {
	t.Helper()
	want = make([]byte, p.DestinationSize())
	src = guard.Buffer(t, int(p.SourceSize()), seed%2 == 0)
	copy(src, fillRandom(p.SourceSize(), seed))
	if err := Reference(want, src, p.from, p.to, pad); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	got := guard.Buffer(t, len(want), seed%2 == 1)
	for i := range got {
		got[i] = 0x5a
	}
	if err := p.Run(got, src); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("seed %d: %s -> %s, %d threads: wrong bytes\n%s", seed, p.from, p.to, p.threads, p)
	}
	return src, want
}

// checkRangesAgainstReference runs plan chunk range by chunk range
// (checkRunRange) on random source bytes from seed against the reference
// relayout with padding pad.
func checkRangesAgainstReference(t *testing.T, seed uint64, plan *Plan, pad Padding) {
	t.Helper()
	src := fillRandom(plan.SourceSize(), seed)
	want := make([]byte, plan.DestinationSize())
	if err := Reference(want, src, plan.from, plan.to, pad); err != nil {
		t.Fatal(err)
	}
	checkRunRange(t, seed, plan, src, want, rand.New(rand.NewPCG(seed, 5)))
}

// checkRunRange runs plan chunk by chunk, in a random partition from r,
// and checks that each RunRange writes only inside its DestinationRange
// and that together they write want.
func checkRunRange(t *testing.T, seed uint64, plan *Plan, src, want []byte, r *rand.Rand) {
	t.Helper()
	got := bytes.Repeat([]byte{0x5a}, len(want))
	chunks := plan.Chunks()
	for lo := int64(0); lo < chunks; {
		hi := min(chunks, lo+1+r.Int64N(3))
		before := bytes.Clone(got)
		if err := plan.RunRange(got, src, lo, hi); err != nil {
			t.Fatalf("seed %d: RunRange(%d,%d): %v", seed, lo, hi, err)
		}
		a, b := plan.DestinationRange(lo, hi)
		if !bytes.Equal(got[:a], before[:a]) || !bytes.Equal(got[b:], before[b:]) {
			t.Fatalf("seed %d: %s -> %s: chunks [%d,%d) wrote outside [%d,%d)\n%s", seed, plan.from, plan.to, lo, hi, a, b, plan)
		}
		lo = hi
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("seed %d: %s -> %s: chunks of %d give wrong bytes\n%s", seed, plan.from, plan.to, chunks, plan)
	}
	// A whole Run after them takes a walker that a chunk left in the
	// pool, cut to its range.
	got = bytes.Repeat([]byte{0xa5}, len(want))
	if err := plan.Run(got, src); err != nil {
		t.Fatalf("seed %d: Run after the ranges: %v", seed, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("seed %d: %s -> %s: a Run after the ranges gives wrong bytes\n%s", seed, plan.from, plan.to, plan)
	}
}

// TestPrefetchingRunCopy runs plans whose short runs take the prefetching
// run copy where the CPU has one (and the plain one elsewhere) against
// the reference: with and without padding, tiles and odd run lengths.
// Where the loop after the rows continues the source runs, its steps go
// in each call instead (grid).
func TestPrefetchingRunCopy(t *testing.T) {
	tests := []struct {
		from, to string
		pad      Padding
		ahead    bool // whether the plan prefetches where the CPU can
		grid     bool // whether it takes the steps of a loop in each call there
	}{
		{"f32[3,5,7,32]{3,2,1,0}", "f32[3,5,7,32]{3,0,1,2}", Padding{}, true, false},
		{"u8[4,9,6,100]{3,2,1,0}", "u8[4,9,6,100]{3,0,1,2}", Padding{}, true, false},
		{"f64[2,6,5,24]{3,2,1,0}", "f64[2,6,5,24]{3,0,1,2}", Padding{}, true, false},
		{"f32[3,5,7,32]{3,2,1,0}", "f32[3,5,7,32]{3,1,2,0}", Padding{}, false, true},
		{"f32[3,5,7,16]{3,2,1,0}", "f32[3,5,7,16]{3,1,2,0}", Padding{}, false, true},
		{"u8[4,9,6,100]{3,2,1,0}", "u8[4,9,6,100]{3,1,2,0}", Padding{}, false, true},
		{"f32[5,7,40]{2,1,0}", "f32[5,7,40]{2,0,1:T(2,40)}", Padding{Kind: PadValue, Value: 1.5}, false, true},
		{"u8[6,300]{1,0}", "u8[6,300]{1,0:T(2,128)}", Padding{}, false, true},           // tiled: a cut last tile
		{"f32[3,5,7,8]{3,2,1,0}", "f32[3,5,7,8]{3,1,2,0}", Padding{}, false, false},     // 32-byte runs
		{"f32[3,5,7,128]{3,2,1,0}", "f32[3,5,7,128]{3,0,1,2}", Padding{}, true, false},  // 512-byte runs
		{"f32[3,5,7,256]{3,2,1,0}", "f32[3,5,7,256]{3,0,1,2}", Padding{}, false, false}, // 1 KiB runs
	}
	for i, tc := range tests {
		from, to := parsePair(t, tc.from, tc.to)
		opts := Options{Pad: tc.pad, Threads: 1}
		var plan *Plan
		if !checkPairWith(t, uint64(i), from, to, opts, -1, func(p *Plan) { plan = p }) {
			t.Fatalf("%s -> %s: did not run", tc.from, tc.to)
		}
		w := plan.walk()
		if want := tc.ahead && kernel.Prefetching(); (w.ahead != 0) != want {
			t.Errorf("%s -> %s: prefetching %v, want %v\n%s", tc.from, tc.to, w.ahead != 0, want, plan)
		}
		if tc.grid && kernel.Prefetching() && (w.ahead != 0 || w.stream || len(w.loops) == 0) {
			t.Errorf("%s -> %s: no grid of steps a call\n%s", tc.from, tc.to, plan)
		}
	}
}

// TestHoistedCutRows checks the run copies of row-major arrays tiled
// whose last tile a row the array's edge cuts (hoistCut): the loop over
// a row's tiles goes outside blocks of the rows, whose values each call
// takes as steps; and runs them against the reference, streamed or not,
// on one and two threads, chunk range by chunk range. Rows that fill
// their tiles, and blocks of one value, keep the order.
func TestHoistedCutRows(t *testing.T) {
	tests := []struct {
		from, to string
		pad      Padding
		hoisted  bool
	}{
		{"u8[512,155]{1,0}", "u8[512,155]{1,0:T(2,128)}", Padding{}, true},
		{"u8[2,256,300]{2,1,0}", "u8[2,256,300]{2,1,0:T(2,128)}", Padding{Kind: PadValue, Value: 7}, true},
		{"s8[1024,150]{1,0}", "s8[1024,150]{1,0:T(4,128)}", Padding{}, true},
		{"u8[512,256]{1,0}", "u8[512,256]{1,0:T(2,128)}", Padding{}, false}, // whole tiles
		{"f32[20,300]{1,0}", "f32[20,300]{1,0:T(8,128)}", Padding{}, false}, // one row of tiles a block
	}
	for i, tc := range tests {
		runVariants(t, uint64(i), tc.from, tc.to, tc.pad, func(plan *Plan) {
			w := plan.walk()
			n := len(w.loops)
			got := kernel.Prefetching() && n >= 2 && w.loops[n-1].dim == w.outer.dim && w.loops[n-2].dim == w.inner.dim
			if got != (tc.hoisted && kernel.Prefetching()) {
				t.Errorf("%s -> %s: hoisted %v, want %v\n%s", tc.from, tc.to, got, tc.hoisted, plan)
			}
			checkRangesAgainstReference(t, uint64(i), plan, tc.pad)
		})
	}
}

// TestStreamingPlans runs plans as if their destinations were larger than
// the last-level cache (transposes through kernel.TransposeStreaming,
// run copies as grids through kernel.CopyRunsStreaming) against the
// reference: random pairs, then run copies chosen to stream where the
// CPU has streaming stores and tiled transposes, with padding and split
// Runs.
func TestStreamingPlans(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 600
	}
	kinds := map[kernelKind]int{}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		from, to, opts := randomPair(seed)
		checkPairWith(t, seed, from, to, opts, 0, func(p *Plan) {
			if w := p.walk(); w != nil && w.stream {
				kinds[w.kern]++
			}
		})
	}
	t.Logf("streamed: %d transpose plans, %d run copies", kinds[kernTranspose], kinds[kernRun])
	if kinds[kernTranspose] < n/20 {
		t.Errorf("only %d of %d random pairs were streamed transpose plans", kinds[kernTranspose], n)
	}
	tests := []struct {
		from, to string
		pad      Padding
		kern     kernelKind // run copies stream where the CPU has streaming stores, transposes always
	}{
		{"f32[3,5,7,32]{3,2,1,0}", "f32[3,5,7,32]{3,1,2,0}", Padding{}, kernRun},
		{"f32[3,5,64,32]{3,2,1,0}", "f32[3,5,64,32]{3,1,2,0}", Padding{}, kernRun},
		{"u8[4,9,6,128]{3,2,1,0}", "u8[4,9,6,128]{3,1,2,0}", Padding{}, kernRun},
		{"f64[2,6,5,24]{3,2,1,0}", "f64[2,6,5,24]{3,1,2,0}", Padding{}, kernRun},
		{"f32[32,512]{1,0}", "f32[32,512]{1,0:T(8,128)}", Padding{}, kernRun},
		{"f32[32,512]{1,0:T(8,128)}", "f32[32,512]{1,0}", Padding{}, kernRun},
		{"f32[13,300]{1,0}", "f32[13,300]{1,0:T(8,128)}", Padding{Kind: PadValue, Value: 1.5}, kernRun},
		{"f32[13,300]{1,0:T(8,128)}", "f32[13,300]{1,0}", Padding{}, kernRun},
		{"bf16[5,3,64,64]{3,2,1,0}", "bf16[5,3,64,64]{3,1,2,0:T(2,64)}", Padding{Kind: PadNaN}, kernRun},
		// Runs of 32 bytes, side by side in the destination's
		// lines (rows that continue the destination runs, cut to about
		// 1 KiB a call in the last two, shortRunBytes).
		{"u8[4,6,8,32]{3,2,1,0}", "u8[4,6,8,32]{3,0,1,2}", Padding{}, kernRun},
		{"u8[8,3,5,32]{3,2,1,0}", "u8[8,3,5,32]{3,0,2,1}", Padding{Kind: PadValue, Value: 7}, kernRun},
		{"u8[512,3,2,32]{3,2,1,0}", "u8[512,3,2,32]{3,0,1,2}", Padding{}, kernRun},
		{"u8[1024,5,32]{2,1,0}", "u8[1024,5,32]{2,0,1}", Padding{}, kernRun},
		// Rows that merge two dims (NumPy's transpose (2,0,1,3)), cut
		// inside the lighter one; the heavier padded; cut whole.
		{"u8[4,64,6,32]{3,2,1,0}", "u8[4,64,6,32]{3,1,0,2}", Padding{}, kernRun},
		{"u8[3,128,5,32]{3,2,1,0}", "u8[3,128,5,32]{3,1,0,2}", Padding{Kind: PadValue, Value: 7, Widths: []int64{5, 128, 5, 32}}, kernRun},
		{"u8[8,32,6,32]{3,2,1,0}", "u8[8,32,6,32]{3,1,0,2}", Padding{}, kernRun},
		// Tiles with (2,1) and (4,1) inside: grids of interleaves and
		// de-interleaves (kernel.TransposeGrid).
		{"s8[16,256]{1,0}", "s8[16,256]{1,0:T(8,128)(4,1)}", Padding{}, kernTranspose},
		{"s8[16,256]{1,0:T(8,128)(4,1)}", "s8[16,256]{1,0}", Padding{}, kernTranspose},
		{"bf16[32,384]{1,0}", "bf16[32,384]{1,0:T(8,128)(2,1)}", Padding{}, kernTranspose},
		{"bf16[32,384]{1,0:T(8,128)(2,1)}", "bf16[32,384]{1,0}", Padding{}, kernTranspose},
		{"s8[13,300]{1,0}", "s8[13,300]{1,0:T(8,128)(4,1)}", Padding{Kind: PadValue, Value: 3}, kernTranspose},
		{"bf16[3,13,300]{2,1,0:T(8,128)(2,1)}", "bf16[3,13,300]{2,1,0}", Padding{}, kernTranspose},
		{"f16[16,256]{1,0}", "f16[16,256]{1,0:T(8,128)(4,1)}", Padding{}, kernTranspose},
		// Ragged last tiles of 8-row bands, staged with their padding
		// (stageRow), which stays in the buffer from band to band; a
		// ragged last band too.
		{"s8[2,1001,1000]{2,1,0}", "s8[2,1001,1000]{2,1,0:T(8,128)(4,1)}", Padding{Kind: PadValue, Value: 5}, kernTranspose},
		{"bf16[250,130]{1,0}", "bf16[250,130]{1,0:T(8,128)(2,1)}", Padding{Kind: PadValue, Value: -2}, kernTranspose},
		// Rows of rectangles past the buffer, staged in groups (40
		// rectangles of 512 bytes: 32, then 8, each band).
		{"bf16[3,80,119]{2,1,0}", "bf16[3,80,119]{2,1,0:T(8,128)(2,1)}", Padding{Kind: PadValue, Value: 3}, kernTranspose},
		// 4-D reversals: grouped grids of staged blocks; on 2 threads
		// the first splits its outermost loop, not the blocks' rows.
		{"f32[16,16,32,8]{3,2,1,0}", "f32[16,16,32,8]{0,1,2,3}", Padding{}, kernTranspose},
		{"f32[13,16,20,7]{3,2,1,0}", "f32[13,16,20,7]{0,1,2,3}", Padding{}, kernTranspose},
		{"f64[16,8,24,16]{3,2,1,0}", "f64[16,8,24,16]{0,1,2,3}", Padding{}, kernTranspose},
		// T(8,8) tiles of s32 into T(16,128): each tile's 8 rows of 32
		// bytes continue the source, the tiles of a destination row
		// join into its lines; the last tile row cut short.
		{"s32[40,250]{1,0:T(8,8)}", "s32[40,250]{1,0:T(16,128)}", Padding{}, kernRun},
	}
	for i, tc := range tests {
		from, to := parsePair(t, tc.from, tc.to)
		for _, threads := range []int{1, 2} {
			plan := checkSplit(t, uint64(i), from, to, Options{Pad: tc.pad, Threads: threads}, 0)
			w := plan.walk()
			if want := kernel.Streaming() || tc.kern == kernTranspose; w.stream != want || w.kern != tc.kern {
				t.Errorf("%s -> %s: kernel %d streamed %v, want kernel %d streamed %v\n%s", tc.from, tc.to, w.kern, w.stream, tc.kern, want, plan)
			}
			// Short runs stream in rows side by side in the destination,
			// whole lines of them, or in rows that continue the source
			// with steps side by side, whole lines of those.
			run := w.inner.size * w.width
			side := func(l ploop, most int64) bool {
				return l.dst == w.inner.size*w.step && l.size*run%64 == 0 && l.size*run <= most
			}
			if w.stream && w.kern == kernRun && run < 64 && !side(*w.outer, 2*shortRunBytes) &&
				!(w.outer.src == w.inner.size*w.step && len(w.loops) > 0 && side(w.loops[len(w.loops)-1], math.MaxInt64)) {
				t.Errorf("%s -> %s: runs of %d bytes streamed in rows of %d, %d apart in the destination\n%s", tc.from, tc.to, run, w.outer.size, w.outer.dst, plan)
			}
			if i == len(tests)-3 && threads == 2 && w.threadLoop() == w.splitLoop() {
				t.Errorf("%s -> %s: 2 threads split the blocks' rows\n%s", tc.from, tc.to, plan)
			}
		}
	}
}

// TestStreamStepsReadWholeBlocks checks that a streamed run copy whose
// rows continue the source runs, and whose steps continue the
// destination's, takes the rows' whole loop: each step then reads the
// rows' whole block of the source (C5's shape, planes of 32 KiB; a plane
// of 2 MiB), while rows copied on their own go in blocks of about
// streamBlockBytes. Each runs against the reference too.
func TestStreamStepsReadWholeBlocks(t *testing.T) {
	if !kernel.Streaming() {
		t.Skip("no streaming stores at this level")
	}
	for _, tc := range []struct {
		from, to string
		rows     int64
	}{
		{"f32[2,3,256,32]{3,2,1,0}", "f32[2,3,256,32]{3,1,2,0}", 256},
		{"f32[1,2,16384,32]{3,2,1,0}", "f32[1,2,16384,32]{3,1,2,0}", 16384},
		{"s32[8,1301]{1,0:T(1,128)}", "s32[8,1301]{1,0}", 2}, // rows of 5632 bytes, no steps: 2 a call
	} {
		from, to := parsePair(t, tc.from, tc.to)
		plan, err := compile(from, to, nil, 0, true)
		if err != nil {
			t.Fatal(err)
		}
		w := plan.walk()
		if !w.stream || w.kern != kernRun || w.outer == nil || w.outer.size != tc.rows {
			t.Errorf("%s -> %s: want a streamed run copy of %d rows a call\n%s", tc.from, tc.to, tc.rows, plan)
		}
		checkSplit(t, 5, from, to, Options{Threads: 2}, 0)
	}
}

// TestTransposeThreshold checks that the block transposes of a plan
// stream from kernel.Tuning.TransposeStreamBytes, and so do run copies
// of 32-byte runs where the CPU has streaming stores, while longer runs
// stream from the plan's own threshold (Tuning.RunStreamBytes), where that is
// larger: an f32 square transposed and padded whose source and
// destination together just reach the transposes' threshold, and just
// miss it, and u8 [k,128,256,32] to {3,1,2,0} of about that size.
func TestTransposeThreshold(t *testing.T) {
	tt := int64(currentTuning().TransposeStreamBytes)
	n := int64(math.Ceil(math.Sqrt(float64(tt) / 8))) // f32 [n,n] both sides: 8n² bytes
	k := (tt + 2<<20 - 1) / (2 << 20)                 // u8 [k,128,256,32] both sides: 2k MiB
	runsMin := 4 * max(8*n*n, 2*k<<20)
	square := func(n int64, layout string) string { return fmt.Sprintf("f32[%d,%d]{%s}", n, n, layout) }
	short := func(layout string) string { return fmt.Sprintf("u8[%d,128,256,32]{%s}", k, layout) }
	for _, tc := range []struct {
		from, to string
		pad      []int64
		kern     kernelKind
		stream   bool
	}{
		{square(n, "1,0"), square(n, "0,1"), nil, kernTranspose, true},
		{square(n-1, "1,0"), square(n-1, "0,1"), nil, kernTranspose, false},
		{square(n, "1,0"), square(n, "1,0"), []int64{n, n + 16}, kernRun, false},
		{short("3,2,1,0"), short("3,1,2,0"), nil, kernRun, kernel.Streaming()},
	} {
		from, to := parsePair(t, tc.from, tc.to)
		opts := Options{Pad: Padding{Widths: tc.pad}}
		p, err := compile(from, to, &opts, runsMin, true)
		if err != nil {
			t.Fatal(err)
		}
		if p.transposeMin != min(runsMin, tt) {
			t.Errorf("transposeMin %d, want %d", p.transposeMin, min(runsMin, tt))
		}
		if p.walk().kern != tc.kern || p.walk().stream != tc.stream {
			t.Errorf("%v -> %v (%d bytes together; transposes stream from %d, runs from %d): kernel %d streamed %v, want kernel %d streamed %v\n%s",
				from, to, p.srcBytes+p.dstBytes, tt, runsMin, p.walk().kern, p.walk().stream, tc.kern, tc.stream, p)
		}
	}
}

// TestBands runs streamed untilings whose destination rows are off the
// lines (row-major arrays of odd row length), which the walk stages a
// band of rows at a time (stageBand), against the reference in a random
// partition of ranges and on 1, 2 and 4 threads, with layouts it must not
// stage beside them, and checks which it staged.
func TestBands(t *testing.T) {
	for i, tc := range []struct {
		from, to string
		pad      Padding
		bands    int // staged by a whole walk
	}{
		// A ragged last band of 5 rows, and a ragged last tile.
		{"s8[3,21,1000]{2,1,0:T(8,128)(4,1)}", "s8[3,21,1000]{2,1,0}", Padding{}, 9},
		{"bf16[2,16,300]{2,1,0:T(8,128)(2,1)}", "bf16[2,16,300]{2,1,0}", Padding{}, 4},
		{"s8[40,300]{1,0:T(8,128)(4,1)}", "s8[40,300]{1,0}", Padding{}, 5},
		// A last band of one row.
		{"s8[4,9,1000]{2,1,0:T(8,128)(4,1)}", "s8[4,9,1000]{2,1,0}", Padding{}, 8},
		// Into a padded destination, whose rows hold more than the
		// source gives them.
		{"s8[2,16,200]{2,1,0:T(8,128)(4,1)}", "s8[2,16,200]{2,1,0}", Padding{Kind: PadValue, Value: 9, Widths: []int64{2, 16, 203}}, 4},
		// Rows on lines: streamed in place.
		{"s8[2,9,1024]{2,1,0:T(8,128)(4,1)}", "s8[2,9,1024]{2,1,0}", Padding{}, 0},
		// Bands larger than bandBytes.
		{"s8[16,4000]{1,0:T(8,128)(4,1)}", "s8[16,4000]{1,0}", Padding{}, 0},
		// A dim stepped at two strides (its index not linear in the
		// destination): never one run.
		{"s16[8,1,5]{2,1,0:L(5)}", "s16[8,1,5]{1,0,2}", Padding{}, 0},
	} {
		from, to := parsePair(t, tc.from, tc.to)
		for _, threads := range []int{1, 2, 4} {
			plan := checkSplit(t, uint64(i), from, to, Options{Pad: tc.pad, Threads: threads}, 0)
			checkRangesAgainstReference(t, uint64(i), plan, tc.pad)
			w := wholeWalk(plan)
			if w.bands != tc.bands {
				t.Errorf("%s -> %s: staged %d bands, want %d\n%s", tc.from, tc.to, w.bands, tc.bands, plan)
			}
		}
	}
}

// wholeWalk runs a whole walk of plan over buffers of its own and returns
// the walker, for the tests that count what a walk staged (for a blocked
// plan, the walk it was built from).
func wholeWalk(plan *Plan) *walker {
	w := walkOf(plan).newWalker(make([]byte, plan.DestinationSize()), make([]byte, plan.SourceSize()))
	w.walk(0, 0, 0, false)
	return w
}

// walkBoth compiles from → to with padding pad through the caches and
// streamed (its streaming threshold 0), walks each plan whole
// (wholeWalk) and hands it to check, for tests that count what the walk
// did.
func walkBoth(t *testing.T, from, to string, pad Padding, check func(streamMin int64, plan *Plan, w *walker)) {
	t.Helper()
	f, g := parsePair(t, from, to)
	for _, streamMin := range []int64{math.MaxInt64, 0} {
		plan, err := compile(f, g, &Options{Pad: pad}, streamMin, true)
		if err != nil {
			t.Fatal(err)
		}
		check(streamMin, plan, wholeWalk(plan))
	}
}

// walkOf returns plan's walk, or for a blocked plan the walk it was
// built from.
func walkOf(plan *Plan) *walkPlan {
	if b, ok := plan.exec.(*blocked); ok {
		return b.walkPlan
	}
	return plan.walk()
}

// TestStagedRects checks the streamed run copies whose rectangles hold
// padding and go through the edge buffer: each on its own (stageRect),
// whole when it fits the buffer, in groups of rows that make whole lines
// when it does not, and in place when no group of rows does; or, where
// the rectangles are the same at each value of the last loop and
// continue each other in the destination, as many a group as the buffer
// holds (kernelRow's stageRow), streamed out at once; or, for block
// transposes whose rectangles continue each other along the destination
// rows, rows apart, a band of rows of a few rectangles at a time
// (stageCols). Each runs against the reference, whole and by chunk
// ranges, on one and two goroutines.
func TestStagedRects(t *testing.T) {
	for i, tc := range []struct {
		from, to string
		pad      Padding
		// staged by a whole walk on one goroutine: rectangles on their
		// own, groups of rectangles, groups along the rows
		rects, groups, cols int
	}{
		// Runs of 106 bytes into rows of 128: 400 rows, 128 a group.
		{"u8[4,100,106]{2,1,0}", "u8[4,100,106]{2,1,0:T(2,128)}", Padding{}, 4, 0, 0},
		// The same with a padding value, and rows of 4-byte elements:
		// 150 rows of 512 bytes, 32 a group.
		{"f32[3,50,100]{2,1,0}", "f32[3,50,100]{2,1,0:T(1,128)}", PadWith(-1), 5, 0, 0},
		// Padded rows at the end: 8-row tiles of 130 rows, whose last
		// tile holds 2, 136 rows of 512 bytes.
		{"f32[130,100]{1,0}", "f32[130,100]{1,0:T(8,128)}", Padding{}, 5, 0, 0},
		// A rectangle that fits the buffer whole.
		{"u8[10,100]{1,0}", "u8[10,100]{1,0:T(1,128)}", Padding{}, 1, 0, 0},
		// Rows of 192 bytes: groups of 85 rows.
		{"u8[1000,150]{1,0}", "u8[1000,150]{1,0}", Padding{Widths: []int64{1000, 192}}, 12, 0, 0},
		// Rows larger than the buffer: in place.
		{"u8[4,16001]{1,0}", "u8[4,16001]{1,0}", Padding{Widths: []int64{4, 16448}}, 0, 0, 0},
		// Rows apart in the destination, each whole lines: the last
		// T(16,64) tile of each row of tiles, 47 of its 64 columns, into
		// rows of 256 bytes 512 apart, one rectangle a tile.
		{"f32[3,40,111]{2,1,0:T(16,64)}", "f32[3,40,111]{2,1,0:T(8,128)}", PadWith(7), 9, 0, 0},
		// Rows apart that are no whole lines (47 of 60 columns, 240
		// bytes): in place.
		{"f32[3,40,107]{2,1,0:T(16,60)}", "f32[3,40,107]{2,1,0:T(8,120)}", Padding{}, 0, 0, 0},
		// Groups: 3 of each T(4,128) tile's 4 rows, 19 tiles of 64
		// bytes a plane, a group a plane.
		{"s4[5,3,2432]{2,0,1:E(4)}", "s4[5,3,2432]{2,1,0:T(4,128)E(4)}", Padding{}, 0, 5, 0},
		// 2 of each T(8,128) tile's 8 rows of 512 bytes, 40 tiles a
		// row of them: 16 KiB, 4 tiles, a group.
		{"f32[2,5120]{1,0}", "f32[2,5120]{1,0:T(8,128)}", PadWith(3), 0, 10, 0},
		// 17 of each T(32,32) tile's 32 rows, 4 tiles a row.
		{"f32[2,3,17,128]{3,2,0,1}", "f32[2,3,17,128]{3,2,1,0:T(32,32)}", Padding{}, 0, 6, 0},
		// Block transposes whose rows end in padding: the last
		// T(8,128) tile along d3 holds 6 of its 128 columns, a
		// rectangle of 24 rows for each of the 32 tile rows.
		{"s32[16,2,24,134]{2,3,1,0}", "s32[16,2,24,134]{3,0,1,2:T(8,128)}", PadWith(5), 32, 0, 0},
		// Block transposes of whole rows, with rows of padding (3 of
		// each T(4,128) tile's 4 rows) and none of elements and
		// padding: in place.
		{"s32[1,3,16,200]{3,2,1,0}", "s32[1,3,16,200]{2,0,3,1:T(4,128)}", Padding{}, 0, 0, 0},
		// Rows whose padding the buffer would take two at a time (6024
		// of 6144 bytes): too few for a transpose's block, in place.
		{"u8[20,6024]{0,1}", "u8[20,6024]{1,0:T(1,128)}", Padding{}, 0, 0, 0},
		// Block transposes along the rows: 31 of each T(16,64) row's
		// 64 places, 124 bytes; 4 rectangles of 256 bytes a row, 16 of
		// the 128 rows a band, 5 groups of the 20 rectangles a plane.
		{"f32[2,31,20,128]{3,1,0,2:T(8,128)}", "f32[2,31,20,128]{1,2,3,0:T(16,64)}", PadWith(-2), 0, 0, 80},
		// Bytes, and a dim the tiles pad on the rows' side too.
		{"u8[3,17,40,38]{3,1,0,2}", "u8[3,17,40,38]{2,1,0,3:T(16,64)}", Padding{}, 0, 0, 18},
		// Rows of 2-byte elements, 100 of 128 places.
		{"bf16[3,100,9,80]{3,1,0,2}", "bf16[3,100,9,80]{1,2,3,0:T(8,128)}", PadWith(1), 0, 0, 45},
	} {
		from, to := parsePair(t, tc.from, tc.to)
		for _, threads := range []int{1, 2} {
			plan := checkSplit(t, uint64(i), from, to, Options{Pad: tc.pad, Threads: threads}, 0)
			checkRangesAgainstReference(t, uint64(i), plan, tc.pad)
			if threads > 1 {
				continue
			}
			w := wholeWalk(plan)
			want := [3]int{tc.rects, tc.groups, tc.cols}
			if !kernel.Streaming() { // no plan streams: every rectangle in place
				want = [3]int{}
			}
			if got := [3]int{w.rects, w.runRows, w.colGroups}; got != want {
				t.Errorf("%s -> %s: staged %d rectangles, %d groups and %d along the rows, want %d, %d and %d\n%s", tc.from, tc.to, got[0], got[1], got[2], want[0], want[1], want[2], plan)
			}
		}
	}
}

// TestCutRows runs plans whose last loop steps through tiles along a
// dim the array ends inside the last of (a row of tiles cut short): the
// tiles before the last go as one grid call (kernelRow), the last on its
// own. A whole walk on one goroutine counts the rows it took so; the
// results match the reference on one and two threads.
func TestCutRows(t *testing.T) {
	tuningtest.Reference(t) // whether the plans stream
	for i, tc := range []struct {
		from, to string
		rows     int
	}{
		// 3 rows of c64 into T(8,8): 127 whole tiles and 7 elements.
		{"c64[3,1023]{1,0:T(128)}", "c64[3,1023]{1,0:T(8,8)}", 1},
		// 2 of each tile's 8 rows, 132 tiles a row: a tile's rows
		// apart, its four bf16 a run.
		{"bf16[64,261,4]{2,1,0:T(8,8)}", "bf16[64,261,4]{1,2,0:T(8,128)(2,1)}", 64},
		{"f32[2,40,430,4]{3,2,1,0}", "f32[2,40,430,4]{2,3,1,0:T(8,128)}", 80},
		{"f64[16,3,933]{1,2,0}", "f64[16,3,933]{2,1,0:T(8,128)}", 16},
		// Rows of 15 whole tiles and a cut one, 4 a plane: the last
		// row of each plane holds 1 of each tile's 8 rows, staged with
		// their padding (stageRow), then the cut tile on its own
		// (stageRect), in the same buffer.
		{"f64[26,4,25,123]{3,2,1,0:T(8,128)}", "f64[26,4,25,123]{3,2,1,0:T(8,8)}", 104},
	} {
		from, to := parsePair(t, tc.from, tc.to)
		for _, threads := range []int{1, 2} {
			plan := checkSplit(t, uint64(i), from, to, Options{Threads: threads}, 0)
			checkRangesAgainstReference(t, uint64(i), plan, Padding{})
			if threads > 1 {
				continue
			}
			w := wholeWalk(plan)
			want := tc.rows
			if !kernel.Streaming() && plan.walk().kern == kernRun {
				want = 0 // run copies not streamed walk the other paths (blockRow)
			}
			if w.cutRows != want {
				t.Errorf("%s -> %s: %d rows cut short, want %d\n%s", tc.from, tc.to, w.cutRows, want, plan)
			}
		}
	}
}

// TestImagePlans runs images between channels last and channels first
// (a transpose with 3 rows or 3 columns and a contiguous side: the 3-way
// weave kernels) against the reference, in cache and streamed, on one
// and two threads, at sizes with ragged ends past the kernels' chunks.
func TestImagePlans(t *testing.T) {
	for i, tc := range []struct{ from, to string }{
		{"u8[9,37,3]{2,1,0}", "u8[9,37,3]{1,0,2}"},
		{"u8[9,37,3]{1,0,2}", "u8[9,37,3]{2,1,0}"},
		{"u8[2,7,33,3]{3,2,1,0}", "u8[2,7,33,3]{2,1,3,0}"},
		{"u8[2,7,33,3]{2,1,3,0}", "u8[2,7,33,3]{3,2,1,0}"},
		{"bf16[3,11,17,3]{3,2,1,0}", "bf16[3,11,17,3]{2,1,3,0}"},
		{"f32[2,13,9,3]{3,2,1,0}", "f32[2,13,9,3]{2,1,3,0}"},
		{"f32[2,13,9,3]{2,1,3,0}", "f32[2,13,9,3]{3,2,1,0}"},
	} {
		from, to := parsePair(t, tc.from, tc.to)
		for _, streamMin := range []int64{-1, 0} {
			for _, threads := range []int{1, 2} {
				var plan *Plan
				tweak := func(p *Plan) { plan, p.parallelMin = p, 0 }
				if !checkPairWith(t, uint64(i), from, to, Options{Threads: threads}, streamMin, tweak) {
					t.Fatalf("%s -> %s: did not run", tc.from, tc.to)
				}
				if w := plan.walk(); w.kern != kernTranspose || w.inner.size != 3 && (w.outer == nil || w.outer.size != 3) {
					t.Errorf("%s -> %s: not a transpose with 3 rows or columns\n%s", tc.from, tc.to, plan)
				}
			}
		}
	}
}

// TestWidenedUnits checks which plans move runs of a few elements as
// wider elements (widen) and runs them against the reference, streamed
// and not, on one and two threads: column-major arrays to and from the
// tpu preset's tiles, whose pairs and quadruples become 4-byte units,
// permutations that keep a short last dim, and the cases that must stay
// element by element (a dim that does not divide into units, runs too
// long), and records: pixels of 3 channels, points of 3 floats, which
// move whole as 3-, 6- or 12-byte elements.
func TestWidenedUnits(t *testing.T) {
	tests := []struct {
		from, to string
		pad      Padding
		unit     int64
	}{
		{"bf16[32,384]{0,1}", "bf16[32,384]{1,0:T(8,128)(2,1)}", Padding{}, 2},
		{"bf16[32,384]{1,0:T(8,128)(2,1)}", "bf16[32,384]{0,1}", Padding{}, 2},
		{"bf16[14,300]{0,1}", "bf16[14,300]{1,0:T(8,128)(2,1)}", Padding{Kind: PadNaN}, 2},
		{"s8[16,256]{0,1}", "s8[16,256]{1,0:T(8,128)(4,1)}", Padding{}, 4},
		{"s8[16,256]{1,0:T(8,128)(4,1)}", "s8[16,256]{0,1}", Padding{}, 4},
		{"s8[20,130]{0,1}", "s8[20,130]{1,0:T(8,128)(4,1)}", Padding{Kind: PadValue, Value: 3}, 4},
		// A dim that does not divide into units: strides in elements and
		// a last unit that is part padding, as rows, as columns and as
		// the dim of neither kernel loop.
		{"s8[13,300]{0,1}", "s8[13,300]{1,0:T(8,128)(4,1)}", Padding{Kind: PadValue, Value: 3}, 4},
		{"s8[13,300]{1,0:T(8,128)(4,1)}", "s8[13,300]{0,1}", Padding{}, 4},
		{"bf16[7,301]{0,1}", "bf16[7,301]{1,0:T(8,128)(2,1)}", Padding{Kind: PadNaN}, 2},
		{"bf16[7,301]{1,0:T(8,128)(2,1)}", "bf16[7,301]{0,1}", Padding{}, 2},
		{"bf16[7,301]{1,0:T(8,128)(2,1)}", "bf16[7,301]{0,1}", Padding{Kind: PadValue, Value: 2, Widths: []int64{7, 400}}, 2},
		{"bf16[3,5,9]{0,1,2}", "bf16[3,5,9]{1,0,2:T(2,1)}", Padding{Kind: PadNaN}, 2},
		{"s8[3,7,11]{0,2,1}", "s8[3,7,11]{1,2,0:T(1,4)}", Padding{Kind: PadValue, Value: 3}, 1},
		{"bf16[5,3,7]{2,1,0:T(2,1,1)}", "bf16[5,3,7]{1,2,0:T(2,1,1)}", Padding{Kind: PadNaN}, 2},
		{"bf16[5,6,11]{2,1,0:T(2,1,1)}", "bf16[5,6,11]{1,2,0:T(2,4,4)(2,1,1)}", Padding{Kind: PadNaN}, 2},
		// Fewer elements than a unit holds: no whole unit, no units.
		{"s8[3,300]{0,1}", "s8[3,300]{1,0:T(8,128)(4,1)}", Padding{Kind: PadValue, Value: 3}, 1},
		// Strides of whole units (the source's dim held to 6) but 5
		// valid elements: the last unit is half padding.
		{"bf16[5,8]{0,1:T(1,6)}", "bf16[5,8]{1,0:T(4,8)(2,1)}", Padding{Kind: PadNaN}, 2},
		{"bf16[6,8]{0,1:T(1,6)}", "bf16[6,8]{1,0:T(4,8)(2,1)}", Padding{Kind: PadNaN}, 2},
		{"f32[16,256]{0,1}", "f32[16,256]{1,0:T(8,128)}", Padding{}, 1},
		{"u16[40,4,4]{2,1,0}", "u16[40,4,4]{2,0,1}", Padding{}, 4},
		{"f64[9,7,2]{2,1,0}", "f64[9,7,2]{2,0,1}", Padding{}, 2},
		{"f64[9,7,4]{2,1,0}", "f64[9,7,4]{2,0,1}", Padding{}, 1},
		{"f64[9,7,3]{2,1,0}", "f64[9,7,3]{2,0,1}", Padding{}, 1},
		{"u8[9,7,3]{2,1,0}", "u8[9,7,3]{2,0,1}", Padding{}, 3},
		{"u8[40,33,3]{2,0,1}", "u8[40,33,3]{2,1,0}", Padding{Kind: PadValue, Value: 9, Widths: []int64{48, 40, 3}}, 3},
		{"bf16[17,70,3]{2,1,0}", "bf16[17,70,3]{2,0,1}", Padding{Kind: PadNaN}, 3},
		{"f32[3,65,33,3]{3,2,1,0}", "f32[3,65,33,3]{3,1,2,0}", Padding{}, 3},
		{"u8[31,20,5]{2,1,0}", "u8[31,20,5]{2,0,1}", Padding{}, 5},
	}
	for i, tc := range tests {
		runVariants(t, uint64(i), tc.from, tc.to, tc.pad, func(plan *Plan) {
			if walkOf(plan).unit != tc.unit {
				t.Errorf("%s -> %s: units of %d elements, want %d\n%s", tc.from, tc.to, walkOf(plan).unit, tc.unit, plan)
			}
		})
	}
}

// checkSplit is checkPairWith for plans that split even when small
// (parallelMin 0), failing the test if the pair did not run, and returns
// the plan.
func checkSplit(t *testing.T, seed uint64, from, to Shape, opts Options, streamMin int64) *Plan {
	t.Helper()
	var plan *Plan
	if !checkPairWith(t, seed, from, to, opts, streamMin, func(p *Plan) { plan, p.parallelMin = p, 0 }) {
		t.Fatalf("%s -> %s: did not run", from, to)
	}
	return plan
}

// runVariants runs the pair from -> to against the reference streamed
// and not, on one and two threads (splitting even small plans), and hands
// each plan to check.
func runVariants(t *testing.T, seed uint64, fromText, toText string, pad Padding, check func(*Plan)) {
	t.Helper()
	from, to := parsePair(t, fromText, toText)
	for _, streamMin := range []int64{-1, 0} {
		for _, threads := range []int{1, 2} {
			plan := checkSplit(t, seed, from, to, Options{Pad: pad, Threads: threads}, streamMin)
			check(plan)
		}
	}
}

// TestPackedUnits runs relayouts between packed layouts whose units of
// elements fill whole bytes on both sides (packedUnits) against the
// reference, whole and chunk range by chunk range, streamed or not, on
// one and two threads, with padding; and checks that the cases whose
// units do not fill bytes keep the stages.
func TestPackedUnits(t *testing.T) {
	tests := []struct {
		from, to string
		pad      Padding
		units    bool
	}{
		{"s4[16,256]{0,1:E(4)}", "s4[16,256]{1,0:T(8,128)(8,1)E(4)}", Padding{}, true},
		{"s4[16,256]{1,0:T(8,128)(8,1)E(4)}", "s4[16,256]{0,1:E(4)}", Padding{}, true},
		{"u4[24,200]{0,1:E(4)}", "u4[24,200]{1,0:T(8,128)(8,1)E(4)}", Padding{Kind: PadValue, Value: 9}, true},
		{"u4[3,40,136]{1,2,0:E(4)}", "u4[3,40,136]{2,1,0:T(8,128)(8,1)E(4)}", Padding{Kind: PadValue, Value: 5}, true},
		{"u2[32,256]{0,1:E(2)}", "u2[32,256]{1,0:T(8,128)(8,1)E(2)}", Padding{Kind: PadValue, Value: 2}, true},
		{"u1[64,130]{0,1:E(1)}", "u1[64,130]{1,0:T(8,128)(8,1)E(1)}", Padding{Kind: PadValue, Value: 1}, true},
		{"s4[13,300]{0,1:E(4)}", "s4[13,300]{1,0:T(8,128)(8,1)E(4)}", Padding{}, false},
		// Dims that end in a partial unit, which both sides hold whole:
		// 1 of 8 fields; 7 of 8, with a padding value; 3 of 8.
		{"s4[40,2041]{1,0:T(128)E(4)}", "s4[40,2041]{0,1:T(8,128)(8,1)E(4)}", Padding{}, true},
		{"s4[15,40,1,64]{1,0,2,3:T(8,128)(8,1)E(4)}", "s4[15,40,1,64]{0,3,1,2:T(32,32)E(4)}", Padding{Kind: PadValue, Value: 3}, true},
		{"u4[19,33,5]{0,1,2:T(1,128)E(4)}", "u4[19,33,5]{1,0,2:T(8,128)(8,1)E(4)}", Padding{Kind: PadValue, Value: 11}, true},
		// Strides that are not whole units but whole bytes (countBytes):
		// columns of 14 fields; rows of 44 and 42 fields, whose last
		// unit of 4 or 2 fields the destination does not hold whole.
		{"s4[14,300]{0,1:E(4)}", "s4[14,300]{1,0:T(8,128)(8,1)E(4)}", Padding{}, true},
		{"u4[21,1,44]{0,2,1:T(8,128)(8,1)E(4)}", "u4[21,1,44]{2,1,0:E(4)}", Padding{}, true},
		{"u4[21,3,42]{0,2,1:T(8,128)(8,1)E(4)}", "u4[21,3,42]{2,1,0:E(4)}", Padding{Kind: PadValue, Value: 6}, true},
		// Rows of 43 fields: odd strides.
		{"u4[21,1,43]{0,2,1:T(8,128)(8,1)E(4)}", "u4[21,1,43]{2,1,0:E(4)}", Padding{}, false},
		// Run copies whose runs and strides are whole bytes move bytes
		// (units of 2 fields cut from the runs): rows of 50 fields into
		// tiles of 128, rows of 38 reordered, tiles of 128 into 256; rows
		// of 37 do not.
		{"u4[2,3,2,50]{3,2,1,0:E(4)}", "u4[2,3,2,50]{3,2,1,0:T(128)E(4)}", Padding{Kind: PadValue, Value: 7}, true},
		{"s4[5,3,38]{2,1,0:E(4)}", "s4[5,3,38]{2,0,1:E(4)}", Padding{}, true},
		{"u4[6,300]{1,0:T(128)E(4)}", "u4[6,300]{1,0:T(256)E(4)}", Padding{Kind: PadValue, Value: 3}, true},
		{"s4[5,3,37]{2,1,0:E(4)}", "s4[5,3,37]{2,0,1:E(4)}", Padding{}, false},
		// One run of whole dims on both sides, the tiles padding only
		// the array's end (wholeRun): to and from L(1024), rows of 2046
		// fields; rows of 1023 do not fill whole bytes.
		{"s4[3,2046]{1,0:L(1024)E(4)}", "s4[3,2046]{1,0:E(4)}", Padding{}, true},
		{"u4[3,2046]{1,0:E(4)}", "u4[3,2046]{1,0:L(1024)E(4)}", Padding{Kind: PadValue, Value: 9}, true},
		{"u4[2,5,1000]{2,1,0:E(4)}", "u4[2,5,1000]{2,1,0:L(1024)E(4)}", Padding{Kind: PadValue, Value: 4}, true},
		{"u4[3,1023]{1,0:E(4)}", "u4[3,1023]{1,0:L(1024)E(4)}", Padding{Kind: PadValue, Value: 9}, false},
		{"s4[16,256]{1,0:E(4)}", "s4[16,256]{0,1:E(4)}", Padding{}, false},
		{"s4[16,256]{0,1:E(4)}", "s4[16,256]{1,0:T(8,128)(8,1)}", Padding{}, false},
	}
	for i, tc := range tests {
		runVariants(t, uint64(i), tc.from, tc.to, tc.pad, func(plan *Plan) {
			w := plan.walk()
			if units := w != nil && w.unit > 1 && plan.from.isPacked(); units != tc.units {
				t.Errorf("%s -> %s: whole units %v, want %v\n%s", tc.from, tc.to, units, tc.units, plan)
			}
			if plan.stages() != nil {
				return
			}
			checkRangesAgainstReference(t, uint64(i), plan, tc.pad)
		})
	}
}

// TestPackedRunsStreamed checks which run copies of packed fields, past
// the caches, move whole bytes (packedUnits): streamed runs of a line or
// more whose destination rows start on lines do (rows of 1100 fields
// into tiles of 128: 576 bytes a row), others keep the stages (rows of
// 1138 fields untiled: 569 bytes a row); shorter runs do wherever they
// start (rows of 40 fields, 20 bytes, which do not stream). Each runs
// against the reference.
func TestPackedRunsStreamed(t *testing.T) {
	for i, c := range []struct {
		from, to       string
		bytes, streams bool
	}{
		{"u4[37,1100]{1,0:E(4)}", "u4[37,1100]{1,0:T(128)E(4)}", true, true},
		{"u4[37,1138]{1,0:T(1,128)E(4)}", "u4[37,1138]{1,0:E(4)}", false, false},
		{"s4[9,37,40]{2,1,0:E(4)}", "s4[9,37,40]{2,0,1:E(4)}", true, false},
	} {
		from, to := parsePair(t, c.from, c.to)
		plan := checkSplit(t, uint64(i), from, to, Options{Threads: 1}, 0)
		w := plan.walk()
		bytes := w != nil && w.unit > 1
		wantBytes, wantStreams := c.bytes, c.streams
		if !kernel.Streaming() { // nothing streams: all move bytes
			wantBytes, wantStreams = true, false
		}
		if streams := bytes && w.stream; bytes != wantBytes || streams != wantStreams {
			t.Errorf("%s -> %s: bytes %v, streamed %v; want %v, %v\n%s", c.from, c.to, bytes, streams, wantBytes, wantStreams, plan)
		}
	}
}

// TestWidenedRandom is the differential test for units: random arrays in
// a random order of their dims against tiles whose last level gathers
// 2, 4 or 8 rows into a 32-bit word ((2,1) for 16-bit types, (4,1) for
// 8-bit, (8,1) for packed 4-bit, as the tpu preset has them) and back,
// some with dims that do not divide into units or tiles, padding, on one
// and two threads, streamed or not, and those that move units chunk
// range by chunk range too.
func TestWidenedRandom(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 150
	}
	types := []struct {
		name string
		sub  int // rows a 32-bit word of the tile holds
		pack string
	}{{"bf16", 2, ""}, {"u16", 2, ""}, {"s8", 4, ""}, {"u8", 4, ""}, {"s4", 8, ":E(4)"}, {"u4", 8, ":E(4)"}}
	widened, packed, parted, elems := 0, 0, 0, 0
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 0x71de))
		ty := types[r.IntN(len(types))]
		rank := 2 + r.IntN(2)
		dims := make([]string, rank)
		for i := range dims {
			d := ty.sub * (1 + r.IntN(6))
			if r.IntN(3) == 0 {
				d = 1 + r.IntN(20)
			}
			dims[i] = strconv.Itoa(d)
		}
		order := func(p []int) string {
			s := make([]string, len(p))
			for i, v := range p {
				s[i] = strconv.Itoa(v)
			}
			return strings.Join(s, ",")
		}
		rows := ty.sub * (1 + r.IntN(2))
		cols := []int{4, 8, 16}[r.IntN(3)]
		pack := ty.pack
		tiles := fmt.Sprintf(":T(%d,%d)(%d,1)", rows, cols, ty.sub)
		if pack != "" {
			tiles += "E(4)"
			pack = ":E(4)"
		}
		plain := fmt.Sprintf("%s[%s]{%s%s}", ty.name, strings.Join(dims, ","), order(r.Perm(rank)), pack)
		tiled := fmt.Sprintf("%s[%s]{%s%s}", ty.name, strings.Join(dims, ","), order(r.Perm(rank)), tiles)
		from, to := parsePair(t, plain, tiled)
		if r.IntN(2) == 0 {
			from, to = to, from
		}
		opts := Options{Threads: 1 + r.IntN(2)}
		if r.IntN(3) == 0 {
			opts.Pad = Padding{Kind: PadValue, Value: float64(1 + r.IntN(3))}
		}
		var plan *Plan
		ran := checkPairWith(t, seed, from, to, opts, []int64{-1, 0}[r.IntN(2)], func(p *Plan) {
			plan, p.parallelMin = p, 0
			w := p.walk()
			if w == nil { // stages, whose byte plans do not widen
				return
			}
			if w.unit > 1 {
				widened++
			}
			if w.unit > 1 && p.from.isPacked() {
				packed++
			}
			if w.part != 0 {
				parted++
			}
			if w.step > 1 {
				elems++
			}
		})
		if w := plan.walk(); ran && w != nil && w.unit > 1 {
			src := fillRandom(plan.SourceSize(), seed)
			want := make([]byte, plan.DestinationSize())
			if err := Reference(want, src, from, to, opts.Pad); err != nil {
				t.Fatal(err)
			}
			checkRunRange(t, seed, plan, src, want, r)
		}
	}
	t.Logf("%d of %d pairs moved units, %d of them packed, %d with a partial unit, %d with strides in elements", widened, n, packed, parted, elems)
	if widened < n/4 || packed < n/20 || parted < n/50 || elems < n/50 {
		t.Errorf("only %d of %d pairs moved units, %d of them packed, %d with a partial unit, %d with strides in elements", widened, n, packed, parted, elems)
	}
}

// TestUnitStages runs relayouts between a packed layout and a layout of
// one value a byte whose packed form takes units (unitStages) against
// the reference, streamed or not, on one and two threads, with padding
// and signed values, and checks which plans take them.
func TestUnitStages(t *testing.T) {
	tests := []struct {
		from, to string
		pad      Padding
		units    bool
	}{
		{"s4[16,256]{0,1}", "s4[16,256]{1,0:T(8,128)(8,1)E(4)}", Padding{}, true},
		{"s4[16,256]{1,0:T(8,128)(8,1)E(4)}", "s4[16,256]{0,1}", Padding{}, true},
		{"s4[24,200]{0,1}", "s4[24,200]{1,0:T(8,128)(8,1)E(4)}", Padding{Kind: PadValue, Value: -3}, true},
		{"s4[24,200]{1,0:T(8,128)(8,1)E(4)}", "s4[24,200]{0,1:T(1,32)}", Padding{Kind: PadValue, Value: -5}, true},
		{"u2[32,136]{1,0:T(8,128)(8,1)E(2)}", "u2[32,136]{0,1}", Padding{}, true},
		{"s4[13,300]{0,1}", "s4[13,300]{1,0:T(8,128)(8,1)E(4)}", Padding{}, false},
		{"s4[16,256]{1,0}", "s4[16,256]{1,0:T(8,128)(8,1)E(4)}", Padding{}, false},
	}
	for i, tc := range tests {
		runVariants(t, uint64(i), tc.from, tc.to, tc.pad, func(plan *Plan) {
			if units := plan.stages() != nil && plan.stages().units != nil; units != tc.units {
				t.Errorf("%s -> %s: unit stages %v, want %v\n%s", tc.from, tc.to, units, tc.units, plan)
			}
		})
	}
}

// TestCopyPlans checks which plans copy the buffer whole (copyAll,
// tilecopy.Copy): those whose layouts place every byte alike, packed or
// tiled (a packed last byte's bits past the last field cleared), and not
// those with padding, a tail, a permutation or fields that hold padding
// bits. Each runs against the reference on one and two goroutines.
func TestCopyPlans(t *testing.T) {
	for _, c := range []struct {
		from, to string
		pad      Padding
		copies   bool
	}{
		{"f32[4096]{0}", "f32[4096]{0}", Padding{}, true},
		{"f32[8,128]{1,0}", "f32[8,128]{1,0:T(8,128)}", Padding{}, true},
		{"bf16[64,256]{1,0:T(8,128)(2,1)}", "bf16[64,256]{1,0:T(8,128)(2,1)}", Padding{}, true},
		{"u4[64,256]{1,0:E(4)}", "u4[64,256]{1,0:E(4)}", Padding{}, true},
		{"s4[33,35]{1,0:E(4)}", "s4[33,35]{1,0:E(4)}", Padding{}, true},    // the last byte's second field cleared
		{"u4[1,1155]{1,0:E(4)}", "u4[1,1155]{0,1:E(4)}", Padding{}, true},  // a dim of one moves nothing
		{"s2[64,256]{1,0:E(4)}", "s2[64,256]{1,0:E(4)}", Padding{}, false}, // each field holds two padding bits
		{"s4[64,256]{1,0:T(8,128)(8,1)E(4)}", "s4[64,256]{1,0:T(8,128)(8,1)E(4)}", Padding{}, true},
		{"f32[9,128]{1,0:T(8,128)}", "f32[9,128]{1,0:T(8,128)}", Padding{}, false}, // tile padding
		{"f32[100]{0}", "f32[100]{0:L(64)}", Padding{}, false},                     // tail padding
		{"f32[64,64]{1,0}", "f32[64,64]{1,0}", Padding{Widths: []int64{64, 65}}, false},
		{"f32[64,64]{1,0}", "f32[64,64]{0,1}", Padding{}, false},
		{"f32[1,64,1]{2,1,0}", "f32[1,64,1]{0,1,2}", Padding{}, true}, // dims of one move nothing
	} {
		runVariants(t, 7, c.from, c.to, c.pad, func(p *Plan) {
			if p.copies() != c.copies {
				t.Errorf("%s -> %s: copies %v, want %v\n%s", c.from, c.to, p.copies(), c.copies, p)
			}
		})
	}
}

// TestCombinedPlans checks that layouts with combined (*) tile dims whose
// tiles divide them run as strided plans, and the others element by
// element, each against the reference, streamed or not, on one and two
// goroutines.
func TestCombinedPlans(t *testing.T) {
	for _, c := range []struct {
		from, to string
		mode     planMode
	}{
		{"f32[4,6,64,64]{3,2,1,0}", "f32[4,6,64,64]{3,2,1,0:T(*,8,128)}", modeStrided},
		{"f32[4,6,64,64]{3,2,1,0:T(*,8,128)}", "f32[4,6,64,64]{0,1,2,3}", modeStrided},
		{"bf16[3,5,16,256]{3,2,1,0:T(*,8,128)(2,1)}", "bf16[3,5,16,256]{3,2,1,0:T(8,128)(2,1)}", modeStrided},
		{"u8[3,5,4]{2,1,0}", "u8[3,5,4]{2,1,0:T(*,8)}", modeStrided},
		{"f32[4,6,60,64]{3,2,1,0}", "f32[4,6,60,64]{3,2,1,0:T(*,8,128)}", modeElementwise},
		{"u8[5,3,4]{2,1,0}", "u8[5,3,4]{2,1,0:T(*,*,8)}", modeElementwise},
	} {
		runVariants(t, 11, c.from, c.to, Padding{}, func(p *Plan) {
			if w := walkOf(p); w.mode != c.mode {
				t.Errorf("%s -> %s: mode %d, want %d\n%s", c.from, c.to, w.mode, c.mode, p)
			}
		})
	}
}

// TestPlanStringTerms checks, over random pairs, what String says of the
// dims and sizes: each logical dim's valid count in elements is its size,
// however the plan counts it (units where runs widen), no dim holds fewer
// places than it has elements, the header's destination shape (widened
// by Padding.Widths) is DestinationSize bytes, and the legend is there.
func TestPlanStringTerms(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 600
	}
	widened, united := 0, 0
	for seed := range uint64(n) {
		from, to, opts := randomPair(seed)
		p, err := Compile(from, to, &opts)
		if err != nil {
			continue
		}
		s := p.String()
		header, _, _ := strings.Cut(s, "\n")
		if opts.Pad.Widths != nil && !slices.Equal(opts.Pad.Widths, to.dims) {
			widened++
			_, text, ok := strings.Cut(header, ", padded to ")
			w, err := ParseShape(text)
			if !ok || err != nil {
				t.Fatalf("seed %d: header %q names no widened shape (%v)", seed, header, err)
			}
			if size, err := w.ByteSize(); err != nil || size != p.DestinationSize() {
				t.Fatalf("seed %d: header %q: %s is %d bytes, DestinationSize %d", seed, header, w, size, p.DestinationSize())
			}
		} else if strings.Contains(header, "padded to") {
			t.Fatalf("seed %d: header %q without widths", seed, header)
		}
		if !strings.Contains(s, fmt.Sprintf("destination %d;", p.DestinationSize())) {
			t.Fatalf("seed %d: String does not say DestinationSize %d:\n%s", seed, p.DestinationSize(), s)
		}
		_, line, ok := strings.Cut(s, "dims (elements valid/held):")
		_, peeled := p.exec.(*peeled)
		_, mixed := p.exec.(*mixed)
		if !ok || peeled || mixed {
			continue // a plan without a loop nest, of parts with their own dims (TestPeel), or of a byte plan of halved dims
		}
		if !strings.Contains(s, "legend: dN is planner dim N") {
			t.Fatalf("seed %d: no legend:\n%s", seed, s)
		}
		if w := p.walk(); w != nil && w.unit > 1 {
			united++
		}
		line, _, _ = strings.Cut(line, "\n")
		for f := range strings.FieldsSeq(line) {
			var d int
			var valid, held int64
			if _, err := fmt.Sscanf(f, "d%d=%d/%d", &d, &valid, &held); err != nil {
				t.Fatalf("seed %d: dims entry %q: %v", seed, f, err)
			}
			if d < len(from.dims) && valid != from.dims[d] || held < valid {
				t.Fatalf("seed %d: %s -> %s: d%d=%d/%d, want %d valid elements\n%s", seed, from, to, d, valid, held, from.dims[d], s)
			}
		}
	}
	t.Logf("%d plans with widths, %d counting units", widened, united)
	if widened == 0 || united == 0 {
		t.Errorf("no plan with widths (%d) or counting units (%d)", widened, united)
	}
}

// TestPadValues runs pairs whose destination holds runs of padding
// values of a loop (a dim of 34 in tiles of 128, rows past the end of
// the last tile) against the reference, streamed and not, on one and two
// threads, and checks that a whole walk filled them a run at a time
// (padValues) rather than a kernel rectangle at a time.
func TestPadValues(t *testing.T) {
	for _, tc := range []struct{ from, to string }{
		// The pairs of two (2,1) tiles swap places: 2×2 blocks, with 94
		// of each tile row's 128 places padding.
		{"bf16[4,34,3,16]{1,0,3,2:T(8,128)(2,1)}", "bf16[4,34,3,16]{1,3,2,0:T(8,128)(2,1)}"},
		// A permutation of 4-D bf16 between its tiles.
		{"bf16[6,3,5,40]{3,2,1,0:T(8,128)(2,1)}", "bf16[6,3,5,40]{2,3,0,1:T(8,128)(2,1)}"},
		// A transpose whose tiles' columns hold 33 of 128.
		{"u8[33,4,70]{2,1,0}", "u8[33,4,70]{1,0,2:T(8,128)}"},
	} {
		runVariants(t, 5, tc.from, tc.to, PadWith(3), func(*Plan) {})
		from, to := parsePair(t, tc.from, tc.to)
		plan, err := Compile(from, to, &Options{Pad: PadWith(3)})
		if err != nil {
			t.Fatal(err)
		}
		if w := wholeWalk(plan); w.padFills == 0 {
			t.Errorf("%s -> %s: no run of padding values filled at once\n%s", tc.from, tc.to, plan)
		}
	}
}

// TestStreamFill runs streamed plans whose padding comes in runs of
// streamFillBytes or more (the empty rows of tiles a narrow array
// leaves, a row's padded end), or in whole lines, against the reference, on one and two
// threads, whole and by chunks, and checks that a whole walk streamed
// them from the pattern buffer (streamFill).
func TestStreamFill(t *testing.T) {
	for _, tc := range []struct{ from, to string }{
		{"f16[4,3000]{1,0}", "f16[4,3000]{1,0:T(8,128)(2,1)}"},
		{"u8[3,5000]{1,0}", "u8[3,5000]{1,0:T(8,128)(4,1)}"},
		{"bf16[2,3,4000]{2,1,0}", "bf16[2,3,4000]{2,1,0:T(8,128)(2,1)}"},
		{"f32[3,5008]{0,1}", "f32[3,5008]{1,0:T(8,128)}"},
		// Runs of 128 bytes, whole lines: each row's second half.
		{"u8[8,4,128,128]{2,0,1,3:T(1,128)}", "u8[8,4,128,128]{3,2,0,1:T(256)}"},
	} {
		from, to := parsePair(t, tc.from, tc.to)
		for _, threads := range []int{1, 2} {
			checkSplit(t, 13, from, to, Options{Pad: PadWith(9), Threads: threads}, 0)
		}
		plan, err := compile(from, to, &Options{Pad: PadWith(9)}, 0, true)
		if err != nil {
			t.Fatal(err)
		}
		if w := wholeWalk(plan); w.streamFills == 0 && kernel.Streaming() {
			t.Errorf("%s -> %s: no padding streamed from the pattern\n%s", tc.from, tc.to, plan)
		}
	}
}

// TestPadGrid runs transposes whose rectangles continue each other's
// destination rows with a few columns of padding each (a narrow dim in a
// tile) against the reference, streamed and not, on one and two threads,
// whole and by chunks, and checks that a whole walk moved them through
// padGrid's buffer.
func TestPadGrid(t *testing.T) {
	for _, tc := range []struct{ from, to string }{
		{"s8[300,50,3]{0,2,1}", "s8[300,50,3]{2,1,0:T(8,8)}"},
		{"bf16[100,37,5]{0,2,1}", "bf16[100,37,5]{2,1,0:T(8,8)}"},
		{"f32[70,20,2]{0,2,1}", "f32[70,20,2]{2,1,0:T(4,4)}"},
	} {
		runVariants(t, 17, tc.from, tc.to, PadWith(6), func(*Plan) {})
		walkBoth(t, tc.from, tc.to, PadWith(6), func(streamMin int64, plan *Plan, w *walker) {
			if w.padGrids == 0 {
				t.Errorf("%s -> %s (stream from %d): no rectangles through padGrid\n%s", tc.from, tc.to, streamMin, plan)
			}
		})
	}
}

// TestEdgeRows runs tiles whose last group of rows is partial ((2,1)
// and (4,1) tiles of a few rows, untiled) against the reference,
// streamed and not, on one and two threads, whole and by chunks, and
// checks that a whole walk moved that group as one box (edgeRows); a
// destination that holds the group's padding rows walks it tile by
// tile, and a partial group alone is the kernel's rows.
func TestEdgeRows(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		edge     bool
	}{
		{"bf16[3,1000]{1,0:T(8,128)(2,1)}", "bf16[3,1000]{1,0}", true},
		{"bf16[2,5,700]{2,1,0:T(8,128)(2,1)}", "bf16[2,5,700]{2,1,0}", true},
		{"u8[3,2000]{1,0:T(8,128)(4,1)}", "u8[3,2000]{1,0}", false}, // one group, partial: the kernel's own rows
		{"s8[6,999]{1,0:T(8,128)(4,1)}", "s8[6,999]{1,0}", true},
		{"bf16[3,1000]{1,0:T(8,128)(2,1)}", "bf16[3,1000]{1,0:T(2,128)}", false},
	} {
		runVariants(t, 19, tc.from, tc.to, PadWith(6), func(*Plan) {})
		walkBoth(t, tc.from, tc.to, PadWith(6), func(streamMin int64, plan *Plan, w *walker) {
			if (w.edges > 0) != tc.edge {
				t.Errorf("%s -> %s (stream from %d): %d partial groups as boxes, want them %v\n%s", tc.from, tc.to, streamMin, w.edges, tc.edge, plan)
			}
		})
	}
}

// TestEdgeCols runs arrays of a few rows tiled into a tile's groups of
// rows ((4,1) and (2,1) tiles, the rows fewer than a group, the last tile
// along the rows ragged or not) against the reference, streamed and not,
// on one and two threads, whole and by chunks, and checks that a whole
// walk moved the partial groups and their padding as one box (edgeCols)
// where the level's kernels write a group's padding (kernel.KeepsCols).
func TestEdgeCols(t *testing.T) {
	for _, tc := range []struct {
		from, to       string
		width, cols, k int
	}{
		{"u8[3,2000]{1,0}", "u8[3,2000]{1,0:T(8,128)(4,1)}", 1, 3, 4},
		{"s8[2,1024]{1,0}", "s8[2,1024]{1,0:T(8,128)(4,1)}", 1, 2, 4},
		{"bf16[1,999]{1,0}", "bf16[1,999]{1,0:T(8,128)(2,1)}", 2, 1, 2},
		{"u8[2,3,700]{2,1,0}", "u8[2,3,700]{2,1,0:T(8,128)(4,1)}", 1, 3, 4},
		// Whole groups before the partial one.
		{"bf16[3,999]{1,0}", "bf16[3,999]{1,0:T(8,128)(2,1)}", 2, 1, 2},
		{"u8[6,1300]{1,0}", "u8[6,1300]{1,0:T(8,128)(4,1)}", 1, 2, 4},
	} {
		runVariants(t, 23, tc.from, tc.to, PadWith(6), func(*Plan) {})
		want := kernel.KeepsCols(tc.width, tc.cols, tc.k*tc.width)
		walkBoth(t, tc.from, tc.to, PadWith(6), func(streamMin int64, plan *Plan, w *walker) {
			if (w.padEdges > 0) != want {
				t.Errorf("%s -> %s (stream from %d): %d boxes of partial groups, want them %v\n%s", tc.from, tc.to, streamMin, w.padEdges, want, plan)
			}
		})
	}
}

// TestRowsOffLinesStayInCaches checks which block transposes past the
// caches stream: not those whose destination rows, 2 to 16 lines and no
// whole number of them, the next step goes on along (rowsGoOnOffLines).
func TestRowsOffLinesStayInCaches(t *testing.T) {
	for _, c := range []struct {
		from, to string
		stream   bool
	}{
		{"s8[43,172,268,21]{2,3,1,0:T(256)}", "s8[43,172,268,21]{1,3,2,0}", false}, // 172-byte rows
		{"c64[57,179,331]{2,1,0}", "c64[57,179,331]{0,1,2}", false},                // 456-byte rows
		{"f32[17,118,41,128]{3,2,1,0}", "f32[17,118,41,128]{0,2,3,1}", true},       // 68 bytes: a line and 4 bytes
		{"f32[3,922,1152]{2,0,1:T(8,128)}", "f32[3,922,1152]{1,0,2}", true},        // 3688 bytes
		{"f32[8192,8192]{1,0}", "f32[8192,8192]{0,1}", true},                       // whole lines
	} {
		from, to := parsePair(t, c.from, c.to)
		p, err := Compile(from, to, nil)
		if err != nil {
			t.Fatal(err)
		}
		w := walkOf(p)
		if w == nil || w.kern != kernTranspose {
			t.Fatalf("%s -> %s: no block transpose\n%s", c.from, c.to, p)
		}
		if w.stream != c.stream {
			t.Errorf("%s -> %s: streams %v, want %v\n%s", c.from, c.to, w.stream, c.stream, p)
		}
	}
}
