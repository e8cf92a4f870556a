package relayout

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

// fieldPlan is how a transpose of packed sub-byte elements runs without
// unpacking them: when both sides pack e = 8/bits fields to a byte and
// the byte plan is a block transpose (after batch loops) whose rows,
// columns and strides all come in whole bytes, each batch is
// kernel.TransposeFields over groups of e source rows into a temporary
// of the batch's packed size, then a byte transpose of that into the
// destination. Both passes move the packed bytes once, where unpacking
// moves e times as many through the byte plan and packs them again.
//
// With unpackDst the destination holds a byte per element: each band
// is transposed packed into a second temporary, whose rows are then
// unpacked into the destination's. The source is read once, a band's
// bytes of each row at a time, where the stages would unpack all of it
// into a temporary as large as the array first.
type fieldPlan struct {
	bits, e int64
	// unpackDst is set for an unpacked destination; natural and signed
	// then say how its bytes hold the fields' values.
	unpackDst bool
	natural   int
	signed    bool
	de        int64 // destination elements to a byte: e, or 1 with unpackDst
	// rangeOnly is set for an unpackDst plan that a whole Run does not
	// take (Tuning.UnpackRunBytes): only chunk ranges do, so that a mapped run
	// holds band-sized temporaries.
	rangeOnly bool
	loops     []ploop // the batch loops, strides in elements
	// A batch: the destination has rows rows of cols elements, dstRow
	// elements apart; the source cols rows of rows elements, srcRow apart.
	rows, cols     int64
	dstRow, srcRow int64
	// band is how many of a batch's destination rows one chunk moves:
	// rows, or a multiple of unit() below it (Tuning.FieldBandBytes).
	band         int64
	onePass      bool  // fields past the caches in whole tiles: kernel.TransposePackedStreaming
	stream       bool  // the byte transposes write past the caches
	streamMin    int64 // the plan's: from this temporary size on, so do the field passes
	*parallelism       // the plan's

	// temps keeps a batch's temporary (*[]byte) between Runs.
	temps sync.Pool
}

// fieldBatchMin and fieldBatchesMax bound the batches of a 4-bit field
// plan: fieldBatchesMax batches or more must hold fieldBatchMin packed
// bytes each. Each batch is two kernel calls and their setup, a fixed
// cost, so the many small batches of the 4-bit tilings with (2,1) or
// (4,1) inside (128 and 256 bytes) are faster through the staged plan,
// unpacked and packed again (relayout bench, s4 [4096,4096] from
// row-major to T(8,128)(2,1)E(4) and T(8,128)(4,1)E(4), and back from
// (2,1): several times faster staged).
// 2-bit fields have no unpacking kernels and stay (see below).
const (
	fieldBatchMin   = 1 << 10
	fieldBatchesMax = 64
)

