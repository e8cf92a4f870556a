package relayout

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

// staged is how a plan with a packed side runs: unpack the source to one
// byte per element, relayout bytes with a byte plan, pack the result.
// Where it can (slabs), the stages run a slab at a time through
// temporaries that stay in the caches; otherwise each stage is one pass
// over the whole array, through a temporary of one byte per element for
// each packed side.
type staged struct {
	mid *Plan // the byte plan between the unpacked shapes

	unpack   bool // the source is packed
	srcBits  int  // its storage bits per element
	srcCount int64

	pack     bool // the destination is packed
	dstBits  int
	dstCount int64

	natural int  // the type's bits
	signed  bool // whether unpacking sign-extends

	// partials counts the (8,1) tile rows cut by padding that walks
	// packed whole (rows8Walk.partialTiles), so that tests can tell the
	// path ran.
	partials atomic.Int64
	// buffered counts the calls of direct slabs that read packed source
	// rows starting inside bytes through a buffer (rows8Walk.bufferTiles),
	// for the tests as well.
	buffered atomic.Int64
	// grids counts the grid calls of (8,1) tiles, between packed sides
	// or packed from byte rows (rows8Walk.blockGrid), for the tests as
	// well.
	grids atomic.Int64

	// fields, when set, runs the relayout instead of the three stages: a
	// transpose of packed fields without unpacking them.
	fields *fieldPlan

	// slabs, when set, runs the three stages a slab of the destination at
	// a time, through temporaries the size of a slab: every Run, or only
	// chunk ranges (slabs.rangeOnly).
	slabs *slabs

	// units, when set, replaces the whole-array stages where one side
	// is packed: a plan over whole bytes between the packed side and the
	// unpacked side packed in its own order (packedUnits), which a
	// temporary holds; the unpacked side is packed into it first, or
	// unpacked from it after.
	units *Plan

	*header        // the plan's
	streamDst bool // the packed destination is written past the caches (header.pastCaches)

	// temps keeps the temporary byte buffers between Runs (*[]byte of
	// tempBytes): faulting in fresh pages costs as much as a stage.
	temps sync.Pool
}

// unpacksAll reports whether a Run of the stages unpacks the source and
// packs the destination, whole (slabs that only RunRange takes among
// them) or slab by slab: no field plan, no plan over whole bytes, no
// slabs of (8,1) tiles whose fields move direct.
func (st *staged) unpacksAll() bool {
	return st.fields == nil && st.units == nil && (st.slabs == nil || st.slabs.rangeOnly || st.slabs.rows8 == rows8None)
}

// slabBytes is about how many destination bytes of the byte plan a slab
// of a staged plan covers: the unpacked source and the destination
// before packing then stay in the level-2 cache between the stages.
// Slabs of 1 MiB and more ran faster than the whole array at once or
// slabs of 64 and 256 KiB on s4 8192² row-major bytes to the tpu preset's
// T(8,128)(8,1)E(4) and back (relayout bench --from/--to, a 2-core VM
// with 1 MiB of L2 a core).
const slabBytes = 1 << 20

// kernelRows is the rows of a register block of the 1-byte transpose
// kernels: slabs keep the kernel rows of a byte plan that has no more
// whole.
const kernelRows = 16

// wideSlabs is how many times slabBytes the slabs of a widened byte plan
// (chooseSlabs) cover: each reads a run of every source row, longer in
// larger slabs. s4 8192² column-major, a value a byte, to
// T(8,128)(8,1)E(4) by chunk ranges (go test -bench RunRange/s4-colmajor
// ./relayout) ran faster in slabs of 2 MiB or more than of 1 MiB, fastest
// at 8 MiB.
const wideSlabs = 4

// slabs is how a staged plan runs slab by slab: values [c*per,
// (c+1)*per) of the byte plan's split loop make slab c. A slab unpacks
// the source elements its values read into a temporary, runs the byte
// plan's chunk of those values into a second temporary (or straight
// into the destination when it is not packed), and packs that into
// the destination elements its values write. The slabs of a packed
// destination are contiguous and disjoint, and each starts on a whole
// byte.
type slabs struct {
	// identity is set when the byte plan copies the array unchanged: the
	// slabs are then runs of elements, unpacked into the destination,
	// packed from the source, or repacked through one temporary.
	identity bool
	// rows8 says whether every kernel call of the byte plan is the (8,1)
	// tile of 4-bit fields without its packing: an 8-row byte interleave
	// into the packed destination (rows8Pack), or a de-interleave from the
	// packed source (rows8Unpack). The kernel calls then move fields
	// straight between that packed side and the other (rows8Walk); only
	// the other side, if it is packed too, goes through a temporary.
	rows8 rows8Mode
	// direct is set for rows8 slabs whose other side is packed as well,
	// in 4-bit fields holding 4-bit values: the kernel calls then read
	// and write both sides packed (kernel.InterleaveNibbles8,
	// DeinterleaveNibbles8), with no temporary.
	direct bool
	loop   *ploop // the byte plan's split loop (for identity, the elements)
	sReach int64  // source elements one value of loop reads from, at most (in units, see unit)
	align  int64  // per is a multiple of this
	per    int64  // values of loop in a slab
	count  int64  // slabs
	tempA  int64  // bytes of the unpacked source temporary
	tempB  int64  // bytes of the temporary for the packed destination
	mid    *Plan  // the byte plan the slabs run chunks of
	least  int64  // values of loop a slab takes at the fewest

	// rangeOnly is set for slabs that a whole Run does not take because
	// they read a little of every source row (a transpose into a packed
	// destination) and run slower than the stages do whole, but that
	// RunRange takes, so that a mapped run holds slab-sized temporaries
	// instead of whole-array ones.
	rangeOnly bool

	// temps keeps a goroutine's slab temporaries (*[]byte of tempA +
	// tempB) between runs.
	temps sync.Pool
}

