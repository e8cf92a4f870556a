package main

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The nibble kernels: 4-bit fields, two to a byte with the first element
// in the high nibble (XLA's packing), to one byte per element and back.

// unpack4 emits unpack4AVX2, which unpacks n source bytes (a multiple of
// 32) into 2n destination bytes: each source byte, zero-extended to a
// word (VPMOVZXBW), becomes the word (b>>4) | (b&15)<<8, whose low byte
// (the first element) is the high nibble. Each byte then keeps the bits
// under mask (the value's bits: 15 when it fills the field) and is
// sign-extended from the bit sign: (v^sign)-sign byte by byte; a sign of
// 0 leaves it zero-extended.
func (g *gen) unpack4() {
	g.text("unpack4AVX2", "func(dst *byte, src *byte, n int, mask byte, sign byte)")
	g.Load(g.Param("mask"), ax)
	g.Load(g.Param("sign"), bx)
	y := g.nibblesPrologue()
	g.Comment("Y2: mask in every byte; Y3: sign in every byte.")
	g.VMOVD(ax.As32(), y[2].AsX())
	g.VPBROADCASTB(y[2].AsX(), y[2])
	g.VMOVD(bx.As32(), y[3].AsX())
	g.VPBROADCASTB(y[3].AsX(), y[3])
	g.Label("nibbles")
	for k := range 2 {
		v, t := y[4+2*k], y[5+2*k]
		g.VPMOVZXBW(at(si, 16*k), v)
		g.VPSRLW(operand.U8(4), v, t)
		g.VPAND(y[1], v, v)
		g.VPSLLW(operand.U8(8), v, v)
		g.VPOR(t, v, v)
		g.VPAND(y[2], v, v)
		g.VPXOR(y[3], v, v)
		g.VPSUBB(y[3], v, v)
		g.VMOVDQU(v, at(di, 32*k))
	}
	g.ADDQ(imm(32), si)
	g.ADDQ(imm(64), di)
	g.loopEnd("nibbles")
}

// pack4 emits pack4AVX2, which packs 2n source bytes into n destination
// bytes (n a multiple of 32): each source word e | o<<8 becomes the word
// (e&15)<<4 | (o&15), and VPACKUSWB narrows the words of two registers
// to bytes, lane by lane, which VPERMQ puts back in order.
func (g *gen) pack4() {
	g.text("pack4AVX2", "func(dst *byte, src *byte, n int)")
	y := g.nibblesPrologue()
	g.Label("fields")
	for k := range 2 {
		v, t := y[4+2*k], y[5+2*k]
		g.VMOVDQU(at(si, 32*k), v)
		g.VPAND(y[1], v, t)
		g.VPSLLW(operand.U8(4), t, t)
		g.VPSRLW(operand.U8(8), v, v)
		g.VPAND(y[1], v, v)
		g.VPOR(t, v, v)
	}
	g.VPACKUSWB(y[6], y[4], y[4])
	g.VPERMQ(operand.U8(0xd8), y[4], y[4])
	g.VMOVDQU(y[4], at(di, 0))
	g.ADDQ(imm(64), si)
	g.ADDQ(imm(32), di)
	g.loopEnd("fields")
}

// nibblesPrologue loads the arguments both nibble kernels share (DI =
// dst, SI = src, CX = n/32, the count of 32-byte steps of the packed
// side) and puts 0x000f in every word of Y1; it returns the YMM
// registers Y0..Y7.
func (g *gen) nibblesPrologue() []reg.VecPhysical {
	g.params([]string{"dst", "src", "n"}, di, si, cx)
	g.SHRQ(operand.U8(5), cx)
	y := avx2.vs(0, 8)
	g.Comment("Y1: 0x000f in every word.")
	g.VPCMPEQW(y[1], y[1], y[1])
	g.VPSRLW(operand.U8(12), y[1], y[1])
	return y
}

// The (8,1) tiles of 4-bit fields: 8 rows of one value a byte interleaved
// into 4-byte words of nibbles (the tpu preset's T(8,128)(8,1)E(4)), and
// back.

