package relayout

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
)

// converting is how a plan between element types runs (its executor): a
// plan between shapes of one type (mid) and the element conversion
// (convert.go) before or after it, in the first of these ways that
// applies (choose):
//
// Direct: where the two layouts hold the elements in the same order with
// no padding, the conversion runs straight from source to destination,
// in parts of about slabBytes.
//
// Convert first, in slabs: where mid, from the source's layout at the
// destination's type to the destination, splits into chunks each of
// which reads a stretch of the source about as long as their stride
// (row-major to tiles and back, not a transpose), a slab converts its
// stretch of the source into a temporary that stays in the caches and
// mid's chunks relayout it into the destination, streaming there where
// the destination is large.
//
// Relayout first: mid relayouts the source, at its own type, into the
// destination's layout unpacked; the conversion then writes the
// destination. Where mid splits into chunks that write disjoint,
// ordered stretches of its destination (slabs), a slab of about
// slabBytes runs into a temporary that stays in the caches and is
// converted into the destination at once; otherwise the stages run over
// the whole array through a temporary as large. mid writes a padding
// pattern of the source type whose conversion is the destination's
// (zero, NaN, ±inf and values both types hold); where there is none (an
// s32 array padded with s32's lowest, from s8), the plan converts the
// whole source first.
//
// Convert first, whole: the whole source is converted, in its own
// layout, to the destination's type in a temporary, which mid (compiled
// as any plan) relayouts into the destination.
//
// In slabs, source and destination are each touched once.
type converting struct {
	mid    *Plan
	before bool // convert first; else relayout first
	// direct says that the layouts hold the elements in the same order,
	// with no padding: the plan converts straight from source to
	// destination, in count parts of per elements (mid is unused).
	direct bool
	cv     *converter // source type to destination type

	dstCount int64 // destination elements
	srcCount int64 // source elements
	dstBits  int64 // destination storage bits per element
	srcBits  int64 // source storage bits per element
	width    int64 // bytes per element of the intermediate
	// streamDst says that the destination is larger than the caches
	// (header.pastCaches): a conversion that writes it streams.
	streamDst bool

	// Slabs, or loop == nil: values [c*per, (c+1)*per) of mid's split
	// loop make slab c. Converting first, a slab converts the source
	// elements those values read (sReach: how many one value reads).
	loop   *ploop
	per    int64
	count  int64
	sReach int64

	*header // the plan's
	temps   sync.Pool
}

// compileConvert completes p, a plan between shapes of different
// element types (which prepare has checked convert), as a conversion
// plan: fused into the relayout's one pass where the pair is f32 rows
// and bf16 (2,1) tiles (fusedTiles), else converting.
func compileConvert(p *Plan, opts *Options) (*Plan, error) {
	if f := fuseTiles(p, opts); f != nil {
		p.exec = f
		return p, nil
	}
	c := &converting{dstCount: p.tm.Elements(), srcCount: p.fm.Elements(), dstBits: p.tm.ElementBits(), srcBits: p.fm.ElementBits(),
		header: &p.header, streamDst: p.pastCaches()}
	p.exec = c
	if err := c.choose(p, opts, slabBytes); err != nil {
		return nil, err
	}
	return p, nil
}