// planSlabs returns how st runs slab by slab with the byte plan mid, or
// nil when it cannot. A byte plan that copies the array unchanged always
// can (identity slabs); any other must be strided, split into chunks, and step
// forward on both sides; the values of the split loop must write
// disjoint, ordered stretches of a packed destination; and a slab must
// not read a source stretch much larger than what it writes, except
// from an unpacked source, for chunk ranges only (slabs.rangeOnly).
func (st *staged) planSlabs(plan *Plan, target int64) *slabs {
	mid := plan.walk()
	if mid == nil {
		return nil
	}
	if identityCopy(mid) {
		sl := &slabs{identity: true, loop: &ploop{size: mid.inner.size, scale: 1, dst: 1, src: 1}, sReach: 1, align: 8, mid: plan}
		sl.resize(st, target)
		return sl
	}
	if mid.mode != modeStrided || mid.chunks() <= 1 {
		return nil
	}
	all := append(slices.Clone(mid.loops), mid.inner)
	if mid.outer != nil {
		all = append(all, *mid.outer)
	}
	for _, l := range all {
		if l.dst < 0 || l.src < 0 {
			return nil
		}
	}
	l := mid.splitLoop()
	if l.dst <= 0 || (st.pack && mid.heldReach(l, func(o *ploop) int64 { return o.dst }) > l.dst) {
		return nil
	}
	sl := &slabs{loop: l, sReach: mid.reach(l, func(o *ploop) int64 { return o.src }), align: l.scale, mid: plan}
	if l == mid.outer && mid.unit == 1 && l.size <= kernelRows {
		// Slabs cut along the kernel's own rows leave each call fewer of
		// them, and where it has no more than a register block's, a call
		// of fewer moves an element at a time (u4 [3,39454720]
		// column-major to T(128) tiles, a de-interleave of 3 rows, ran
		// several times faster whole than in slabs of a row each;
		// docs/perf).
		sl.least = l.size
	}
	if mid.unit == 1 {
		sl.rows8 = st.rows8Of(mid)
		sl.direct = st.rows8Direct(mid, sl.rows8)
	}
	if st.pack {
		per := int64(8 / st.dstBits) // elements to a byte
		sl.align *= per / gcd(per, l.scale*l.dst*mid.unit)
	}
	sl.resize(st, target)
	// A slab that reads a stretch of the source much longer than its
	// destination reads a little of every source row (a transpose): it
	// would unpack all of that, and even unpacked, reading in such strips
	// costs more than the stages do whole (s4 8192² row-major bytes to
	// packed column-major ran faster whole than in slabs). From an
	// unpacked source such slabs still bound a mapped run's memory.
	if sl.count <= 1 {
		return nil
	}

	// Direct slabs unpack nothing: cut along the source's rows (the
	// kernel's, each a run of a source row: 4 rows of 21309696 fields
	// to (8,1) tiles), they read a run of each row; cut across them (a
	// transpose of T(8,128)(8,1) tiles into such tiles, 8×8 blocks of
	// fields), they walk the source as the transpose would whole, where
	// no padding cuts the blocks (those go a field at a time: s4[4,250,
	// 134,319] so ran at a seventh of its sliced speed).
	runs := l == mid.outer && l.src == 1 && len(mid.loops) == 0
	whole := true
	for _, d := range mid.dims {
		whole = whole && d.n == d.e
	}
	if !(sl.direct && (runs || whole)) && ((sl.per-1)*l.src+sl.sReach)*sl.unit() > 4*max(target, sl.per*l.dst*sl.unit()) {
		switch {
		case runs && sl.rows8 == rows8Pack && !sl.direct && st.nibbles():
			// Source rows that start inside bytes (u4[3,12847895]
			// row-major): direct slabs read them through a buffer
			// (rows8Walk.bufferTiles), a run of each row a slab,
			// where these would unpack the whole stretch between.
			sl.direct = true
			sl.resize(st, target) // no temporaries
		case st.unpack:
			return nil
		default:
			sl.rangeOnly = true
		}
	}
	return sl
}

// rows8Mode is how a slab's kernel calls treat (8,1) tiles of 4-bit
// fields (slabs.rows8).
type rows8Mode uint8

const (
	rows8None   rows8Mode = iota
	rows8Pack             // interleave 8 rows into the packed destination
	rows8Unpack           // de-interleave the packed source into 8 rows
)

// rows8Of returns the rows8 mode of the byte plan mid: rows8Pack when
// every call interleaves 8 contiguous source rows into a contiguous part
// of a packed destination, rows8Unpack when every call de-interleaves a
// contiguous part of a packed source into 8 destination rows (which a
// slab must not cut); either only when every call starts on a whole byte
// of the packed side.
func (st *staged) rows8Of(mid *walkPlan) rows8Mode {
	o, in := mid.outer, &mid.inner
	if mid.kern != kernTranspose || o == nil {
		return rows8None
	}
	even := func(stride func(l *ploop) int64) bool {
		for i := range mid.loops {
			if stride(&mid.loops[i])%2 != 0 {
				return false
			}
		}
		return true
	}
	switch {
	case st.pack && st.dstBits == 4 && in.size == 8 && in.dst == 1 && o.dst == 8 && o.src == 1 &&
		even(func(l *ploop) int64 { return l.dst }):
		return rows8Pack
	case st.unpack && st.srcBits == 4 && o.size == 8 && o.src == 1 && in.src == 8 && in.dst == 1 &&
		mid.splitLoop() != o && even(func(l *ploop) int64 { return l.src }):
		return rows8Unpack
	}
	return rows8None
}

// rows8Direct reports whether the rows8 slabs of mode m of the byte plan
// mid can run direct: both sides packed in 4-bit fields of 4-bit values
// (narrower values are sign- or zero-extended on the way through bytes,
// which a direct move would not do), and every row of the side that
// rows8Of did not look at starting on a whole byte. (planSlabs lets
// packing slabs whose source rows start inside bytes run direct as
// well, where the slabs that unpack would read too far.)
func (st *staged) rows8Direct(mid *walkPlan, m rows8Mode) bool {
	if m == rows8None || !st.nibbles() {
		return false
	}
	// The other side's rows: the source's along the inner loop, or the
	// destination's along the outer one.
	stride, rows := func(l *ploop) int64 { return l.src }, &mid.inner
	if m == rows8Unpack {
		stride, rows = func(l *ploop) int64 { return l.dst }, mid.outer
	}
	even := stride(rows)%2 == 0
	for i := range mid.loops {
		even = even && stride(&mid.loops[i])%2 == 0
	}
	return even
}