// weavePack4 emits interleave8Pack4<level> (with stream,
// interleave8Pack4Stream<level>, whose stores are non-temporal, left
// unfenced, and which prefetches ahead: rows8Ahead), which reads n chunks of 8
// source rows (l.bytes of each row per chunk) and writes l.bytes words
// per chunk: word j packs byte j of rows 0 to 7, row 0 in the high nibble
// of the word's first byte. Rows 2i and 2i+1 pack into one register of
// bytes (the low nibble of row 2i shifted up over that of row 2i+1,
// masked with 0x0f in every byte), then the four such registers
// interleave by bytes as interleave4x1 does.
func (g *gen) weavePack4(l *level, stream bool) {
	s := weaveSpec{lvl: l, k: 4, width: 1}
	name, store := g.streamed(l, "interleave8Pack4", stream)
	g.text(name, rows8Sig(stream))
	g.params([]string{"dst", "src", "srcStride", "n"}, di, si, bx, cx)
	g.LEAQ(atIdx(bx, bx, 2, 0), r8)
	g.LEAQ(atIdx(si, bx, 4, 0), r9)
	m := g.nibbleMask(l)
	g.Commentf("A chunk: %d bytes of each of 8 rows into %d bytes of words of nibbles.", l.bytes, 4*l.bytes)
	g.loadAhead(stream)
	g.Label("loop")
	v := l.vs(0, 8)
	for i, r := range v {
		g.vmov(l)(row8(si, bx, i), r)
	}
	g.rows8Ahead(stream)
	for i := range 4 {
		hi, lo := v[2*i], v[2*i+1]
		g.and(l, m, hi, hi)
		g.VPSLLW(operand.U8(4), hi, hi)
		g.and(l, m, lo, lo)
		g.or(l, lo, hi, v[i])
	}
	for i, r := range g.weaveStages(s, v[:4], []int{1, 2}) {
		store(r, at(di, i*l.bytes))
	}
	g.ADDQ(imm(l.bytes), si)
	g.ADDQ(imm(l.bytes), r9)
	g.ADDQ(imm(4*l.bytes), di)
	g.loopEnd("loop")
}

// streamed returns the name of kernel base at level l (base<level>, or
// with stream base"Stream"<level>) and the store of its results: the
// level's unaligned move, or with stream VMOVNTDQ.
func (g *gen) streamed(l *level, base string, stream bool) (string, mov) {
	if stream {
		return base + "Stream" + l.name, g.VMOVNTDQ
	}
	return base + l.name, g.vmov(l)
}

// rows8Sig is the signature of a kernel that reads 8 source rows: with
// stream, it takes the distance to prefetch them at (rows8Ahead).
func rows8Sig(stream bool) string {
	if stream {
		return "func(dst *byte, src *byte, srcStride int, n int, ahead int)"
	}
	return "func(dst *byte, src *byte, srcStride int, n int)"
}

// loadAhead loads a streaming kernel's ahead argument into DX.
func (g *gen) loadAhead(stream bool) {
	if stream {
		g.Load(g.Param("ahead"), dx)
	}
}

// rows8Ahead emits, with stream, the prefetch of a chunk's 8 source rows
// DX bytes on (rowsAhead), with R10 and R11 as its scratch.
func (g *gen) rows8Ahead(stream bool) {
	if stream {
		g.rowsAhead(8, r10, r11)
	}
}

// unweavePack4 emits unpack4Deinterleave8<level> (with stream,
// unpack4Deinterleave8Stream<level>, whose stores are non-temporal and
// left unfenced), the inverse: n chunks
// of 4*l.bytes bytes of words of nibbles de-interleave by bytes into four
// registers, each holding the packed pairs of rows 2i and 2i+1; each
// nibble then becomes a byte of its row, keeping the bits under mask and
// sign-extended from the bit sign ((v^sign)-sign; sign 0 for unsigned),
// as unpack4 does.
func (g *gen) unweavePack4(l *level, stream bool) {
	s := weaveSpec{lvl: l, k: 4, width: 1, inverse: true}
	name, store := g.streamed(l, "unpack4Deinterleave8", stream)
	g.text(name, "func(dst *byte, dstStride int, src *byte, n int, mask byte, sign byte)")
	g.params([]string{"dst", "dstStride", "src", "n"}, di, dx, si, cx)
	g.Load(g.Param("mask"), ax)
	g.Load(g.Param("sign"), bx)
	g.LEAQ(atIdx(dx, dx, 2, 0), r8)
	g.LEAQ(atIdx(di, dx, 4, 0), r9)
	// Constants above the registers the stages use: Y11-Y13 with AVX2
	// (the stages take Y14 and Y15), Z26-Z28 with AVX-512.
	c := l.vs(11, 3)
	if l == avx512 {
		c = l.vs(26, 3)
	}
	mask, sign, t := c[0], c[1], c[2]
	g.broadcastByte(l, ax, mask)
	g.broadcastByte(l, bx, sign)
	g.Commentf("A chunk: %d bytes of words of nibbles into %d bytes of each of 8 rows.", 4*l.bytes, l.bytes)
	g.Label("loop")
	var rows []reg.VecPhysical
	if l == avx2 {
		rows = g.deweaveLanes(4, 1)
	} else {
		v := l.vs(0, 4)
		for i, r := range v {
			g.vmov(l)(at(si, i*l.bytes), r)
		}
		rows = g.weaveStages(s, v, []int{2, 1})
	}
	for i, p := range rows {
		g.VPSRLW(operand.U8(4), p, t)
		for k, x := range []reg.VecPhysical{t, p} {
			g.and(l, mask, x, x)
			g.xor(l, sign, x, x)
			g.VPSUBB(sign, x, x)
			store(x, row8(di, dx, 2*i+k))
		}
	}
	g.ADDQ(imm(4*l.bytes), si)
	g.ADDQ(imm(l.bytes), di)
	g.ADDQ(imm(l.bytes), r9)
	g.loopEnd("loop")
}

