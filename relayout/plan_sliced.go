package relayout

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

// sliced is the plan of a relayout run a slice of the array at a time:
// the values of one dim cut into ranges, each range a sub-array that
// lies in each buffer as a few runs (one run where the dim is the
// slowest; else one for each value of the slower dims). A slice's
// source runs are unpacked (or, unpacked already, copied where they are
// several) side by side into a temporary, the slice's byte plan
// relayouts that into a second one, and that is packed into the
// destination's runs (or copied out, with non-temporal stores past the
// caches, where they are several). A side that holds the slice as one
// unpacked run is read or written in place.
//
// It serves the packed plans that would otherwise run their stages
// whole (unpack, byte plan, pack), each a pass over the whole array
// through temporaries twice its size: u4[3,512,112,128]{0,3,2,1:E(4)}
// to {3,2,1,0:T(32,32)E(4)}, whose slices of d1 are one run of the
// source and three of the destination. A slice's stages then run in
// the caches. It serves as well those whose slabs would walk blocks
// an element at a time, or outgrow the caches (Plan.sliced).
type sliced struct {
	*parallelism
	dim    int
	per    int64    // values of dim a slice
	extent int64    // values of dim in the array
	count  int64    // slices
	parts  [2]*Plan // a whole slice's byte plan, then the last's where it is shorter
	src    sliceRuns
	dst    sliceRuns
	stream bool // the destination's runs are written past the caches

	unpack, pack bool // whether the source, the destination are packed
	// shares says that the destination's runs start and end inside
	// bytes (4-bit fields in runs of an odd count apart), each shared
	// with the run of the neighbouring slice (the last slice's with the
	// first's): the slices that meet on different goroutines may not run
	// at once (run), and the plan is one chunk.
	shares  bool
	natural int  // the type's bits
	signed  bool // whether unpacking sign-extends

	pat   []byte // an element of padding, for the destination's tail (fillTail)
	temp  int64  // bytes of the temporaries a slice needs
	temps sync.Pool
}

// sliceRuns is how the slices of a dim lie in one buffer: n runs a
// slice, stride bytes apart, each of places places (of bits bits) for
// each tile of the dim (tile values; 1 where no tile covers it).
type sliceRuns struct {
	n, stride  int64 // runs a slice, bytes apart (rounded down where strideBits is no whole bytes)
	strideBits int64 // bits from a run to the next: odd nibbles on a packed source (sliceRunsOf)
	step       int64 // values of the dim from which a slice may start: whole tiles of whole bytes
	tile       int64 // values of the dim a tile of it (1 where no tile covers it)
	places     int64 // places of a run a tile
	bits       int64 // a place's
	// end is the bit at which the places the runs cover end, size the
	// bits of all places: those between are an L layout's tail padding.
	end, size int64
}

// runStart returns the bit at which run r of the slice that starts at
// byte start (of run 0) starts.
func (r sliceRuns) runStart(start, run int64) int64 { return start*8 + run*r.strideBits }

// unpackedBytes is the bytes of the runs of a slice of v values with a
// byte for each place where they pack places in fewer bits.
func (r sliceRuns) unpackedBytes(v int64) int64 {
	return r.n * ceilDiv(v, r.tile) * r.places * max(r.bits/8, 1)
}

// at returns where the slice of v values from value a starts and the
// bits of each of its runs; a is a multiple of step.
func (r sliceRuns) at(a, v int64) (start, bits int64) {
	return a / r.tile * r.places * r.bits / 8, ceilDiv(v, r.tile) * r.places * r.bits
}

// runBytes returns the bytes of each run of a slice of v values, or false
// where they are no whole bytes.
func (r sliceRuns) runBytes(v int64) (int64, bool) {
	_, b := r.at(0, v)
	return b / 8, b%8 == 0
}