// nibbles reports whether both sides pack 4-bit values in 4-bit fields,
// which direct rows8 slabs move without unpacking them.
func (st *staged) nibbles() bool {
	return st.unpack && st.pack && st.srcBits == 4 && st.dstBits == 4 && st.natural == 4
}

// identityCopy reports whether p copies its whole source unchanged: one
// run of all its elements, no padding.
func identityCopy(p *walkPlan) bool {
	in := &p.inner
	if p.mode != modeStrided || p.kern != kernRun || len(p.loops) != 0 || p.outer != nil ||
		in.dst != 1 || in.src != 1 || in.size != p.srcBytes || in.size != p.dstBytes || p.tail[1] > p.tail[0] {
		return false
	}
	for _, d := range p.dims {
		if d.n != d.e {
			return false
		}
	}
	return true
}

// unit is how many elements (bytes) each element of the byte plan holds:
// 1, or more where it moves runs as units (walkPlan.widen): slabs into a
// packed destination that only chunk ranges take (chooseSlabs), and Runs
// too where there is no unit plan (takeWideSlabs). The loop's strides
// and sReach count units (such plans count their strides in whole
// units); these slabs read an unpacked source in place (no tempA).
func (sl *slabs) unit() int64 { return sl.mid.walk().unit }

// resize sets per to about target destination bytes of the byte plan
// (at least align values), and the count and temporaries that follow.
func (sl *slabs) resize(st *staged, target int64) {
	l, u := sl.loop, sl.unit()
	sl.per = max(sl.align, target/(l.dst*u)/sl.align*sl.align, ceilDiv(sl.least, sl.align)*sl.align)
	sl.count = ceilDiv(l.size, sl.per)
	sl.tempA, sl.tempB = 0, 0
	if sl.identity {
		if st.unpack && st.pack {
			sl.tempA = min(sl.per, l.size)
		}
		return
	}
	if st.unpack {
		perByte := int64(8 / st.srcBits)
		sl.tempA = min(((sl.per-1)*l.src+sl.sReach)*u+2*perByte, st.srcCount)
	}
	if st.pack {
		sl.tempB = max(sl.per*l.dst*u, st.dstCount-(sl.count-1)*sl.per*l.dst*u)
	}
	// The packed side of (8,1) tiles needs none, nor the other when
	// direct.
	switch {
	case sl.direct:
		sl.tempA, sl.tempB = 0, 0
	case sl.rows8 == rows8Pack:
		sl.tempB = 0
	case sl.rows8 == rows8Unpack:
		sl.tempA = 0
	}
}

// gcd is the greatest common divisor of a and b, both positive.
func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// unpacked returns s with one byte per element.
func unpacked(s Shape) Shape {
	c := s.clone()
	c.layout.ElementSizeInBits = 0
	return c
}

// compileStaged plans a relayout in which from or to packs sub-byte
// elements: the executor of p, whose header is set.
func compileStaged(p *Plan, opts *Options) (*staged, error) {
	st, err := compileStages(p, opts)
	if err != nil {
		return nil, err
	}
	if st.unpack != st.pack && st.fields == nil && (st.slabs == nil || st.slabs.rangeOnly) {
		st.units = unitStages(p, st, opts)
	}
	st.takeWideSlabs()
	if st.slabs == nil && st.fields == nil && st.units == nil {
		// The byte plan runs whole, between temporaries: it may run
		// blocked (Plan.block) as a plan of its own would. Slabs read
		// its loops, so a byte plan they run stays a walk.
		st.mid.block(opts)
	}
	return st, nil
}

// takeWideSlabs lets Runs take range-only slabs of a widened byte plan
// where there is no unit plan: the whole-array stages would run the byte
// plan in runs (u2 8192², column-major a value a byte, to
// T(8,128)(8,1)E(4), ran several times faster in slabs).
func (st *staged) takeWideSlabs() {
	if sl := st.slabs; sl != nil && sl.rangeOnly && sl.unit() > 1 && st.units == nil {
		sl.rangeOnly = false
	}
}

// unitStages returns the plan over whole bytes between p's packed side
// and its unpacked side packed in its own order, or nil where there is
// none (packedUnits). A column-major s4 array held a value a byte goes
// to the tpu preset's T(8,128)(8,1)E(4) packed first, then as 4-byte
// units; the way back unpacks last.
func unitStages(p *Plan, st *staged, opts *Options) *Plan {
	from, to := p.from, p.to
	if st.pack {
		from = packedAs(from, st.dstBits)
	} else {
		to = packedAs(to, st.srcBits)
	}
	u, err := compile(from, to, opts, p.streamMin, true)
	if err != nil || u.stages() != nil {
		return nil
	}
	return u
}

// packedAs returns s with its elements packed into bits-bit fields.
func packedAs(s Shape, bits int) Shape {
	l, ok := s.Layout()
	if !ok {
		l = Layout{MinorToMajor: RowMajor(s.Rank())}
	}
	l.ElementSizeInBits = int64(bits)
	return s.WithLayout(l)
}

// compileStages returns the stages of p, whose header is set, and
// chooses how they run: slabs, a field plan, or the three stages on
// whole arrays.
func compileStages(p *Plan, opts *Options) (*staged, error) {
	mid, err := compile(unpacked(p.from), unpacked(p.to), opts, p.streamMin, false)
	if err != nil {
		return nil, err
	}
	st := &staged{
		mid:      mid,
		unpack:   p.from.isPacked(),
		srcBits:  int(p.fm.ElementBits()),
		srcCount: p.fm.Elements(),
		pack:     p.to.isPacked(),
		dstBits:  int(p.tm.ElementBits()),
		dstCount: p.tm.Elements(),
		natural:  p.dtype.Bits(),
		signed:   p.dtype.IsSigned(),
		header:   &p.header,
	}
	st.streamDst = p.pastCaches()
	return st, st.choose(p, mid, opts)
}