// choose plans how c runs p, with slabs of about target bytes.
func (c *converting) choose(p *Plan, opts *Options, target int64) error {
	from, to, fm, tm := p.from, p.to, p.fm, p.tm
	var err error
	c.loop, c.direct = nil, false
	// Convert first, slab by slab, where the plan at the destination's
	// type reads a short stretch of the source for each part of the
	// destination: it then writes the destination as any plan does,
	// streaming where that is large.
	c.before = true
	c.width = int64(to.dtype.ByteWidth())
	c.cv = newConverter(from.dtype, to.dtype, fm.ElementBits(), 8*c.width, opts.Saturate)
	if c.mid, err = compile(withType(from, to.dtype), to, opts, p.streamMin, false); err != nil {
		return err
	}
	if c.planSourceSlabs(target) || c.planDirect(target) {
		return nil
	}
	if srcPat, ok := padBefore(from.dtype, to.dtype, p.padPat, opts.Saturate, tm.Elements() == fm.LogicalCount()); ok {
		c.before = false
		c.width = int64(from.dtype.ByteWidth())
		midOpts := &Options{Pad: Padding{Widths: opts.Pad.Widths, raw: srcPat}, Threads: opts.Threads, inCache: true}
		if c.mid, err = compile(from, withType(to, from.dtype), midOpts, math.MaxInt64, false); err != nil {
			return err
		}
		c.cv = newConverter(from.dtype, to.dtype, 8*c.width, tm.ElementBits(), opts.Saturate)
		c.cv.stream = c.streamDst
		if !c.planDirect(target) {
			c.planSlabs(target)
		}
		return nil
	}
	// Convert the whole source first.
	c.mid, err = compile(withType(from, to.dtype), to, opts, p.streamMin, true)
	return err
}

// planDirect sets direct parts of about target bytes of the wider side
// where mid moves every element to the same place, padding none (one
// run), and reports whether it did. c.cv must convert between the
// plan's own buffers.
func (c *converting) planDirect(target int64) bool {
	mid := c.mid.walk()
	if mid == nil {
		return false
	}
	in := &mid.inner
	if mid.mode != modeStrided || mid.kern != kernRun || len(mid.loops) != 0 || mid.outer != nil ||
		mid.unit != 1 || in.dst != 1 || in.src != 1 || in.size != c.srcCount || in.size != c.dstCount || mid.tail[1] > mid.tail[0] {
		return false
	}
	for _, d := range mid.dims {
		if d.n != d.e {
			return false
		}
	}
	// The converter from the source's storage to the destination's.
	c.cv = newConverter(c.cv.from, c.cv.to, c.srcBits, c.dstBits, c.cv.saturate)
	c.cv.stream = c.streamDst
	c.direct, c.loop = true, nil
	wide := max(c.srcBits, c.dstBits, 8) / 8
	c.per = max(8, target/wide/8*8) // parts of a packed side start on whole bytes
	c.count = ceilDiv(c.dstCount, c.per)
	return true
}

// planSourceSlabs sets the convert-first slabs of about target bytes of
// converted source, and reports whether there are any: where mid splits
// into chunks and one value of its split loop reads a stretch of the
// source not much longer than the values' stride (row-major to tiles
// and back, not a transpose, whose every chunk reads a little of every
// source row).
func (c *converting) planSourceSlabs(target int64) bool {
	mid := c.mid.walk()
	if mid == nil || mid.mode != modeStrided || mid.chunks() <= 1 || mid.unit != 1 || mid.step != 1 {
		return false
	}
	all := append(slices.Clone(mid.loops), mid.inner)
	if mid.outer != nil {
		all = append(all, *mid.outer)
	}
	for _, l := range all {
		if l.src < 0 {
			return false
		}
	}
	l := mid.splitLoop()
	if l.src <= 0 {
		return false
	}
	reach := mid.reach(l, func(o *ploop) int64 { return o.src })
	c.per = max(l.scale, target/(l.src*c.width)/l.scale*l.scale)
	c.count = ceilDiv(l.size, c.per)
	// One value reads little past where the next starts, and a slab's
	// temporary stays within a few slabs' worth.
	if c.count <= 1 || reach > 2*l.scale*l.src || ((c.per-1)*l.src+reach)*c.width > 4*max(target, slabBytes) {
		return false
	}
	c.loop, c.sReach = l, reach
	return true
}

// sourceElements returns the source elements [from, to) that slab k of
// a convert-first plan reads.
func (c *converting) sourceElements(k int64) (from, to int64) {
	l := c.loop
	v0, v1 := k*c.per, min((k+1)*c.per, l.size)
	return min(v0*l.src, c.srcCount), min((v1-1)*l.src+c.sReach, c.srcCount)
}

// withType returns s with element type t, unpacked.
func withType(s Shape, t DType) Shape {
	c := s.clone()
	c.dtype = t
	if c.layout != nil {
		c.layout.ElementSizeInBits = 0
	}
	return c
}