// sliceRunsOf returns how the values of dim d of s lie in its buffer,
// or false where they do not lie in runs of whole bytes (runs of 4-bit
// fields may start inside bytes: a source's slices unpack each run on its
// own; a destination's neighbouring slices share the bytes where they
// meet, sliced.shares): s must be a static array with a layout of every
// dim, whose tiles (if any) combine no dims and keep later tiles within
// the first (tileExtent); tail padding (L) may follow the places (end).
// Its buffer is then a row-major grid of blocks (a first tile each, or an
// element): the physical dims not tiled, then the tile counts of those
// the first tile covers.
func sliceRunsOf(s Shape, d int) (sliceRuns, bool) {
	rank := s.Rank()
	if s.IsTuple() || s.HasDynamicDims() || rank == 0 {
		return sliceRuns{}, false
	}
	l, has := s.Layout()
	mtm := l.MinorToMajor
	if !has {
		mtm = make([]int, rank)
		for i := range mtm {
			mtm[i] = rank - 1 - i
		}
	}
	if len(mtm) != rank {
		return sliceRuns{}, false
	}
	if _, ok := tileExtent(l, rank); !ok {
		return sliceRuns{}, false
	}
	var first Tile
	if len(l.Tiles) > 0 {
		first = l.Tiles[0]
	}
	k := len(first)
	grid := make([]int64, rank) // physical, slowest first
	j := -1
	for i := range grid {
		dim := mtm[rank-1-i]
		grid[i] = s.dims[dim]
		if i >= rank-k {
			grid[i] = ceilDiv(s.dims[dim], first[i-(rank-k)])
		}
		if dim == d {
			j = i
		}
	}
	r := sliceRuns{n: product(grid[:j]), tile: 1, bits: s.elementBits()}
	if j >= rank-k {
		r.tile = first[j-(rank-k)]
	}
	r.places = product(grid[j+1:]) * product(first)
	m, err := s.denseMap()
	if err != nil || r.n*grid[j]*r.places != product(m.PhysicalDims()) {
		return sliceRuns{}, false // padding the grid does not account for
	}
	r.end, r.size = r.n*grid[j]*r.places*r.bits, m.Elements()*r.bits
	// A slice starts on a whole tile, and on a byte: as many tiles as
	// that takes. The runs must start on bytes too.
	r.step = r.tile * (8 / gcd(8, r.places*r.bits%8+8))
	r.strideBits = grid[j] * r.places * r.bits
	if r.n > 1 && r.strideBits%8 != 0 && r.bits != 4 {
		return sliceRuns{}, false
	}
	r.stride = r.strideBits / 8
	return r, true
}

// sliceTarget is about how many elements a slice holds: the slices of a
// packed plan then run its stages through temporaries of about
// slabBytes, as its own slabs do.
const sliceTarget = slabBytes

// sliceLead is where a slice's unpacked source runs start in its
// temporary: a line in, so that they start where it does and the byte
// before them is there to take a field (slice).
const sliceLead = 64

// sliceMinRun is the shortest run of a buffer a slice copies in or out,
// four lines: of the random pairs (relayout bench --random, seeds 1-3)
// that slice with runs from 256 bytes up, none ran slower sliced than
// with its stages whole (docs/perf).
const sliceMinRun = 256