// choose chooses how st, the stages of p whose byte plan is mid, run.
func (st *staged) choose(p, mid *Plan, opts *Options) error {
	switch {
	case st.unpack && st.pack:
		// Slabs of (8,1) tiles that move the fields direct come first (s4
		// 8192² to T(8,128)(8,1)E(4) and back ran far faster so than as
		// fields; relayout bench); otherwise the field plan transposes
		// without unpacking. Slabs of (8,1) tiles that unpack the
		// row-major side into a temporary are no faster than the field
		// plan (s4 8192² from T(8,128)(8,1)E(4) to E(4) and back, also
		// with TILECOPY_CPU=generic).
		if err := st.chooseSlabs(p, opts, slabBytes); err != nil {
			return err
		}
		if st.slabs != nil && st.slabs.direct {
			return nil
		}
		st.slabs, st.mid = nil, mid
		if st.fields = planFields(p, st, mid); st.fields != nil {
			return nil
		}
	case st.unpack:
		// A packed source to an unpacked destination: slabs where they
		// go, otherwise a transpose takes the field plan, which unpacks
		// band by band.
		if err := st.chooseSlabs(p, opts, slabBytes); err != nil || st.slabs != nil {
			return err
		}
		st.fields = planFields(p, st, mid)
		return nil
	}
	return st.chooseSlabs(p, opts, slabBytes)
}

// chooseSlabs sets st.slabs for slabs of about target bytes, when p can
// run slab by slab. For a packed destination the byte plan is compiled
// again without streaming: a slab's byte plan writes a temporary in the
// caches, which non-temporal stores would push out.
func (st *staged) chooseSlabs(p *Plan, opts *Options, target int64) error {
	if !st.pack {
		st.slabs = st.planSlabs(st.mid, target)
		return nil
	}
	flat, err := compile(unpacked(p.from), unpacked(p.to), opts, math.MaxInt64, false)
	if err != nil {
		return err
	}
	if st.slabs = st.planSlabs(flat, target); st.slabs != nil && !st.slabs.rangeOnly {
		st.mid = flat
		return nil
	}
	if st.unpack {
		return nil
	}
	// A byte plan that copies short runs, each from another source row
	// (a column-major array of one 4-bit value a byte to the tpu
	// preset's (8,1) tiles: 8 bytes of every column a tile row), reads
	// each source line once for each of its runs, the line gone from the
	// caches by the time the slab comes back for the next. Widened, it
	// transposes the runs as elements, a whole line of each source row a
	// block. s4 8192² so by chunk ranges (go test -bench
	// RunRange/s4-colmajor ./relayout) and relayout convert of s4 16384²,
	// a mapped run, ran an order of magnitude faster widened.
	wide, err := compile(unpacked(p.from), unpacked(p.to), opts, math.MaxInt64, true)
	if err != nil {
		return nil
	}
	if w := wide.walk(); w == nil || w.unit == 1 || !w.wholeUnits() {
		return nil // slabs count their strides in whole units
	}
	if sl := st.planSlabs(wide, target*wideSlabs); sl != nil && sl.rangeOnly {
		st.slabs = sl
	}
	return nil
}

// run runs the stages; the buffers have been checked.
func (st *staged) run(dst, src []byte) error {
	if st.fields != nil && !st.fields.rangeOnly {
		st.fields.run(dst, src)
		return nil
	}
	if sl := st.slabs; sl != nil && !sl.rangeOnly {
		shareOut(sl.count, min(st.goroutines(), sl.count), func(lo, hi int64) { st.runSlabs(dst, src, lo, hi) })
		return nil
	}
	tmp := getTemp(&st.temps, st.tempBytes())
	defer st.temps.Put(tmp)
	if u := st.units; u != nil {
		// The packing and unpacking share out bytes' worth of elements
		// (8 of them) among the threads, as the unit plan does its work.
		parts := st.goroutines()
		if st.pack {
			t, bits := (*tmp)[:u.srcBytes], int64(st.dstBits)
			shareOut(ceilDiv(st.srcCount, 8), parts, func(lo, hi int64) {
				lo, hi = 8*lo, min(8*hi, st.srcCount)
				kernel.PackBits(t[lo*bits/8:], src[lo:hi], int(hi-lo), int(bits))
			})
			return u.Run(dst, t)
		}
		t, bits := (*tmp)[:u.dstBytes], int64(st.srcBits)
		if err := u.Run(t, src); err != nil {
			return err
		}
		shareOut(ceilDiv(st.dstCount, 8), parts, func(lo, hi int64) {
			lo, hi = 8*lo, min(8*hi, st.dstCount)
			kernel.UnpackBits(dst[lo:hi], t[lo*bits/8:], int(hi-lo), int(bits), st.natural, st.signed)
		})
		return nil
	}
	a := src
	if st.unpack {
		a = (*tmp)[:st.srcCount]
		kernel.UnpackBits(a, src, int(st.srcCount), st.srcBits, st.natural, st.signed)
	}
	b := dst
	if st.pack {
		b = (*tmp)[len(*tmp)-int(st.dstCount):]
	}
	if err := st.mid.Run(b, a); err != nil {
		return fmt.Errorf("byte stage: %w", err)
	}
	if st.pack {
		kernel.PackBits(dst, b, int(st.dstCount), st.dstBits)
	}
	return nil
}

// chunks is the number of chunks of a staged plan: the field plan's, the
// slabs, or 1.
func (st *staged) chunks() int64 {
	switch {
	case st.fields != nil:
		return st.fields.chunks()
	case st.slabs != nil:
		return st.slabs.count
	}
	return 1
}

// runChunks runs chunks [lo, hi) of a plan with more than one (the field
// plan's or the slabs) one after another.
func (st *staged) runChunks(dst, src []byte, lo, hi int64) {
	if st.fields != nil {
		st.fields.runChunks(dst, src, lo, hi, 1)
		return
	}
	st.runSlabs(dst, src, lo, hi)
}

// chunkRange returns the destination bytes chunks [lo, hi) write into,
// for a plan with more than one.
func (st *staged) chunkRange(lo, hi int64) (from, to int64) {
	if st.fields != nil {
		return st.fields.chunkRange(lo, hi)
	}
	return st.slabRange(lo, hi)
}

