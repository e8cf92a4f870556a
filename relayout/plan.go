package relayout

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/tilecopy/tilecopy/internal/kernel"
	"github.com/tilecopy/tilecopy/tiling"
)

// Options tune Compile.
type Options struct {
	// Pad is what the destination's padding receives (zero by default).
	Pad Padding
	// Threads is the number of goroutines a Run may use; 0 means
	// GOMAXPROCS (runtime.GOMAXPROCS(0) when Compile runs), 1 the calling
	// goroutine only, and a negative count is an error (ErrBadOptions).
	// A destination under 4 MiB
	// always runs on the calling goroutine, as do the unpack and pack
	// stages of sub-byte packed layouts that cannot run slab by slab.
	Threads int
	// Saturate makes a conversion from an integer type to a narrower one
	// clamp values out of the destination's range to its nearest bound;
	// without it they wrap (the destination keeps the low bits), as
	// XLA's convert does. Other conversions ignore it.
	Saturate bool
	// inCache says that the plan writes a temporary that stays in the
	// caches (a conversion plan's slabs): it never streams, transposes
	// included.
	inCache bool
	// forceBlocked makes Compile take a blocked plan wherever it can
	// build one (tests).
	forceBlocked bool
	// sliceElems, where more than 0, is the places a slice of a sliced
	// plan holds instead of sliceTarget, with runs of any length (tests,
	// to slice small arrays).
	sliceElems int64
	// forceMixed makes Compile take a mixed plan wherever it can build
	// one (tests, on arrays too small to slice).
	forceMixed bool
	// byteUnits, where more than 1, lets a walk whose innermost loop
	// is contiguous on both sides move it as runs of units of that many
	// elements (widen): packedUnits asks for the fields of a byte.
	byteUnits int64
}

// Plan is a compiled relayout from one layout to another. It is immutable
// and safe for concurrent use by several goroutines.
type Plan struct {
	header
	// exec runs the plan: one executor for each kind of plan.
	exec executor
}

// header is what every kind of plan holds: the shapes and their index
// maps, the buffer sizes, how a Run may share out its work and the sizes
// from which it streams. A plan's executors point to its header (a
// copyAll to its parallelism).
type header struct {
	from, to Shape
	fm, tm   *tiling.Map
	srcBytes int64
	parallelism
	dtype DType
	// padPat is one padding element at the type's natural width, as
	// Options.Pad gives it (a walk's pattern may be a unit of several).
	padPat []byte
	// streamMin is the size of source and destination together from
	// which the plan writes as one stream past the caches
	// (Tuning.RunStreamBytes; tests lower it). See pastCaches.
	streamMin int64
	// transposeMin is that size for the plans of the block transposes
	// and the run copies of 16- and 32-byte runs:
	// Tuning.TransposeStreamBytes where that is less. See transposePast.
	transposeMin int64
}

// executor is how a plan of one kind runs and says what it does: a
// walk of a loop nest (walkPlan), or of its blocks through the caches
// (blocked), packing stages for packed sub-byte sides (staged), a
// conversion between element types (converting), or a copy of the
// whole buffer (copyAll). Run, RunRange and the threads
// call it once for a Run or a range of chunks, never for an element.
type executor interface {
	// run runs the whole plan into dst from src, which Run has checked.
	run(dst, src []byte) error
	// chunks is the number of parts RunRange can run one at a time.
	chunks() int64
	// runChunks runs chunks [lo, hi), 0 ≤ lo < hi ≤ chunks(), of a plan
	// of more than one, on the calling goroutine; the buffers have been
	// checked.
	runChunks(dst, src []byte, lo, hi int64)
	// chunkRange returns the destination bytes [from, to) that chunks
	// [lo, hi) write into, for a plan of more than one and lo < hi.
	chunkRange(lo, hi int64) (from, to int64)
	// padding describes the padding pattern the plan writes, for String.
	padding() string
	// explain writes the lines of String that follow the header's.
	explain(b *strings.Builder)
}

// walkPlan is the plan of a relayout that walks a loop nest over the
// elements (strided or gather mode), moves them one at a time through
// the index maps (elementwise) or only fills padding (an empty array).
type walkPlan struct {
	*header       // the plan's
	width   int64 // bytes per element (per unit, when unit > 1)
	unit    int64 // elements each moved element holds: 1, or the runs widen joins
	widens  bool  // whether build may widen (not in a staged plan's byte plans)
	// byteUnits is Options.byteUnits: units of that many elements that
	// widen may make of runs that no transpose moves.
	byteUnits int64
	// swap is set where the walk moves blocks that both sides hold
	// turned around (swapUnits); noSwap keeps build from looking for
	// them.
	swap   *unitSwap
	noSwap bool
	pat    []byte // one padding element, natural width (a unit's, when unit > 1)
	// step is the offset one moved element spans in the plan's offsets,
	// strides and tail: 1, or unit where widen keeps them in elements
	// (see offBytes).
	step int64
	// udim and part: where widen joins runs of a dim whose size is not a
	// multiple of unit, that dim (udim) ends in a unit that holds part
	// elements (the rest of it is padding) and the walker counts its
	// budgets in elements; part is 0 otherwise. partHeld says that the
	// dim has no padding, so that its partial unit is the last place the
	// destination holds (part elements, then another dim's): nothing
	// writes it as a whole unit.
	udim       int
	part       int64
	partHeld   bool
	splitOuter bool // Threads and RunRange split the kernel's rows, not loops[0]

	mode planMode
	dims []pdim // planner dimensions: logical ones, then the destination's prepended ones
	// folded, in a walk that unmerged cut (for a blocked plan), is the
	// dim whose merged loop each of the last len(folded) dims came out
	// of: the full dims folded into it, as one.
	folded  []int
	loops   []ploop // the outer loops, outermost first
	kern    kernelKind
	outer   *ploop       // the kernel's outer loop (rows), nil for a single row
	inner   ploop        // the kernel's inner loop, contiguous in the destination
	ahead   int64        // run kernel: source elements to the next call's runs, to prefetch; 0 for none
	stream  bool         // the destination is large, write every block as part of it (transpose and run kernels)
	tables  [][]int64    // gather mode: source element offset of each logical index, per dim
	runs    []int64      // gather mode: length of the contiguous stretch at each index of the inner dim's table
	offsets [2][][]int64 // elementwise mode: destination and source offsets per dim (tiling.Map.DimOffsets), or nil
	tail    [2]int64     // destination elements [tail[0], tail[1]) are tail padding
	spans   [][]dimSpan  // per loop level: what each dim below must hold for a dense box
	why     []string     // explanation lines for String
	walkers *sync.Pool   // walkers that Runs are done with (newWalker); shared by unmerged's copy
}

// compiled returns p's executor, or for a plan that copies the buffer
// whole (copyAll), the executor it was compiled as.
func (p *Plan) compiled() executor {
	if c, ok := p.exec.(*copyAll); ok {
		return c.executor
	}
	return p.exec
}

// walk returns p's walk of a loop nest (for a plan that copies the
// buffer whole, the walk it was compiled as), or nil for a plan of
// another kind.
func (p *Plan) walk() *walkPlan {
	w, _ := p.compiled().(*walkPlan)
	return w
}

