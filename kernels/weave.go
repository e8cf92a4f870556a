package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The interleaves: Transpose with 2 or 4 columns and a contiguous
// destination, the shape of the planner's row-pair and row-quad tiles
// ((2,1), (4,1)); weave8 makes those of 8 rows of bytes ((8,1)) and of
// 16-bit elements (T(8,8) tiles' rows).
//
//	func interleaveKxW...(dst *byte, src *byte, srcStride int, n int)
//
// interleaves K source rows of n chunks each (64 bytes per row per chunk
// with AVX-512, 32 with AVX2) into dst, element by element (W bytes each).
//
// The de-interleaves: Transpose with 2 or 4 rows and a contiguous source
// (the inverse of the interleaves: untiling (2,1) and (4,1)).
//
//	func deinterleaveKxW...(dst *byte, dstStride int, src *byte, n int)
//
// splits n chunks of the source stream of groups of K elements of W bytes
// (K*64 bytes per chunk with AVX-512, K*32 with AVX2) into K destination
// rows (64 or 32 bytes each per chunk).
//
// Both work in stages of pairs of registers: an interleave of two rows is
// one stage at width W; of four, a stage at W that interleaves rows 0 and
// 1, and 2 and 3, then one at 2W that interleaves those results 0 with 2
// and 1 with 3. A de-interleave runs the stages the other way round (2W,
// then W), each taking the even and the odd elements of a pair.

// The grids: the same kernels over a grid of outer × inner blocks, each
// of n chunks, written with non-temporal stores where stream is true,
// else with the level's plain stores; the caller fences the streamed
// ones (one fence for many calls, where it makes many). The interleaves
// prefetch each chunk's rows ahead bytes on (DX), unless ahead is 0:
//
//	func interleaveKxWGrid...(dst *byte, src *byte, srcStride int, n int, back int, keep int, pad *byte, inner int, outer int, dstInner int, srcInner int, dstOuter int, srcOuter int, ahead int, stream bool)
//	func deinterleaveKxWGrid...(dst *byte, dstStride int, src *byte, n int, back int, keep int, inner int, outer int, dstInner int, srcInner int, dstOuter int, srcOuter int, stream bool)
//
// block (a, b) starting at dst + a*dstOuter + b*dstInner and src +
// a*srcOuter + b*srcInner. Where back is not 0, each block's last chunk
// starts back bytes into its rows (backChunk), so that blocks whose rows
// are no multiple of a chunk end at their edge. A de-interleave stores
// its first keep rows (BX) of the K it splits, 1 to K: the rows of a
// tile's partial group ((2,1) tiles of 3 rows untiled); an interleave
// reads its first keep rows and weaves the 64 bytes at pad (a vector of
// the padding pattern) in place of the others (3 rows tiled). R9 and R10 hold
// the outer row of blocks, R11 and R12 the block, R13 and AX count the
// inner and outer steps, R14 takes each step's stride (and back) from
// the frame.

// A weaveSpec names one interleave or de-interleave kernel.
type weaveSpec struct {
	lvl     *level
	k       int  // rows interleaved or de-interleaved: 2 or 4
	width   int  // element bytes: 1, 2 or 4
	inverse bool // de-interleave
	grid    bool // a grid of blocks, streamed or not
	stream  bool // not a grid: written with non-temporal stores
}

// name returns the kernel's name: interleaveKxW<level> or
// deinterleaveKxW<level>, with Grid (a grid) or Stream (non-temporal
// stores) before the level.
func (s weaveSpec) name() string {
	verb := "interleave"
	if s.inverse {
		verb = "deinterleave"
	}
	kind := ""
	switch {
	case s.grid:
		kind = "Grid"
	case s.stream:
		kind = "Stream"
	}
	return fmt.Sprintf("%s%dx%d%s%s", verb, s.k, s.width, kind, s.lvl.name)
}