// runSlabs runs slabs [lo, hi) one after another through one set of
// temporaries.
func (st *staged) runSlabs(dst, src []byte, lo, hi int64) {
	sl := st.slabs
	tmp := getTemp(&sl.temps, sl.tempA+sl.tempB)
	defer sl.temps.Put(tmp)
	for c := lo; c < hi; c++ {
		st.slab(dst, src, *tmp, c)
	}
}

// slab runs slab c through the temporaries in tmp.
func (st *staged) slab(dst, src, tmp []byte, c int64) {
	sl := st.slabs
	l, mid, u := sl.loop, sl.mid.walk(), sl.unit()
	v0, v1 := c*sl.per, min((c+1)*sl.per, l.size)
	if sl.identity {
		st.repack(dst, src, tmp, v0, v1)
		return
	}
	a, aBase := src, int64(0)
	if st.unpack && sl.rows8 != rows8Unpack && !sl.direct {
		perByte := int64(8 / st.srcBits)
		from := min(v0*l.src*u, st.srcCount) / perByte * perByte
		to := min(ceilDiv(((v1-1)*l.src+sl.sReach)*u, perByte)*perByte, st.srcCount)
		a, aBase = tmp[:to-from], from
		kernel.UnpackBits(a, src[from/perByte:], int(to-from), st.srcBits, st.natural, st.signed)
	}
	b, bBase := dst, int64(0)
	dFrom, dTo := min(v0*l.dst*u, st.dstCount), min(v1*l.dst*u, st.dstCount)
	if v1 == l.size {
		dTo = st.dstCount
	}
	if st.pack && sl.rows8 != rows8Pack && !sl.direct {
		b, bBase = tmp[sl.tempA:][:dTo-dFrom], dFrom
	}
	var r *rows8Walk
	if sl.rows8 != rows8None {
		// Stream a destination past the caches: a packed one as large as
		// the plan's threshold; an unpacked one where the byte plan
		// streams (not when it writes a temporary: planned without).
		r = &rows8Walk{st: st, mode: sl.rows8, direct: sl.direct}
		r.stream = r.packsDst() && st.streamDst || !r.packsDst() && mid.stream
	}
	w, dOff, sOff, ok := mid.chunkWalker(b, a, l, v0, v1)
	if ok {
		w.rows8 = r
		w.walk(0, dOff-bBase/u, sOff-aBase/u, false)
	}
	mid.putWalker(w)
	if r != nil && r.partials > 0 {
		st.partials.Add(r.partials)
	}
	if r != nil && r.gridCalls > 0 {
		st.grids.Add(r.gridCalls)
	}
	if r != nil && r.buffered > 0 {
		st.buffered.Add(r.buffered)
	}
	switch {
	case r != nil && r.packsDst():
		if from, to := max(mid.tail[0], dFrom), min(mid.tail[1], dTo); from < to {
			r.fill(dst, mid, from, 0, to-from, 1)
		}
		if v1 == l.size && st.dstCount%2 != 0 {
			dst[len(dst)-1] &= 0xf0 // the unused field of the last byte, cleared as PackBits clears it
		}
		return
	case !st.pack:
		if v1 == l.size && mid.tail[1] > mid.tail[0] {
			mid.fillElements(dst, mid.tail[0], mid.tail[1])
		}
		return
	}
	if from, to := max(mid.tail[0]*u, dFrom), min(mid.tail[1]*u, dTo); from < to {
		mid.fillElements(b, (from-bBase)/u, (to-bBase)/u)
	}
	perByte := int64(8 / st.dstBits)
	kernel.PackBits(dst[dFrom/perByte:], b, int(dTo-dFrom), st.dstBits)
}

// rows8Walk is how a walker runs the byte plan of a rows8 slab: straight
// between the packed side and the other, a kernel call of whole (8,1)
// tiles by kernel.PackRows8 or UnpackRows8 (direct, with the other side
// packed too: InterleaveNibbles8 or DeinterleaveNibbles8) and the calls
// cut by padding (the last tiles of the rows or columns) a field at a
// time.
type rows8Walk struct {
	st     *staged
	mode   rows8Mode
	direct bool
	stream bool
	// rows holds the 8 source rows of tiles that padding cuts
	// (partialTiles): the rows the array has, then the padding's.
	rows      []byte
	partials  int64 // partialTiles calls that packed
	buffered  int64 // bufferTiles calls that read packed rows starting inside bytes
	gridCalls int64 // blockGrid's kernel calls
	// padded is the row length and the first padding row for which
	// rows holds the padding rows already.
	padded [2]int64
}

// partialRows bounds the words of (8,1) tiles that partialTiles packs
// per kernel call, and with it its buffer of 8 such rows.
const partialRows = 2048

// partialTiles packs rows words of (8,1) tiles of which only the first
// cols of the 8 rows hold elements, the rest padding (colsE is 8), with
// the kernel of whole tiles: the source rows go through a buffer whose
// remaining rows hold the padding value, so the tiles' padding fields
// are written with their elements rather than a field at a time. It
// reports false, having moved nothing, where the walk is not such a
// packing.
func (r *rows8Walk) partialTiles(w *walker, dOff, sOff, rows, cols, colsE int64) bool {
	if r.mode != rows8Pack || colsE != 8 || dOff%2 != 0 {
		return false
	}
	r.bufferTiles(w, dOff, sOff, rows, cols)
	r.partials++
	return true
}

