package main

import (
	"github.com/mmcloughlin/avo/ir"
	"github.com/mmcloughlin/avo/operand"
)

// copyPartsBlock is the bytes copyParts moves from one part before it
// turns to the next: four 64-byte lines.
const copyPartsBlock = 256

// copyParts emits copyPartsAVX512 or copyPartsAVX2, the bulk copy of
// Copy past the caches, which walks several parts of a buffer at once so
// that more misses are in flight than one walk keeps:
//
//	func(dst *byte, src *byte, partLen int, parts int, blocks int, ahead int)
//
// Part p is the partLen bytes from p*partLen. The kernel copies blocks
// blocks of 256 bytes from each part, the parts' first blocks, then
// their second blocks, and so on, writing the destination with VMOVNTDQ
// (the destination must be 64-byte aligned, and partLen a multiple of
// 64). With ahead > 0 each line loaded prefetches (PREFETCHNTA) the line
// ahead bytes further on in its part; with ahead 0 it leaves the source
// to the hardware prefetchers. The caller fences the stores.
//
// DI and SI hold the current block of part 0, CX the blocks left; R10
// and R11 walk the parts of a block, R12 the parts left; DX is partLen,
// R8 parts, R9 ahead.
func (g *gen) copyParts(l *level) {
	g.text("copyParts"+l.name, "func(dst *byte, src *byte, partLen int, parts int, blocks int, ahead int)")
	g.params([]string{"dst", "src", "partLen", "parts", "blocks", "ahead"}, di, si, dx, r8, cx, r9)
	pre := "cp" + l.name
	g.TESTQ(r9, r9)
	g.JZ(operand.LabelRef(pre + "plain"))
	g.copyPartsLoop(l, pre+"ahead", true, false, true)
	g.ret()
	g.Label(pre + "plain")
	g.copyPartsLoop(l, pre+"plain", false, false, true)
	g.ret()
}

// copyPartsMasked emits copyPartsMasked{L}, copyParts for a destination
// that keeps only some bits of the source and takes the rest from a
// pattern (the padding of a layout copied to itself):
//
//	func(dst *byte, src *byte, partLen int, parts int, blocks int, mask *byte, pat *byte, maskLen int, phase int)
//
// Each byte stored is (src & m) | p, m and p the bytes of mask and pat at
// the offset AX in them: phase at the first block, 256 more a block,
// maskLen less where that reaches maskLen. Every part reads them at the
// same offset (with parts > 1 the caller makes partLen a multiple of
// maskLen, which is a multiple of 256); mask and pat hold their period
// twice over, so a block's 256 bytes from any offset below maskLen lie
// inside them. R13 and R14 hold mask and pat, BX maskLen; the rest as in
// copyParts, with no prefetch.
func (g *gen) copyPartsMasked(l *level) {
	g.text("copyPartsMasked"+l.name, "func(dst *byte, src *byte, partLen int, parts int, blocks int, mask *byte, pat *byte, maskLen int, phase int)")
	g.params([]string{"dst", "src", "partLen", "parts", "blocks", "mask", "pat", "maskLen", "phase"}, di, si, dx, r8, cx, r13, r14, bx, ax)
	g.copyPartsLoop(l, "cpm"+l.name, false, true, true)
	g.ret()
}

// copyMaskedBlocks emits copyMaskedBlocks{L}, copyPartsMasked{L} with
// ordinary stores: the masked copy of a destination the caches hold,
// where the stores of copyPartsMasked would send it to memory and the
// portable loop moves 8 bytes a step.
func (g *gen) copyMaskedBlocks(l *level) {
	g.text("copyMaskedBlocks"+l.name, "func(dst *byte, src *byte, partLen int, parts int, blocks int, mask *byte, pat *byte, maskLen int, phase int)")
	g.params([]string{"dst", "src", "partLen", "parts", "blocks", "mask", "pat", "maskLen", "phase"}, di, si, dx, r8, cx, r13, r14, bx, ax)
	g.copyPartsLoop(l, "cmb"+l.name, false, true, false)
	g.ret()
}