// gridArgs are the arguments a grid kernel takes after n and back (and,
// for a de-interleave, keep); after them come the interleaves' ahead,
// then stream.
const gridArgs = "inner int, outer int, dstInner int, srcInner int, dstOuter int, srcOuter int"

// stageWidths returns the element width of each stage, in order.
func (s weaveSpec) stageWidths() []int {
	switch {
	case s.k == 2:
		return []int{s.width}
	case s.inverse:
		return []int{2 * s.width, s.width}
	}
	return []int{s.width, 2 * s.width}
}

// weave emits the kernel s: the rows are K consecutive vectors of the
// source (de-interleave) or vectors of K source rows (interleave), R8 =
// 3*stride for four; the stages write their results to the next free
// registers (2 rows: V0, V1 -> V2, V3; 4 rows: V0..V3 -> V4..V7 ->
// V8..V11). A kernel of one stage loads its tables before the loop, one
// of two loads each stage's in the loop.
func (g *gen) weave(s weaveSpec) {
	l := s.lvl
	stride := bx // the stride of the side that has rows
	sig, names := "func(dst *byte, src *byte, srcStride int, n int", []string{"dst", "src", "srcStride", "n"}
	regs := []reg.Register{di, si, bx, cx}
	if s.inverse {
		stride = dx
		sig, names = "func(dst *byte, dstStride int, src *byte, n int", []string{"dst", "dstStride", "src", "n"}
		regs = []reg.Register{di, dx, si, cx}
	}
	if s.grid {
		more, first := ", ahead int, stream bool)", "back int, keep int, pad *byte, "
		if s.inverse {
			more, first = ", stream bool)", "back int, keep int, "
		}
		g.text(s.name(), sig+", "+first+gridArgs+more)
		// The blocks' corners go to R9 and R10; CX is loaded per block.
		corners := map[reg.Register]reg.Register{di: r9, si: r10}
		for i, r := range regs[:3] {
			if c, ok := corners[r]; ok {
				regs[i] = c
			}
		}
		g.params(names[:3], regs[:3]...)
	} else {
		g.text(s.name(), sig+")")
		g.params(names, regs...)
	}
	if s.k == 4 {
		g.LEAQ(atIdx(stride, stride, 2, 0), r8)
	}
	if s.grid && !s.inverse {
		g.Load(g.Param("ahead"), dx)
		g.Comment("The padding rows' vector, for rows from keep on.")
		g.Load(g.Param("pad"), ax)
		g.vmov(l)(at(ax, 0), padReg(l))
	}
	if s.grid && s.inverse {
		g.Load(g.Param("keep"), bx)
	}
	widths := s.stageWidths()
	lanes := l == avx2 && s.inverse && s.k > 2
	if len(widths) == 1 && !lanes {
		g.weaveTables(s, widths[0])
	}
	if s.inverse {
		g.Commentf("A chunk: %d bytes of groups of %d %d-byte elements, split into %d bytes of each of %d rows.", s.k*l.bytes, s.k, s.width, l.bytes, s.k)
	} else {
		g.Commentf("A chunk: %d bytes of each of %d rows, interleaved by %d-byte elements into %d bytes.", l.bytes, s.k, s.width, s.k*l.bytes)
	}

	if s.grid {
		g.Load(g.Param("outer"), ax)
		g.Label("outer")
		g.MOVQ(r9, r11)
		g.MOVQ(r10, r12)
		g.Load(g.Param("inner"), r13)
		g.Label("inner")
		g.MOVQ(r11, di)
		g.MOVQ(r12, si)
		g.Load(g.Param("n"), cx)
	}

	g.Label("loop")
	if s.grid {
		g.backChunk(s)
	}
	var vregs []reg.VecPhysical
	if lanes {
		vregs, widths = g.deweaveLanes(s.k, s.width), nil
	} else {
		vregs = l.vs(0, s.k)
		for i, r := range vregs {
			switch {
			case s.inverse:
				g.vmov(l)(at(si, i*l.bytes), r)
			case s.grid && i > 0:
				// Rows from keep on are the padding's.
				padded, loaded := fmt.Sprintf("padrow%d", i), fmt.Sprintf("row%d", i)
				g.CMPQ(g.argAddr("keep"), imm(i))
				g.JLE(operand.LabelRef(padded))
				g.vmov(l)(row(si, bx, r8, i, 0), r)
				g.JMP(operand.LabelRef(loaded))
				g.Label(padded)
				g.vmov(l)(padReg(l), r)
				g.Label(loaded)
			default:
				g.vmov(l)(row(si, bx, r8, i, 0), r)
			}
		}
	}
	if s.grid && s.inverse {
		// The source is read in one stream; the hardware prefetchers
		// alone leave the grid below memory speed while it streams its
		// stores.
		for i := range s.k {
			g.PREFETCHT0(at(si, i*l.bytes+deweavePrefetch))
		}
	}
	if s.grid && !s.inverse {
		g.rowsAhead(s.k, r14)
	}
	next := s.k
	for stage, w := range widths {
		if len(widths) > 1 {
			g.weaveTables(s, w)
		}
		out := l.vs(next, s.k)
		next += s.k
		// Stage 0 pairs neighbours, stage 1 registers two apart.
		d := 1 << stage
		j := 0
		for a := range vregs {
			if a&d == 0 {
				g.weavePair(s, w, vregs[a], vregs[a+d], out[j], out[j+1])
				j += 2
			}
		}
		vregs = out
	}
	stores := func(store mov) {
		for i, r := range vregs {
			if s.inverse && s.grid && i > 0 {
				// Rows from keep on are not stored.
				g.CMPQ(bx, imm(i))
				g.JLE(operand.LabelRef("stored"))
			}
			if s.inverse {
				store(r, row(di, dx, r8, i, 0))
			} else {
				store(r, at(di, i*l.bytes))
			}
		}
	}
	if s.grid {
		stream, err := g.Param("stream").Resolve()
		if err != nil {
			panic(err)
		}
		g.CMPB(stream.Addr, operand.U8(0))
		g.JEQ(operand.LabelRef("plain"))
		stores(g.VMOVNTDQ)
		g.JMP(operand.LabelRef("stored"))
		g.Label("plain")
		stores(g.vmov(l))
		g.Label("stored")
	} else {
		stores(g.vmov(l))
	}
	srcStep, dstStep := l.bytes, s.k*l.bytes
	if s.inverse {
		srcStep, dstStep = dstStep, srcStep
	}
	g.ADDQ(imm(srcStep), si)
	g.ADDQ(imm(dstStep), di)
	if !s.grid {
		g.loopEnd("loop")
		return
	}
	g.countDown("loop")
	g.gridStep(r11, r12, r13, "dstInner", "srcInner", "inner")
	g.gridStep(r9, r10, ax, "dstOuter", "srcOuter", "outer")
	g.ret()
}

