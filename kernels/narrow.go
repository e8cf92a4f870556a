package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The narrow transposes of 4-byte elements: blocks with only 2 or 4
// destination rows (transpose4To<k><level>), or only 2, 4 or 8 source
// rows (transpose4From<k><level>), where the square kernels need 8 or 16
// of each. They are the tiles of the tpu preset seen from a column-major
// array: T(8,128)(2,1) bf16 and T(8,128)(4,1) s8 hold 4 and 2 rows of
// 4-byte units (the pairs and quadruples a column-major array keeps
// together), T(8,128) f32 8 rows of elements. Each loads its pieces of
// the source straight into the 128-bit lanes where a transpose within
// the lanes leaves whole destination rows or lane-sized pieces of them.

// insert returns the level's 128-bit insert into a lane:
// VINSERTI32X4 or VINSERTI128.
func (g *gen) insert(l *level) func(...operand.Op) {
	if l == avx2 {
		return func(ops ...operand.Op) { g.VINSERTI128(ops[0], ops[1], ops[2], ops[3]) }
	}
	return g.VINSERTI32X4
}

// extract returns the level's 128-bit extract from a lane:
// VEXTRACTI32X4 or VEXTRACTI128.
func (g *gen) extract(l *level) func(...operand.Op) {
	if l == avx2 {
		return func(ops ...operand.Op) { g.VEXTRACTI128(ops[0], ops[1], ops[2]) }
	}
	return g.VEXTRACTI32X4
}

// transposeTo emits transpose4To<k><level> (k = 2 or 4): a block is n =
// vector/4 source rows of k elements, which become k destination rows of
// n elements, one vector each.
//
//	k = 4: register m holds source row 4L+m in lane L; the 4×4 transposes
//	       within the lanes leave destination row r in register r.
//	k = 2: register a holds source rows 4L+2a and 4L+2a+1 in lane L (two
//	       8-byte halves); VSHUFPS picks the even dwords of both registers
//	       (destination row 0) and the odd ones (row 1).
func (g *gen) transposeTo(l *level, k int) {
	n := l.bytes / 4
	name := fmt.Sprintf("transpose4To%d%s", k, l.name)
	doc := fmt.Sprintf("A block: %d source rows of %d 4-byte elements, %d destination rows of %d.", n, k, k, n)
	insert := g.insert(l)
	g.transposeKernel(name, doc, log2(k), 4*k, func() {
		regs := l.vs(0, 4)
		for r := 0; r < n; r += 4 {
			lane := r / 4
			if k == 4 {
				for i := range 4 {
					m := row(r10, bx, r8, i, 0)
					if lane == 0 {
						g.VMOVDQU(m, regs[i].AsX())
					} else {
						insert(operand.U8(lane), m, regs[i], regs[i])
					}
				}
			} else {
				for a := range 2 {
					x := regs[a].AsX()
					if lane > 0 {
						x = vec(8+a, reg.S128)
					}
					g.VMOVQ(row(r10, bx, r8, 2*a, 0), x)
					g.VMOVHPS(row(r10, bx, r8, 2*a+1, 0), x, x)
					if lane > 0 {
						insert(operand.U8(lane), x, regs[a], regs[a])
					}
				}
			}
			g.LEAQ(atIdx(r10, bx, 4, 0), r10)
		}
		out := regs
		if k == 4 {
			g.dwordsInLanes(regs, l.vs(4, 4))
		} else {
			out = l.vs(2, 2)
			g.VSHUFPS(operand.U8(0x88), regs[1], regs[0], out[0])
			g.VSHUFPS(operand.U8(0xDD), regs[1], regs[0], out[1])
		}
		g.storeRows(g.vmov(l), 0, out[:k])
	})
}

// transposeFrom emits transpose4From<k><level> (k = 2, 4 or 8): a block
// is k source rows of n = vector/4 elements, which become n destination
// rows of k elements (8, 16 or 32 bytes).
//
//	k = 2: VPUNPCKLDQ and VPUNPCKHDQ of the two rows; each lane then
//	       holds two destination rows, stored as 8-byte halves.
//	k = 4: the 4×4 transposes within the lanes of the four rows; lane L
//	       of register m is destination row 4L+m.
//	k = 8: two sets of four registers; register i of set s holds, in
//	       lanes 2c and 2c+1, elements 2Ms+4c to 2Ms+4c+3 (M lanes a
//	       register) of source rows i and 4+i. After the transposes
//	       within the lanes, each pair of lanes of register m is
//	       destination row 2Ms+4c+m, 32 bytes.
func (g *gen) transposeFrom(l *level, k int) {
	n := l.bytes / 4
	lanes := l.bytes / 16
	name := fmt.Sprintf("transpose4From%d%s", k, l.name)
	doc := fmt.Sprintf("A block: %d source rows of %d 4-byte elements, %d destination rows of %d.", k, n, n, k)
	extract, load := g.extract(l), g.vmov(l)
	g.transposeKernel(name, doc, log2(n), l.bytes, func() {
		g.MOVQ(di, r11)
		// next moves R11 on four destination rows.
		next := func() { g.LEAQ(atIdx(r11, dx, 4, 0), r11) }
		switch k {
		case 2:
			a, b := l.v(0), l.v(1)
			load(at(r10, 0), a)
			load(row(r10, bx, r8, 1, 0), b)
			lo, hi := l.v(2), l.v(3)
			g.VPUNPCKLDQ(b, a, lo)
			g.VPUNPCKHDQ(b, a, hi)
			for lane := range lanes {
				for h, v := range []reg.VecPhysical{lo, hi} {
					x := v.AsX()
					if lane > 0 {
						x = vec(4+h, reg.S128)
						extract(operand.U8(lane), v, x)
					}
					g.VMOVQ(x, row(r11, dx, r9, 2*h, 0))
					g.VMOVHPS(x, row(r11, dx, r9, 2*h+1, 0))
				}
				next()
			}
		case 4:
			rows := l.vs(0, 4)
			for i, r := range rows {
				load(row(r10, bx, r8, i, 0), r)
			}
			g.dwordsInLanes(rows, l.vs(4, 4))
			for lane := range lanes {
				for m, r := range rows {
					if lane == 0 {
						g.VMOVDQU(r.AsX(), row(r11, dx, r9, m, 0))
					} else {
						extract(operand.U8(lane), r, row(r11, dx, r9, m, 0))
					}
				}
				next()
			}
		case 8:
			insert := g.insert(l)
			sets := [2][]reg.VecPhysical{l.vs(0, 4), l.vs(4, 4)}
			for src := range 8 {
				i, h := src%4, src/4
				if src == 4 {
					g.LEAQ(atIdx(r10, bx, 4, 0), r10)
				}
				for s, set := range sets {
					for c := range lanes / 2 {
						m := row(r10, bx, r8, i, 4*(2*lanes*s+4*c))
						if lane := 2*c + h; lane == 0 {
							g.VMOVDQU(m, set[i].AsX())
						} else {
							insert(operand.U8(lane), m, set[i], set[i])
						}
					}
				}
			}
			for _, set := range sets {
				g.dwordsInLanes(set, l.vs(8, 4))
				for c := range lanes / 2 {
					for m, r := range set {
						// Destination row 2Ms+4c+m: a 4-row group and an
						// offset in it.
						dst := row(r11, dx, r9, m, 0)
						if c == 0 {
							g.VMOVDQU(r.AsY(), dst)
						} else {
							g.VEXTRACTI64X4(operand.U8(1), r, dst)
						}
					}
					next()
				}
			}
		}
	})
}