// nibbleMask puts 0x0f in every byte of a register above the ones the
// weave stages use (Y12, or Z29) and returns it.
func (g *gen) nibbleMask(l *level) reg.VecPhysical {
	m := l.v(12)
	if l == avx512 {
		m = l.v(29)
	}
	g.MOVL(operand.U32(0x0f), ax.As32())
	g.broadcastByte(l, ax, m)
	return m
}

// broadcastByte puts the low byte of the general register r in every
// byte of v.
func (g *gen) broadcastByte(l *level, r reg.Register, v reg.VecPhysical) {
	if l == avx512 {
		g.VPBROADCASTB(r.(reg.GPPhysical).As32(), v)
		return
	}
	g.VMOVD(r.(reg.GPPhysical).As32(), v.AsX())
	g.VPBROADCASTB(v.AsX(), v)
}

// and, or and xor emit the bitwise operation of the level: VPANDQ,
// VPORQ, VPXORQ with AVX-512 (whose ZMM registers the VEX forms cannot
// name), VPAND, VPOR, VPXOR with AVX2.
func (g *gen) and(l *level, a, b, dst reg.VecPhysical) {
	if l == avx512 {
		g.VPANDQ(a, b, dst)
		return
	}
	g.VPAND(a, b, dst)
}

func (g *gen) or(l *level, a, b, dst reg.VecPhysical) {
	if l == avx512 {
		g.VPORQ(a, b, dst)
		return
	}
	g.VPOR(a, b, dst)
}

func (g *gen) xor(l *level, a, b, dst reg.VecPhysical) {
	if l == avx512 {
		g.VPXORQ(a, b, dst)
		return
	}
	g.VPXOR(a, b, dst)
}

// splitFields emits splitFields<bits>NTPrefetch<level> (bits 1, 2 or
// 4), the last step of a transpose of bits-bit fields through a
// byte-transposed tile (TransposePacked): for each of rows
// source runs of n bytes (n a multiple of e*l.bytes, e = 8/bits), byte q
// of destination row e*r+f packs field f of source bytes e*q .. e*q+e-1
// of run r (the first in the high bits), n/e bytes a row, written with
// VMOVNTDQ, then SFENCE; and it prefetches one line per 64 bytes
// written, walking runs of pfN bytes at stride pfStride from pf, as
// copyRunsNTPrefetch does (R9 the run, R12 the offset in it).
//
//	func(dst *byte, dstStride int, src *byte, srcStride int, n int, rows int, pf *byte, pfStride int, pfN int)
//
// A step de-interleaves e vectors of the run by bytes into e registers,
// g[m] holding bytes e*q+m, as the de-interleave kernels do (AVX-512:
// weaveStages; AVX2: weavePair for two, deweaveLanes for more). The
// e×e matrix of fields at each byte position, row m in g[m], is then
// transposed in place by log2(e) stages of fieldSwap, pairing registers
// s apart with shifts of s*bits (s = e/2 .. 1), as a block transpose
// does; g[f] is then destination row f. AX walks the source run, R13
// the destination rows (DI + AX/e; R13 + 4*DX for rows 4 to 7), R14
// holds 3*DX.
func (g *gen) splitFields(l *level, bits int) {
	e := 8 / bits
	g.runsPrologue(fmt.Sprintf("splitFields%dNTPrefetch%s", bits, l.name), "pf *byte, pfStride int, pfN int")
	g.params([]string{"pf", "pfStride", "pfN"}, r9, r10, r11)
	g.XORQ(r12, r12)
	g.LEAQ(atIdx(dx, dx, 2, 0), r14)
	s := weaveSpec{lvl: l, k: e, width: 1, inverse: true}
	if l == avx2 && e == 2 {
		g.weaveTables(s, 1)
	}
	log := map[int]uint8{2: 1, 4: 2, 8: 3}[e]

	g.Label("row")
	g.XORQ(ax, ax)
	g.Label("step")
	for i := range e * l.bytes / 64 {
		g.prefetchWalk(fmt.Sprintf("pf%d", i+1))
	}
	src := func(off int) operand.Mem { return atIdx(si, ax, 1, off) }
	var v []reg.VecPhysical
	switch {
	case l == avx2 && e == 2:
		a, b := avx2.v(0), avx2.v(1)
		g.VMOVDQU(src(0), a)
		g.VMOVDQU(src(32), b)
		v = avx2.vs(2, 2)
		g.weavePair(s, 1, a, b, v[0], v[1])
	case l == avx2:
		v = g.deweaveLanesFrom(e, 1, src)
	default:
		v = l.vs(0, e)
		for i, r := range v {
			g.vmov(l)(src(i*l.bytes), r)
		}
		v = g.weaveStages(s, v, map[int][]int{2: {1}, 4: {2, 1}, 8: {4, 2, 1}}[e])
	}
	t := g.freeVecs(l, v, 2)
	for d := e / 2; d >= 1; d /= 2 {
		for m := range e {
			if m&d == 0 {
				g.fieldSwap(l, d*bits, v[m], v[m+d], t[0], t[1])
			}
		}
	}
	g.MOVQ(ax, r13)
	g.SHRQ(operand.U8(log), r13)
	g.ADDQ(di, r13)
	for f, r := range v {
		if f == 4 {
			g.LEAQ(atIdx(r13, dx, 4, 0), r13)
		}
		g.VMOVNTDQ(r, row(r13, dx, r14, f%4, 0))
	}
	g.addBelow(ax, e*l.bytes, r8, "step")
	g.LEAQ(atIdx(di, dx, uint8(e), 0), di)
	g.ADDQ(bx, si)
	g.countDown("row")
	g.SFENCE()
	g.ret()
}