// copies reports whether a Run of p copies the buffer whole (copyAll).
func (p *Plan) copies() bool {
	_, ok := p.exec.(*copyAll)
	return ok
}

// stages returns p's packing stages, or nil for a plan without a packed
// sub-byte side (or one over whole units: packedUnits).
func (p *Plan) stages() *staged {
	st, _ := p.compiled().(*staged)
	return st
}

// conversion returns p's conversion, or nil for a plan between shapes of
// one element type.
func (p *Plan) conversion() *converting {
	c, _ := p.exec.(*converting)
	return c
}

type planMode uint8

const (
	modeStrided     planMode = iota // source offsets linear in the loop digits
	modeGather                      // source offsets from per-dimension tables
	modeElementwise                 // one element at a time through the index maps
	modeFill                        // the array is empty: the destination is all padding
)

type kernelKind uint8

const (
	kernRun       kernelKind = iota // runs contiguous on both sides: memmove
	kernTranspose                   // 2-D block transpose
	kernGather                      // per-element source offsets
)

// dimSpan says that the loops from some level inward cover span values of
// dim: where the budgets of every such dim reach its span, the box below is
// all elements and runs without budget checks.
type dimSpan struct {
	dim  int
	span int64
}

// pdim is a planner dimension: n elements are valid, the destination holds
// e places (e ≥ n; the rest is padding).
type pdim struct {
	n, e int64
}

// ploop is one loop of the nest: a digit of planner dimension dim.
type ploop struct {
	dim   int
	w     int64 // weight in dim's index
	size  int64 // trip count
	scale int64 // > 1 when a full dimension of that many values was merged in (w is then 1)
	dst   int64 // destination stride in elements
	src   int64 // source stride in elements (strided mode)
}

// Compile plans the relayout of arrays laid out as from into arrays laid
// out as to. Both must be static dense arrays of the same logical
// dimensions. Where their element types differ, the plan converts each
// element as it moves it (float types among themselves, integer types
// among themselves: see Options.Saturate); other pairs fail with
// ErrTypeMismatch. Compiling costs microseconds; running the plan costs
// one pass over the destination.
func Compile(from, to Shape, opts *Options) (*Plan, error) {
	p, err := compile(from, to, opts, int64(currentTuning().RunStreamBytes), true)
	if err != nil {
		return nil, err
	}
	if q := p.peel(opts); q != nil {
		return q, nil
	}
	if q := p.masked(opts); q != nil {
		return q, nil
	}
	// A pair of 4-bit layouts whose bytes pair fields along different
	// dims moves its bytes as they are (mixed) where slices, or stages
	// that unpack and pack, would move twice as many three times.
	st, unpacks := p.exec.(*staged)
	unpacks = unpacks && st.unpacksAll()
	q := p.sliced(opts)
	if q != nil || unpacks || opts != nil && opts.forceMixed {
		if m := p.mixed(opts); m != nil {
			return m, nil
		}
	}
	if q != nil {
		return q, nil
	}
	p.block(opts)
	return p, nil
}

// compile is Compile with the destination size from which the plan
// streams (tests lower it to stream small cases) and whether it may move
// runs as wider elements (widen; a staged plan's byte plans may not, as
// their slabs read their loops as bytes).
func compile(from, to Shape, opts *Options, streamMin int64, widens bool) (*Plan, error) {
	if opts == nil {
		opts = &Options{}
	}
	if opts.Threads < 0 {
		return nil, fmt.Errorf("%w: Threads %d: want 0 (GOMAXPROCS) or more", ErrBadOptions, opts.Threads)
	}
	fm, tm, pat, err := prepare(from, to, opts.Pad)
	if err != nil {
		return nil, err
	}
	p := &Plan{header: header{
		from: from.clone(), to: to.clone(), fm: fm, tm: tm,
		srcBytes:    fm.Bytes(),
		parallelism: parallelism{threads: threadCount(opts.Threads), parallelMin: int64(currentTuning().ParallelMinBytes), dstBytes: tm.Bytes()},
		dtype:       to.dtype, padPat: pat, streamMin: streamMin,
		transposeMin: min(streamMin, int64(currentTuning().TransposeStreamBytes)),
	}}
	if from.dtype != to.dtype {
		return compileConvert(p, opts)
	}
	if opts.inCache {
		p.streamMin, p.transposeMin = math.MaxInt64, math.MaxInt64
	}
	if from.isPacked() || to.isPacked() {
		if widens {
			if q := packedUnits(p, opts); q != nil {
				return q, nil
			}
		}
		st, err := compileStaged(p, opts)
		if err != nil {
			return nil, err
		}
		p.exec = st
		if st.placesAlike(p) {
			p.exec = &copyAll{executor: st, parallelism: &p.parallelism, clear: (8 - st.dstCount*int64(st.dstBits)%8) % 8}
		}
		return p, nil
	}
	w := newWalkPlan(p, pat, widens)
	w.byteUnits = opts.byteUnits
	p.exec = w
	switch {
	case fm.LogicalCount() == 0:
		w.mode = modeFill
		w.why = append(w.why, "the array has no elements: the destination is all padding")
	case !fm.Exact() || !tm.Exact():
		w.mode = modeElementwise
		w.why = append(w.why, "tiles that split inside a tile, or inside a digit of combined (*) dims: element by element through the index maps")
		w.elementTables()
	default:
		w.build()
		if w.swap != nil {
			p.exec = p.swapWalk(pat, widens)
			return p, nil
		}
		if w.placesAlike() {
			p.exec = &copyAll{executor: w, parallelism: &p.parallelism}
		}
	}
	return p, nil
}

// newWalkPlan returns a walk for p, not yet built, with padding element
// pat; widens says whether build may widen.
func newWalkPlan(p *Plan, pat []byte, widens bool) *walkPlan {
	return &walkPlan{header: &p.header, pat: pat, widens: widens, unit: 1, step: 1, walkers: new(sync.Pool),
		width: int64(p.to.dtype.ByteWidth()),
		tail:  [2]int64{product(p.tm.PhysicalDims()), p.tm.Elements()}}
}

// placesAlike reports whether a strided plan puts every element at the
// offset it had: the destination holds no padding, both sides are the
// same size and every loop steps both alike. Such a relayout (an
// identity, or a tiled layout whose tiles are rows of the other) is a
// copy of the buffer.
func (p *walkPlan) placesAlike() bool {
	if p.mode != modeStrided || p.srcBytes != p.dstBytes || p.tail[1] > p.tail[0] || p.part != 0 {
		return false
	}
	for _, d := range p.dims {
		if d.n != d.e {
			return false
		}
	}
	for _, l := range p.loops {
		if l.dst != l.src {
			return false
		}
	}
	return (p.outer == nil || p.outer.dst == p.outer.src) && p.inner.dst == p.inner.src
}

// elementTables gives an elementwise plan the offsets of each side per
// logical dim where neither side combines dims (tiling.Map.DimOffsets),
// so that its Run sums two table entries an element instead of walking
// both index maps, unless the tables would hold more than
// maxTableEntries.
func (p *walkPlan) elementTables() {
	if len(p.to.dims) == 0 || sum(p.tm.Dims()) > maxTableEntries {
		return
	}
	dst, ok := p.tm.DimOffsets()
	if !ok {
		return
	}
	src, ok := p.fm.DimOffsets()
	if !ok {
		return
	}
	p.offsets = [2][][]int64{dst, src}
	p.why = append(p.why, "neither side combines dims: each element's offsets are sums of per-dim tables")
}