// sliced returns p, a plan Compile has just compiled whole, as a sliced
// plan, or nil where it does not take one: where p is not a packed plan
// that runs its stages whole, or in slabs that walk tiny blocks or
// outgrow the caches, over an array of several slices; or where no dim
// cuts both buffers in runs of sliceMinRun bytes or more (or one run).
func (p *Plan) sliced(opts *Options) *Plan {
	st := p.stages()
	if st == nil || st.fields != nil || st.units != nil || opts != nil && opts.Pad.Widths != nil {
		return nil
	}
	// A slice's byte plan runs blocked where the whole array's does, or
	// where slabs would walk one that moves its blocks an element at a
	// time (tinyBlocks: slabs read a walk's loops, so theirs cannot run
	// blocked): s4[2576,16896] from T(4,128) to T(8,128)(8,1) tiles,
	// whose slabs interleaved 4 rows into groups of 8 bytes a call.
	// Slabs that only RunRange takes read a little of every source row a
	// slab, as would slices (s4 4096² row-major bytes to packed
	// column-major ran faster whole than sliced); other slabs stay.
	var blocks bool
	switch sl := st.slabs; {
	case sl == nil:
		_, blocks = st.mid.exec.(*blocked)
	case sl.rangeOnly || sl.identity || sl.rows8 != rows8None:
		return nil
	default:
		w := sl.mid.walk()
		blocks = w != nil && w.tinyBlocks()
		// Slabs too large for the caches (a slab of each value of a dim
		// of 2) are no better than the whole stages: slices may be.
		if !blocks && sl.tempA+sl.tempB <= 4*slabBytes {
			return nil
		}
	}
	target, minRun := int64(sliceTarget), int64(sliceMinRun)
	if opts != nil && opts.sliceElems > 0 {
		target, minRun = opts.sliceElems, 0
	}
	elements := max(p.fm.Elements(), p.tm.Elements()) // places on the larger side
	if elements < 4*target {
		return nil
	}
	best, bestScore := (*sliced)(nil), int64(-1)
	for d := range p.from.Rank() {
		s, ok := p.sliceAlong(d, elements, target, minRun)
		if !ok {
			continue
		}
		score := int64(1) << 62 // a slice that is one run on both sides
		for _, r := range [2]sliceRuns{s.src, s.dst} {
			if run, _ := r.runBytes(s.per); r.n > 1 {
				score = min(score, run)
			}
		}
		if score > bestScore {
			best, bestScore = s, score
		}
	}
	if best == nil {
		return nil
	}
	o := Options{Threads: 1}
	if opts != nil {
		o = *opts
		o.Threads = 1
	}
	o.inCache = true
	last := best.extent - (best.count-1)*best.per
	for i, v := range [2]int64{best.per, last} {
		if i == 1 && v == best.per {
			break
		}
		// The byte plan of a slice, which runs in the caches: it never
		// streams, and runs blocked as said above, whatever its own size
		// (a slice's 8×8 byte blocks walked ran at a fifth of their speed
		// blocked).
		from, to := sliceOf(p.from, best.dim, v), sliceOf(p.to, best.dim, v)
		q, err := compile(from, to, &o, math.MaxInt64, true)
		if err != nil {
			return nil
		}
		o.forceBlocked = blocks
		q.block(&o)
		if _, ok := q.exec.(*blocked); blocks && !ok {
			// A walk widened into units does not block: the walk of the
			// bytes as they are may.
			if r, err := compile(from, to, &o, math.MaxInt64, false); err == nil {
				r.block(&o)
				if _, ok := r.exec.(*blocked); ok {
					q = r
				}
			}
		}
		// It must fill exactly the slice's runs, whole bytes (on a
		// packed source, which unpacks each run on its own, runs that
		// end inside a byte too: the last slice of an odd dim; on a
		// destination of 4-bit fields likewise, packed around the
		// fields they share (packAt); and the last slice's one run of
		// a packed destination, which ends the buffer, its last byte's
		// other field unused).
		rs, ok1 := best.src.runBytes(v)
		rd, ok2 := best.dst.runBytes(v)
		ok1 = ok1 || p.from.isPacked() && best.src.bits == 4
		ok2 = ok2 || i == 1 && p.to.isPacked() && (best.dst.n == 1 || best.dst.bits == 4)
		if !ok1 || !ok2 || q.srcBytes != best.src.unpackedBytes(v) || q.dstBytes != best.dst.unpackedBytes(v) ||
			!p.from.isPacked() && q.srcBytes != best.src.n*rs || !p.to.isPacked() && q.dstBytes != best.dst.n*rd {
			return nil
		}
		best.parts[i] = q
	}
	best.unpack, best.pack = p.from.isPacked(), p.to.isPacked()
	best.shares = best.pack && best.dst.n > 1 && best.dst.strideBits%8 != 0
	best.natural, best.signed = p.dtype.Bits(), p.dtype.IsSigned()
	a, b := sliceLead+best.parts[0].srcBytes, best.parts[0].dstBytes // a line before the source runs (slice)
	if !best.unpack && best.src.n == 1 {
		a = 0
	}
	if !best.pack && best.dst.n == 1 {
		b = 0
	}
	if best.pack {
		// A piece of the packed runs, where they are streamed out.
		b += min(ceilDiv(best.parts[0].dstBytes*best.dst.bits, 8), packPiece)
	}
	best.stream = p.pastCaches()
	best.pat = p.padPat
	best.temp = a + b
	best.parallelism = &p.parallelism
	p.exec = best
	return p
}

// sliceOf returns the shape of a slice of s of v values of dim d, with
// one byte per element: without the tail padding of an L layout, which
// follows the places of all slices (sliced.fillTail).
func sliceOf(s Shape, d int, v int64) Shape {
	c := bytesOf(s.withDim(d, v))
	c.layout.TailPaddingAlignment = 0
	return c
}

// bytesOf returns s with one byte per element, where it packs them.
func bytesOf(s Shape) Shape {
	if s.isPacked() {
		return unpacked(s)
	}
	return s
}