// padBefore returns the padding pattern of type from whose conversion to
// type to is pat (the destination's padding, as an unpacked element
// holds it), and whether there is one. When the destination holds no
// padding (none), any pattern will do.
func padBefore(from, to DType, pat []byte, saturate, none bool) ([]byte, bool) {
	out := make([]byte, from.ByteWidth())
	if none {
		return out, true
	}
	want := getElement(pat, 0, int64(len(pat)*8))
	if to.Bits() < 64 {
		want &= uint64(1)<<to.Bits() - 1
	}
	back := newConversion(to, from, saturate)(want)
	if newConversion(from, to, saturate)(back) != want {
		return nil, false
	}
	putElement(out, 0, int64(len(out)*8), back)
	if from.IsSubByte() {
		out[0] = widenSubByte(out[0], from)
	}
	return out, true
}

// planSlabs sets the relayout-first slabs of about target bytes of the
// intermediate, where mid's chunks write disjoint, ordered stretches of
// its destination (as staged.planSlabs asks of a byte plan).
func (c *converting) planSlabs(target int64) {
	mid := c.mid.walk()
	if mid == nil || mid.mode != modeStrided || mid.chunks() <= 1 {
		return
	}
	all := append(slices.Clone(mid.loops), mid.inner)
	if mid.outer != nil {
		all = append(all, *mid.outer)
	}
	for _, l := range all {
		if l.dst < 0 || l.src < 0 {
			return
		}
	}
	l := mid.splitLoop()
	if l.dst <= 0 || mid.heldReach(l, func(o *ploop) int64 { return o.dst }) > l.dst {
		return
	}
	// A slab of a packed destination starts on a whole byte, so that
	// slabs on different goroutines write different bytes.
	align := l.scale
	if c.dstBits < 8 {
		per := 8 / gcd(8, l.dst*c.dstBits)
		align = align * per / gcd(align, per)
	}
	// A slab that reads a little of every source row (a transpose) reads
	// each row's stretch once, as a short run; its slabs are made
	// transposeSlabs times larger, so that the runs are longer.
	reach := mid.reach(l, func(o *ploop) int64 { return o.src })
	if per := max(align, target/(l.dst*c.width)/align*align); reach > 4*per*l.dst {
		target *= transposeSlabs
	}
	c.per = max(align, target/(l.dst*c.width)/align*align)
	c.count = ceilDiv(l.size, c.per)
	if c.count <= 1 {
		return
	}
	c.loop = l
}

// transposeSlabs is how many times slabBytes a relayout-first slab
// covers where it reads a little of every source row: with slabs of
// slabBytes, the rows' short runs, each from another page, cost more
// than the temporary's leaving the caches.
const transposeSlabs = 16

// slabElements returns the destination elements [from, to) of slab k.
func (c *converting) slabElements(k int64) (from, to int64) {
	l := c.loop
	v0, v1 := k*c.per, min((k+1)*c.per, l.size)
	from, to = min(v0*l.dst, c.dstCount), min(v1*l.dst, c.dstCount)
	if v1 == l.size {
		to = c.dstCount
	}
	return from, to
}

// tempBytes is the size of one temporary: a slab's intermediate, or the
// whole intermediate.
func (c *converting) tempBytes() int64 {
	w := c.width
	switch {
	case c.before && c.loop != nil:
		n := int64(0)
		for _, k := range []int64{0, c.count - 1} { // the last may be shorter
			from, to := c.sourceElements(k)
			n = max(n, to-from)
		}
		return n * w
	case c.before:
		return c.srcCount * w
	case c.loop != nil:
		return max(c.per*c.loop.dst, c.dstCount-(c.count-1)*c.per*c.loop.dst) * w
	}
	return c.dstCount * w
}