// padding describes a walk's padding pattern: per element, or per unit
// where the plan moves units (of packed fields, perhaps).
func (p *walkPlan) padding() string {
	if p.unit > 1 {
		return fmt.Sprintf("% x per unit of %d elements", p.pat, p.unit)
	}
	return fmt.Sprintf("% x per element", p.pat)
}

// padding describes the padding pattern of a plan that writes whole
// elements of it (stages and conversions), for String.
func (h *header) padding() string { return fmt.Sprintf("% x per element", h.padPat) }

// packedUnits plans a relayout between two layouts that pack the same
// fields, at the type's width, as a plan over whole bytes, or returns nil:
// where the plan of the unpacked arrays moves units of elements that fill
// whole bytes (a column-major s4 array to the tpu preset's
// T(8,128)(8,1)E(4) and back: the 8 values of a tile's column are 4
// contiguous bytes on both sides), that plan runs on the packed buffers
// as it is, its units k*bits/8 bytes wide. Its counts and strides are in
// units, which both sides hold whole and in the same order, but for the
// last unit of a dim whose size is not a multiple of k (the walker's
// partUnits moves its fields, from a whole byte on, with the bits of
// its last byte that are not theirs kept); such a unit that ends the
// places the destination holds must end on a whole byte, as what
// follows it there may be another goroutine's to write.
func packedUnits(p *Plan, opts *Options) *Plan {
	bits := int64(p.fm.ElementBits())
	if !p.from.isPacked() || !p.to.isPacked() || int64(p.tm.ElementBits()) != bits || int64(p.dtype.Bits()) != bits {
		return nil
	}
	mid, err := compile(unpacked(p.from), unpacked(p.to), opts, p.streamMin, true)
	if err != nil {
		return nil
	}
	m := mid.walk()
	if k := 8 / bits; m != nil && m.mode == modeStrided && m.unit == 1 && m.kern == kernRun && k > 1 {
		// A run copy: its runs may move as whole bytes. Streamed, runs
		// of a line or more must start on lines, else the streaming
		// kernel writes part lines at both ends of every run (untiling
		// u4 rows of 1138 fields, 569 bytes, ran slower so than through
		// the stages); shorter ones join into lines.
		o := *opts
		o.byteUnits = k
		if mid, err = compile(unpacked(p.from), unpacked(p.to), &o, p.streamMin, true); err != nil {
			return nil
		}
		if m = mid.walk(); m != nil && m.stream && m.inner.size*m.unit*bits/8 >= lineBytes && !m.runsOnLines(m.unit*bits/8) {
			return nil
		}
	}
	if m == nil || m.mode != modeStrided || m.unit*bits%8 != 0 || m.partHeld && m.part*bits%8 != 0 {
		return nil
	}
	width := m.unit * bits / 8
	if m.step != 1 && !m.countBytes(8/bits) {
		return nil
	}
	q := mid // its own: compiled here for this plan alone
	q.from, q.to, q.fm, q.tm = p.from, p.to, p.fm, p.tm
	q.srcBytes, q.dstBytes = p.srcBytes, p.dstBytes
	w := q.walk()
	w.width = width
	v := p.padPat[0] & byte(1<<bits-1)
	for b := bits; b < 8; b <<= 1 {
		v |= v << b
	}
	w.pat = bytes.Repeat([]byte{v}, int(w.width))
	unitBytes := fmt.Sprintf("%d bytes", w.width)
	if w.width == 1 {
		unitBytes = "a byte"
	}
	w.why = append(w.why, fmt.Sprintf("both sides pack %d-bit fields and each unit fills whole bytes: the plan runs on the packed buffers, %s a unit", bits, unitBytes))
	return q
}

// runsOnLines reports whether every run of the walk starts a whole
// number of cache lines from the first, at width bytes a moved element
// (of step offsets): each loop's destination stride is whole lines.
func (p *walkPlan) runsOnLines(width int64) bool {
	all := slices.Clone(p.loops)
	if p.outer != nil {
		all = append(all, *p.outer)
	}
	for _, l := range all {
		if l.size > 1 && l.dst*width%(lineBytes*p.step) != 0 {
			return false
		}
	}
	return true
}

// String explains the plan: the loop nest with its digits and strides,
// the kernel and why it was chosen.
func (p *Plan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "relayout %s -> %s", p.from, p.to)
	if !slices.Equal(p.tm.Dims(), p.to.dims) { // Padding.Widths
		fmt.Fprintf(&b, ", padded to %s", p.widened())
	}
	fmt.Fprintf(&b, "\n  bytes: source %d, destination %d; padding %s\n", p.srcBytes, p.dstBytes, p.exec.padding())
	p.exec.explain(&b)
	return b.String()
}

// explain writes the walk's mode, loop nest and kernel, the reasons for
// them, its chunks and its tail padding, for Plan.String.
func (p *walkPlan) explain(b *strings.Builder) {
	fmt.Fprintf(b, "  mode: %s\n", [...]string{"strided (source offsets linear in the loop digits)", "gather (per-dimension source offset tables)", "elementwise (index maps)", "fill"}[p.mode])
	if p.mode == modeStrided || p.mode == modeGather {
		p.explainDims(b)
		in := "counts and strides in elements"
		switch {
		case p.step > 1:
			in = fmt.Sprintf("counts in units of %d elements, strides in elements", p.unit)
		case p.unit > 1:
			in = fmt.Sprintf("counts and strides in units of %d elements", p.unit)
		}
		fmt.Fprintf(b, "\n  loops, outermost first (%s):\n", in)
		all := slices.Clone(p.loops)
		if p.outer != nil {
			all = append(all, *p.outer)
		}
		all = append(all, p.inner)
		for i, l := range all {
			role := "loop"
			switch {
			case i == len(all)-1:
				role = "kernel inner"
			case p.outer != nil && i == len(all)-2:
				role = "kernel outer"
			}
			fmt.Fprintf(b, "    %-12s d%d weight %d ×%d  dst %d  src %s\n", role, l.dim, l.w, l.size, l.dst, srcStride(p, l))
		}
		kern := [...]string{"run copy (memmove)", "block transpose", "gather"}[p.kern]
		switch {
		case p.ahead != 0:
			kern = fmt.Sprintf("run copy, prefetching %d elements ahead (kernel.CopyRunsAhead)", p.ahead)
		case p.kern == kernRun && p.stream:
			kern = "run copy streamed, the innermost loop's steps in each call (kernel.CopyRunsStreaming)"
		case p.kern == kernRun && p.outer != nil && len(p.loops) > 0:
			kern = "run copy, the innermost loop's steps in each call (kernel.CopyRunsGrid)"
		}
		fmt.Fprintf(b, "  kernel: %s\n", kern)
	}
	for _, w := range p.why {
		fmt.Fprintf(b, "  why: %s\n", w)
	}
	b.WriteString("  " + p.explainChunks() + "\n")
	if p.tail[1] > p.tail[0] {
		fmt.Fprintf(b, "  tail padding: elements [%d,%d)\n", p.tail[0], p.tail[1])
	}
	if p.mode == modeStrided || p.mode == modeGather {
		b.WriteString(planLegend)
	}
}

