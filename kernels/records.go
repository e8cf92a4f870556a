package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The record transposes: elements of a width that is no power of two (an
// RGB pixel of 3 bytes, of three 16-bit floats in 6, of three f32s in
// 12) move whole. Each source row's piece is loaded under a mask and its
// records spread to slots of the next power of two (VPERMB), the slots
// are transposed as dwords, qwords or 128-bit lanes, and each column's
// records are packed back (VPERMB) and stored under the mask. No byte
// outside the block's records is read or written.

// recordWidths are the widths the record transposes are generated for:
// every width from 3 to 15 bytes that is no power of two.
var recordWidths = []int{3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15}

// recordSlot is the slot a record of w bytes is spread to: the next power
// of two.
func recordSlot(w int) int {
	p := 4
	for p < w {
		p *= 2
	}
	return p
}

// recordTables are the VPERMB indexes of the w-byte record transpose:
// spread takes the n = 64/slot records of a loaded row to one slot each
// (the slot's bytes past the record repeat its last byte), pack takes
// the records of n slots back to n*w bytes.
func recordTables(w int) (spread, pack table) {
	p := recordSlot(w)
	n := 64 / p
	s, k := make([]int, 64), make([]int, 64)
	for q := range 64 {
		s[q] = q/p*w + min(q%p, w-1)
		if q < n*w {
			k[q] = q/w*p + q%w
		}
	}
	return index(fmt.Sprintf("recordSpread%d", w), 1, s), index(fmt.Sprintf("recordPack%d", w), 1, k)
}

// transposeRecord emits transpose<w>AVX512, the block transpose of w-byte
// records: a block is n = 64/slot source rows of n records each, n*w
// bytes, and n destination rows of as many. K1 masks the n*w bytes of a
// row.
func (g *gen) transposeRecord(w int) {
	p := recordSlot(w)
	n := 64 / p
	spread, pack := recordTables(w)
	doc := fmt.Sprintf("A block: %d source rows of %d %d-byte records, spread to %d-byte slots, a %d×%d transpose of the slots, packed back.", n, n, w, p, n, n)
	k1 := reg.K1
	g.transposeKernel(fmt.Sprintf("transpose%dAVX512", w), doc, log2(n), n*w, func() {
		g.MOVQ(operand.U64(uint64(1)<<(n*w)-1), ax)
		g.KMOVQ(ax, k1)
		idx := avx512.v(31)
		g.VMOVDQU64(spread.addr(), idx)
		rows := avx512.vs(0, n)
		for r := 0; r < n; r += 4 {
			for i := range 4 {
				g.VMOVDQU8_Z(row(r10, bx, r8, i, 0), k1, rows[r+i])
				g.VPERMB(rows[r+i], idx, rows[r+i])
			}
			g.LEAQ(atIdx(r10, bx, 4, 0), r10)
		}
		var cols []reg.VecPhysical
		switch p {
		case 4:
			cols = g.xposeDwords()
		case 8:
			// Pairs of qwords in each lane, then two 4×4 transposes of
			// lanes: the even columns', then the odd ones'.
			t := avx512.vs(8, 8)
			lo, hi := g.unpacks(8)
			g.unpack(lo, hi, rows, t)
			g.xpose4Lanes(t[0], t[2], t[4], t[6], avx512.vs(16, 4))
			g.xpose4Lanes(t[1], t[3], t[5], t[7], avx512.vs(20, 4))
			cols = t
		default:
			g.xpose4Lanes(rows[0], rows[1], rows[2], rows[3], avx512.vs(4, 4))
			cols = rows
		}
		g.VMOVDQU64(pack.addr(), idx)
		g.storeRows(func(src, dst operand.Op) {
			g.VPERMB(src, idx, src)
			g.VMOVDQU8(src, k1, dst)
		}, 0, cols)
	})
}

// recordWidthsAVX2 are the widths of the AVX2 record transposes: an RGB
// pixel of u8, of 16-bit and of 32-bit channels. Each is a row piece of
// 24 bytes (six dwords, which VPMASKMOVD loads and stores exactly) whose
// records fill 12 bytes of each 128-bit lane once spread.
var recordWidthsAVX2 = []int{3, 6, 12}

// recordTablesAVX2 are the VPSHUFB masks of the AVX2 w-byte record
// transpose: spread takes the 12 bytes of records in each lane (which
// recordSpreadPermAVX2 brings it) to 16/slot slots, pack takes them back
// to the lane's first 12 bytes (which recordPackPermAVX2 then joins).
// Lanes are shuffled alike.
func recordTablesAVX2(w int) (spread, pack table) {
	p := recordSlot(w)
	s, k := make([]int, 32), make([]int, 32)
	for j := range 32 {
		q := j % 16 // the byte in its lane
		s[j] = q/p*w + min(q%p, w-1)
		k[j] = 0x80 // zero
		if q < 12 {
			k[j] = q/w*p + q%w
		}
	}
	return index(fmt.Sprintf("recordSpreadAVX2_%d", w), 1, s), index(fmt.Sprintf("recordPackAVX2_%d", w), 1, k)
}

// The tables the AVX2 record transposes share: the VPMASKMOVD mask of a
// 24-byte row piece, the VPERMD index that gives lane 0 its bytes 0-11
// and lane 1 bytes 12-23, and the one that joins the lanes' first 12
// bytes back into 24.
var (
	recordMaskAVX2       = index("recordMaskAVX2", 4, []int{-1, -1, -1, -1, -1, -1, 0, 0})
	recordSpreadPermAVX2 = index("recordSpreadPermAVX2", 4, []int{0, 1, 2, 2, 3, 4, 5, 5})
	recordPackPermAVX2   = index("recordPackPermAVX2", 4, []int{0, 1, 2, 4, 5, 6, 6, 6})
)

// transposeRecordAVX2 emits transpose<w>AVX2, the AVX2 block transpose of
// w-byte records (w in recordWidthsAVX2): a block is n = 32/slot source
// rows of n records each, 24 bytes, loaded under a mask (VPMASKMOVD),
// spread to slots (VPERMD brings each lane its 12 bytes, VPSHUFB spreads
// them), transposed as an 8×8 of dwords, a 4×4 of qwords or a 2×2 of
// lanes, and each column packed back (VPSHUFB, VPERMD) and stored under
// the mask. No byte outside the block's records is read or written.
func (g *gen) transposeRecordAVX2(w int) {
	p := recordSlot(w)
	n := 32 / p
	spreadShuf, packShuf := recordTablesAVX2(w)
	doc := fmt.Sprintf("A block: %d source rows of %d %d-byte records, spread to %d-byte slots, a %d×%d transpose of the slots, packed back.", n, n, w, p, n, n)
	g.transposeKernel(fmt.Sprintf("transpose%dAVX2", w), doc, log2(n), n*w, func() {
		mask, idx := avx2.v(14), avx2.v(15)
		g.VMOVDQU(recordMaskAVX2.addr(), mask)
		g.VMOVDQU(recordSpreadPermAVX2.addr(), idx)
		rows := avx2.vs(0, n)
		for r := 0; r < n; r += 4 {
			for i := range min(4, n-r) {
				g.VPMASKMOVD(row(r10, bx, r8, i, 0), mask, rows[r+i])
				g.VPERMD(rows[r+i], idx, rows[r+i])
				g.VPSHUFB(spreadShuf.addr(), rows[r+i], rows[r+i])
			}
			if r+4 < n {
				g.LEAQ(atIdx(r10, bx, 4, 0), r10)
			}
		}
		var cols []reg.VecPhysical
		switch p {
		case 4:
			// 4×4 dwords in each lane of rows 0-3 and of rows 4-7,
			// then column c joins lanes of rows c and c+4.
			g.dwordsInLanes(rows, avx2.vs(8, 8))
			cols = avx2.vs(8, 8)
			for c := range 4 {
				g.joinLanes(rows[c], rows[c+4], cols[c], cols[c+4])
			}
		case 8:
			// Pairs of qwords in each lane, then column c joins lanes of
			// the pairs' registers.
			t := avx2.vs(4, 4)
			lo, hi := g.unpacks(8)
			g.unpack(lo, hi, rows, t)
			cols = avx2.vs(8, 4)
			g.joinLanes(t[0], t[2], cols[0], cols[2])
			g.joinLanes(t[1], t[3], cols[1], cols[3])
		default:
			cols = avx2.vs(8, 2)
			g.joinLanes(rows[0], rows[1], cols[0], cols[1])
		}
		mask, idx = avx2.v(0), avx2.v(1)
		g.VMOVDQU(recordMaskAVX2.addr(), mask)
		g.VMOVDQU(recordPackPermAVX2.addr(), idx)
		g.storeRows(func(src, dst operand.Op) {
			g.VPSHUFB(packShuf.addr(), src, src)
			g.VPERMD(src, idx, src)
			g.VPMASKMOVD(src, mask, dst)
		}, 0, cols)
	})
}

// permuteBlocks emits permuteBlocksAVX512, the batched byte permutation
// of small blocks that a block's turns of tiny dims are (a batch of
// 4×4 blocks of bytes, of 2×4 of 16-bit elements), and of the runs of a
// few bytes that lie in groups on one side and side by side on the
// other (CopyRuns of the 3 bytes held of each 8-byte group):
//
//	func(dst *byte, src *byte, table *byte, srcMask uint64, dstMask uint64, steps int, srcStep int, dstStep int)
//
// Each of steps steps loads 64 bytes from src (the bytes under srcMask,
// the rest zero), permutes them by the 64 indexes at table (VPERMB) and
// stores the bytes under dstMask to dst, then moves src on by srcStep
// bytes and dst by dstStep. The caller fills the table and the masks so
// that one step moves whole blocks or groups. No byte outside a step's
// masks is read or written.
func (g *gen) permuteBlocks() {
	g.text("permuteBlocksAVX512", "func(dst *byte, src *byte, table *byte, srcMask uint64, dstMask uint64, steps int, srcStep int, dstStep int)")
	g.params([]string{"dst", "src", "table", "srcMask", "dstMask", "steps", "srcStep", "dstStep"}, di, si, r8, ax, bx, cx, dx, r9)
	k1, k2 := reg.K1, reg.K2
	g.KMOVQ(ax, k1)
	g.KMOVQ(bx, k2)
	idx := avx512.v(31)
	g.VMOVDQU64(at(r8, 0), idx)
	v := avx512.v(0)
	g.Label("permb")
	g.VMOVDQU8_Z(at(si, 0), k1, v)
	g.VPERMB(v, idx, v)
	g.VMOVDQU8(v, k2, at(di, 0))
	g.ADDQ(dx, si)
	g.ADDQ(r9, di)
	g.loopEnd("permb")
}

// permuteBlocks2 emits permuteBlocks2AVX512, the batched byte
// permutation of blocks of 65 to 128 bytes (an 8×8 block of 16-bit
// elements, a 4×4 one of 8-byte elements), one block a step:
//
//	func(dst *byte, src *byte, table *byte, mask uint64, steps int, srcStep int, dstStep int)
//
// Each of steps steps loads the block's first 64 bytes from src and the
// bytes under mask of the next 64 (the rest zero), permutes the two
// registers by the 128 indexes at table (two VPERMI2B: an index's bit 6
// picks the register, its low bits the byte), stores the first 64 bytes
// and those under mask of the next 64 to dst, then moves src on by
// srcStep bytes and dst by dstStep. No byte outside a step's block is
// read or written.
func (g *gen) permuteBlocks2() {
	g.text("permuteBlocks2AVX512", "func(dst *byte, src *byte, table *byte, mask uint64, steps int, srcStep int, dstStep int)")
	g.params([]string{"dst", "src", "table", "mask", "steps", "srcStep", "dstStep"}, di, si, r8, ax, cx, dx, r9)
	k1 := reg.K1
	g.KMOVQ(ax, k1)
	g.permute2Loop("permb2", true, func(lo, hi reg.VecPhysical) {
		g.VMOVDQU64(at(si, 0), lo)
		g.VMOVDQU8_Z(at(si, 64), k1, hi)
	}, func(out0, out1 reg.VecPhysical) {
		g.VMOVDQU64(out0, at(di, 0))
		g.VMOVDQU8(out1, k1, at(di, 64))
	})
}

// permute2Loop emits the loop of the two-register block permutations,
// at label: it loads the 128 indexes at R8, then each of CX steps
// loads two registers (load), makes the result's first half, and with
// both its second, each with one VPERMI2B of the two by 64 of the
// indexes, stores them (store), moves SI on by DX and DI by R9, and at
// the end returns.
func (g *gen) permute2Loop(label string, both bool, load func(lo, hi reg.VecPhysical), store func(out0, out1 reg.VecPhysical)) {
	idx0, idx1 := avx512.v(30), avx512.v(31)
	g.VMOVDQU64(at(r8, 0), idx0)
	g.VMOVDQU64(at(r8, 64), idx1)
	lo, hi, out0, out1 := avx512.v(0), avx512.v(1), avx512.v(2), avx512.v(3)
	g.Label(label)
	load(lo, hi)
	g.VMOVDQA64(idx0, out0)
	g.VPERMI2B(hi, lo, out0)
	if both {
		g.VMOVDQA64(idx1, out1)
		g.VPERMI2B(hi, lo, out1)
	}
	store(out0, out1)
	g.ADDQ(dx, si)
	g.ADDQ(r9, di)
	g.loopEnd(label)
}

// permuteLinesStream emits permuteLinesStreamAVX512, the streaming twin
// of the block permutations for blocks of whole lines (a T(8,8) tile of
// bytes, 64, or of 16-bit elements, 128), which a grid of tiles written
// past the caches stores with VMOVNTDQ:
//
//	func(dst *byte, src *byte, table *byte, steps int, srcStep int, dstStep int, lines int)
//
// Each of steps steps loads lines (1 or 2) lines from src, permutes them
// by the 128 indexes at table (VPERMI2B over two registers, the second
// zero for one line), stores the lines to dst with VMOVNTDQ, then moves
// src on by srcStep bytes and dst by dstStep. It does not fence.
func (g *gen) permuteLinesStream() {
	g.text("permuteLinesStreamAVX512", "func(dst *byte, src *byte, table *byte, steps int, srcStep int, dstStep int, lines int)")
	g.params([]string{"dst", "src", "table", "steps", "srcStep", "dstStep", "lines"}, di, si, r8, cx, dx, r9, ax)
	g.CMPQ(ax, operand.Imm(2))
	g.JEQ(operand.LabelRef("two"))
	// One line: the second register zero (once), no second half.
	g.VPXORQ(avx512.v(1), avx512.v(1), avx512.v(1))
	g.permute2Loop("one", false, func(lo, _ reg.VecPhysical) {
		g.VMOVDQU64(at(si, 0), lo)
	}, func(out0, _ reg.VecPhysical) {
		g.VMOVNTDQ(out0, at(di, 0))
	})
	g.Label("two")
	g.permute2Loop("twolines", true, func(lo, hi reg.VecPhysical) {
		g.VMOVDQU64(at(si, 0), lo)
		g.VMOVDQU64(at(si, 64), hi)
	}, func(out0, out1 reg.VecPhysical) {
		g.VMOVNTDQ(out0, at(di, 0))
		g.VMOVNTDQ(out1, at(di, 64))
	})
}

// permuteWide emits permuteWideAVX512 and permuteWideStreamAVX512, the
// byte permutations of blocks of whole lines whose every destination
// line draws on at most two lines of its source block (two tilings of
// one order, whose block is a tile of the larger):
//
//	func(dst *byte, src *byte, table *byte, pad *byte, lines int, steps int, srcStep int, dstStep int)
//
// The table holds 128 bytes for each of a block's lines destination
// lines: the line's 64 indexes (bit 6 picks the second source line),
// the offsets from the block's start of its two source lines (two
// int64s), then a mask of the line's bytes that take the padding line
// at pad instead (an uint64, bit j for byte j). Each of steps steps
// writes the block's lines one after another, each one VPERMI2B of its
// two source lines merged under its mask with the padding line, then
// moves src on by srcStep bytes and dst by dstStep.
func (g *gen) permuteWide(stream bool) {
	name := "permuteWideAVX512"
	if stream {
		name = "permuteWideStreamAVX512"
	}
	g.text(name, "func(dst *byte, src *byte, table *byte, pad *byte, lines int, steps int, srcStep int, dstStep int)")
	g.params([]string{"dst", "src", "table", "pad", "lines", "steps", "srcStep", "dstStep"}, di, si, r8, bx, ax, cx, dx, r9)
	out, first, padding := avx512.v(0), avx512.v(1), avx512.v(2)
	k1 := reg.K1
	g.VMOVDQU64(at(bx, 0), padding)
	g.Label("step")
	g.MOVQ(r8, r10)
	g.MOVQ(ax, r11)
	g.MOVQ(di, r12)
	g.Label("line")
	g.MOVQ(at(r10, 64), r13)
	g.MOVQ(at(r10, 72), r14)
	g.KMOVQ(at(r10, 80), k1)
	g.VMOVDQU64(at(r10, 0), out)
	g.VMOVDQU64(atIdx(si, r13, 1, 0), first)
	g.VPERMI2B(atIdx(si, r14, 1, 0), first, out)
	g.VMOVDQU8(padding, k1, out)
	if stream {
		g.VMOVNTDQ(out, at(r12, 0))
	} else {
		g.VMOVDQU64(out, at(r12, 0))
	}
	g.ADDQ(imm(128), r10)
	g.ADDQ(imm(64), r12)
	g.DECQ(r11)
	g.JNZ(operand.LabelRef("line"))
	g.ADDQ(dx, si)
	g.ADDQ(r9, di)
	g.loopEnd("step")
}
