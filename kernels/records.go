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