// planLegend explains the terms of String's loop nest.
const planLegend = `  legend: dN is planner dim N (the logical dims, then those the destination's
    tiles add); valid/held: the dim's elements in the array / the places the
    destination holds for it; weight: how far one value of the loop moves its
    dim's index; ×N: the loop's values; dst, src: its strides in each buffer
`

// explainDims writes the line of the planner dims' valid and held
// elements.
func (p *walkPlan) explainDims(b *strings.Builder) {
	fmt.Fprintf(b, "  dims (elements valid/held):")
	for i := range p.dims {
		n, e := p.dimElements(i)
		fmt.Fprintf(b, " d%d=%d/%d", i, n, e)
	}
}

// widened is the destination shape that Padding.Widths made: the dims
// the destination's buffer is laid out for (DestinationSize is its size).
func (p *header) widened() Shape {
	s := p.to.clone()
	s.dims = p.tm.Dims()
	return s
}

// dimElements returns planner dim d's valid and held counts in elements:
// where widen joined its runs into units, the dims count units, and the
// last unit of a dim whose size is not a multiple of the unit holds part
// elements.
func (p *walkPlan) dimElements(d int) (valid, held int64) {
	dm := p.dims[d]
	if u := p.swap; u != nil && (d == u.eDim || d == u.fDim) {
		k := u.ke
		if d == u.fDim {
			k = u.kf
		}
		return dm.n * k, dm.e * k
	}
	if p.unit <= 1 || d != p.udim {
		return dm.n, dm.e
	}
	k := p.unit
	valid, held = dm.n*k, dm.e*k
	if p.part != 0 {
		valid = (dm.n-1)*k + p.part
	}
	if p.partHeld { // the dim's held places end in its partial unit
		held = valid
	}
	return valid, held
}

func srcStride(p *walkPlan, l ploop) string {
	if p.mode == modeGather {
		return "table"
	}
	return fmt.Sprint(l.src)
}

// SourceSize is the exact source buffer length Run takes.
func (p *Plan) SourceSize() int64 { return p.srcBytes }

// DestinationSize is the exact destination buffer length Run takes.
func (p *Plan) DestinationSize() int64 { return p.dstBytes }

// From is the source shape.
func (p *Plan) From() Shape { return p.from.clone() }

// To is the destination shape.
func (p *Plan) To() Shape { return p.to.clone() }

