package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The field transposes: the first pass of a transpose of packed sub-byte
// elements (bits 1, 2 or 4, e = 8/bits fields to a byte, the first in the
// most significant bits).
//
//	func transposeFieldsBAVX2(dst *byte, src *byte, srcStride int, n int, masks *uint64)
//
// reads n 32-byte chunks of each of e source rows (row m at src +
// m*srcStride) and writes e*32 bytes a chunk to dst: byte e*b+q of the
// output holds in its field m the field q of byte b of row m. That is the
// transpose of every e×e block of fields; a byte transpose of the result
// finishes the transpose of the elements.
//
// A chunk runs in two steps. The rows' bytes are interleaved, e at a
// time, in log2(e) stages of pairs (as the interleaves do: bytes, then
// words, then dwords), so that each e-byte group holds byte b of every
// row, row m in its byte m: an e×e matrix of fields. Then delta swaps
// transpose every such matrix in place, block by block: at each scale s
// (e/2 down to 1) the top-right s×s block of each 2s×2s block trades
// places with the bottom-left one, s*(8+bits) bits further up the word.
// The swaps' masks, largest scale first, come from the Go side
// (fieldSwaps there): masks points at one uint64 per scale.

// transposeFields emits transposeFields<bits>AVX2, or with stream
// transposeFields<bits>StreamAVX2, which writes with VMOVNTDQ and ends
// with SFENCE. Registers: the rows in Y0..Y(e-1), the unpacks' scratch in
// Y14 and Y15 (weavePair), the swap masks from Y11 up, a swap's scratch
// in Y10; SI and R9 address rows 0-3 and 4-7 of the group, R8 is
// 3*srcStride; R10 and R11 hold the group's corners, DX counts the groups.
func (g *gen) transposeFields(bits int, stream bool) {
	e := 8 / bits
	name, store := fmt.Sprintf("transposeFields%dAVX2", bits), g.VMOVDQU
	if stream {
		name, store = fmt.Sprintf("transposeFields%dStreamAVX2", bits), g.VMOVNTDQ
	}
	g.text(name, "func(dst *byte, src *byte, srcStride int, n int, groups int, dstStep int, masks *uint64)")
	g.params([]string{"dst", "src", "srcStride", "groups", "masks"}, r10, r11, bx, dx, ax)
	g.LEAQ(atIdx(bx, bx, 2, 0), r8)
	shifts, masks := g.swapMasks(bits, ax)
	g.Label("group")
	g.MOVQ(r10, di)
	g.MOVQ(r11, si)
	if e == 8 {
		g.LEAQ(atIdx(si, bx, 4, 0), r9)
	}
	g.Load(g.Param("n"), cx)
	g.Commentf("A chunk: 32 bytes of each of %d rows into %d bytes of %d×%d field matrices.", e, 32*e, e, e)
	g.Label("chunk")
	rows := avx2.vs(0, e)
	for m, r := range rows {
		g.VMOVDQU(row8(si, bx, m), r)
	}
	// Stage k interleaves registers 2^k apart at 2^k-byte elements; the
	// results go back into the pair's registers, in the order of the
	// interleaved stream.
	rows = g.weaveStages(weaveSpec{lvl: avx2, k: e, width: 1}, rows, []int{1, 2, 4}[:log2(e)])
	for i, x := range rows {
		g.fieldSwaps(x, avx2.v(10), shifts, masks)
		store(x, at(di, 32*i))
	}
	g.ADDQ(imm(32), si)
	if e == 8 {
		g.ADDQ(imm(32), r9)
	}
	g.ADDQ(imm(32*e), di)
	g.countDown("chunk")
	g.Comment("The next group: e rows further down the source.")
	g.Load(g.Param("dstStep"), ax)
	g.ADDQ(ax, r10)
	g.LEAQ(atIdx(r11, bx, uint8(e), 0), r11)
	g.DECQ(dx)
	g.JNZ(operand.LabelRef("group"))
	if stream {
		g.SFENCE()
	}
	g.ret()
}

// swapMasks loads the delta swaps' masks, largest scale s first, from
// the uint64s at (p) into Y11 up, and returns them with their shifts,
// s*(8+bits) bits each.
func (g *gen) swapMasks(bits int, p reg.Register) (shifts []int, masks []reg.VecPhysical) {
	for s := 8 / bits / 2; s >= 1; s /= 2 {
		m := avx2.v(11 + len(masks))
		g.VPBROADCASTQ(at(p, 8*len(masks)), m)
		shifts, masks = append(shifts, s*(8+bits)), append(masks, m)
	}
	return shifts, masks
}

// fieldSwaps runs the delta swaps on x, with t for scratch: at each
// scale the fields under the mask trade places with those shift bits
// above them in each 64-bit lane.
func (g *gen) fieldSwaps(x, t reg.VecPhysical, shifts []int, masks []reg.VecPhysical) {
	for j, shift := range shifts {
		g.VPSRLQ(operand.U8(shift), x, t)
		g.VPXOR(x, t, t)
		g.VPAND(masks[j], t, t)
		g.VPXOR(t, x, x)
		g.VPSLLQ(operand.U8(shift), t, t)
		g.VPXOR(t, x, x)
	}
}

// transposeFieldsShort emits transposeFieldsShort<bits>AVX2, or with
// stream transposeFieldsShort<bits>StreamAVX2:
//
//	func(dst *byte, src *byte, n int, perm *byte, masks *uint64)
//
// the field transpose of source rows that lie back to back and are so
// short that a group of e rows fits in 16 bytes or fewer, evenly: each
// group is e*rowBytes contiguous bytes and its output the same bytes
// further on. The kernel reads n 64-byte blocks of such groups. A
// VPSHUFB with the 32 bytes at perm (the same 16 in each lane, from the
// Go side) interleaves each group's rows, byte b of every row together,
// and the delta swaps of transposeFields transpose the e×e field matrices
// so formed. Registers: the two chunks of a block in Y0 and Y1, the
// permutation in Y15, the masks from Y11 up, scratch in Y10; CX counts
// the blocks.
func (g *gen) transposeFieldsShort(bits int, stream bool) {
	name, store := fmt.Sprintf("transposeFieldsShort%dAVX2", bits), g.VMOVDQU
	if stream {
		name, store = fmt.Sprintf("transposeFieldsShort%dStreamAVX2", bits), g.VMOVNTDQ
	}
	g.text(name, "func(dst *byte, src *byte, n int, perm *byte, masks *uint64)")
	g.params([]string{"dst", "src", "n", "perm", "masks"}, di, si, cx, ax, bx)
	perm := avx2.v(15)
	g.VMOVDQU(at(ax, 0), perm)
	shifts, masks := g.swapMasks(bits, bx)
	g.Comment("A block: 64 bytes of whole groups, in two chunks.")
	g.Label("block")
	chunks := avx2.vs(0, 2)
	for i, x := range chunks {
		g.VMOVDQU(at(si, 32*i), x)
	}
	for i, x := range chunks {
		g.VPSHUFB(perm, x, x)
		g.fieldSwaps(x, avx2.v(10), shifts, masks)
		store(x, at(di, 32*i))
	}
	g.ADDQ(imm(64), si)
	g.ADDQ(imm(64), di)
	g.countDown("block")
	if stream {
		g.SFENCE()
	}
	g.ret()
}