// backChunk emits the start of a grid's chunk: where the chunk is the
// block's last (CX is 1) and back is not 0, the chunk starts back bytes
// into the block's rows (the side with rows: the source of an
// interleave, the destination of a de-interleave) and K times as far
// into the other side, in place of after the chunk before. A block
// whose rows are no multiple of a chunk so ends with a chunk that ends
// at its edge, overlapping the one before, in the same call.
func (g *gen) backChunk(s weaveSpec) {
	g.CMPQ(cx, imm(1))
	g.JNE(operand.LabelRef("front"))
	g.Load(g.Param("back"), r14)
	g.TESTQ(r14, r14)
	g.JZ(operand.LabelRef("front"))
	rows, other := r12, r11 // source rows, destination stream
	rd, od := si, di
	if s.inverse {
		rows, other, rd, od = r11, r12, di, si
	}
	g.LEAQ(atIdx(rows, r14, 1, 0), rd)
	g.LEAQ(atIdx(other, r14, uint8(s.k), 0), od)
	g.Label("front")
}

// padReg is the register that holds an interleave grid's padding rows'
// vector: one the stages leave alone (Z29; Y13 with AVX2).
func padReg(l *level) reg.VecPhysical {
	if l == avx512 {
		return l.v(29)
	}
	return l.v(13)
}

