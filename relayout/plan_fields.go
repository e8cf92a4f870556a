package relayout

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tilecopy/tilecopy"
)

// fieldPlan is how a transpose of packed sub-byte elements runs without
// unpacking them: when both sides pack e = 8/bits fields to a byte and
// the byte plan is a block transpose (after batch loops) whose rows,
// columns and strides all come in whole bytes, each batch is
// tilecopy.TransposeFields over groups of e source rows into a temporary
// of the batch's packed size, then a byte transpose of that into the
// destination. Both passes move the packed bytes once, where unpacking
// moves e times as many through the byte plan and packs them again.
type fieldPlan struct {
	bits, e int64
	loops   []ploop // the batch loops, strides in elements
	// A batch: the destination has rows rows of cols elements, dstRow
	// elements apart; the source cols rows of rows elements, srcRow apart.
	rows, cols     int64
	dstRow, srcRow int64
	stream         bool  // the byte transposes write past the caches
	streamMin      int64 // the plan's: from this temporary size on, so do the field passes
	threads        int
	parallelMin    int64
	dstBytes       int64

	// temps keeps a batch's temporary (*[]byte) between Runs.
	temps sync.Pool
}

// planFields returns the field plan of p, whose byte plan between the
// unpacked shapes is mid, or nil when p is not such a transpose: both
// sides packed alike, fields that hold the whole value (so that moving
// them verbatim is what unpacking and packing would do), no padding, and
// whole bytes everywhere.
func planFields(p, mid *Plan) *fieldPlan {
	st := p.stage
	if !st.unpack || !st.pack || st.srcBits != st.dstBits || st.natural != st.srcBits {
		return nil
	}
	if mid.stage != nil || mid.mode != modeStrided || mid.kern != kernTranspose || mid.outer == nil || mid.tail[1] > mid.tail[0] {
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
	o, in := mid.outer, &mid.inner
	whole := o.src == 1 && in.dst == 1 && o.size%e == 0 && in.size%e == 0 && o.dst%e == 0 && in.src%e == 0 &&
		mid.srcBytes == e*p.srcBytes && mid.dstBytes == e*p.dstBytes
	for _, l := range mid.loops {
		whole = whole && l.dst%e == 0 && l.src%e == 0
	}
	// The field pass has kernels for rows of 32 bytes or more and for
	// short rows (tilecopy.ShortFieldRows: here source rows of o.size/e
	// bytes, in.src/e apart). Other rows of fewer than 32 bytes leave it
	// to the generic code, and 4-bit fields then go faster unpacked and
	// packed again by the staged plan's kernels (s4 8192² untiled from
	// T(8,128)(8,1)E(4) through the generic field pass: 0.027 of copy(),
	// against 0.045 staged); 2-bit fields, with no such kernels, are
	// faster here even so (0.005 against 0.003).
	short := tilecopy.ShortFieldRows(int(in.src/e), int(o.size/e), st.srcBits)
	if !whole || (st.srcBits == 4 && o.size/e < 32 && !short) {
		return nil
	}
	return &fieldPlan{
		bits: int64(st.srcBits), e: e, loops: mid.loops,
		rows: o.size, cols: in.size, dstRow: o.dst, srcRow: in.src,
		stream: mid.stream, streamMin: mid.streamMin, threads: mid.threads, parallelMin: mid.parallelMin, dstBytes: p.dstBytes,
	}
}

// run runs every batch; the buffers have been checked. With threads and
// a destination of parallelMin bytes or more, the batches are shared out
// among goroutines, or when they are fewer than the goroutines, the
// passes of each batch.
func (f *fieldPlan) run(dst, src []byte) {
	batches := f.batches()
	parts := int64(1)
	if f.threads > 1 && f.dstBytes >= f.parallelMin {
		parts = int64(f.threads)
	}
	if parts == 1 || batches < parts {
		f.runBatches(dst, src, 0, batches, parts)
		return
	}
	var wg sync.WaitGroup
	for c := range parts {
		wg.Go(func() { f.runBatches(dst, src, batches*c/parts, batches*(c+1)/parts, 1) })
	}
	wg.Wait()
}

// runBatches runs batches [lo, hi), in the order of the batch loops,
// each on parts goroutines.
func (f *fieldPlan) runBatches(dst, src []byte, lo, hi, parts int64) {
	tmp := getTemp(&f.temps, f.tempBytes())
	defer f.temps.Put(tmp)
	ctr := make([]int64, len(f.loops))
	var dOff, sOff int64
	for k, rest := len(f.loops)-1, lo; k >= 0; k-- {
		l := &f.loops[k]
		ctr[k], rest = rest%l.size, rest/l.size
		dOff += ctr[k] * l.dst
		sOff += ctr[k] * l.src
	}
	for range hi - lo {
		f.batch(dst[dOff/f.e:], src[sOff/f.e:], *tmp, parts)
		dOff, sOff, _ = advance(f.loops, ctr, dOff, sOff)
	}
}

// batch transposes one batch, whose destination and source start at
// dst[0] and src[0], through the temporary m: the source's cols rows of
// packed fields become m's cols/e rows of rows bytes, and m transposed
// as bytes is the destination. Each pass is shared out among up to
// parts goroutines by rows of its output.
func (f *fieldPlan) batch(dst, src, m []byte, parts int64) {
	e := f.e
	groups, n := f.cols/e, f.rows/e // m's rows; source row bytes
	mix := func(k0, k1 int64) {
		fields := tilecopy.TransposeFields
		if f.stream && f.tempBytes() >= f.streamMin {
			fields = tilecopy.TransposeFieldsStreaming
		}
		fields(m[k0*f.rows:], src[k0*f.srcRow:], int(f.srcRow/e), int((k1-k0)*e), int(n), int(f.bits))
	}
	out := func(r0, r1 int64) {
		d, s, stride := dst[r0*f.dstRow/e:], m[r0:], int(f.dstRow/e)
		if f.stream {
			tilecopy.TransposeStreaming(1, d, stride, s, int(f.rows), int(r1-r0), int(groups))
		} else {
			tilecopy.Transpose(1, d, stride, s, int(f.rows), int(r1-r0), int(groups))
		}
	}
	if parts = min(parts, groups, f.rows/64); parts <= 1 {
		mix(0, groups)
		out(0, f.rows)
		return
	}
	var wg sync.WaitGroup
	for c := range parts {
		wg.Go(func() { mix(groups*c/parts, groups*(c+1)/parts) })
	}
	wg.Wait()
	// The transposes split at multiples of 64 destination rows, so that
	// every part starts on a whole line when the rows are.
	bound := func(c int64) int64 {
		if c == parts {
			return f.rows
		}
		return f.rows / 64 * c / parts * 64
	}
	for c := range parts {
		wg.Go(func() { out(bound(c), bound(c+1)) })
	}
	wg.Wait()
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

// tempBytes is the size of a batch's temporary.
func (f *fieldPlan) tempBytes() int64 { return f.rows * f.cols / f.e }

// explain describes the passes for Plan.String.
func (f *fieldPlan) explain(b *strings.Builder) {
	fmt.Fprintf(b, "  packed transpose without unpacking; per batch (%d in all):\n", f.batches())
	fmt.Fprintf(b, "    pass 1: transpose the %d×%d blocks of %d-bit fields of %d source rows of %d bytes, %d bytes apart\n",
		f.e, f.e, f.bits, f.cols, f.rows/f.e, f.srcRow/f.e)
	fmt.Fprintf(b, "    pass 2: byte transpose of %d rows of %d bytes into %d rows %d bytes apart\n",
		f.cols/f.e, f.rows, f.rows, f.dstRow/f.e)
	fmt.Fprintf(b, "  temporary memory: %d bytes per concurrent Run\n", f.tempBytes())
}