// freeVecs returns n vector registers of level l that are not in used,
// the lowest first.
func (g *gen) freeVecs(l *level, used []reg.VecPhysical, n int) []reg.VecPhysical {
	var free []reg.VecPhysical
	for _, r := range l.vs(0, 16) {
		if len(free) < n && !slices.Contains(used, r) {
			free = append(free, r)
		}
	}
	return free
}

// prefetchWalk prefetches the line at R12 in the prefetch run at R9 and
// steps R12 on by 64 bytes, to the next run (R10 on, R12 = 0) at the end
// of this one (R11 bytes); label names the jump over that step.
func (g *gen) prefetchWalk(label string) {
	g.PREFETCHT0(atIdx(r9, r12, 1, 0))
	g.addBelow(r12, 64, r11, label)
	g.XORQ(r12, r12)
	g.ADDQ(r10, r9)
	g.Label(label)
}

// The (8,1) tiles of packed rows of 4-bit fields: the tpu preset's
// T(8,128)(8,1)E(4) made from (and unmade into) a row-major E(4) array
// in one pass, without a byte per field in between.
//
// A source byte holds fields 2b (high nibble) and 2b+1 (low) of its row;
// a tile word j holds field j of rows 0 to 7, rows 2i and 2i+1 in the high
// and low nibbles of its byte i. So byte i of words 2b and 2b+1 are
//
//	E = A&0xf0 | B>>4    O = A<<4 | B&0x0f
//
// of byte b of rows A = 2i and B = 2i+1, and the words are the 8-row byte
// interleave of E0..E3, O0..O3. The nibble swap that makes (E, O) of
// (A, B) makes (A, B) of (E, O) too, so the inverse de-interleaves by
// bytes and swaps back.

// swapMasks[k] is the mask of fieldSwap by k bits, in each of 64 bytes:
// 0x55, 0x33 or 0x0f (lowNibbles, that of the nibble swap).
var swapMasks = map[int]table{
	1: {name: "lowBits", data: bytes.Repeat([]byte{0x55}, 64)},
	2: {name: "lowPairs", data: bytes.Repeat([]byte{0x33}, 64)},
	4: {name: "lowNibbles", data: bytes.Repeat([]byte{0x0f}, 64)},
}