// sliceAlong returns the slices of dim d for p, whose larger side holds
// elements places, of about target places each, or false where d does
// not cut both buffers in runs of whole bytes, minRun bytes or more each
// (or one run), into two slices at least.
func (p *Plan) sliceAlong(d int, elements, target, minRun int64) (*sliced, bool) {
	src, ok1 := sliceRunsOf(p.from, d)
	dst, ok2 := sliceRunsOf(p.to, d)
	if !ok1 || !ok2 {
		return nil, false
	}
	step := src.step / gcd(src.step, dst.step) * dst.step
	n := p.from.dims[d]
	if n < 2 {
		return nil, false
	}
	perValue := elements / n // places a value of d
	per := max(target/max(perValue, 1)/step, 1) * step
	// Slices up to 4 times the target, where that makes the runs of
	// minRun bytes: u4[4001,4001] transposed, in slices of d1 (the source
	// 4001 runs a slice), needs 512 values a slice where the target
	// makes 262.
	for _, r := range [2]sliceRuns{src, dst} {
		if run, _ := r.runBytes(per); r.n > 1 && run < minRun {
			per = ceilDiv(per*minRun, max(run, 1)) / step * step
			for run, _ = r.runBytes(per); run < minRun; run, _ = r.runBytes(per) {
				per += step
			}
		}
	}
	if per >= n || perValue*per > 4*target {
		return nil, false
	}
	return &sliced{dim: d, per: per, extent: n, count: ceilDiv(n, per), src: src, dst: dst}, true
}

// run runs the slices, shared out among the plan's goroutines. Where
// neighbouring slices share bytes (shares), each goroutine leaves the
// first slice of its range, and the last of them the array's last slice
// (which meets the first), to run once they are done.
func (s *sliced) run(dst, src []byte) error {
	g := min(s.goroutines(), s.count)
	if !s.shares || g <= 1 {
		shareOut(s.count, g, func(lo, hi int64) { s.runChunks(dst, src, lo, hi) })
		return nil
	}
	shareOut(s.count, g, func(lo, hi int64) {
		if lo > 0 {
			lo++
			if hi == s.count {
				hi--
			}
		}
		if lo < hi {
			s.runChunks(dst, src, lo, hi)
		}
	})
	for k := int64(1); k < g; k++ {
		if c := s.count * k / g; c < s.count-1 { // range k's first (shareOut)
			s.runChunks(dst, src, c, c+1)
		}
	}
	s.runChunks(dst, src, s.count-1, s.count)
	return nil
}

// sliceAheadRuns is how many source runs ahead of the one it reads a
// slice prefetches.
const sliceAheadRuns = 8

// chunks is the slices, or one where they share bytes (shares).
func (s *sliced) chunks() int64 {
	if s.shares {
		return 1
	}
	return s.count
}

// runChunks runs slices [lo, hi) one after another through one
// temporary.
func (s *sliced) runChunks(dst, src []byte, lo, hi int64) {
	tmp := getTemp(&s.temps, s.temp)
	defer s.temps.Put(tmp)
	for c := lo; c < hi; c++ {
		s.slice(dst, src, *tmp, c)
	}
	if s.stream && (s.dst.n > 1 || s.pack) { // copied out or packed streaming
		kernel.StoreFence()
	}
}

