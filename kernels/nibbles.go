package main

import (
	"bytes"
	"fmt"

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
// interleave8Pack4Stream<level>, whose stores are non-temporal and fenced
// at the end), which reads n chunks of 8
// source rows (l.bytes of each row per chunk) and writes l.bytes words
// per chunk: word j packs byte j of rows 0 to 7, row 0 in the high nibble
// of the word's first byte. Rows 2i and 2i+1 pack into one register of
// bytes (the low nibble of row 2i shifted up over that of row 2i+1,
// masked with 0x0f in every byte), then the four such registers
// interleave by bytes as interleave4x1 does.
func (g *gen) weavePack4(l *level, stream bool) {
	s := weaveSpec{lvl: l, k: 4, width: 1}
	name, store := g.streamed(l, "interleave8Pack4", stream)
	g.text(name, "func(dst *byte, src *byte, srcStride int, n int)")
	g.params([]string{"dst", "src", "srcStride", "n"}, di, si, bx, cx)
	g.LEAQ(atIdx(bx, bx, 2, 0), r8)
	g.LEAQ(atIdx(si, bx, 4, 0), r9)
	m := g.nibbleMask(l)
	g.Commentf("A chunk: %d bytes of each of 8 rows into %d bytes of words of nibbles.", l.bytes, 4*l.bytes)
	g.Label("loop")
	v := l.vs(0, 8)
	for i, r := range v {
		g.vmov(l)(row8(si, bx, i), r)
	}
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
	g.endLoop(stream)
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

// endLoop closes a kernel's loop over CX: with stream, fences the
// non-temporal stores before returning.
func (g *gen) endLoop(stream bool) {
	if !stream {
		g.loopEnd("loop")
		return
	}
	g.countDown("loop")
	g.SFENCE()
	g.ret()
}

// unweavePack4 emits unpack4Deinterleave8<level> (with stream,
// unpack4Deinterleave8Stream<level>, whose stores are non-temporal and
// fenced at the end), the inverse: n chunks
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
	g.endLoop(stream)
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

// splitNibbles emits splitNibblesNTPrefetch<level>, the last step of a
// transpose of 4-bit fields through a byte-transposed tile. For each of
// rows source runs of n bytes (n a multiple of 128), it writes byte i of
// destination row 2r as the high nibbles of source bytes 2i and 2i+1 of
// run r (in that order, the first high), and byte i of row 2r+1 as their
// low nibbles, n/2 bytes a row, with VMOVNTDQ, then SFENCE; and it
// prefetches one line per 64 bytes written, walking runs of pfN bytes at
// stride pfStride from pf, as copyRunsNTPrefetch does:
//
//	func(dst *byte, dstStride int, src *byte, srcStride int, n int, rows int, pf *byte, pfStride int, pfN int)
//
// A step takes two vectors of the run and takes their even and odd bytes
// apart: with AVX-512 (VBMI) by VPERMT2B (deEven1, deOdd1 in Z28, Z29);
// with AVX2 by VPSHUFB (deShuf1 in Y13: each lane's even bytes, then its
// odd ones), VPERMQ and VPERM2I128. Word shifts by 4 then line up the
// nibbles, which a bit select under 0xF0 joins (AVX-512: VPTERNLOGD 0xE4
// with the mask in Z30; AVX2: masks 0xF0 in Y14 and 0x0F in Y15, two
// VPANDs and a VPOR). AX walks the source run, R14 the destination rows,
// R13 is the second row's start.
func (g *gen) splitNibbles(l *level) {
	g.runsPrologue("splitNibblesNTPrefetch"+l.name, "pf *byte, pfStride int, pfN int")
	g.params([]string{"pf", "pfStride", "pfN"}, r9, r10, r11)
	a, b, e, o, u, t := l.v(0), l.v(1), l.v(2), l.v(3), l.v(4), l.v(5)
	if l == avx512 {
		g.VMOVDQU64(deEven[1].addr(), avx512.v(28))
		g.VMOVDQU64(deOdd[1].addr(), avx512.v(29))
		g.MOVL(operand.U32(0xf0), ax.As32())
		g.broadcastByte(l, ax, avx512.v(30))
	} else {
		g.VMOVDQU(deShuf[1].addr(), avx2.v(13))
		g.MOVL(operand.U32(0xf0), ax.As32())
		g.broadcastByte(l, ax, avx2.v(14))
		g.MOVL(operand.U32(0x0f), ax.As32())
		g.broadcastByte(l, ax, avx2.v(15))
	}
	g.XORQ(r12, r12)

	g.Label("row")
	g.LEAQ(atIdx(di, dx, 1, 0), r13)
	g.XORQ(ax, ax)
	g.XORQ(r14, r14)
	g.Label("step")
	for i := range l.bytes / 32 {
		g.prefetchWalk(fmt.Sprintf("pf%d", i+1))
	}
	g.vmov(l)(atIdx(si, ax, 1, 0), a)
	g.vmov(l)(atIdx(si, ax, 1, l.bytes), b)
	if l == avx512 {
		g.VMOVDQA64(a, e)
		g.VPERMT2B(b, avx512.v(28), e)
		g.VMOVDQA64(a, o)
		g.VPERMT2B(b, avx512.v(29), o)
	} else {
		for _, r := range []reg.VecPhysical{a, b} {
			g.VPSHUFB(avx2.v(13), r, r)
			g.VPERMQ(operand.U8(0xd8), r, r)
		}
		g.joinLanes(a, b, e, o)
	}
	g.VPSLLW(operand.U8(4), e, u)
	g.VPSRLW(operand.U8(4), o, t)
	if l == avx512 {
		g.VPTERNLOGD(operand.U8(0xe4), avx512.v(30), t, e) // high nibbles: e under the mask, t elsewhere
		g.VPTERNLOGD(operand.U8(0xe4), avx512.v(30), o, u) // low nibbles: u under the mask, o elsewhere
	} else {
		hi, lo := avx2.v(14), avx2.v(15)
		g.and(l, hi, e, e)
		g.and(l, lo, t, t)
		g.or(l, t, e, e)
		g.and(l, hi, u, u)
		g.and(l, lo, o, o)
		g.or(l, o, u, u)
	}
	g.VMOVNTDQ(e, atIdx(di, r14, 1, 0))
	g.VMOVNTDQ(u, atIdx(r13, r14, 1, 0))
	g.ADDQ(imm(l.bytes), r14)
	g.addBelow(ax, 2*l.bytes, r8, "step")
	g.ADDQ(dx, di)
	g.ADDQ(dx, di)
	g.ADDQ(bx, si)
	g.countDown("row")
	g.SFENCE()
	g.ret()
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

// lowNibbles is 0x0f in each of 64 bytes: the mask of the nibble swap.
var lowNibbles = table{name: "lowNibbles", data: bytes.Repeat([]byte{0x0f}, 64)}

// weaveNibbles emits interleave8Nibbles<level> or, with inverse,
// deinterleave8Nibbles<level> (with stream, ...Stream<level>: stores
// non-temporal and fenced at the end):
//
//	func interleave8Nibbles...(dst *byte, src *byte, srcStride int, n int)
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
		g.text(name, "func(dst *byte, src *byte, srcStride int, n int)")
		g.params([]string{"dst", "src", "srcStride", "n"}, di, si, bx, cx)
		g.Commentf("A chunk: %d bytes of each of 8 packed rows into %d bytes of words of nibbles.", l.bytes, 8*l.bytes)
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
	}
	// Two temporaries outside the weave's registers: Z16, Z17; with
	// AVX2, Y8, Y9 (the interleave's stages use Y14, Y15) or two the
	// de-interleave left free.
	t := l.vs(16, 2)
	if l == avx2 {
		t = avx2.vs(8, 2)
		if inverse && v[0] == avx2.v(8) {
			t = avx2.vs(0, 2)
		}
	}
	if inverse {
		for i := range 4 {
			g.nibbleSwap(l, v[i], v[4+i], t[0], t[1])
			store(v[i], row8(di, dx, 2*i))
			store(v[4+i], row8(di, dx, 2*i+1))
		}
		g.ADDQ(imm(8*l.bytes), si)
		g.ADDQ(imm(l.bytes), di)
	} else {
		for i := range 4 {
			g.nibbleSwap(l, v[2*i], v[2*i+1], t[0], t[1])
		}
		order := []reg.VecPhysical{v[0], v[2], v[4], v[6], v[1], v[3], v[5], v[7]}
		for i, r := range g.weaveStages(s, order, []int{1, 2, 4}) {
			store(r, at(di, i*l.bytes))
		}
		g.ADDQ(imm(l.bytes), si)
		g.ADDQ(imm(8*l.bytes), di)
	}
	g.ADDQ(imm(l.bytes), r9)
	g.endLoop(stream)
}

// nibbleSwap turns the bytes of x and y into x&0xf0 | y>>4 and
// x<<4 | y&0x0f, with t0 and t1 as scratch: two shifts and two VPTERNLOGD
// (select by the mask lowNibbles) with AVX-512; with AVX2 each select is
// a ^ ((a^b) & mask).
func (g *gen) nibbleSwap(l *level, x, y, t0, t1 reg.VecPhysical) {
	g.VPSRLW(operand.U8(4), y, t0) // y>>4, each byte's low nibble right
	g.VPSLLW(operand.U8(4), x, t1) // x<<4, each byte's high nibble right
	m := lowNibbles.addr()
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