// weaveNibbles emits interleave8Nibbles<level> or, with inverse,
// deinterleave8Nibbles<level> (with stream, ...Stream<level>: stores
// non-temporal and left unfenced; the interleave then takes ahead and
// prefetches its rows that far on, rows8Ahead):
//
//	func interleave8Nibbles...(dst *byte, src *byte, srcStride int, n int)
//	func interleave8NibblesStream...(dst *byte, src *byte, srcStride int, n int, ahead int)
//	func deinterleave8Nibbles...(dst *byte, dstStride int, src *byte, n int)
//
// The interleave reads n chunks of l.bytes of each of 8 packed rows, row
// k at src + k*srcStride, and writes 8*l.bytes bytes of words per chunk;
// the de-interleave the other way round.
func (g *gen) weaveNibbles(l *level, inverse, stream bool) {
	s := weaveSpec{lvl: l, k: 8, width: 1, inverse: inverse}
	base := "interleave8Nibbles"
	if inverse {
		base = "de" + base
	}
	name, store := g.streamed(l, base, stream)
	stride, rows := bx, si // the side that has rows
	if inverse {
		stride, rows = dx, di
		g.text(name, "func(dst *byte, dstStride int, src *byte, n int)")
		g.params([]string{"dst", "dstStride", "src", "n"}, di, dx, si, cx)
		g.Commentf("A chunk: %d bytes of words of nibbles into %d bytes of each of 8 packed rows.", 8*l.bytes, l.bytes)
	} else {
		g.text(name, rows8Sig(stream))
		g.params([]string{"dst", "src", "srcStride", "n"}, di, si, bx, cx)
		g.Commentf("A chunk: %d bytes of each of 8 packed rows into %d bytes of words of nibbles.", l.bytes, 8*l.bytes)
		g.loadAhead(stream)
	}
	g.LEAQ(atIdx(stride, stride, 2, 0), r8)
	g.LEAQ(atIdx(rows, stride, 4, 0), r9)
	g.Label("loop")
	var v []reg.VecPhysical
	switch {
	case inverse && l == avx2:
		v = g.deweaveLanes(8, 1)
	case inverse:
		v = l.vs(0, 8)
		for i, r := range v {
			g.vmov(l)(at(si, i*l.bytes), r)
		}
		v = g.weaveStages(s, v, []int{4, 2, 1})
	default:
		v = l.vs(0, 8)
		for i, r := range v {
			g.vmov(l)(row8(si, bx, i), r)
		}
		g.rows8Ahead(stream)
	}
	// Two temporaries for the swaps, outside the rows' registers (the
	// interleave's stages, which use Y14, Y15 with AVX2, come after).
	t := g.freeVecs(l, v, 2)
	if inverse {
		for i := range 4 {
			g.fieldSwap(l, 4, v[i], v[4+i], t[0], t[1])
			store(v[i], row8(di, dx, 2*i))
			store(v[4+i], row8(di, dx, 2*i+1))
		}
		g.ADDQ(imm(8*l.bytes), si)
		g.ADDQ(imm(l.bytes), di)
	} else {
		for i := range 4 {
			g.fieldSwap(l, 4, v[2*i], v[2*i+1], t[0], t[1])
		}
		order := []reg.VecPhysical{v[0], v[2], v[4], v[6], v[1], v[3], v[5], v[7]}
		for i, r := range g.weaveStages(s, order, []int{1, 2, 4}) {
			store(r, at(di, i*l.bytes))
		}
		g.ADDQ(imm(l.bytes), si)
		g.ADDQ(imm(8*l.bytes), di)
	}
	g.ADDQ(imm(l.bytes), r9)
	g.loopEnd("loop")
}

// fieldSwap trades the low k bits of each 2k-bit group of the bytes of x
// (k = 1, 2 or 4) with the high k bits of the same group of y: x becomes
// x&^m | y>>k&m and y becomes x<<k&^m | y&m, m the low k bits of each
// group (swapMasks[k]), with t0 and t1 as scratch: two shifts and two
// VPTERNLOGD (select by m) with AVX-512; with AVX2 each select is
// a ^ ((a^b) & m).
func (g *gen) fieldSwap(l *level, k int, x, y, t0, t1 reg.VecPhysical) {
	g.VPSRLW(operand.U8(k), y, t0) // y>>k: y's high groups lined up with x's low ones
	g.VPSLLW(operand.U8(k), x, t1) // x<<k: x's low groups lined up with y's high ones
	m := swapMasks[k].addr()
	if l == avx512 {
		g.VPTERNLOGD(operand.U8(0xd8), m, t0, x) // mask ? t0 : x
		g.VPTERNLOGD(operand.U8(0xe4), m, t1, y) // mask ? y : t1
		return
	}
	g.VPXOR(x, t0, t0)
	g.VPAND(m, t0, t0)
	g.VPXOR(t0, x, x)
	g.VPXOR(t1, y, y)
	g.VPAND(m, y, y)
	g.VPXOR(t1, y, y)
}

