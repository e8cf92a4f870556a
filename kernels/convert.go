package main

import (
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The element type conversions of the common float pairs: f32 to bf16
// and back, f32 to f16 and back, 16 elements an iteration, at AVX-512
// and AVX2. They give the bits of the generic conversions in
// ../internal/kernel/convert.go: rounding to nearest even, subnormals kept, a NaN
// quieted with its sign and the top bits of its payload.
//
// f32 to bf16 is the integer formula (x + 0x7FFF + ((x>>16)&1)) >> 16,
// with NaNs (|x| > 0x7F800000) taking (x>>16) | 0x40 instead: not
// AVX512_BF16's VCVTNEPS2BF16, which treats denormal inputs as zero and
// flushes denormal results, where the formula keeps them. bf16 to f32 is
// a shift, with the quiet bit set in NaNs. f16 goes through F16C's
// VCVTPS2PH (immediate 0: round to nearest even, whatever MXCSR says)
// and VCVTPH2PS, which quiet NaNs as the generic code does.

// With stream, each kernel has a twin convert...Stream<level> whose
// stores are non-temporal (VMOVNTDQ), left unfenced: the caller aligns
// dst to 64 bytes and fences after.

// convertKernel starts a conversion kernel: the signature, the
// arguments in DI (dst), SI (src) and CX (n, then the count of 16-element
// iterations). The name is base, "Stream" with stream, and the level's.
func (g *gen) convertKernel(base string, l *level, stream bool) {
	name := base + l.name
	if stream {
		name = base + "Stream" + l.name
	}
	g.text(name, "func(dst *byte, src *byte, n int)")
	g.params([]string{"dst", "src", "n"}, di, si, cx)
	g.SHRQ(operand.U8(4), cx)
}

// store returns the store of a vector register: VMOVNTDQ with stream,
// else VMOVDQU (VMOVDQU32 for a Z register).
func (g *gen) store(stream bool) mov {
	return func(src, dst operand.Op) {
		switch {
		case stream:
			g.VMOVNTDQ(src, dst)
		case src.(reg.VecPhysical).Size() == 64:
			g.VMOVDQU32(src, dst)
		default:
			g.VMOVDQU(src, dst)
		}
	}
}

// broadcastD puts the dword v in every dword of the level's register r.
func (g *gen) broadcastD(l *level, v uint32, r reg.VecPhysical) {
	g.MOVL(operand.U32(v), ax.As32())
	if l == avx512 {
		g.VPBROADCASTD(ax.As32(), r)
		return
	}
	g.VMOVD(ax.As32(), r.AsX())
	g.VPBROADCASTD(r.AsX(), r)
}

// convertF32ToBF16 emits convertF32ToBF16<level>.
func (g *gen) convertF32ToBF16(l *level, stream bool) {
	g.convertKernel("convertF32ToBF16", l, stream)
	v := l.vs(0, 16)
	g.Comment("0x7fff, 1, 0x7fffffff, 0x7f800000 and 0x40 in every dword.")
	for i, c := range []uint32{0x7fff, 1, 0x7fffffff, 0x7f800000, 0x40} {
		g.broadcastD(l, c, v[i])
	}
	g.Label("f32bf16")
	if l == avx512 {
		x, hi, lsb, r, abs := v[5], v[6], v[7], v[8], v[9]
		g.VMOVDQU32(at(si, 0), x)
		g.VPSRLD(operand.U8(16), x, hi)
		g.VPANDD(v[1], hi, lsb)
		g.VPADDD(v[0], x, r)
		g.VPADDD(lsb, r, r)
		g.VPSRLD(operand.U8(16), r, r)
		g.VPANDD(v[2], x, abs)
		g.VPCMPGTD(v[3], abs, reg.K1)
		g.Comment("NaN lanes: (x>>16) | 0x40.")
		g.VPORD(v[4], hi, reg.K1, r)
		if stream {
			g.VPMOVDW(r, r.AsY())
			g.store(stream)(r.AsY(), at(di, 0))
		} else {
			g.VPMOVDW(r, at(di, 0))
		}
		g.ADDQ(imm(64), si)
		g.ADDQ(imm(32), di)
		g.loopEnd("f32bf16")
		return
	}
	out := v[14:16]
	for h := range 2 {
		x, hi, lsb, r, abs := v[5], v[6], v[7], out[h], v[9]
		g.VMOVDQU(at(si, 32*h), x)
		g.VPSRLD(operand.U8(16), x, hi)
		g.VPAND(v[1], hi, lsb)
		g.VPADDD(v[0], x, r)
		g.VPADDD(lsb, r, r)
		g.VPSRLD(operand.U8(16), r, r)
		g.VPAND(v[2], x, abs)
		g.VPCMPGTD(v[3], abs, abs)
		g.VPOR(v[4], hi, hi)
		g.VPBLENDVB(abs, hi, r, r)
	}
	g.Comment("Words of both registers, lane by lane; VPERMQ puts them back in order.")
	g.VPACKUSDW(out[1], out[0], out[0])
	g.VPERMQ(operand.U8(0xd8), out[0], out[0])
	g.store(stream)(out[0], at(di, 0))
	g.ADDQ(imm(64), si)
	g.ADDQ(imm(32), di)
	g.loopEnd("f32bf16")
}

// convertBF16ToF32 emits convertBF16ToF32<level>.
func (g *gen) convertBF16ToF32(l *level, stream bool) {
	g.convertKernel("convertBF16ToF32", l, stream)
	v := l.vs(0, 8)
	g.Comment("0x7fffffff, 0x7f800000 and the quiet bit 0x00400000 in every dword.")
	for i, c := range []uint32{0x7fffffff, 0x7f800000, 0x00400000} {
		g.broadcastD(l, c, v[i])
	}
	g.Label("bf16f32")
	if l == avx512 {
		x, abs := v[4], v[5]
		g.VPMOVZXWD(at(si, 0), x)
		g.VPSLLD(operand.U8(16), x, x)
		g.VPANDD(v[0], x, abs)
		g.VPCMPGTD(v[1], abs, reg.K1)
		g.VPORD(v[2], x, reg.K1, x)
		g.store(stream)(x, at(di, 0))
		g.ADDQ(imm(32), si)
		g.ADDQ(imm(64), di)
		g.loopEnd("bf16f32")
		return
	}
	for h := range 2 {
		x, abs := v[4], v[5]
		g.VPMOVZXWD(at(si, 16*h), x)
		g.VPSLLD(operand.U8(16), x, x)
		g.VPAND(v[0], x, abs)
		g.VPCMPGTD(v[1], abs, abs)
		g.VPAND(v[2], abs, abs)
		g.VPOR(abs, x, x)
		g.store(stream)(x, at(di, 32*h))
	}
	g.ADDQ(imm(32), si)
	g.ADDQ(imm(64), di)
	g.loopEnd("bf16f32")
}

// convertF32ToF16 emits convertF32ToF16<level>: VCVTPS2PH with
// immediate 0 (round to nearest even).
func (g *gen) convertF32ToF16(l *level, stream bool) {
	g.convertKernel("convertF32ToF16", l, stream)
	g.Label("f32f16")
	for h := range 64 / l.bytes {
		x := l.v(h)
		g.vmov(l)(at(si, l.bytes*h), x)
		if stream { // converted into the lower half of register 4+h, then stored
			y := vec(4+h, reg.S128)
			if l == avx512 {
				y = vec(4+h, reg.S256)
			}
			g.VCVTPS2PH(operand.U8(0), x, y)
			g.store(stream)(y, at(di, l.bytes/2*h))
		} else {
			g.VCVTPS2PH(operand.U8(0), x, at(di, l.bytes/2*h))
		}
	}
	g.ADDQ(imm(64), si)
	g.ADDQ(imm(32), di)
	g.loopEnd("f32f16")
}

// convertF16ToF32 emits convertF16ToF32<level>: VCVTPH2PS.
func (g *gen) convertF16ToF32(l *level, stream bool) {
	g.convertKernel("convertF16ToF32", l, stream)
	g.Label("f16f32")
	for h := range 64 / l.bytes {
		x := l.v(h)
		g.VCVTPH2PS(at(si, l.bytes/2*h), x)
		if stream {
			g.store(stream)(x, at(di, l.bytes*h))
		} else {
			g.vmov(l)(x, at(di, l.bytes*h))
		}
	}
	g.ADDQ(imm(32), si)
	g.ADDQ(imm(64), di)
	g.loopEnd("f16f32")
}

// The fused kernels of a relayout between f32 rows and bf16 tiles whose
// (2,1) sub-tiles interleave row pairs (TPU's T(8,128)(2,1)): the
// conversion happens in registers as the relayout moves the elements.
// A line is 16 columns of a row pair: 64 bytes of each f32 row, one
// 64-byte line of bf16 pairs (row 2k's element in the low word of each
// dword, row 2k+1's in the high word). The tile side is sequential:
// tiles of pairs of lines; the row side is rows stride bytes apart,
// tile t starting at column 16·lines·t.
//
// tilesF32ToBF16<level> rounds both rows with convertF32ToBF16's
// integer formula (not VCVTNE2PS2BF16, which flushes denormal inputs to
// zero) and joins them with no shuffle: the low row's result shifted
// down, the high row's masked in place. untileBF16ToF32<level> splits
// a line by a shift and a mask, quieting NaNs.

// tileKernel starts a fused tile kernel: the signature, the arguments
// in DI (dst), SI (src), DX (stride), CX (tiles), R8 (lines), R9
// (pairs), with pf in R10, and R14 = 64·lines, how far the row side
// moves a tile.
func (g *gen) tileKernel(base string, l *level, stream, pf bool) {
	name := base + l.name
	if stream {
		name = base + "Stream" + l.name
	}
	sig, names, regs := "func(dst *byte, src *byte, stride int, tiles int, lines int, pairs int", []string{"dst", "src", "stride", "tiles", "lines", "pairs"}, []reg.Register{di, si, dx, cx, r8, r9}
	if pf {
		sig, names, regs = sig+", pf *byte", append(names, "pf"), append(regs, r10)
	}
	g.text(name, sig+")")
	g.params(names, regs...)
	g.MOVQ(r8, r14)
	g.SHLQ(operand.U8(6), r14)
}

// tileLoops emits the loops of a fused tile kernel around body, which
// moves one line: the row side's pair starts at AX (row 2k) and
// AX+DX (row 2k+1), the tile side's line at tile (DI for tiles, SI for
// untile; the kernel advances it by 64 after body). rows is the register
// of the row side's start (SI or DI), advanced a tile at a time.
func (g *gen) tileLoops(label string, rows, tile reg.Register, body func()) {
	g.Label(label + "tile")
	g.MOVQ(rows, r11)
	g.MOVQ(r9, r13)
	g.Label(label + "pair")
	g.MOVQ(r11, ax)
	g.MOVQ(r8, r12)
	g.Label(label + "line")
	body()
	g.ADDQ(imm(64), ax)
	g.ADDQ(imm(64), tile)
	g.DECQ(r12)
	g.JNZ(operand.LabelRef(label + "line"))
	g.LEAQ(atIdx(r11, dx, 2, 0), r11)
	g.DECQ(r13)
	g.JNZ(operand.LabelRef(label + "pair"))
	g.ADDQ(r14, rows)
	g.DECQ(cx)
	g.JNZ(operand.LabelRef(label + "tile"))
	g.ret()
}

// tilesF32ToBF16 emits tilesF32ToBF16<level>.
//
// Each line it writes, it prefetches two lines into L2 (PREFETCHT1):
// one from pf on, one from pf + pairs·stride on (BX), the two halves of
// the rows of the caller's next band. The rows of a band, read a few
// lines from each at a time, keep more streams than the hardware
// prefetchers follow well; the next band's rows, whole rows one after
// the other, walked as two streams, keep more misses in flight than one.
func (g *gen) tilesF32ToBF16(l *level, stream bool) {
	g.tileKernel("tilesF32ToBF16", l, stream, true)
	g.MOVQ(r9, bx)
	g.IMULQ(dx, bx)
	v := l.vs(0, 16)
	c7fff, c1, cAbs, cInf, cQuiet, cHigh := v[0], v[1], v[2], v[3], v[4], v[5]
	g.Comment("0x7fff, 1, 0x7fffffff, 0x7f800000, the quiet bit 0x00400000 and 0xffff0000 in every dword.")
	for i, c := range []uint32{0x7fff, 1, 0x7fffffff, 0x7f800000, 0x00400000, 0xffff0000} {
		g.broadcastD(l, c, v[i])
	}
	// round leaves in r the f32 x rounded to bf16 in its high word: x +
	// 0x7fff + ((x>>16)&1), or for a NaN x with the quiet bit set.
	round := func(x, t, r reg.VecPhysical) {
		g.VPSRLD(operand.U8(16), x, t)
		if l == avx512 {
			g.VPANDD(c1, t, t)
		} else {
			g.VPAND(c1, t, t)
		}
		g.VPADDD(c7fff, x, r)
		g.VPADDD(t, r, r)
		g.nanLanes(l, x, t, cAbs, cInf)
		if l == avx512 {
			g.VPORD(cQuiet, x, reg.K1, r)
			return
		}
		g.VPOR(cQuiet, x, x)
		g.VPBLENDVB(t, x, r, r)
	}
	g.tileLoops("f32bf16", si, di, func() {
		g.PREFETCHT1(at(r10, 0))
		g.PREFETCHT1(atIdx(r10, bx, 1, 0))
		g.ADDQ(imm(64), r10)
		for h := range 64 / l.bytes {
			lo, hi, t, rlo, rhi := v[6], v[7], v[8], v[9], v[10]
			g.vmov(l)(row(ax, dx, nil, 0, l.bytes*h), lo)
			g.vmov(l)(row(ax, dx, nil, 1, l.bytes*h), hi)
			round(lo, t, rlo)
			round(hi, t, rhi)
			g.VPSRLD(operand.U8(16), rlo, rlo)
			if l == avx512 {
				g.Comment("rlo | (rhi & 0xffff0000)")
				g.VPTERNLOGD(operand.U8(0xf8), cHigh, rhi, rlo)
			} else {
				g.VPAND(cHigh, rhi, rhi)
				g.VPOR(rhi, rlo, rlo)
			}
			g.store(stream)(rlo, at(di, l.bytes*h))
		}
	})
}

// untileBF16ToF32 emits untileBF16ToF32<level>.
func (g *gen) untileBF16ToF32(l *level, stream bool) {
	g.tileKernel("untileBF16ToF32", l, stream, false)
	v := l.vs(0, 16)
	cAbs, cInf, cQuiet, cHigh := v[0], v[1], v[2], v[3]
	g.Comment("0x7fffffff, 0x7f800000, the quiet bit 0x00400000 and 0xffff0000 in every dword.")
	for i, c := range []uint32{0x7fffffff, 0x7f800000, 0x00400000, 0xffff0000} {
		g.broadcastD(l, c, v[i])
	}
	// quiet sets the quiet bit of the NaNs among the f32 in y.
	quiet := func(y, t reg.VecPhysical) {
		g.nanLanes(l, y, t, cAbs, cInf)
		if l == avx512 {
			g.VPORD(cQuiet, y, reg.K1, y)
			return
		}
		g.VPAND(cQuiet, t, t)
		g.VPOR(t, y, y)
	}
	g.tileLoops("bf16f32", di, si, func() {
		for h := range 64 / l.bytes {
			x, lo, hi, t := v[6], v[7], v[8], v[9]
			g.vmov(l)(at(si, l.bytes*h), x)
			g.VPSLLD(operand.U8(16), x, lo)
			if l == avx512 {
				g.VPANDD(cHigh, x, hi)
			} else {
				g.VPAND(cHigh, x, hi)
			}
			quiet(lo, t)
			quiet(hi, t)
			st := g.store(stream)
			st(lo, row(ax, dx, nil, 0, l.bytes*h))
			st(hi, row(ax, dx, nil, 1, l.bytes*h))
		}
	})
}

// nanLanes marks the NaN lanes of the f32 in x (|x| > inf, with cAbs
// holding 0x7fffffff and cInf 0x7f800000 in every dword): in K1 at
// AVX-512, as all-ones dwords of t at AVX2 (t is clobbered at both).
func (g *gen) nanLanes(l *level, x, t, cAbs, cInf reg.VecPhysical) {
	if l == avx512 {
		g.VPANDD(cAbs, x, t)
		g.VPCMPGTD(cInf, t, reg.K1)
		return
	}
	g.VPAND(cAbs, x, t)
	g.VPCMPGTD(cInf, t, t)
}