// run runs the plan; the buffers have been checked.
func (c *converting) run(dst, src []byte) error {
	if c.loop != nil || c.direct {
		if g := min(c.goroutines(), c.count); g > 1 {
			shareOut(c.count, g, func(lo, hi int64) { c.runSlabs(dst, src, lo, hi) })
		} else {
			c.runSlabs(dst, src, 0, c.count)
		}
		return nil
	}
	tmp := getTemp(&c.temps, c.tempBytes())
	defer c.temps.Put(tmp)
	if c.before {
		c.convertShared((*tmp)[:c.tempBytes()], 0, src, 0, c.srcCount)
		if err := c.mid.Run(dst, *tmp); err != nil {
			return fmt.Errorf("after converting: %w", err)
		}
		return nil
	}
	if err := c.mid.Run(*tmp, src); err != nil {
		return fmt.Errorf("before converting: %w", err)
	}
	c.convertShared(dst, 0, *tmp, 0, c.dstCount)
	c.clearTail(dst)
	return nil
}

// convertShared converts n elements as converter.run does, shared among
// the plan's goroutines in parts that start on whole bytes of a packed
// destination.
func (c *converting) convertShared(dst []byte, dOff int64, src []byte, sOff, n int64) {
	const part = 1 << 14 // elements, a multiple of 8
	g := min(c.goroutines(), ceilDiv(n, part))
	if g <= 1 {
		c.cv.run(dst, dOff, src, sOff, n)
		return
	}
	shareOut(ceilDiv(n, part), g, func(lo, hi int64) {
		lo, hi = lo*part, min(hi*part, n)
		c.cv.run(dst, dOff+lo, src, sOff+lo, hi-lo)
	})
}

// clearTail clears the bits of a packed destination's last byte beyond
// its last element, as Reference leaves them.
func (c *converting) clearTail(dst []byte) {
	if c.dstBits >= 8 {
		return
	}
	if r := c.dstCount * c.dstBits % 8; r != 0 {
		dst[len(dst)-1] &^= byte(0xff) >> r
	}
}

// runSlabs runs slabs [lo, hi) one after another through one temporary.
func (c *converting) runSlabs(dst, src []byte, lo, hi int64) {
	if c.direct {
		for k := lo; k < hi; k++ {
			from, to := k*c.per, min((k+1)*c.per, c.dstCount)
			c.cv.run(dst, from, src, from, to-from)
		}
		if hi == c.count {
			c.clearTail(dst)
		}
		return
	}
	tmp := getTemp(&c.temps, c.tempBytes())
	defer c.temps.Put(tmp)
	mid, l := c.mid.walk(), c.loop
	if c.before {
		for k := lo; k < hi; k++ {
			from, to := c.sourceElements(k)
			stage := (*tmp)[:(to-from)*c.width]
			c.cv.run(stage, 0, src, from, to-from)
			v0, v1 := k*c.per, min((k+1)*c.per, l.size)
			w, dOff, sOff, ok := mid.chunkWalker(dst, stage, l, v0, v1)
			if ok {
				w.walk(0, dOff, sOff-from, false)
			}
			mid.putWalker(w)
			if v1 == l.size && mid.tail[1] > mid.tail[0] {
				mid.fillElements(dst, mid.tail[0], mid.tail[1])
			}
		}
		return
	}
	for k := lo; k < hi; k++ {
		from, to := c.slabElements(k)
		stage := (*tmp)[:(to-from)*c.width]
		v0, v1 := k*c.per, min((k+1)*c.per, l.size)
		w, dOff, sOff, ok := mid.chunkWalker(stage, src, l, v0, v1)
		if ok {
			w.walk(0, dOff-from, sOff, false)
		}
		mid.putWalker(w)
		if f, t := max(mid.tail[0], from), min(mid.tail[1], to); f < t {
			mid.fillElements(stage, f-from, t-from)
		}
		c.cv.run(dst, from, stage, 0, to-from)
		if to == c.dstCount {
			c.clearTail(dst)
		}
	}
}

// runChunks runs slabs [lo, hi) (RunRange).
func (c *converting) runChunks(dst, src []byte, lo, hi int64) { c.runSlabs(dst, src, lo, hi) }