// transposeNibbles8 emits transposeNibbles8AVX512, which transposes
// count 8×8 blocks of 4-bit fields (each row 4 bytes, its first field in
// the high nibble of its first byte):
//
//	func(dst *byte, dstStride int, dstStep int, src *byte, srcStride int, srcStep int, count int, table *byte)
//
// Block b's row r is read from src + b*srcStep + r*srcStride; its column
// c is written as row c of dst + b*dstStep + c*dstStride. An (8,1) tile
// of 8 fields and the 8 rows it interleaves (InterleaveNibbles8 of 8
// fields, and back) are such a transpose of each other. A block goes
// through one Y register: split into its high and low nibbles, one a
// byte (Y1, Y0), whose bytes two VPERMI2B gather by the table's first
// and second 32 indexes into the high and low nibbles of each output
// byte (Y2, Y3), joined by a shift and an or. table's third 32 bytes are
// 0x0f. A side whose stride is 4 (its rows one after another) moves with
// one vector load or store; another, a row at a time (VPINSRD, VPEXTRD):
// the kernel takes one of three loops, one side at least at stride 4
// (with neither it returns at once). R9 and R10 address the rows of a
// strided side.
func (g *gen) transposeNibbles8() {
	g.text("transposeNibbles8AVX512", "func(dst *byte, dstStride int, dstStep int, src *byte, srcStride int, srcStep int, count int, table *byte)")
	g.params([]string{"dst", "dstStride", "dstStep", "src", "srcStride", "srcStep", "count", "table"}, di, r12, r13, si, r14, bx, cx, ax)
	y := make([]reg.VecPhysical, 5)
	for i := range y {
		y[i] = vec(i, reg.S256)
	}
	idxE, idxO, mask := vec(13, reg.S256), vec(14, reg.S256), vec(15, reg.S256)
	g.VMOVDQU(at(ax, 0), idxE)
	g.VMOVDQU(at(ax, 32), idxO)
	g.VMOVDQU(at(ax, 64), mask)
	for _, srcRows := range []bool{false, true} {
		for _, dstRows := range []bool{false, true} {
			if srcRows && dstRows {
				continue // one side is always an (8,1) tile's words
			}
			label := fmt.Sprintf("tn8s%vd%v", srcRows, dstRows)
			g.CMPQ(r14, imm(4))
			if srcRows {
				g.JEQ(operand.LabelRef(label + "next"))
			} else {
				g.JNE(operand.LabelRef(label + "next"))
			}
			g.CMPQ(r12, imm(4))
			if dstRows {
				g.JEQ(operand.LabelRef(label + "next"))
			} else {
				g.JNE(operand.LabelRef(label + "next"))
			}
			g.Label(label)
			if srcRows {
				g.rowsLoad(si, r14, y[0], y[4])
			} else {
				g.VMOVDQU(at(si, 0), y[0])
			}
			g.VPSRLW(operand.U8(4), y[0], y[1])
			g.VPANDD(mask, y[1], y[1])
			g.VPANDD(mask, y[0], y[0])
			g.VMOVDQA64(idxE, y[2])
			g.VPERMI2B(y[0], y[1], y[2])
			g.VMOVDQA64(idxO, y[3])
			g.VPERMI2B(y[0], y[1], y[3])
			g.VPSLLW(operand.U8(4), y[2], y[2])
			g.VPORD(y[2], y[3], y[3])
			if dstRows {
				g.rowsStore(di, r12, y[3], y[4])
			} else {
				g.VMOVDQU(y[3], at(di, 0))
			}
			g.ADDQ(bx, si)
			g.ADDQ(r13, di)
			g.loopEnd(label)
			g.Label(label + "next")
		}
	}
	g.ret() // neither stride 4: no loop
}

// rowsLoad loads 8 rows of 4 bytes, stride apart from base, into v (rows
// 0 to 3 in its low half, 4 to 7 by way of t in its high half).
func (g *gen) rowsLoad(base, stride reg.Register, v, t reg.VecPhysical) {
	g.rows4(base, stride, v, t, true)
	g.VINSERTI128(operand.U8(1), t.AsX(), v, v)
}

// rowsStore stores v as 8 rows of 4 bytes, stride apart from base, as
// rowsLoad loads them (t the scratch of the high half).
func (g *gen) rowsStore(base, stride reg.Register, v, t reg.VecPhysical) {
	g.VEXTRACTI128(operand.U8(1), v, t.AsX())
	g.rows4(base, stride, v, t, false)
}