// rowsAhead emits the prefetch of a chunk's k source rows (from SI, and
// for rows 4 to 7 from R9 = SI+4*BX; stride BX, R8 = 3*BX) DX bytes on:
// the rows the caller's next call reads (the next band of tiles), rows a
// few lines long, which the hardware prefetchers meet too late. None
// where DX is 0. scratch holds a register for each 4 rows.
func (g *gen) rowsAhead(k int, scratch ...reg.Register) {
	g.TESTQ(dx, dx)
	g.JZ(operand.LabelRef("fetched"))
	for q, base := range []reg.Register{si, r9}[:(k+3)/4] {
		g.LEAQ(atIdx(base, dx, 1, 0), scratch[q])
	}
	for i := range k {
		g.PREFETCHT0(row(scratch[i/4], bx, r8, i%4, 0))
	}
	g.Label("fetched")
}

// deweavePrefetch is how far ahead of its loads a de-interleave grid
// prefetches its source. Untiling bf16 T(8,128)(2,1) (T5) and s8
// T(8,128)(4,1) (T6) ran faster with 512 bytes than with none, and as
// fast as or faster than with 1 KiB (relayout bench). The interleaves
// (tiling, T2 and T3), whose source is 2 or 4 rows, gained nothing from
// it at 256 or 512 bytes.
const deweavePrefetch = 512

// gridStep moves a grid's corners d and s on by the strides named
// dstStep and srcStep (through R14) and loops to label while the count in
// c is not zero.
func (g *gen) gridStep(d, s, c reg.Register, dstStep, srcStep, label string) {
	g.Load(g.Param(dstStep), r14)
	g.ADDQ(r14, d)
	g.Load(g.Param(srcStep), r14)
	g.ADDQ(r14, s)
	g.DECQ(c)
	g.JNZ(operand.LabelRef(label))
}

// weaveTables loads the tables of a stage at element width w: with
// AVX-512 the two VPERMT2 indexes into Z30 and Z31 (ilLoW and ilHiW, or
// deEvenW and deOddW); with AVX2 the VPSHUFB mask of a 2-row
// de-interleave into Y15 (deShufW). The AVX2 interleave unpacks and
// needs none; the AVX2 de-interleaves of more rows run deweaveLanes.
func (g *gen) weaveTables(s weaveSpec, w int) {
	switch {
	case s.lvl == avx512 && s.inverse:
		g.VMOVDQU64(deEven[w].addr(), avx512.v(30))
		g.VMOVDQU64(deOdd[w].addr(), avx512.v(31))
	case s.lvl == avx512:
		g.VMOVDQU64(ilLo[w].addr(), avx512.v(30))
		g.VMOVDQU64(ilHi[w].addr(), avx512.v(31))
	case s.inverse:
		g.VMOVDQU(deShuf[w].addr(), avx2.v(15))
	}
}

// weavePair emits one pair of a stage at element width w: interleaves
// the elements of a and b into o0 (their first halves) and o1 (the
// second), or puts the even elements of a then b in o0 and the odd ones
// in o1:
//
//	AVX-512: VPERMT2B/W/D/Q of copies of a with b, indexes in Z30, Z31
//	AVX2 interleave: VPUNPCKL and VPUNPCKH into Y14, Y15, then
//	    VPERM2I128 joins their lanes
//	AVX2 de-interleave (2 rows): VPSHUFB (mask in Y15) sorts each lane
//	    of a and of b into even and odd elements, VPERMQ joins the
//	    lanes, and VPERM2I128 pairs a's halves with b's. It clobbers a
//	    and b.
func (g *gen) weavePair(s weaveSpec, w int, a, b, o0, o1 reg.VecPhysical) {
	switch {
	case s.lvl == avx512:
		op := g.permt2(w)
		g.VMOVDQA64(a, o0)
		op(b, avx512.v(30), o0)
		g.VMOVDQA64(a, o1)
		op(b, avx512.v(31), o1)
	case s.inverse:
		for _, r := range []reg.VecPhysical{a, b} {
			g.VPSHUFB(avx2.v(15), r, r)
			g.VPERMQ(operand.U8(0xD8), r, r)
		}
		g.joinLanes(a, b, o0, o1)
	default:
		lo, hi := g.unpacks(w)
		t0, t1 := avx2.v(14), avx2.v(15)
		lo(b, a, t0)
		hi(b, a, t1)
		g.joinLanes(t0, t1, o0, o1)
	}
}