// copyPartsLoop emits copyParts' loop over the blocks, with or without
// prefetches, and with masked, copyPartsMasked's (each vector loaded
// and-ed with its mask and or-ed with its pattern, at AX, which moves on
// a block each block, wrapping at BX); its stores are non-temporal with
// nt, else ordinary ones. label prefixes its labels.
func (g *gen) copyPartsLoop(l *level, label string, prefetch, masked, nt bool) {
	n := copyPartsBlock / l.bytes
	vs := l.vs(0, n)
	load := g.vmov(l)
	and := func(m, x, y operand.Op) { g.VPAND(m, x, y) }
	or := func(m, x, y operand.Op) { g.VPOR(m, x, y) }
	if l == avx512 {
		and = func(m, x, y operand.Op) { g.VPANDQ(m, x, y) }
		or = func(m, x, y operand.Op) { g.VPORQ(m, x, y) }
	}
	g.Label(label + "block")
	g.MOVQ(si, r10)
	g.MOVQ(di, r11)
	g.MOVQ(r8, r12)
	g.Label(label + "part")
	if prefetch {
		for off := 0; off < copyPartsBlock; off += 64 {
			g.PREFETCHNTA(atIdx(r10, r9, 1, off))
		}
	}
	for i, v := range vs {
		load(at(r10, i*l.bytes), v)
		if masked {
			and(atIdx(r13, ax, 1, i*l.bytes), v, v)
			or(atIdx(r14, ax, 1, i*l.bytes), v, v)
		}
	}
	for i, v := range vs {
		if nt {
			g.VMOVNTDQ(v, at(r11, i*l.bytes))
		} else {
			load(v, at(r11, i*l.bytes))
		}
	}
	g.ADDQ(dx, r10)
	g.ADDQ(dx, r11)
	g.DECQ(r12)
	g.JNZ(operand.LabelRef(label + "part"))
	g.ADDQ(imm(copyPartsBlock), si)
	g.ADDQ(imm(copyPartsBlock), di)
	if masked {
		g.ADDQ(imm(copyPartsBlock), ax)
		g.CMPQ(ax, bx)
		g.JB(operand.LabelRef(label + "wrapped"))
		g.SUBQ(bx, ax)
		g.Label(label + "wrapped")
	}
	g.countDown(label + "block")
}

// copyBlocks emits copyBlocks{L}, a copy through the caches with
// ordinary stores, 256 bytes an iteration:
//
//	func(dst *byte, src *byte, blocks int)
//
// It is Copy's cached copy past the L2 on CPUs whose REP MOVSB runs
// slower than a loop of vector moves there (Tuning.CopyRepBytes). The
// loads of an iteration all go before its stores. Only the AVX2 kernel
// is emitted: Copy runs it at AVX-512 too, where 64-byte moves measured
// no faster (docs/perf).
func (g *gen) copyBlocks(l *level) {
	g.text("copyBlocks"+l.name, "func(dst *byte, src *byte, blocks int)")
	g.params([]string{"dst", "src", "blocks"}, di, si, cx)
	move := g.vmov(l)
	vs := l.vs(0, copyPartsBlock/l.bytes)
	label := "cb" + l.name
	g.Label(label)
	for i, v := range vs {
		move(at(si, i*l.bytes), v)
	}
	for i, v := range vs {
		move(v, at(di, i*l.bytes))
	}
	g.ADDQ(imm(copyPartsBlock), si)
	g.ADDQ(imm(copyPartsBlock), di)
	g.countDown(label)
	g.ret()
}

// copyRepMOVSB emits copyRepMOVSB, a copy of n bytes with REP MOVSB (the
// microcoded string copy, which CPUs with ERMS run at the caches' speed):
//
//	func(dst *byte, src *byte, n int)
//
// avo has no string instructions: REP and MOVSB go in as plain opcodes.
func (g *gen) copyRepMOVSB() {
	g.text("copyRepMOVSB", "func(dst *byte, src *byte, n int)")
	g.params([]string{"dst", "src", "n"}, di, si, cx)
	g.Instruction(&ir.Instruction{Opcode: "REP"})
	g.Instruction(&ir.Instruction{Opcode: "MOVSB"})
	g.RET()
}

// prefetchRuns emits prefetchRuns, which prefetches the lines of rows
// runs of n bytes:
//
//	func(p uintptr, stride int, n int, rows int)
//
// SI walks the runs, AX the offset in one: a prefetch every 64 bytes
// from the run's start, and one of its last byte, whose line the steps
// miss where the run starts inside a line.
func (g *gen) prefetchRuns() {
	g.text("prefetchRuns", "func(p uintptr, stride int, n int, rows int)")
	g.params([]string{"p", "stride", "n", "rows"}, si, bx, r8, cx)
	g.Label("prow")
	g.XORQ(ax, ax)
	g.Label("pline")
	g.PREFETCHT0(atIdx(si, ax, 1, 0))
	g.addBelow(ax, 64, r8, "pline")
	g.PREFETCHT0(atIdx(si, r8, 1, -1))
	g.ADDQ(bx, si)
	g.countDown("prow")
	g.RET()
}