// bufferTiles packs rows words of (8,1) tiles at dOff, whose first cols
// rows hold the source rows at sOff and the rest padding, through a
// buffer of 8 rows that start on whole bytes (partialRows words at a
// time): partialTiles' tiles, and whole ones whose packed source rows
// start inside a byte (block), which the kernels cannot read in place.
func (r *rows8Walk) bufferTiles(w *walker, dOff, sOff, rows, cols int64) {
	in := w.p.inner.src
	if r.direct && (sOff%2 != 0 || cols > 1 && in%2 != 0) {
		r.buffered++
	}
	v := w.p.pat[0] & 0x0f
	for i0 := int64(0); i0 < rows; i0 += partialRows {
		n := min(rows-i0, partialRows)
		stride := n // bytes per buffered row: one field a byte
		if r.direct {
			stride = (n + 1) / 2 // packed, as the source rows are
		}
		if r.rows == nil {
			r.rows = make([]byte, 8*partialRows)
		}
		buf := r.rows[:8*stride]
		if r.padded != [2]int64{stride, cols} {
			pad := v
			if r.direct {
				pad = v<<4 | v
			}
			kernel.FillRuns(buf[cols*stride:], 0, int((8-cols)*stride), 1, []byte{pad})
			r.padded = [2]int64{stride, cols}
		}
		for j := range cols {
			row := buf[j*stride : (j+1)*stride]
			from := sOff + j*in + i0
			switch {
			case r.direct:
				copyFields4(row, w.src, from, n)
			default:
				copy(row, w.src[from:from+n])
			}
		}
		d := w.dst[(dOff+8*i0)/2:]
		switch {
		case r.direct && r.stream:
			w.stream(0).InterleaveNibbles8(d, buf, int(stride), int(n))
		case r.direct:
			kernel.InterleaveNibbles8(d, buf, int(stride), int(n))
		case r.stream:
			w.stream(0).PackRows8(d, buf, int(stride), int(n))
		default:
			kernel.PackRows8(d, buf, int(stride), int(n))
		}
	}
}

// copyFields4 copies n 4-bit fields of the packed buffer src, from field
// from on, into dst as a packed row that starts at a byte (the first
// field in the high nibble of dst[0]).
func copyFields4(dst, src []byte, from, n int64) {
	b := from / 2
	if from%2 == 0 {
		copy(dst[:(n+1)/2], src[b:])
		return
	}
	// Each byte of the row takes the low nibble of one source byte and
	// the high nibble of the next, which the last field of an even n
	// does not reach past: 8 bytes a step from 9 source bytes, then one
	// at a time.
	k := int64(0)
	for ; k+8 <= n/2; k += 8 {
		v := binary.BigEndian.Uint64(src[b+k:])<<4 | uint64(src[b+k+8]>>4)
		binary.BigEndian.PutUint64(dst[k:], v)
	}
	for ; k < n/2; k++ {
		dst[k] = src[b+k]<<4 | src[b+k+1]>>4
	}
	if n%2 != 0 {
		dst[n/2] = src[b+n/2] << 4
	}
}

// packsDst reports whether the walk writes a packed destination.
func (r *rows8Walk) packsDst() bool { return r.mode == rows8Pack || r.direct }

// block moves the walker's block at element offsets (dOff, sOff): rows
// × cols of the byte plan's transpose, cols (packing) or rows
// (unpacking) being the tile's 8 rows when the block is whole.
func (r *rows8Walk) block(w *walker, dOff, sOff, rows, cols int64) {
	st, in := r.st, &w.p.inner
	if r.mode == rows8Pack {
		// Destination element (i, j) at dOff + 8i + j, from source
		// element sOff + j*in.src + i.
		onBytes := sOff%2 == 0 && in.src%2 == 0
		switch {
		case r.direct && cols == 8 && onBytes && dOff%2 == 0 && r.stream:
			w.stream(w.ahead/2).InterleaveNibbles8(w.dst[dOff/2:], w.src[sOff/2:], int(in.src/2), int(rows))
		case r.direct && cols == 8 && onBytes && dOff%2 == 0:
			kernel.InterleaveNibbles8(w.dst[dOff/2:], w.src[sOff/2:], int(in.src/2), int(rows))
		case r.direct && cols == 8 && dOff%2 == 0:
			r.bufferTiles(w, dOff, sOff, rows, cols)
		case r.direct:
			for i := range rows {
				for j := range cols {
					setField4(w.dst, dOff+8*i+j, field4(w.src, sOff+j*in.src+i))
				}
			}
		case cols == 8 && r.stream:
			w.stream(w.ahead).PackRows8(w.dst[dOff/2:], w.src[sOff:], int(in.src), int(rows))
		case cols == 8:
			kernel.PackRows8(w.dst[dOff/2:], w.src[sOff:], int(in.src), int(rows))
		default:
			for i := range rows {
				for j := range cols {
					setField4(w.dst, dOff+8*i+j, w.src[sOff+j*in.src+i])
				}
			}
		}
		return
	}
	// Destination element (i, j) at dOff + i*oDst + j, from the packed
	// source element sOff + 8j + i.
	oDst := w.outer.dst
	switch {
	case r.direct && rows == 8 && dOff%2 == 0 && r.stream:
		w.stream(0).DeinterleaveNibbles8(w.dst[dOff/2:], int(oDst/2), w.src[sOff/2:], int(cols))
	case r.direct && rows == 8 && dOff%2 == 0:
		kernel.DeinterleaveNibbles8(w.dst[dOff/2:], int(oDst/2), w.src[sOff/2:], int(cols))
	case r.direct:
		for i := range rows {
			for j := range cols {
				setField4(w.dst, dOff+i*oDst+j, field4(w.src, sOff+8*j+i))
			}
		}
	case rows == 8 && r.stream:
		w.stream(0).UnpackRows8(w.dst[dOff:], int(oDst), w.src[sOff/2:], int(cols), st.natural, st.signed)
	case rows == 8:
		kernel.UnpackRows8(w.dst[dOff:], int(oDst), w.src[sOff/2:], int(cols), st.natural, st.signed)
	default:
		mask := byte(1)<<st.natural - 1
		var sign byte
		if st.signed {
			sign = 1 << (st.natural - 1)
		}
		for i := range rows {
			for j := range cols {
				w.dst[dOff+i*oDst+j] = (field4(w.src, sOff+8*j+i)&mask ^ sign) - sign
			}
		}
	}
}

// grids reports whether runDense hands block the values of the box's
// innermost loop l as one blockGrid call: where the walk moves fields
// between two packed sides, or packs byte rows into a packed
// destination, and each block of l's values starts on a byte of the
// packed sides.
func (r *rows8Walk) grids(l *ploop) bool {
	switch {
	case r.direct:
		return l.dst%2 == 0 && l.src%2 == 0
	case r.mode == rows8Pack:
		return l.dst%2 == 0
	}
	return false
}