// permt2 returns the two-table permute of w-byte elements: VPERMT2B,
// VPERMT2W, VPERMT2D or VPERMT2Q.
func (g *gen) permt2(w int) func(...operand.Op) {
	switch w {
	case 1:
		return g.VPERMT2B
	case 2:
		return g.VPERMT2W
	case 4:
		return g.VPERMT2D
	}
	return g.VPERMT2Q
}

// unpacks returns the unpacks of the low and of the high w-byte elements
// of each lane: VPUNPCKLBW and VPUNPCKHBW for bytes, and so on.
func (g *gen) unpacks(w int) (lo, hi func(...operand.Op)) {
	switch w {
	case 1:
		return g.VPUNPCKLBW, g.VPUNPCKHBW
	case 2:
		return g.VPUNPCKLWD, g.VPUNPCKHWD
	case 4:
		return g.VPUNPCKLDQ, g.VPUNPCKHDQ
	}
	return g.VPUNPCKLQDQ, g.VPUNPCKHQDQ
}

// weave8 emits interleave8xW<level> or deinterleave8xW<level>, the
// interleave of 8 source rows of w-byte elements (1 or 2: T(8,8) tiles'
// rows of 16-bit elements) into one stream and its inverse, with the
// signatures of the other interleaves: three stages at w-, 2w- and
// 4w-byte elements (interleave) or 4w, 2w and w (de-interleave), pairing
// registers 1, 2 and 4 apart, as weave pairs them for four rows. The
// eight rows are reached from two bases, the second four rows on (R9).
// With AVX2 each stage of the interleave writes its results back into
// the pair's registers, and the de-interleave is deweaveLanes; with
// AVX-512 the stages alternate between Z0..Z7 and Z8..Z15, each loading
// its two tables into Z30 and Z31.
func (g *gen) weave8(l *level, w int, inverse bool) {
	s := weaveSpec{lvl: l, k: 8, width: w, inverse: inverse}
	stride, rows := bx, si // the side that has rows
	if inverse {
		stride, rows = dx, di
		g.text(s.name(), "func(dst *byte, dstStride int, src *byte, n int)")
		g.params([]string{"dst", "dstStride", "src", "n"}, di, dx, si, cx)
	} else {
		g.text(s.name(), "func(dst *byte, src *byte, srcStride int, n int)")
		g.params([]string{"dst", "src", "srcStride", "n"}, di, si, bx, cx)
	}
	g.LEAQ(atIdx(stride, stride, 2, 0), r8)
	g.LEAQ(atIdx(rows, stride, 4, 0), r9)
	if inverse {
		g.Commentf("A chunk: %d bytes of groups of 8 %d-byte elements, split into %d bytes of each of 8 rows.", 8*l.bytes, w, l.bytes)
	} else {
		g.Commentf("A chunk: %d bytes of each of 8 rows, interleaved by %d-byte elements into %d bytes.", l.bytes, w, 8*l.bytes)
	}
	g.Label("loop")
	var v []reg.VecPhysical
	if l == avx2 && inverse {
		v = g.deweaveLanes(8, w)
	} else {
		v = l.vs(0, 8)
		for i, r := range v {
			if inverse {
				g.vmov(l)(at(si, i*l.bytes), r)
			} else {
				g.vmov(l)(row8(rows, stride, i), r)
			}
		}
		widths := []int{w, 2 * w, 4 * w}
		if inverse {
			widths = []int{4 * w, 2 * w, w}
		}
		v = g.weaveStages(s, v, widths)
	}
	store := g.vmov(l)
	for i, r := range v {
		if inverse {
			store(r, row8(rows, stride, i))
		} else {
			store(r, at(di, i*l.bytes))
		}
	}
	srcStep, dstStep := l.bytes, 8*l.bytes
	if inverse {
		srcStep, dstStep = dstStep, srcStep
	}
	g.ADDQ(imm(srcStep), si)
	g.ADDQ(imm(dstStep), di)
	g.ADDQ(imm(l.bytes), r9)
	g.loopEnd("loop")
}