// planFields returns the field plan of p, whose stages are st and whose
// byte plan between the unpacked shapes is plan, or nil when p is not such a transpose: both
// sides packed alike, fields that hold the whole value (so that moving
// them verbatim is what unpacking and packing would do), no padding, and
// whole bytes everywhere.
//
// A packed source and an unpacked destination (unpackDst) take such a
// plan too, with values narrower than their fields (compileStaged asks
// only when the stages cannot run slab by slab).
func planFields(p *Plan, st *staged, plan *Plan) *fieldPlan {
	unpackDst := st.unpack && !st.pack
	if !unpackDst && (!st.unpack || !st.pack || st.srcBits != st.dstBits || st.natural != st.srcBits) {
		return nil
	}
	mid := plan.walk()
	if mid == nil || mid.mode != modeStrided || mid.kern != kernTranspose || mid.outer == nil || mid.tail[1] > mid.tail[0] {
		return nil
	}
	for _, d := range mid.dims {
		if d.n != d.e {
			return nil
		}
	}
	// Every batch must be whole: the loops may run past a dim's size
	// (over a source tile's padding), which the walker clips and a batch
	// here would not.
	for _, s := range mid.spans[0] {
		if mid.dims[s.dim].n < s.span {
			return nil
		}
	}
	e := int64(8 / st.srcBits)
	de := e // destination elements to a byte
	if unpackDst {
		de = 1
	}
	o, in := mid.outer, &mid.inner
	whole := o.src == 1 && in.dst == 1 && o.size%e == 0 && in.size%e == 0 && o.dst%de == 0 && in.src%e == 0 &&
		mid.srcBytes == e*p.srcBytes && mid.dstBytes == de*p.dstBytes
	for _, l := range mid.loops {
		whole = whole && l.dst%de == 0 && l.src%e == 0
	}
	// The field pass has kernels for rows of 32 bytes or more and for
	// short rows (kernel.ShortFieldRows: here source rows of o.size/e
	// bytes, in.src/e apart). Other rows of fewer than 32 bytes leave it
	// to the generic code, and 4-bit fields then go faster unpacked and
	// packed again by the staged plan's kernels (s4 8192² untiled from
	// T(8,128)(8,1)E(4) through the generic field pass ran slower than
	// staged); 2-bit fields, with no such kernels, are faster here even
	// so.
	short := kernel.ShortFieldRows(int(in.src/e), int(o.size/e), st.srcBits)
	batches := int64(1)
	for _, l := range mid.loops {
		batches *= l.size
	}
	if !whole || (st.srcBits == 4 && o.size/e < 32 && !short) ||
		st.srcBits == 4 && batches >= fieldBatchesMax && o.size*in.size/e < fieldBatchMin {
		return nil
	}
	f := &fieldPlan{
		bits: int64(st.srcBits), e: e, de: de, unpackDst: unpackDst, natural: st.natural, signed: st.signed, loops: mid.loops,
		rows: o.size, cols: in.size, dstRow: o.dst, srcRow: in.src,
		stream: mid.stream, streamMin: mid.streamMin, parallelism: &p.parallelism,
	}
	// Where the level has it, a transpose of Tuning.PackedOnePassBytes
	// or more (or the plan's streamMin, which tests lower) takes one
	// pass, which reads and writes the array once where the two passes go
	// through a temporary (docs/perf/2026-11-27-tuning-figures.md). Only
	// whole tiles (unit() fields each way,
	// destination rows and batches on whole lines) go: the edges of the
	// one pass go a byte at a time (the tpu preset's short rows untiled
	// so ran an order of magnitude slower than in two passes).
	u := f.unit()
	t := currentTuning()
	f.onePass = !unpackDst && p.dstBytes >= min(int64(t.PackedOnePassBytes), p.streamMin) && kernel.PackedOnePass() &&
		f.rows%u == 0 && f.cols%u == 0 && f.dstRow/e%64 == 0
	for _, l := range f.loops {
		f.onePass = f.onePass && l.dst/e%64 == 0
	}
	f.band = f.rows
	if b := int64(t.FieldBandBytes) / (f.cols / e) / u * u; b > 0 && b < f.rows {
		f.band = b
	}
	f.rangeOnly = unpackDst && st.srcCount < int64(t.UnpackRunBytes)
	return f
}

// unit is the step of band sizes, the destination rows of a tile of the
// one pass: 64 bytes of source fields (the register block of its byte
// transposes), and at least 128, whole bytes of source fields and whole
// lines of destination rows.
func (f *fieldPlan) unit() int64 { return 64 * max(2, f.e) }

// run runs every chunk; the buffers have been checked. With threads and
// a destination of parallelMin bytes or more, the chunks are shared out
// among goroutines, or when they are fewer than the goroutines, the
// passes of each chunk.
func (f *fieldPlan) run(dst, src []byte) {
	chunks := f.chunks()
	parts := f.goroutines()
	if parts == 1 || chunks < parts {
		f.runChunks(dst, src, 0, chunks, parts)
		return
	}
	shareOut(chunks, parts, func(lo, hi int64) { f.runChunks(dst, src, lo, hi, 1) })
}

// runChunks runs chunks [lo, hi) in order through one temporary, each on
// parts goroutines. Chunk c is band c%bands of batch c/bands, the
// batches in the order of the batch loops.
func (f *fieldPlan) runChunks(dst, src []byte, lo, hi, parts int64) {
	var tmp *[]byte // taken from the pool when a chunk needs it
	defer func() {
		if tmp != nil {
			f.temps.Put(tmp)
		}
	}()
	temp := func() []byte {
		if tmp == nil {
			tmp = getTemp(&f.temps, f.tempBytes())
		}
		return *tmp
	}
	nb := f.bands()
	for c := lo; c < hi; {
		dOff, sOff := f.batchOffsets(c / nb)
		for end := min(hi, (c/nb+1)*nb); c < end; c++ {
			r0 := c % nb * f.band
			f.chunk(dst[dOff/f.de:], src[sOff/f.e:], temp, r0, min(r0+f.band, f.rows), parts)
		}
	}
}