// rows4 moves rows 0 to 3 (X of v) and 4 to 7 (X of t) of 4 bytes,
// stride apart from base, into the registers (load) or out of them.
func (g *gen) rows4(base, stride reg.Register, v, t reg.VecPhysical, load bool) {
	g.LEAQ(atIdx(stride, stride, 2, 0), r10) // 3 × stride
	for half, x := range []reg.Register{v.AsX(), t.AsX()} {
		b := base
		if half == 1 {
			g.LEAQ(atIdx(base, stride, 4, 0), r9)
			b = r9
		}
		rows := []operand.Mem{at(b, 0), atIdx(b, stride, 1, 0), atIdx(b, stride, 2, 0), atIdx(b, r10, 1, 0)}
		for i, m := range rows {
			switch {
			case load && i == 0:
				g.VMOVD(m, x)
			case load:
				g.VPINSRD(operand.U8(i), m, x, x)
			case i == 0:
				g.VMOVD(x, m)
			default:
				g.VPEXTRD(operand.U8(i), x, m)
			}
		}
	}
}

// packRows8x8 emits packRows8x8AVX512, PackRows8 of 8 fields on count
// blocks at once:
//
//	func(dst *byte, dstStep int, src *byte, srcStride int, srcStep int, count int, table *byte)
//
// Block b reads 8 bytes of each of 8 rows, row r from src + b*srcStep +
// r*srcStride (one 4-bit value a byte, its low nibble), and writes 8
// words of (8,1) fields to dst + b*dstStep. The rows go into one Z
// register (two to an X, VPINSRQ, VINSERTI64X2), byte 8r+j the value of
// row r at column j; kept to their low nibbles, two VPERMB by the
// table's first and second 64 indexes gather the values of the even and
// the odd rows into output order, joined by a shift and an or. table's
// third 64 bytes are 0x0f (packRowsTable).
func (g *gen) packRows8x8() {
	g.text("packRows8x8AVX512", "func(dst *byte, dstStep int, src *byte, srcStride int, srcStep int, count int, table *byte)")
	g.params([]string{"dst", "dstStep", "src", "srcStride", "srcStep", "count", "table"}, di, r13, si, r14, bx, cx, ax)
	z := avx512.vs(0, 4)
	idxE, idxO, mask := avx512.v(29), avx512.v(30), avx512.v(31)
	g.VMOVDQU64(at(ax, 0), idxE)
	g.VMOVDQU64(at(ax, 64), idxO)
	g.VMOVDQU64(at(ax, 128), mask)
	g.LEAQ(atIdx(r14, r14, 2, 0), r10) // 3 × srcStride
	g.Label("pr8")
	g.LEAQ(atIdx(si, r14, 4, 0), r9) // row 4
	for pair := range 4 {
		b := si
		if pair >= 2 {
			b = r9
		}
		r0 := (pair % 2) * 2 // the pair's first row past b
		x := z[pair].AsX()
		first := at(b, 0)
		second := atIdx(b, r14, 1, 0)
		if r0 == 2 {
			first, second = atIdx(b, r14, 2, 0), atIdx(b, r10, 1, 0)
		}
		g.VMOVQ(first, x)
		g.VPINSRQ(operand.U8(1), second, x, x)
	}
	for i := 1; i < 4; i++ {
		g.VINSERTI64X2(operand.U8(i), z[i].AsX(), z[0], z[0])
	}
	g.VPANDQ(mask, z[0], z[0])
	g.VPERMB(z[0], idxE, z[1])
	g.VPERMB(z[0], idxO, z[2])
	g.VPSLLW(operand.U8(4), z[1], z[1])
	g.VPORQ(z[1], z[2], z[2])
	g.VMOVDQU(z[2].AsY(), at(di, 0))
	g.ADDQ(bx, si)
	g.ADDQ(r13, di)
	g.loopEnd("pr8")
}