// slice runs slice c through tmp.
func (s *sliced) slice(dst, src, tmp []byte, c int64) {
	a := c * s.per
	v := min(s.per, s.extent-a)
	q := s.parts[0]
	if v != s.per {
		q = s.parts[1]
	}
	sa, _ := s.src.at(a, v)
	da, _ := s.dst.at(a, v)
	rs, _ := s.src.runBytes(v)
	rd, _ := s.dst.runBytes(v)
	in, out := src[sa:sa+rs], dst[da:da+rd]
	if s.unpack || s.src.n > 1 {
		// The byte before the unpacked runs takes the field before a run
		// that starts inside a byte (see below); they start a line into
		// the temporary, as it does (unpacked to an odd address, the
		// runs of u4[3,39454720] de-interleaved ran 15% slower).
		buf := tmp // in, a line into it
		in, tmp = buf[sliceLead:sliceLead+q.srcBytes], buf[sliceLead+q.srcBytes:]
		es := q.srcBytes / s.src.n // elements (bytes) a run
		// Last run first: a run that starts inside a byte unpacks from
		// the field before it, into the last byte of the run before,
		// which that run then writes.
		for r := s.src.n - 1; r >= 0; r-- {
			bit := s.src.runStart(sa, r)
			at := bit / 8
			if ahead := r - sliceAheadRuns; ahead >= 0 {
				// Runs of a few hundred bytes far apart: the hardware
				// prefetchers do not bring them in ahead.
				kernel.Prefetch(src[s.src.runStart(sa, ahead)/8:][:rs])
			}
			switch {
			case bit%8 != 0:
				kernel.UnpackBits(buf[sliceLead+r*es-1:], src[at:], int(es+1), int(s.src.bits), s.natural, s.signed) // from in[r*es-1]
			case s.unpack:
				kernel.UnpackBits(in[r*es:], src[at:], int(es), int(s.src.bits), s.natural, s.signed)
			default:
				copy(in[r*es:(r+1)*es], src[at:])
			}
		}
	}
	if c == s.count-1 {
		defer s.fillTail(dst)
	}
	if s.pack || s.dst.n > 1 {
		out = tmp[:q.dstBytes]
	}
	q.exec.run(out, in) // the buffers are checked, a byte plan has no error of its own
	if !s.pack && s.dst.n == 1 {
		return
	}
	ed := q.dstBytes / s.dst.n
	if s.packsStreamed(ed) {
		s.packStreamed(dst[da:], out, tmp[q.dstBytes:], ed)
		return
	}
	for r := range s.dst.n {
		run := dst[da+r*s.dst.stride:]
		switch {
		case s.shares:
			bit := s.dst.runStart(da, r)
			packAt(dst, bit, out[r*ed:r*ed+ed], bit+ed*4 < s.dst.end)
		case s.pack:
			kernel.PackBits(run, out[r*ed:], int(ed), int(s.dst.bits))
		case s.stream:
			kernel.CopyRunsStreamingUnfenced(run, 0, 0, out[r*ed:], 0, 0, int(ed), 1, 1)
		default:
			copy(run[:ed], out[r*ed:])
		}
	}
}

// packAt packs the bytes of src into 4-bit fields of dst from bit at:
// where that is inside a byte, its first field keeps; where the fields
// end inside one, with keep, its second field keeps too (it belongs to
// another run), else it is cleared, as PackBits clears it.
func packAt(dst []byte, at int64, src []byte, keep bool) {
	b := at / 8
	if at%8 != 0 {
		dst[b] = dst[b]&0xf0 | src[0]&0x0f
		b, src = b+1, src[1:]
	}
	n := int64(len(src))
	if n == 0 {
		return
	}
	if !keep || n%2 == 0 {
		kernel.PackBits(dst[b:], src, int(n), 4)
		return
	}
	e := b + n/2 // the byte the fields end inside
	low := dst[e] & 0x0f
	kernel.PackBits(dst[b:], src, int(n), 4)
	dst[e] |= low
}

// fillTail writes the padding that follows the places of the
// destination dst (an L layout's tail) to its end, and clears the bits
// of its last byte past its last place where they are not whole bytes.
func (s *sliced) fillTail(dst []byte) {
	from, size := s.dst.end, s.dst.size
	if from == size {
		return
	}
	if !s.pack {
		kernel.FillRuns(dst[from/8:], 0, int(size-from)/8, 1, s.pat)
		return
	}
	bits := s.dst.bits
	var b byte // a byte of padding fields
	for range 8 / bits {
		b = b<<bits | s.pat[0]&(1<<bits-1)
	}
	at := from / 8
	if r := from % 8; r != 0 { // a field before the tail shares its byte
		keep := byte(0xff) << (8 - r)
		dst[at] = dst[at]&keep | b&^keep
		at++
	}
	end := ceilDiv(size, 8)
	for i := at; i < end; i++ {
		dst[i] = b
	}
	if r := size % 8; r != 0 {
		dst[end-1] &= byte(0xff) << (8 - r)
	}
}

// packPiece is the most bytes of packed destination a slice packs into
// its temporary before it streams them out (packStreamed): L1 holds them.
const packPiece = 16 << 10

// packsStreamed reports whether a slice packs its destination runs of
// ed unpacked elements through packStreamed: where the destination is
// packed and past the caches, in runs of whole lines (at strides of
// whole lines), packPiece bytes or fewer each.
func (s *sliced) packsStreamed(ed int64) bool {
	pb := ed * s.dst.bits / 8
	return s.pack && !s.shares && s.stream && pb > 0 && pb <= packPiece && pb%64 == 0 && (s.dst.n == 1 || s.dst.stride%64 == 0)
}