// blockGrid is block on the count blocks at steps (dStep, sStep) from
// (dOff, sOff): whole (8,1) tiles between packed sides, or packed from
// byte rows, every block on whole bytes of the packed sides, in one
// kernel call (kernel.InterleaveNibbles8Grid, DeinterleaveNibbles8Grid,
// PackRows8Grid); the others one block call each.
func (r *rows8Walk) blockGrid(w *walker, dOff, sOff, rows, cols, count, dStep, sStep int64) {
	in := &w.p.inner
	switch {
	case !r.direct && r.mode == rows8Pack && cols == 8 && dOff%2 == 0:
		d, s := w.dst[dOff/2:], w.src[sOff:]
		if r.stream {
			w.stream(w.ahead).PackRows8Grid(d, int(dStep/2), s, int(in.src), int(sStep), int(rows), int(count))
		} else {
			kernel.PackRows8Grid(d, int(dStep/2), s, int(in.src), int(sStep), int(rows), int(count))
		}
		r.gridCalls++
	case r.direct && r.mode == rows8Pack && cols == 8 && sOff%2 == 0 && in.src%2 == 0 && dOff%2 == 0:
		d, s := w.dst[dOff/2:], w.src[sOff/2:]
		if r.stream {
			w.stream(w.ahead/2).InterleaveNibbles8Grid(d, int(dStep/2), s, int(in.src/2), int(sStep/2), int(rows), int(count))
		} else {
			kernel.InterleaveNibbles8Grid(d, int(dStep/2), s, int(in.src/2), int(sStep/2), int(rows), int(count))
		}
		r.gridCalls++
	case r.direct && r.mode == rows8Unpack && rows == 8 && dOff%2 == 0:
		d, s, oDst := w.dst[dOff/2:], w.src[sOff/2:], w.outer.dst
		if r.stream {
			w.stream(0).DeinterleaveNibbles8Grid(d, int(oDst/2), int(dStep/2), s, int(sStep/2), int(cols), int(count))
		} else {
			kernel.DeinterleaveNibbles8Grid(d, int(oDst/2), int(dStep/2), s, int(sStep/2), int(cols), int(count))
		}
		r.gridCalls++
	default:
		for v := range count {
			r.block(w, dOff+v*dStep, sOff+v*sStep, rows, cols)
		}
	}
}

// fill writes the byte plan p's padding into rows rows of n contiguous
// elements of the packed destination dst, rowStride apart (rows8Pack
// plans write rows of contiguous elements): whole bytes with FillRuns,
// otherwise a field at a time.
func (r *rows8Walk) fill(dst []byte, p *walkPlan, dOff, rowStride, n, rows int64) {
	v := p.pat[0] & 0x0f
	if dOff%2 == 0 && n%2 == 0 && rowStride%2 == 0 {
		kernel.FillRuns(dst[dOff/2:], int(rowStride/2), int(n/2), int(rows), []byte{v<<4 | v})
		return
	}
	for i := range rows {
		for j := range n {
			setField4(dst, dOff+i*rowStride+j, v)
		}
	}
}

// field4 returns 4-bit field e of the packed buffer b (the first of a
// byte in its high nibble).
func field4(b []byte, e int64) byte { return b[e/2] >> (4 - 4*(e%2)) & 0x0f }

// setField4 sets 4-bit field e of the packed buffer b to the low bits of v.
func setField4(b []byte, e int64, v byte) {
	shift := 4 - 4*(e%2)
	b[e/2] = b[e/2]&^(0x0f<<shift) | (v&0x0f)<<shift
}

// repack runs elements [from, to) of an identity byte plan: unpacks them
// into dst, packs them into dst, or both through tmp.
func (st *staged) repack(dst, src, tmp []byte, from, to int64) {
	n := int(to - from)
	perD, perS := int64(1), int64(1)
	if st.pack {
		perD = int64(8 / st.dstBits)
	}
	if st.unpack {
		perS = int64(8 / st.srcBits)
	}
	switch {
	case !st.pack:
		kernel.UnpackBits(dst[from:to], src[from/perS:], n, st.srcBits, st.natural, st.signed)
	case !st.unpack:
		kernel.PackBits(dst[from/perD:], src[from:to], n, st.dstBits)
	default:
		t := tmp[:n]
		kernel.UnpackBits(t, src[from/perS:], n, st.srcBits, st.natural, st.signed)
		kernel.PackBits(dst[from/perD:], t, n, st.dstBits)
	}
}

// slabRange returns the destination bytes slabs [lo, hi) write into.
func (st *staged) slabRange(lo, hi int64) (from, to int64) {
	sl := st.slabs
	l := sl.loop
	if !st.pack && !sl.identity {
		return sl.mid.DestinationRange(lo*sl.per/l.scale, min(hi*sl.per, l.size)/l.scale)
	}
	perByte := int64(1)
	if st.pack {
		perByte = int64(8 / st.dstBits)
	}
	from = min(lo*sl.per*l.dst*sl.unit(), st.dstCount) / perByte
	if hi == sl.count {
		return from, st.dstBytes
	}
	return from, min(hi*sl.per*l.dst*sl.unit(), st.dstCount) / perByte
}

// getTemp returns a temporary buffer of n bytes from pool, or a new one
// when it has none; the caller puts it back.
func getTemp(pool *sync.Pool, n int64) *[]byte {
	if v := pool.Get(); v != nil {
		return v.(*[]byte)
	}
	t := make([]byte, n)
	return &t
}

// tempBytes is the size of the temporary buffers of one Run, or of one
// goroutine's slabs when Run takes them.
func (st *staged) tempBytes() int64 {
	if sl := st.slabs; sl != nil && !sl.rangeOnly {
		return sl.tempA + sl.tempB
	}
	if u := st.units; u != nil && st.pack { // the packed copy of the unpacked side
		return u.srcBytes
	} else if u != nil {
		return u.dstBytes
	}
	var n int64
	if st.unpack {
		n += st.srcCount
	}
	if st.pack {
		n += st.dstCount
	}
	return n
}