// nibblePairs emits nibblePairsAVX2, TransposeNibblePairs over the
// first n bytes (a multiple of 32) of each half of blocks blocks of 2h
// bytes from buf: byte i of a block's first half, fields (x0, x1), and
// byte i of its second, (y0, y1), become (x0, y0) and (x1, y1), the first
// field in the high nibble, 32 bytes of each half at a time.
func (g *gen) nibblePairs() {
	g.text("nibblePairsAVX2", "func(buf *byte, h int, n int, blocks int)")
	g.params([]string{"buf", "h", "n", "blocks"}, di, bx, r8, dx)
	g.Comment("R9: 2h-n, from a half's n bytes on to the next block.")
	g.LEAQ(atIdx(bx, bx, 1, 0), r9)
	g.SUBQ(r8, r9)
	y := avx2.vs(0, 8)
	g.nibbleHalves(y[0], y[1])
	g.Label("block")
	g.MOVQ(r8, cx)
	g.SHRQ(operand.U8(5), cx)
	g.LEAQ(atIdx(di, bx, 1, 0), si)
	g.Label("pairs")
	g.VMOVDQU(at(di, 0), y[2])
	g.VMOVDQU(at(si, 0), y[3])
	g.Comment("x: its high field, then y's high field.")
	g.VPSRLW(operand.U8(4), y[3], y[4])
	g.VPAND(y[0], y[4], y[4])
	g.VPAND(y[1], y[2], y[5])
	g.VPOR(y[4], y[5], y[5])
	g.Comment("y: x's low field, then its own.")
	g.VPSLLW(operand.U8(4), y[2], y[6])
	g.VPAND(y[1], y[6], y[6])
	g.VPAND(y[0], y[3], y[7])
	g.VPOR(y[6], y[7], y[7])
	g.VMOVDQU(y[5], at(di, 0))
	g.VMOVDQU(y[7], at(si, 0))
	g.ADDQ(imm(32), di)
	g.ADDQ(imm(32), si)
	g.countDown("pairs")
	g.ADDQ(r9, di)
	g.DECQ(dx)
	g.JNZ(operand.LabelRef("block"))
	g.ret()
}

// nibblePairsIn emits nibblePairsIn{h}AVX2, TransposeNibblePairs over n
// bytes at buf in blocks of 2h bytes that a vector holds whole (h of 1,
// 2, 4, 8 or 16): each vector V, its pairs' second bytes brought over
// their first (and the first over the second) by a shift of 8h+4 bits
// within each quadword, or for h of 8 and 16 by swapping the quadwords
// of each lane or the lanes and a shift of 4, becomes (V & m0) | (V
// shifted right & m1) | (V shifted left & m2), the masks (the table
// nibblePairs{h}) keeping the high field of a first byte and the low of
// a second, the field brought down to a first byte and the one brought
// up to a second.
func (g *gen) nibblePairsIn(h int) {
	g.text(fmt.Sprintf("nibblePairsIn%dAVX2", h), "func(buf *byte, n int)")
	g.params([]string{"buf", "n"}, di, cx)
	g.SHRQ(operand.U8(5), cx)
	y := avx2.vs(0, 8)
	t := nibblePairMasks(h)
	g.LEAQ(t.addr(), ax)
	for i := range 3 {
		g.VMOVDQU(at(ax, 32*i), y[i])
	}
	shift := 8*h + 4
	g.Label("pairs")
	g.VMOVDQU(at(di, 0), y[3])
	src := y[3]
	switch h {
	case 8:
		g.VPSHUFD(operand.U8(0x4e), y[3], y[4])
		src, shift = y[4], 4
	case 16:
		g.VPERMQ(operand.U8(0x4e), y[3], y[4])
		src, shift = y[4], 4
	}
	g.VPSRLQ(operand.U8(shift), src, y[5])
	g.VPSLLQ(operand.U8(shift), src, y[6])
	g.VPAND(y[0], y[3], y[3])
	g.VPAND(y[1], y[5], y[5])
	g.VPAND(y[2], y[6], y[6])
	g.VPOR(y[5], y[3], y[3])
	g.VPOR(y[6], y[3], y[3])
	g.VMOVDQU(y[3], at(di, 0))
	g.ADDQ(imm(32), di)
	g.loopEnd("pairs")
}

// nibbleHalves puts 0x0f in every byte of lo and 0xf0 in every byte of
// hi.
func (g *gen) nibbleHalves(lo, hi reg.VecPhysical) {
	g.MOVL(operand.U32(0x0f0f0f0f), ax.As32())
	g.VMOVD(ax.As32(), lo.AsX())
	g.VPBROADCASTD(lo.AsX(), lo)
	g.VPCMPEQB(hi, hi, hi)
	g.VPXOR(lo, hi, hi)
}

// nibblePairMasks is nibblePairsIn's table for blocks of 2h bytes: three
// vectors of masks, repeating every block: the high field of the first
// h bytes and the low field of the last h; the low field of the first
// h; the high field of the last h.
func nibblePairMasks(h int) table {
	data := make([]byte, 96)
	for i := range 32 {
		if i%(2*h) < h {
			data[i], data[32+i] = 0xf0, 0x0f
		} else {
			data[i], data[64+i] = 0x0f, 0xf0
		}
	}
	return table{name: fmt.Sprintf("nibblePairs%d", h), data: data}
}

// nibblePairHalves are the halves of the blocks nibblePairsIn has a
// kernel for: those a vector holds whole.
var nibblePairHalves = []int{1, 2, 4, 8, 16}