// packStreamed packs the slice's s.dst.n runs of ed unpacked elements,
// packPiece bytes or fewer each packed, from out into dst (the slice's
// first run) through pk, as many runs a piece as fit, and streams each
// piece out with non-temporal stores in one call: the packing kernel's
// plain stores would read each destination line before they write it.
//
// slice takes it where packsStreamed says: runs of a few hundred bytes
// to a few KiB far apart ran faster so (s4[1,256,1045,384] from T(256)
// to another order, 1045 runs of 384 bytes a slice). Runs that end inside
// a line, whose rest the next slice writes (s4[896,603,2,54], runs of 864
// bytes), and runs longer than a piece, packed and streamed a piece at a
// time (u4[3,39454720] transposed to T(128), 3 runs of 175 KB a slice),
// ran slower than packed in place (docs/perf).
func (s *sliced) packStreamed(dst, out, pk []byte, ed int64) {
	bits := s.dst.bits
	pb := ed * bits / 8   // bytes of a packed run
	per := packPiece / pb // runs a piece
	for r0 := int64(0); r0 < s.dst.n; r0 += per {
		k := min(per, s.dst.n-r0)
		for r := range k {
			kernel.PackBits(pk[r*pb:], out[(r0+r)*ed:], int(ed), int(bits))
		}
		kernel.CopyRunsStreamingUnfenced(dst[r0*s.dst.stride:], int(s.dst.stride), 0, pk, int(pb), 0, int(pb), int(k), 1)
	}
}

// chunkRange returns the destination bytes slices [lo, hi) write into:
// from the first one's first run to the last one's last (with the byte
// the last slice's run ends inside, where it ends the buffer so).
func (s *sliced) chunkRange(lo, hi int64) (from, to int64) {
	from, _ = s.dst.at(lo*s.per, 0)
	if hi == s.count && s.dst.end < s.dst.size { // and the tail padding
		return from, ceilDiv(s.dst.size, 8)
	}
	a := (hi - 1) * s.per
	start, bits := s.dst.at(a, min(s.per, s.extent-a))
	return from, start + (s.dst.n-1)*s.dst.stride + ceilDiv(bits, 8)
}

// padding is the slices' plan's.
func (s *sliced) padding() string { return s.parts[0].exec.padding() }

// explain says how the plan cuts the array, then explains a slice's plan.
func (s *sliced) explain(b *strings.Builder) {
	side := func(r sliceRuns) string {
		run, _ := r.runBytes(s.per)
		if r.n == 1 {
			return fmt.Sprintf("one run of %d bytes, in place", run)
		}
		if r.strideBits%8 != 0 {
			return fmt.Sprintf("%d runs of %d bytes, %d fields apart (every other one starts inside a byte), through a temporary", r.n, run, r.strideBits/r.bits)
		}
		return fmt.Sprintf("%d runs of %d bytes, %d apart, through a temporary", r.n, run, r.stride)
	}
	fmt.Fprintf(b, "  sliced: d%d in %d slices of %d values, each a sub-array that the caches hold, so that its plan's stages run in them\n", s.dim, s.count, s.per)
	fmt.Fprintf(b, "    a slice's source: %s\n", side(s.src))
	fmt.Fprintf(b, "    a slice's destination: %s\n", side(s.dst))
	switch {
	case s.packsStreamed(s.parts[0].dstBytes / s.dst.n):
		b.WriteString("    the destination's runs are packed a piece at a time in the caches and written with non-temporal stores (past the caches; runs of whole lines)\n")
	case s.shares:
		b.WriteString("    the destination's runs start and end inside bytes, which neighbouring slices share: packed in place around them, the slices where goroutines meet run last, and a RunRange runs them all\n")
	case s.pack && s.stream:
		b.WriteString("    the destination's runs are packed in place (past the caches, but runs that end inside lines or are longer than a piece)\n")
	case s.stream && s.dst.n > 1:
		b.WriteString("    the destination's runs are written with non-temporal stores (past the caches)\n")
	}
	if g := min(s.goroutines(), s.count); g > 1 {
		fmt.Fprintf(b, "    the slices shared out among %d goroutines\n", g)
	}
	for i, q := range s.parts {
		if q == nil {
			continue
		}
		what := "a slice's plan"
		if i == 1 {
			what = "the last slice's plan"
		}
		fmt.Fprintf(b, "  %s:\n", what)
		for line := range strings.Lines(q.String()) {
			b.WriteString("    " + line)
		}
	}
}
