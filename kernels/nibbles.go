package main

import (
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