// weaveStages emits the stages of s at the element widths widths over
// the rows (interleave) or vectors of the stream (de-interleave) in v,
// stage i pairing registers 2^i apart, and returns the registers of the
// result in order: with AVX2 in v's own registers, with AVX-512
// alternately in V8..V15 and V0..V7 (for up to 8 registers), each stage
// loading its tables into Z30 and Z31.
func (g *gen) weaveStages(s weaveSpec, v []reg.VecPhysical, widths []int) []reg.VecPhysical {
	l := s.lvl
	for stage, w := range widths {
		out := v
		if l == avx512 {
			g.weaveTables(s, w)
			out = l.vs(8*((stage+1)%2), len(v))
		}
		d := 1 << stage
		next := make([]reg.VecPhysical, 0, len(v))
		j := 0
		for a := range v {
			if a&d != 0 {
				continue
			}
			o0, o1 := out[j], out[j+1]
			if l == avx512 {
				j += 2
			} else {
				o0, o1 = v[a], v[a+d]
			}
			g.weavePair(s, w, v[a], v[a+d], o0, o1)
			next = append(next, o0, o1)
		}
		v = next
	}
	return v
}

// deweaveLanes emits, at AVX2, the de-interleave of 32 bytes of groups
// of e elements of w bytes each (e = 4 or 8; e*w ≤ 16) from SI into
// e registers, element r of every group in the r-th, and returns them
// (Y0.. or Y(e).., the other e registers from Y0 on scratch). The loads
// put the first 16e bytes in the low lanes and the rest in the high ones,
// VPSHUFB (deLanes, from memory; none where a group fills the lane)
// gathers each lane's elements by r into pieces of 16/e bytes, and
// log2(e) rounds of unpacks of such pieces, pairing register i with
// i + e/2, transpose the e×e pieces of each lane. For 8 rows of bytes
// that is 8 VPSHUFB and 24 unpacks for 256 bytes where weaveStages' pairs
// took 72 shuffles, most across lanes (8×4096 bytes in cache ran much
// faster so); for 4 rows, 4 and 8 where they took 24. Two rows
// keep weavePair's 6 shuffles: as lanes they ran no faster (in cache,
// 2×4096 words).
func (g *gen) deweaveLanes(e, w int) []reg.VecPhysical {
	return g.deweaveLanesFrom(e, w, func(off int) operand.Mem { return at(si, off) })
}

// deweaveLanesFrom is deweaveLanes reading the source at src(offset).
func (g *gen) deweaveLanesFrom(e, w int, src func(off int) operand.Mem) []reg.VecPhysical {
	v, t := avx2.vs(0, e), avx2.vs(e, e)
	for i, r := range v {
		g.VMOVDQU(src(16*i), r.AsX())
		g.VINSERTI128(operand.U8(1), src(16*(i+e)), r, r)
		if e*w < 16 {
			g.VPSHUFB(deLanes(e, w).addr(), r, r)
		}
	}
	lo, hi := g.unpacks(16 / e)
	for n := 1; n < e; n *= 2 {
		for i := range e / 2 {
			lo(v[i+e/2], v[i], t[2*i])
			hi(v[i+e/2], v[i], t[2*i+1])
		}
		v, t = t, v
	}
	return v
}