// threadCount maps Options.Threads, which compile has checked is not
// negative, to a goroutine count: 0 means GOMAXPROCS.
func threadCount(n int) int {
	if n == 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

func product(v []int64) int64 {
	n := int64(1)
	for _, x := range v {
		n *= x
	}
	return n
}

// build plans the strided or gather nest for two exact layouts.
func (p *walkPlan) build() {
	rank := len(p.to.dims)
	dd, _ := p.tm.Digits()
	sd, _ := p.fm.Digits()
	// Planner dims: the logical ones, then one per prepended destination dim.
	p.dims = make([]pdim, rank)
	for d := range rank {
		p.dims[d] = pdim{n: p.to.dims[d], e: 1}
	}
	zeroDim := map[int]int{}
	var dest []tiling.Digit
	for _, g := range dd {
		if g.Size == 1 {
			continue
		}
		if g.Dim < 0 {
			if _, ok := zeroDim[g.Dim]; !ok {
				zeroDim[g.Dim] = len(p.dims)
				p.dims = append(p.dims, pdim{n: 1, e: 1})
			}
			g.Dim = zeroDim[g.Dim]
		}
		dest = append(dest, g)
		p.dims[g.Dim].e = max(p.dims[g.Dim].e, g.Weight*g.Size)
	}
	var srcDigits []tiling.Digit
	for _, g := range sd {
		if g.Size > 1 && g.Dim >= 0 {
			srcDigits = append(srcDigits, g)
		}
	}
	// Common refinement per dim: all weights below the dim's extent.
	weights := make([][]int64, len(p.dims))
	nests := true
	for d := range p.dims {
		ws := []int64{1}
		for _, g := range dest {
			if g.Dim == d {
				ws = append(ws, g.Weight)
			}
		}
		for _, g := range srcDigits {
			if g.Dim == d && g.Weight < p.dims[d].e {
				ws = append(ws, g.Weight)
			}
		}
		slices.Sort(ws)
		ws = slices.Compact(ws)
		for k := 1; k < len(ws); k++ {
			if ws[k]%ws[k-1] != 0 {
				nests = false
			}
		}
		weights[d] = ws
	}
	if !nests && sum(p.to.dims) > maxTableEntries {
		p.mode = modeElementwise
		p.loops = nil
		p.why = append(p.why, fmt.Sprintf("tiles do not nest and the source offset tables would hold more than %d entries: element by element through the index maps", maxTableEntries))
		p.elementTables()
		return
	}
	if !nests {
		p.mode = modeGather
		p.why = append(p.why, "source and destination tiles do not nest: source offsets come from per-dimension tables")
		for _, g := range dest {
			p.loops = append(p.loops, ploop{dim: g.Dim, w: g.Weight, size: g.Size, scale: 1, dst: g.Stride})
		}
		p.tables = make([][]int64, len(p.dims))
		for d := range rank {
			p.tables[d] = sourceTable(srcDigits, d, p.to.dims[d])
		}
	} else {
		p.mode = modeStrided
		for _, g := range dest {
			ws := weights[g.Dim]
			// Common digits inside this destination digit, heaviest first.
			for k := len(ws) - 1; k >= 0; k-- {
				w := ws[k]
				if w < g.Weight || w >= g.Weight*g.Size {
					continue
				}
				next := g.Weight * g.Size
				if k+1 < len(ws) {
					next = min(next, ws[k+1])
				}
				size := ceilDiv(min(next, p.dims[g.Dim].e), w)
				p.loops = append(p.loops, ploop{
					dim: g.Dim, w: w, size: size, scale: 1,
					dst: w / g.Weight * g.Stride,
					src: sourceStride(srcDigits, g.Dim, w),
				})
			}
		}
	}
	p.orderWithinDims()
	p.merge()
	if !p.noSwap {
		p.swap = p.swapUnits()
	}
	if p.swap == nil {
		p.widen()
	}
	p.chooseKernel()
	if p.mode == modeStrided { // gather mode tracks logical indices in the walk
		p.computeSpans()
	}
	p.chooseSplit()
}

// computeSpans records the dense-box spans of the plan's loops.
func (p *walkPlan) computeSpans() { p.spans = spansOf(p.loops, p.outer, &p.inner) }

// spansOf records, for each loop level, the dims the loops from there
// inward (kernel loops included) cover and how far.
func spansOf(loops []ploop, outer, inner *ploop) [][]dimSpan {
	spans, _ := spansInto(nil, nil, loops, outer, inner)
	return spans
}

// spansInto is spansOf into the storage of spans and flat (which holds
// the levels' entries one after another), reusing them where they are
// large enough; it returns both. A walker keeps them for the chunks it
// runs.
func spansInto(spans [][]dimSpan, flat []dimSpan, loops []ploop, outer, inner *ploop) ([][]dimSpan, []dimSpan) {
	spans = slices.Grow(spans[:0], len(loops)+1)[:len(loops)+1]
	flat = flat[:0]
	var buf [8]dimSpan
	cover := buf[:0] // by dim, unsorted while building
	add := func(l *ploop) {
		span := l.w * l.size / l.scale
		for i := range cover {
			if cover[i].dim == l.dim {
				cover[i].span = max(cover[i].span, span)
				return
			}
		}
		cover = append(cover, dimSpan{l.dim, span})
	}
	add(inner)
	if outer != nil {
		add(outer)
	}
	for lv := len(loops); lv >= 0; lv-- {
		if lv < len(loops) {
			add(&loops[lv])
		}
		start := len(flat)
		flat = append(flat, cover...)
		spans[lv] = flat[start:len(flat):len(flat)]
	}
	return spans, flat
}

// maxTableEntries bounds the gather path's offset tables (8 bytes each,
// one per index of each dim): past it the plan goes element by element.
const maxTableEntries = 1 << 24

func sum(v []int64) int64 {
	n := int64(0)
	for _, x := range v {
		n += x
	}
	return n
}

// sourceTable lists, for each index i < n of logical dim d, its part of the
// source element offset.
func sourceTable(src []tiling.Digit, d int, n int64) []int64 {
	t := make([]int64, n)
	for _, g := range src {
		if g.Dim != d {
			continue
		}
		for i := range n {
			t[i] += (i / g.Weight % g.Size) * g.Stride
		}
	}
	return t
}

// contiguousRuns returns, for each index of a source offset table, how
// many entries from it on are consecutive offsets (at least 1).
func contiguousRuns(t []int64) []int64 {
	runs := make([]int64, len(t))
	for i := len(t) - 1; i >= 0; i-- {
		runs[i] = 1
		if i+1 < len(t) && t[i+1] == t[i]+1 {
			runs[i] = runs[i+1] + 1
		}
	}
	return runs
}

// sourceStride is the source element stride of a common digit of weight w
// in dim d: the stride of the source digit that holds it, scaled.
func sourceStride(src []tiling.Digit, d int, w int64) int64 {
	best := -1
	for i, g := range src {
		if g.Dim == d && g.Weight <= w && (best < 0 || g.Weight > src[best].Weight) {
			best = i
		}
	}
	if best < 0 {
		return 0 // only index 0 is valid: the dim has extent 1 in the source
	}
	g := src[best]
	return w / g.Weight * g.Stride
}

// orderWithinDims keeps the destination's pattern of dims over the loop
// positions but makes each dim's loops run from heaviest to lightest, which
// the budget walk needs (T(2,4)(2,1,1,1) puts a light digit first).
func (p *walkPlan) orderWithinDims() { p.loops = heaviestFirst(p.loops) }

// full reports whether loop l covers its whole dim with no padding: the
// dim has no other loop and holds exactly its valid elements.
func (p *walkPlan) full(l ploop) bool {
	d := p.dims[l.dim]
	if l.w != 1 || l.size*1 != d.n || d.n != d.e || p.part != 0 && l.dim == p.udim {
		return false
	}
	for _, o := range p.loops {
		if o.dim == l.dim && o != l {
			return false
		}
	}
	return true
}

// merge joins adjacent loops whose strides chain on both sides.
func (p *walkPlan) merge() {
	for i := 0; i+1 < len(p.loops); {
		o, in := p.loops[i], p.loops[i+1]
		chains := o.dst == in.dst*in.size && (p.mode == modeGather || o.src == in.src*in.size)
		switch {
		case chains && o.dim == in.dim && o.w == in.w*in.size && o.scale == 1 && in.scale == 1:
			in.size *= o.size
		case chains && o.w == 1 && p.mode == modeStrided && in.scale == 1 && p.full(in):
			// The inner loop is a whole dim without padding: fold it in.
			in = ploop{dim: o.dim, w: 1, size: o.size * in.size, scale: o.scale * in.size, dst: in.dst, src: in.src}
		default:
			i++
			continue
		}
		p.loops = slices.Replace(p.loops, i, i+2, in)
		if i > 0 {
			i--
		}
	}
}

// maxUnitBytes is the widest unit widen makes: the widest element the
// transpose kernels take.
const maxUnitBytes = 16

// widen turns short runs, contiguous on both sides, that the rest of the
// nest transposes into elements of their own: the pairs of bf16 or the
// quadruples of s8 that a column-major array keeps together and the
// tpu preset's (2,1) and (4,1) tiles too, so that a tile's rows become a
// transpose of 4-byte units instead of one run copy of 4 bytes each, and
// records of any width up to 16 bytes (an image's pixels of 3 channels,
// transposed whole: 3-, 6- or 12-byte units for u8, bf16 or f32). It
// applies where the runs are the whole lightest digit of their dim, the
// destination holds each dim's units whole and the wider element leaves
// a transpose: the plan then moves units of k elements and counts its
// dims in units. Its strides and offsets count units too where all of
// them are whole units; otherwise (a column-major bf16 array of odd
// height, whose columns start on odd elements) they stay in elements
// (step k), and the kernels take units on any byte. A dim of a size that
// is not a multiple of k ends in a partial unit (part), which the walker
// moves an element at a time.
func (p *walkPlan) widen() {
	if p.mode != modeStrided || len(p.loops) < 2 && p.byteUnits < 2 || len(p.loops) == 0 || !p.widens {
		return
	}
	last := p.loops[len(p.loops)-1]
	if p.wholeRun(last) {
		return
	}
	k, d := last.size, last.dim
	loops := slices.Clone(p.loops[:len(p.loops)-1])
	runs := false // units of byteUnits elements cut from a longer run
	if b := p.byteUnits; b > 1 && k > b && k%b == 0 && last.dst == 1 && last.src == 1 && last.w == 1 && last.scale == 1 {
		loops = append(loops, ploop{dim: d, w: b, size: k / b, scale: 1, dst: b, src: b})
		k, runs = b, true
	}
	if len(loops) == 0 {
		return // a single loop, not cut into units
	}
	unit := k * p.width
	n, e := p.dims[d].n, p.dims[d].e
	if last.dst != 1 || last.src != 1 || last.w != 1 || last.scale != 1 || k < 2 ||
		unit > maxUnitBytes || n < k ||
		e%k != 0 && e != n || p.tail[1] > p.tail[0] && (p.tail[0]%k != 0 || p.tail[1]%k != 0) {
		return
	}
	whole := true // every stride is whole units
	for i := range loops {
		l := &loops[i]
		if l.dim == d {
			if l.w%k != 0 {
				return
			}
			l.w /= k
		}
		whole = whole && l.dst%k == 0 && l.src%k == 0
	}
	step := k
	if whole {
		step = 1
		for i := range loops {
			loops[i].dst /= k
			loops[i].src /= k
		}
	}
	w := &walkPlan{mode: modeStrided, loops: loops, dims: slices.Clone(p.dims), step: step, udim: d, part: n % k}
	w.dims[d] = pdim{n: ceilDiv(n, k), e: ceilDiv(e, k)}
	w.merge()
	if in := w.loops[len(w.loops)-1]; in.dst != step || in.src == step && !runs {
		return // no transpose of units: the runs stay the kernel
	}
	for _, l := range w.loops {
		if l.dim == d && l.scale != 1 && w.part != 0 {
			return // a partial unit inside a merged loop: the walker would not see it
		}
	}
	if w.part != 0 && e%k != 0 && w.loops[len(w.loops)-1].dim != d {
		return // the walker writes a partial unit that ends the held places only as the kernel's columns
	}
	p.loops, p.dims = w.loops, w.dims
	p.width, p.unit, p.step, p.udim, p.part, p.partHeld = unit, k, step, d, w.part, e%k != 0
	if whole && p.tail[1] > p.tail[0] {
		p.tail = [2]int64{p.tail[0] / k, p.tail[1] / k}
	}
	p.pat = bytes.Repeat(p.pat, int(k))
	p.why = append(p.why, fmt.Sprintf("units: d%d's runs of %d elements, contiguous on both sides, move as %d-byte elements", d, k, unit))
	if !whole {
		p.why = append(p.why, "units: some strides are not whole units, so strides and offsets count elements")
	}
	if w.part != 0 {
		p.why = append(p.why, fmt.Sprintf("units: d%d's last unit holds %d of its %d elements and moves an element at a time", d, w.part, k))
	}
}

// wholeRun cuts into units of byteUnits elements a nest that is one run,
// the same on both sides, of whole dims merged (last, the only loop,
// whose scale is the size of the dims merged into it): an array copied
// whole into one whose tiles only pad its end (u4 [4,13398144] to and
// from L(1024)), which packedUnits then moves as bytes, not through
// the packing stages. Each unit is byteUnits elements of the merged
// dims, which must be a multiple of it, so that the loop still counts
// whole values of its dim; the plan's dims keep their sizes and no dim
// is the units' (udim is none of them). It reports whether it did so.
func (p *walkPlan) wholeRun(last ploop) bool {
	b := p.byteUnits
	if b < 2 || len(p.loops) != 1 || last.scale < 2 || last.scale%b != 0 ||
		last.w != 1 || last.dst != 1 || last.src != 1 || p.width*b > maxUnitBytes ||
		p.tail[1] > p.tail[0] && (p.tail[0]%b != 0 || p.tail[1]%b != 0) {
		return false
	}
	p.loops = []ploop{{dim: last.dim, w: 1, size: last.size / b, scale: last.scale / b, dst: 1, src: 1}}
	p.width, p.unit, p.step, p.udim = p.width*b, b, 1, -1
	if p.tail[1] > p.tail[0] {
		p.tail = [2]int64{p.tail[0] / b, p.tail[1] / b}
	}
	p.pat = bytes.Repeat(p.pat, int(b))
	p.why = append(p.why, fmt.Sprintf("units: one run of whole dims, the same on both sides, moved in units of %d elements", b))
	return true
}

// wholeUnits reports whether the plan's strides, offsets and dims all
// count whole moved elements: no strides kept in elements (step) and no
// partial unit (part). Slab plans read them so.
func (p *walkPlan) wholeUnits() bool { return p.step == 1 && p.part == 0 }

// chooseKernel takes the innermost loops for the kernel.
func (p *walkPlan) chooseKernel() {
	if len(p.loops) == 0 { // a single element
		p.loops = []ploop{{dim: 0, w: 1, size: 1, scale: 1, dst: 1, src: 1}}
		if len(p.dims) == 0 {
			p.dims = []pdim{{n: 1, e: 1}}
		}
	}
	last := len(p.loops) - 1
	p.inner = p.loops[last]
	p.loops = p.loops[:last]
	if p.mode == modeGather {
		p.kern = kernGather
		p.runs = contiguousRuns(p.tables[p.inner.dim]) // nil for a prepended dim
		p.why = append(p.why, "gather: each destination run reads the source through the offset tables")
		return
	}
	one := p.step // a stride of one moved element
	if p.inner.dst != one {
		p.kern = kernGather
		p.why = append(p.why, "the destination's fastest digit holds no element of the lightest loop: strided element moves")
		return
	}
	// The kernel's outer loop must be the lightest of a dim other than the
	// inner loop's, so the valid region of the kernel is a rectangle.
	pick := func(i int) {
		o := p.loops[i]
		p.loops = slices.Delete(p.loops, i, i+1)
		p.outer = &o
	}
	eligible := func(l ploop) bool { return l.w == 1 && l.dim != p.inner.dim }
	if p.inner.src == one {
		p.kern = kernRun
		p.why = append(p.why, fmt.Sprintf("the innermost digit is contiguous on both sides: runs of %d elements", p.inner.size))
		if p.streamRuns(eligible) {
			return
		}
		// Short runs scattered over the source: rows that continue the
		// destination runs, each call prefetching the runs of the next
		// (the source rows shifted by the next loop's step), which the
		// hardware prefetchers do not follow. At 256 MiB this order ran
		// faster than the source order below for runs of 64 to 256 bytes,
		// even at 512 and slower at 1 KiB, whose runs the hardware
		// prefetchers follow. Where the plan would take this order anyway
		// (row-major to T(8,128) f32, 512-byte runs), the prefetch alone
		// gains.
		//
		// Where the next loop out continues the source runs instead
		// (a row-major array tiled: a tile's rows continue the
		// destination, the tiles along a row the source), its steps go
		// in the same call (kernel.CopyRunsGrid), each call reading on
		// along the source rows, which the hardware prefetchers follow:
		// T(2,128) tiles of u8 made calls of 256 bytes, whose walk cost
		// more than the copy (docs/perf).
		if run := p.inner.size * p.width; kernel.Prefetching() && run >= 64 && run <= 512 {
			for i := len(p.loops) - 1; i >= 0; i-- {
				if l := p.loops[i]; eligible(l) && l.dst == p.inner.size*one && l.src != p.inner.size*one {
					pick(i)
					if n := len(p.loops); n > 0 && p.loops[n-1].src == p.inner.size*one {
						p.why = append(p.why, "rows: the loop that continues the destination runs; steps: the next one out, which continues the source's, in each call")
						p.hoistCut()
						return
					} else if n > 0 {
						p.ahead = p.loops[n-1].src
					}
					p.why = append(p.why, "rows: the loop that continues the destination runs; each call prefetches the source of the next")
					return
				}
			}
		}
		// Rows that continue the source runs make each step read one
		// contiguous block; the destination side of a run copy tolerates
		// scattered runs better (f32 [64,128,256,32] perm (0,2,1,3) ran
		// faster so than with destination-contiguous rows).
		for i := len(p.loops) - 1; i >= 0; i-- {
			if l := p.loops[i]; eligible(l) && l.src == p.inner.src*p.inner.size {
				pick(i)
				p.why = append(p.why, "rows: the loop that continues the source runs, so each step reads one contiguous block")
				return
			}
		}
		if n := len(p.loops); n > 0 && eligible(p.loops[n-1]) {
			pick(n - 1)
		}
		return
	}
	p.kern = kernTranspose
	defer func() {
		p.continueKernel()
		// A destination past the last-level cache streams, whatever the
		// size of one kernel call's block (NHWC to NCHW f32
		// [64,256,128,32], 4 MiB per call, ran much faster streamed than
		// with ordinary stores; relayout bench C7).
		if p.transposePast() && p.rowsGoOnOffLines() {
			p.why = append(p.why, fmt.Sprintf("source and destination are past the caches for a transpose, but each destination row of a block is %d bytes, no whole number of lines, and the next step goes on along the rows: stored plainly, so that the steps fill their part lines in the caches", p.inner.size*p.step*p.width))
		} else if p.transposePast() {
			p.stream = true
			p.why = append(p.why, fmt.Sprintf("source and destination are %d bytes or more, past the caches for a transpose (kernel.Tuning.TransposeStreamBytes): each block is written as part of it (through a tile and non-temporal stores where the kernels have them)", p.transposeMin))
		}
	}()
	for i := len(p.loops) - 1; i >= 0; i-- {
		if p.loops[i].src == one && eligible(p.loops[i]) {
			pick(i)
			p.why = append(p.why, fmt.Sprintf("different fastest digits: a %d×%d block transpose per step", p.outer.size, p.inner.size))
			return
		}
	}
	p.why = append(p.why, "no source-contiguous digit: a strided copy of one row per step")
}

// rowsGoOnOffLines reports whether a block transpose writes its
// destination rows apart from one another, each 2 to 16 lines long but
// no whole number of lines, and the next step, the innermost loop, goes
// on along them (s8[43,172,268,21] to {1,3,2,0}: 172 bytes of each of
// 512 rows a step, the next 172 after them). Streamed, every row's part
// lines at its ends went to memory part by part; stored plainly, the
// next steps fill them in the caches. Such walks ran several times
// faster not streamed; rows of one line and a few bytes, or of many
// lines, ran faster streamed (docs/perf).
func (p *walkPlan) rowsGoOnOffLines() bool {
	n := len(p.loops)
	row := p.inner.size * p.step
	bytes := row * p.width
	return n > 0 && p.outer != nil && p.outer.dst != row && p.loops[n-1].dst == row &&
		bytes%lineBytes != 0 && bytes >= 2*lineBytes && bytes < 16*lineBytes
}

// streamBlockBytes is the source block a streamed run copy reads a call
// where its rows continue the source runs and no loop continues the
// destination's (rows copied on their own, a row or two of T(128) or
// T(1,128) tiles at a time, say; with such a loop each step reads the
// rows' whole block: streamRuns). Of blocks of 1 to 8 KiB, 4 KiB did
// best at 256 MiB against copy() in one process (relayout bench)
// untiling f32 T(8,128) (512-byte runs, as fast at 8 KiB); s32 and bf16
// rows of 4-5 KiB held in T(1,128) and T(128) ran faster 2 a call than
// one (docs/perf).
const streamBlockBytes = 8192

// pastCaches reports whether the plan's source and destination together
// outgrow the last-level cache (streamMin): the destination is then
// written with non-temporal stores, since its lines would be evicted
// before anyone read them back. Counting the destination alone left
// arrays between half the cache and the cache on ordinary stores, which
// still read each destination line from memory first though the source's
// lines push it out of the cache before anyone reads it, and slower
// (relayout bench: f32 2560² and 2048² transposed, f32 2560² tiled
// T(8,128), s8 4096² to T(8,128)(4,1) and s4 8000² to the tpu preset all
// ran faster since).
func (p *header) pastCaches() bool { return p.dstBytes+p.srcBytes >= p.streamMin }

// transposePast is pastCaches for the block transposes, whose threshold
// (transposeMin) may be lower: on Intel cores, whose L3 is far, they
// stream once source and destination outgrow L2.
func (p *header) transposePast() bool { return p.dstBytes+p.srcBytes >= p.transposeMin }

// streamRuns plans a run copy whose destination is past the last-level
// cache as steps of a grid, for kernel.CopyRunsStreaming. Non-temporal
// stores of whole lines are as fast scattered as in order; the reads are
// not, and the hardware prefetchers do not follow short runs far apart.
// So the kernel's rows are, where it can take them, the loop that
// continues the source runs, cut to about streamBlockBytes, so that each
// step reads one contiguous block, and its steps (the innermost outer
// loop, whose values one call takes) the loop that continues the
// destination runs, so that each row writes forward; each step's source
// is prefetched during the step before. Where the rows cannot be the
// source's loop (it is a heavier digit of the runs' own dim), the roles
// swap: rows that continue the destination runs, steps that continue
// the source's. It reports whether the plan streams: runs of whole lines
// on a CPU with streaming stores, and one of the two arrangements.
func (p *walkPlan) streamRuns(eligible func(ploop) bool) bool {
	run := p.inner.size * p.width
	// Runs of 16 or 32 bytes stream too, where the rows continue the
	// destination runs in whole lines: each call writes its runs side by
	// side, lines joined from several runs (kernel.CopyRunsStreaming),
	// and its steps read on along the source rows, whose lines the
	// calls share. u8 [64,128,256,32] to NumPy's transpose (1,2,0,3),
	// runs of 32 bytes, ran far slower with a memmove a run and rows that
	// continue the source. Where no such rows can be had but steps
	// continue the destination runs in whole lines (T(8,8) tiles of f32
	// or s32: a tile's 8 rows of 32 bytes, the tiles of a destination
	// row), the rows continue the source's and the kernel joins the
	// steps (s32 [6189,1889] from T(8,8) to T(16,128) ran twice as fast
	// so as stored plainly; docs/perf).
	//
	// Such runs stream from the transposes' threshold, not the plan's:
	// stored plainly, each line takes two or four runs from as many
	// steps, fetched again for each where the rows are far apart, and a
	// plain store to a line not in the cache reads it from memory first.
	// u8 [N,128,256,32] to {3,1,2,0} on an Intel core, whose L3 is far,
	// ran several times faster streamed for N from 4 to 64 (relayout
	// bench).
	short := run == 16 || run == 32
	past := p.pastCaches() || short && p.transposePast()
	if !kernel.Streaming() || !past || (run < 64 || run%64 != 0) && !short {
		return false
	}
	find := func(ok func(ploop) bool) int {
		for i := len(p.loops) - 1; i >= 0; i-- {
			if ok(p.loops[i]) {
				return i
			}
		}
		return -1
	}
	src := func(l ploop) bool { return l.src == p.inner.size*p.step }
	dst := func(l ploop) bool { return l.dst == p.inner.size*p.step }
	var steps func(ploop) bool
	// Short runs whose steps continue the destination runs, whole lines
	// of them, may take rows that continue the source runs too: each
	// call's rows then read one block of the source, and its steps
	// join into whole lines (kernel.CopyRunsStreaming).
	lines := func(l ploop) bool { return dst(l) && l.size*run%64 == 0 } // its values' runs make whole lines
	rowsDst := func(l ploop) bool { return eligible(l) && (lines(l) || dst(l) && !short) }
	joins := find(rowsDst) < 0 && slices.ContainsFunc(p.loops, lines)
	if i := find(func(l ploop) bool { return src(l) && eligible(l) && l.scale == 1 }); i >= 0 && (!short || joins) {
		rows := p.loops[i]
		k := blockRows(rows.size, run, streamBlockBytes)
		if slices.ContainsFunc(p.loops, dst) {
			// Steps that continue the destination runs: each reads
			// the rows' whole block of the source, which the steps
			// then walk in order. Cut, each step would read a part of
			// each block and skip the rest, which the hardware
			// prefetchers lose: C5, whose blocks are 32 KiB, ran
			// faster whole, and so did blocks of 2 MiB (16384 rows of
			// 128 bytes, as many destination rows a step; docs/perf).
			k = rows.size
		}
		if k < rows.size {
			// Split the loop: its heavy part stays where it was.
			p.loops[i] = ploop{dim: rows.dim, w: k, size: rows.size / k, scale: 1, dst: rows.dst * k, src: rows.src * k}
			rows.size = k
		} else {
			p.loops = slices.Delete(p.loops, i, i+1)
		}
		p.outer = &rows
		steps = dst
		if short {
			steps = lines
		}
		p.why = append(p.why, fmt.Sprintf("source and destination are larger than the last-level cache: streamed; rows: the loop that continues the source runs, %d of them (%d bytes a step)", k, k*run))
	} else if i := find(rowsDst); i >= 0 {
		rows := p.loops[i]
		// Short runs read a line of each row for two calls or more: few
		// rows a call keep those lines in the caches from step to step
		// (shortRunBytes). Rows merged from two dims are cut inside the
		// merged one (its scale values to each value of the heavier
		// dim): the cut's heavy part is still a merged loop, of scale/k
		// values to each, and its light part adds nothing to the dim's
		// index, as a merged loop of k values to each. u8 [64,128,256,32]
		// to NumPy's transpose (2,0,1,3), whose rows merge the first two
		// dims, ran slowly uncut.
		if k := blockRows(rows.scale, run, shortRunBytes); short && rows.scale > 1 && k*run%64 == 0 {
			p.loops[i] = ploop{dim: rows.dim, w: 1, size: rows.size / k, scale: rows.scale / k, dst: rows.dst * k, src: rows.src * k}
			rows.size, rows.scale = k, k
		} else if k := blockRows(rows.size, run, shortRunBytes); short && rows.scale == 1 && k < rows.size && k*run%64 == 0 {
			p.loops[i] = ploop{dim: rows.dim, w: k, size: rows.size / k, scale: 1, dst: rows.dst * k, src: rows.src * k}
			rows.size = k
		} else {
			p.loops = slices.Delete(p.loops, i, i+1)
		}
		p.outer = &rows
		steps = src
		p.why = append(p.why, "source and destination are larger than the last-level cache: streamed; rows: the loop that continues the destination runs")
	} else {
		return false
	}
	p.stream = true
	if i := find(steps); i >= 0 && p.lightestAfter(i) {
		c := p.loops[i]
		p.loops = append(slices.Delete(p.loops, i, i+1), c)
		p.why = append(p.why, fmt.Sprintf("steps: d%d weight %d, which continues the other side's runs", c.dim, c.w))
		if !short && c.src == p.inner.size*p.step {
			p.hoistCut()
		}
	}
	return true
}

// hoistCut moves the innermost loop, a run copy's steps, out past the
// loop outside it, cut into blocks of about streamBlockBytes of the
// source, where the steps' dim ends inside their last value: a
// row-major array's rows tiled, whose last tile a row the array's edge
// cuts (u8[65536,155] into T(2,128): a tile and 27 bytes of a second a
// row). The walk then moves each block's whole tiles as one grid call,
// the steps the values of the loop it went past, and the cut ones
// after, where it moved each row's apart, several calls and fills a row.
func (p *walkPlan) hoistCut() {
	n := len(p.loops)
	if n < 2 {
		return
	}
	s, t := p.loops[n-1], p.loops[n-2]
	valid, held := p.dimElements(s.dim)
	if s.dim == t.dim || s.scale != 1 || t.scale != 1 || min(valid, held) >= s.size*s.w {
		return
	}
	k := blockRows(t.size, t.src*p.offBytes(), streamBlockBytes)
	if k < 2 {
		return // no grid of steps to gain
	}
	loops := p.loops[:n-2]
	if k < t.size { // the blocks' loop, where there are several
		loops = append(loops, ploop{dim: t.dim, w: t.w * k, size: t.size / k, scale: 1, dst: t.dst * k, src: t.src * k})
	}
	t.size = k
	p.loops = append(loops, s, t)
	p.why = append(p.why, fmt.Sprintf("steps: d%d weight %d, blocks of %d, the cut row of d%d's outside them", t.dim, t.w, k, s.dim))
}

// shortRunBytes is how many bytes of the destination a streamed copy of
// runs shorter than a line writes a call, side by side: u8
// [64,128,256,32] to NumPy's transpose (0,2,1,3) (rows of 128 runs 8 KiB
// apart in the source) and (2,1,0,3) (64 runs 1 MiB apart) ran fastest in
// calls of 1 KiB, of 1 to 4 KiB (relayout bench): the fewer rows, the
// fewer of their lines the caches must hold from one step to the next.
const shortRunBytes = 1024

// blockRows returns the divisor of size that makes rows runs of run bytes
// closest to target bytes (on a log scale; the smaller on a tie), at most
// 16 streamBlockBytes.
func blockRows(size, run, target int64) int64 {
	best, bestErr := int64(1), math.Inf(1)
	for k := int64(1); k <= size && k*run <= 16*streamBlockBytes; k++ {
		if size%k != 0 {
			continue
		}
		if e := math.Abs(math.Log(float64(k*run) / float64(target))); e < bestErr {
			best, bestErr = k, e
		}
	}
	return best
}

// continueKernel makes the innermost outer loop of a transpose plan the
// one whose next step continues where the last kernel call stopped:
// first, one that puts the next block right after a contiguous
// destination block; else one that does so on the source; else one that
// extends the source rows. On 256 MiB cases in one process this order ran
// faster than the destination order untiling bf16 and s8 from
// T(8,128)(2,1) and (4,1) and on the 4-D reversal, and left tiling as it
// was (putting the source first there was slower).
func (p *walkPlan) continueKernel() {
	o, l := p.outer, &p.inner
	n := len(p.loops)
	if o == nil || n < 2 {
		return
	}
	one := p.step
	block := o.size * l.size * one
	want := -1
	find := func(ok func(ploop) bool) {
		for i := n - 1; i >= 0 && want < 0; i-- {
			if ok(p.loops[i]) && p.lightestAfter(i) {
				want = i
			}
		}
	}
	if o.dst == l.size*one { // the destination block is contiguous
		find(func(c ploop) bool { return c.dst == block })
	}
	if want < 0 && l.src == o.size*one { // the source block is contiguous
		find(func(c ploop) bool { return c.src == block })
	}
	if want < 0 {
		find(func(c ploop) bool { return c.src == o.size*one })
	}
	if want < 0 || want == n-1 {
		return
	}
	c := p.loops[want]
	p.loops = append(slices.Delete(p.loops, want, want+1), c)
	p.why = append(p.why, fmt.Sprintf("steps: d%d weight %d innermost, so each kernel call continues the last", c.dim, c.w))
}

// lightestAfter reports whether loop i can move innermost: no lighter loop
// of its dim follows it (the budget walk needs each dim heaviest first).
func (p *walkPlan) lightestAfter(i int) bool {
	for _, c := range p.loops[i+1:] {
		if c.dim == p.loops[i].dim {
			return false
		}
	}
	return true
}

func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}