// batchOffsets returns the element offsets of batch b in the destination
// and the source.
func (f *fieldPlan) batchOffsets(b int64) (dOff, sOff int64) {
	for k := len(f.loops) - 1; k >= 0; k-- {
		l := &f.loops[k]
		v := b % l.size
		b /= l.size
		dOff += v * l.dst
		sOff += v * l.src
	}
	return dOff, sOff
}

// chunk moves destination rows [r0, r1) of one batch, whose destination
// and source start at dst[0] and src[0], in one pass where it can (then
// without a temporary), otherwise through the temporary m = temp(): the
// source's cols rows of packed fields, bytes r0/e to r1/e of each, become
// m's cols/e rows of r1-r0 bytes, and m transposed as bytes is the
// destination's rows; with unpackDst it is the band's packed rows, in
// the temporary after m, which are then unpacked into the destination's.
// Each pass is shared out among up to parts goroutines by rows of its
// output.
func (f *fieldPlan) chunk(dst, src []byte, temp func() []byte, r0, r1, parts int64) {
	e, w := f.e, r1-r0
	if d, u := dst[r0*f.dstRow/e:], f.unit(); f.onePass && r0%u == 0 && uintptr(unsafe.Pointer(&d[0]))%64 == 0 {
		// Up to parts goroutines, each a stretch of whole tiles' rows;
		// or where the rows are fewer tiles than the goroutines (one
		// tile of 128 destination rows, s4[128,211,1152] from T(128)
		// transposed), of whole tiles' columns.
		one := func(a, b, c0, c1 int64) {
			kernel.TransposePackedStreaming(int(f.bits), dst[(r0+a)*f.dstRow/e+c0/e:], int(f.dstRow/e), src[c0*f.srcRow/e+(r0+a)/e:], int(f.srcRow/e), int(b-a), int(c1-c0))
		}
		tiles := ceilDiv(w, u)
		if cols := f.cols / u; tiles < parts && cols > tiles {
			shareOut(cols, min(parts, cols), func(a, b int64) { one(0, w, a*u, b*u) })
			return
		}
		shareOut(tiles, min(parts, tiles), func(a, b int64) { one(a*u, min(b*u, w), 0, f.cols) })
		return
	}
	c := fieldPass{f: f, dst: dst, src: src, m: temp(), r0: r0, w: w, groups: f.cols / e}
	c.final, c.finalRow = dst[r0*f.dstRow/f.de:], f.dstRow/f.de // where the byte transposes write, and their stride
	if f.unpackDst {
		// The band packed, rows of cols/e bytes, after m.
		c.final, c.finalRow = c.m[f.band*c.groups:], c.groups
	}
	if parts = min(parts, c.groups, w/64); parts <= 1 {
		c.mix(0, c.groups)
		c.out(0, w)
		c.unpack(0, w)
		return
	}
	// The goroutines share a copy: c stays on the stack of the calls
	// above, which allocate nothing.
	pc := c
	shareOut(c.groups, parts, pc.mix)
	// The transposes split at multiples of 64 destination rows, so that
	// every part starts on a whole line when the rows are; the last part
	// takes the rest.
	lines := w / 64
	shareOut(lines, parts, func(a, b int64) {
		end := b * 64
		if b == lines {
			end = w
		}
		pc.out(a*64, end)
		pc.unpack(a*64, end)
	})
}

// fieldPass is a chunk's passes through the temporary (see chunk): the
// destination and source of its batch, the temporary m, and final,
// where the byte transposes write (the destination's rows from r0, or
// with unpackDst the packed band after m), finalRow bytes apart.
type fieldPass struct {
	f                       *fieldPlan
	dst, src, m, final      []byte
	r0, w, groups, finalRow int64
}

// mix transposes the fields of m's rows [k0, k1) from the source.
func (c *fieldPass) mix(k0, k1 int64) {
	f := c.f
	fields := kernel.TransposeFields
	if f.stream && f.tempBytes() >= f.streamMin {
		fields = kernel.TransposeFieldsStreaming
	}
	fields(c.m[k0*c.w:], c.src[k0*f.srcRow+c.r0/f.e:], int(f.srcRow/f.e), int((k1-k0)*f.e), int(c.w/f.e), int(f.bits))
}

// out transposes m's bytes into final's rows [a, b).
func (c *fieldPass) out(a, b int64) {
	d, s, stride := c.final[a*c.finalRow:], c.m[a:], int(c.finalRow)
	if c.f.stream && !c.f.unpackDst {
		kernel.TransposeStreaming(1, d, stride, s, int(c.w), int(b-a), int(c.groups))
	} else {
		kernel.Transpose(1, d, stride, s, int(c.w), int(b-a), int(c.groups))
	}
}