// explain describes the stages for Plan.String.
func (st *staged) explain(b *strings.Builder) {
	if st.fields != nil {
		st.fields.explain(b)
		return
	}
	if u := st.units; u != nil {
		// Runs take these; chunk ranges take the slabs, if any.
		if st.pack {
			fmt.Fprintf(b, "  stage 1: pack the source in its own order to %d-bit fields (%d elements)\n  stage 2: the plan over whole bytes:\n", st.dstBits, st.srcCount)
		} else {
			b.WriteString("  stage 1: the plan over whole bytes, into the destination's order packed:\n")
		}
		for line := range strings.Lines(u.String()) {
			b.WriteString("    " + line)
		}
		if !st.pack {
			fmt.Fprintf(b, "  stage 2: unpack %d-bit fields to bytes (%d elements)\n", st.srcBits, st.dstCount)
		}
		if st.slabs == nil {
			return
		}
		b.WriteString("  chunk ranges run slab by slab instead:\n")
	}
	direct := st.slabs != nil && st.slabs.direct
	switch {
	case direct:
		b.WriteString("  no unpacking: the loops of this byte plan move the packed fields:\n")
	case st.unpack:
		fmt.Fprintf(b, "  stage 1: unpack %d-bit fields to bytes (%d elements)\n", st.srcBits, st.srcCount)
		fallthrough
	default:
		b.WriteString("  stage 2: byte plan:\n")
	}
	mid := st.mid
	if sl := st.slabs; sl != nil && (st.units != nil || !sl.rangeOnly) {
		mid = sl.mid // what the slabs run
	}
	for line := range strings.Lines(mid.String()) {
		if st.slabs != nil && !st.slabs.rangeOnly && strings.HasPrefix(line, "  chunks:") {
			continue // the slabs share out the work instead
		}
		b.WriteString("    " + line)
	}
	if st.pack && !direct {
		fmt.Fprintf(b, "  stage 3: pack bytes to %d-bit fields (%d elements)\n", st.dstBits, st.dstCount)
	}
	if sl := st.slabs; sl != nil && sl.identity {
		fmt.Fprintf(b, "  the byte plan copies: the stages run straight from source to destination in %d slabs of %d elements; a Run shares them among up to %d goroutines\n",
			sl.count, sl.per, st.threads)
		fmt.Fprintf(b, "  temporary memory: %d bytes per goroutine\n", st.tempBytes())
		return
	}
	if sl := st.slabs; sl != nil && sl.rangeOnly {
		fmt.Fprintf(b, "  temporary memory: %d bytes per concurrent Run\n", st.tempBytes())
		fmt.Fprintf(b, "  RunRange (a mapped run) runs the stages slab by slab instead, slower but in bounded memory: %d slabs of %d values of d%d, %d bytes of temporaries per goroutine\n",
			sl.count, sl.per, sl.loop.dim, sl.tempA+sl.tempB)
		if sl.mid != mid {
			b.WriteString("  their byte plan:\n")
			for line := range strings.Lines(sl.mid.String()) {
				b.WriteString("    " + line)
			}
		}
		return
	}
	if sl := st.slabs; sl != nil {
		fmt.Fprintf(b, "  the stages run slab by slab: %d slabs of %d values of d%d (%d destination elements each); a Run shares them among up to %d goroutines\n",
			sl.count, sl.per, sl.loop.dim, sl.per*sl.loop.dst*sl.unit(), st.threads)
		switch {
		case sl.direct:
			b.WriteString("  each slab moves its (8,1) tiles' fields between the packed sides in one pass (kernel.InterleaveNibbles8, DeinterleaveNibbles8; fields cut by padding one at a time)\n")
			if in := sl.mid.walk().inner.src; sl.rows8 == rows8Pack && in%2 != 0 {
				fmt.Fprintf(b, "  the source rows, %d fields apart, start inside bytes by turns: a slab reads its run of each into a buffer of 8 rows that start on bytes\n", in)
			}
		case sl.rows8 != rows8None:
			b.WriteString("  each slab packs (or unpacks) its (8,1) tiles and interleaves them in one pass (kernel.PackRows8, UnpackRows8; fields cut by padding one at a time)\n")
		}
		fmt.Fprintf(b, "  temporary memory: %d bytes per goroutine\n", st.tempBytes())
		return
	}
	fmt.Fprintf(b, "  temporary memory: %d bytes per concurrent Run\n", st.tempBytes())
}

// placesAlike reports whether p, whose stages st are, places every byte
// alike on both sides (walkPlan.placesAlike): both sides pack fields of the
// width, that of the type (a narrower type in wider fields leaves their
// high bits to padding), the byte plan between the unpacked arrays places
// every element alike. The last byte may hold bits past the last field,
// which the copy clears (copyAll.clear).
func (st *staged) placesAlike(p *Plan) bool {
	return st.unpack && st.pack && st.srcBits == st.dstBits && st.srcBits == st.natural && st.mid != nil && st.mid.copies() &&
		p.srcBytes == p.dstBytes
}

// copyBits copies the first n bits of src into dst, a byte's most
// significant bits first (as packed fields fill bytes), keeping the
// bits of dst's last byte that are not among them.
func copyBits(dst, src []byte, n int64) {
	// A few bytes, a partial unit's: two moves that overlap where they
	// are not a power of two, cheaper than copy's call to memmove.
	switch q := n / 8; {
	case q >= 4 && q <= 8:
		*(*[4]byte)(dst[q-4:]) = *(*[4]byte)(src[q-4:])
		*(*[4]byte)(dst) = *(*[4]byte)(src)
	case q >= 2 && q <= 3:
		*(*[2]byte)(dst[q-2:]) = *(*[2]byte)(src[q-2:])
		*(*[2]byte)(dst) = *(*[2]byte)(src)
	case q == 1:
		dst[0] = src[0]
	case q > 8:
		copy(dst[:q], src)
	}
	if r := n % 8; r != 0 {
		mask := byte(0xff) << (8 - r)
		dst[n/8] = dst[n/8]&^mask | src[n/8]&mask
	}
}