// chunks is the number of chunks RunRange takes: the slabs, or 1.
func (c *converting) chunks() int64 {
	if c.loop == nil && !c.direct {
		return 1
	}
	return c.count
}

// chunkRange returns the destination bytes slabs [lo, hi) write into.
func (c *converting) chunkRange(lo, hi int64) (from, to int64) {
	if c.direct {
		from = lo * c.per * c.dstBits / 8
		if hi == c.count {
			return from, c.dstBytes
		}
		return from, hi * c.per * c.dstBits / 8
	}
	if c.before {
		l := c.loop
		return c.mid.DestinationRange(lo*c.per/l.scale, min(hi*c.per, l.size)/l.scale)
	}
	f, _ := c.slabElements(lo)
	_, t := c.slabElements(hi - 1)
	from = f * c.dstBits / 8
	if t == c.dstCount {
		return from, c.dstBytes
	}
	return from, (t*c.dstBits + 7) / 8
}

// kernel names how the elements convert.
func (c *converting) kernel() string {
	switch {
	case c.cv.bulk != nil && c.cv.srcBits >= 8 && c.cv.dstBits >= 8 && c.cv.stream:
		return fmt.Sprintf("kernel.Stream.Convert%sTo%s, into the destination with non-temporal stores", strings.ToUpper(c.cv.from.String()), strings.ToUpper(c.cv.to.String()))
	case c.cv.bulk != nil && c.cv.srcBits >= 8 && c.cv.dstBits >= 8:
		return fmt.Sprintf("kernel.Convert%sTo%s", strings.ToUpper(c.cv.from.String()), strings.ToUpper(c.cv.to.String()))
	case c.cv.table != nil:
		return "one element at a time, through a table of every source pattern"
	}
	return "one element at a time"
}

// explain describes the conversion for Plan.String.
func (c *converting) explain(b *strings.Builder) {
	mid := c.mid
	if c.direct {
		fmt.Fprintf(b, "  both layouts hold the elements in the same order, with no padding: convert from %s to %s straight from source to destination (%s), in %d parts of %d elements; a Run shares them among up to %d goroutines\n",
			c.cv.from, c.cv.to, c.kernel(), c.count, c.per, c.threads)
		return
	}
	if c.before {
		fmt.Fprintf(b, "  stage 1: convert the source in its own layout from %s to %s (%d elements)\n", c.cv.from, c.cv.to, c.srcCount)
		b.WriteString("  stage 2: relayout at the destination's type:\n")
	} else {
		fmt.Fprintf(b, "  stage 1: relayout at the source's type (%s) into the destination's layout; its padding %x converts to the destination's:\n",
			c.cv.from, mid.padPat)
	}
	for line := range strings.Lines(mid.String()) {
		if c.loop != nil && strings.HasPrefix(line, "  chunks:") {
			continue // the slabs share out the work instead
		}
		b.WriteString("    " + line)
	}
	if !c.before {
		fmt.Fprintf(b, "  stage 2: convert from %s to %s (%d elements)\n", c.cv.from, c.cv.to, c.dstCount)
	}
	fmt.Fprintf(b, "  conversion: %s\n", c.kernel())
	switch {
	case c.loop != nil && c.before:
		fmt.Fprintf(b, "  the stages run slab by slab, each slab's converted source relayouted while it is in the caches: %d slabs of %d values of d%d (%d source elements each, at most); a Run shares them among up to %d goroutines\n",
			c.count, c.per, c.loop.dim, c.tempBytes()/c.width, c.threads)
	case c.loop != nil:
		fmt.Fprintf(b, "  the stages run slab by slab, each slab's intermediate converted right after it is written: %d slabs of %d values of d%d (%d destination elements each); a Run shares them among up to %d goroutines\n",
			c.count, c.per, c.loop.dim, c.per*c.loop.dst, c.threads)
	}
	if c.loop != nil {
		fmt.Fprintf(b, "  temporary memory: %d bytes per goroutine\n", c.tempBytes())
		return
	}
	fmt.Fprintf(b, "  the stages run one after the other over the whole array; temporary memory: %d bytes per concurrent Run\n", c.tempBytes())
}