// unpack, with unpackDst, unpacks the band's rows [a, b) into the
// destination's.
func (c *fieldPass) unpack(a, b int64) {
	f := c.f
	if !f.unpackDst {
		return
	}
	if f.dstRow == f.cols {
		kernel.UnpackBits(c.dst[(c.r0+a)*f.dstRow:], c.final[a*c.groups:], int((b-a)*f.cols), int(f.bits), f.natural, f.signed)
		return
	}
	for r := a; r < b; r++ {
		kernel.UnpackBits(c.dst[(c.r0+r)*f.dstRow:], c.final[r*c.groups:], int(f.cols), int(f.bits), f.natural, f.signed)
	}
}

// chunks is the number of chunks, bands() of each batch.
func (f *fieldPlan) chunks() int64 { return f.batches() * f.bands() }

// bands is the number of bands a batch's destination rows run in.
func (f *fieldPlan) bands() int64 { return ceilDiv(f.rows, f.band) }

// chunkRange returns the destination bytes chunks [lo, hi) write into:
// from the first row of the first chunk to the end of the last row of
// the last, over every batch they touch.
func (f *fieldPlan) chunkRange(lo, hi int64) (from, to int64) {
	nb := f.bands()
	from, to = f.dstBytes, 0
	for b := lo / nb; b <= (hi-1)/nb; b++ {
		dOff, _ := f.batchOffsets(b)
		r0, r1 := int64(0), f.rows
		if b == lo/nb {
			r0 = lo % nb * f.band
		}
		if b == (hi-1)/nb {
			r1 = min(((hi-1)%nb+1)*f.band, f.rows)
		}
		from = min(from, (dOff+r0*f.dstRow)/f.de)
		to = max(to, (dOff+(r1-1)*f.dstRow+f.cols)/f.de)
	}
	return from, to
}

// batches is the number of batches: the product of the batch loops'
// trip counts.
func (f *fieldPlan) batches() int64 {
	n := int64(1)
	for _, l := range f.loops {
		n *= l.size
	}
	return n
}

// tempBytes is the size of a chunk's temporary (which one pass, where it
// runs, does not take): the band's fields, twice with unpackDst.
func (f *fieldPlan) tempBytes() int64 {
	if f.unpackDst {
		return 2 * f.band * f.cols / f.e
	}
	return f.band * f.cols / f.e
}

// explain describes the passes for Plan.String.
func (f *fieldPlan) explain(b *strings.Builder) {
	switch {
	case f.rangeOnly:
		fmt.Fprintf(b, "  a Run unpacks the source whole into a temporary of %d bytes, then transposes bytes\n", f.rows*f.cols*f.batches())
		b.WriteString("  RunRange (a mapped run) transposes the packed fields band by band instead, then unpacks each band:\n")
	case f.unpackDst:
		b.WriteString("  the packed fields are transposed band by band, then each band unpacked:\n")
	}
	if f.onePass {
		fmt.Fprintf(b, "  packed transpose without unpacking, in one pass (kernel.TransposePackedStreaming) per chunk: %d in all, %d bands of up to %d destination rows in each of %d batches\n",
			f.chunks(), f.bands(), f.band, f.batches())
		return
	}
	what := "packed transpose without unpacking"
	if f.unpackDst {
		what = "packed transpose"
	}
	fmt.Fprintf(b, "  %s; per chunk (%d in all: %d bands of up to %d destination rows in each of %d batches):\n",
		what, f.chunks(), f.bands(), f.band, f.batches())
	fmt.Fprintf(b, "    pass 1: transpose the %d×%d blocks of %d-bit fields of %d source rows, %d bytes of each, %d bytes apart\n",
		f.e, f.e, f.bits, f.cols, f.band/f.e, f.srcRow/f.e)
	if f.unpackDst {
		fmt.Fprintf(b, "    pass 2: byte transpose of %d rows of %d bytes into a second temporary, %d rows of %d bytes\n",
			f.cols/f.e, f.band, f.band, f.cols/f.e)
		fmt.Fprintf(b, "    pass 3: unpack those rows, %d fields each, into the destination's, %d bytes apart\n", f.cols, f.dstRow)
	} else {
		fmt.Fprintf(b, "    pass 2: byte transpose of %d rows of %d bytes into %d rows %d bytes apart\n",
			f.cols/f.e, f.band, f.band, f.dstRow/f.e)
	}
	fmt.Fprintf(b, "  temporary memory: %d bytes per goroutine running chunks\n", f.tempBytes())
}
