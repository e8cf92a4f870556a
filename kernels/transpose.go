package main

import (
	"fmt"
	"math/bits"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The transpose kernels. Each one transposes n register blocks lying one
// after another along a strip of the source (kernels_amd64.go says which
// block each kernel moves). The Go side checks every bound, splits off
// ragged edges and chooses the order of the strips; the kernels never
// validate.
//
// Register conventions:
//
//	DI  destination block, DX destination stride, R9 = 3*DX, R12 the
//	    destination step between blocks
//	SI  source block, BX source stride, R8 = 3*BX
//	CX  blocks left
//	R10 source row pointer, R11 destination row pointer

// transposeSig is the Go signature of every transpose kernel.
const transposeSig = "func(dst *byte, dstStride int, src *byte, srcStride int, n int)"

// transposeKernel emits the transpose kernel name: the prologue (the
// arguments, R8, R9, and R12 = DX<<shift, the 1<<shift destination rows of
// a block), then a loop over the blocks whose body starts with R10 = SI,
// runs body, and steps SI by srcStep bytes and DI by R12. doc is a comment
// on the block for the output.
func (g *gen) transposeKernel(name, doc string, shift, srcStep int, body func()) {
	g.text(name, transposeSig)
	g.params([]string{"dst", "dstStride", "src", "srcStride", "n"}, di, dx, si, bx, cx)
	g.LEAQ(atIdx(bx, bx, 2, 0), r8)
	g.LEAQ(atIdx(dx, dx, 2, 0), r9)
	g.MOVQ(dx, r12)
	g.SHLQ(operand.U8(shift), r12)
	g.Comment(doc)
	g.Label("loop")
	g.MOVQ(si, r10)
	body()
	g.ADDQ(imm(srcStep), si)
	g.ADDQ(r12, di)
	g.loopEnd("loop")
}

// log2 returns the base-2 logarithm of the power of two n.
func log2(n int) int { return bits.TrailingZeros(uint(n)) }

// rowsMov returns the move that loads and stores whole rows of
// width-byte elements at level l: VMOVDQU32 for dwords and VMOVDQU64
// otherwise with AVX-512 (the two differ only under a mask), VMOVDQU with
// AVX2.
func (g *gen) rowsMov(l *level, width int) mov {
	if l == avx512 && width == 4 {
		return g.vmovdqu32()
	}
	return g.vmov(l)
}

// load4 loads four source rows from R10 into regs and advances R10 by
// four rows.
func (g *gen) load4(op mov, regs []reg.VecPhysical) {
	for i, r := range regs {
		op(row(r10, bx, r8, i, 0), r)
	}
	g.LEAQ(atIdx(r10, bx, 4, 0), r10)
}

// store4 stores regs to four destination rows at R11+off and advances
// R11 by four rows.
func (g *gen) store4(op mov, off int, regs []reg.VecPhysical) {
	for i, r := range regs {
		op(r, row(r11, dx, r9, i, off))
	}
	g.LEAQ(atIdx(r11, dx, 4, 0), r11)
}

// loadRows loads len(regs) (a multiple of 4) source rows from R10, four
// at a time.
func (g *gen) loadRows(op mov, regs []reg.VecPhysical) {
	for i := 0; i < len(regs); i += 4 {
		g.load4(op, regs[i:i+4])
	}
}

// storeRows stores regs to as many destination rows from DI (at offset
// off in each row), four at a time, through R11.
func (g *gen) storeRows(op mov, off int, regs []reg.VecPhysical) {
	g.MOVQ(di, r11)
	for i := 0; i < len(regs); i += 4 {
		g.store4(op, off, regs[i:i+4])
	}
}

// unpack interleaves the registers of src pairwise: the low elements of
// the pair src[2i], src[2i+1] (lo) into dst[2i], the high ones (hi) into
// dst[2i+1], lane by lane.
func (g *gen) unpack(lo, hi func(...operand.Op), src, dst []reg.VecPhysical) {
	for i := 0; i < len(src); i += 2 {
		lo(src[i+1], src[i], dst[i])
		hi(src[i+1], src[i], dst[i+1])
	}
}

// dwordsInLanes transposes the 4×4 matrices of dwords that each 128-bit
// lane of each group of four rows holds, in place (rows[i] is row i),
// using as many tmp registers: VPUNPCK[LH]DQ of pairs of rows, then
// VPUNPCK[LH]QDQ of pairs of those.
func (g *gen) dwordsInLanes(rows, tmp []reg.VecPhysical) {
	lo, hi := g.unpacks(4)
	g.unpack(lo, hi, rows, tmp)
	var q []reg.VecPhysical
	for i := 0; i < len(tmp); i += 4 {
		q = append(q, tmp[i], tmp[i+2], tmp[i+1], tmp[i+3])
	}
	lo, hi = g.unpacks(8)
	g.unpack(lo, hi, q, rows)
}

// xpose4Lanes transposes the 4×4 matrix of 128-bit lanes held in a, b, c,
// d (one row each) in place, using t[0..3] as scratch.
func (g *gen) xpose4Lanes(a, b, c, d reg.VecPhysical, t []reg.VecPhysical) {
	g.VSHUFI32X4(operand.U8(0x44), b, a, t[0])
	g.VSHUFI32X4(operand.U8(0xEE), b, a, t[1])
	g.VSHUFI32X4(operand.U8(0x44), d, c, t[2])
	g.VSHUFI32X4(operand.U8(0xEE), d, c, t[3])
	g.VSHUFI32X4(operand.U8(0x88), t[2], t[0], a)
	g.VSHUFI32X4(operand.U8(0xDD), t[2], t[0], b)
	g.VSHUFI32X4(operand.U8(0x88), t[3], t[1], c)
	g.VSHUFI32X4(operand.U8(0xDD), t[3], t[1], d)
}

// joinLanes puts the low lanes of the YMM registers a and b into lo and
// their high lanes into hi: the 2×2 transpose of their lanes.
func (g *gen) joinLanes(a, b, lo, hi operand.Op) {
	g.VPERM2I128(operand.U8(0x20), b, a, lo)
	g.VPERM2I128(operand.U8(0x31), b, a, hi)
}

// xposeSquare transposes the n×n matrix of width-byte elements (4, 8 or
// 16) held one row a register in the first n vector registers of level l
// (n = l.bytes/width), and returns the registers holding its columns,
// column c in the c-th. Elements within 128-bit lanes first (dwords: a
// 4×4 transpose per lane; qwords: a 2×2), then the lanes: with AVX-512
// 4×4 transposes of the lanes of four registers n/4 apart, with AVX2 2×2
// transposes of two registers n/2 apart. Scratch and results take the registers after
// the last one holding data:
//
//	AVX-512 dwords (16×16): in place, scratch Z16..Z31
//	AVX-512 qwords (8×8):   columns in Z8..Z15, scratch Z16..Z23
//	AVX-512 lanes (4×4):    in place, scratch Z4..Z7
//	AVX2 dwords (8×8):      columns in Y8..Y15
//	AVX2 qwords (4×4):      columns in Y8..Y11
func (g *gen) xposeSquare(l *level, width int) []reg.VecPhysical {
	n := l.bytes / width
	live, next := l.vs(0, n), n
	switch width {
	case 4:
		g.dwordsInLanes(live, l.vs(n, n))
	case 8:
		out := l.vs(n, n)
		lo, hi := g.unpacks(8)
		g.unpack(lo, hi, live, out)
		live, next = out, 2*n
	}
	stride := n / (l.bytes / 16) // registers between the rows of a lane transpose
	if l == avx512 {
		for c := 0; c < stride; c++ {
			g.xpose4Lanes(live[c], live[c+stride], live[c+2*stride], live[c+3*stride], l.vs(next+4*c, 4))
		}
		return live
	}
	out := l.vs(next, n)
	for c := 0; c < stride; c++ {
		g.joinLanes(live[c], live[c+stride], out[c], out[c+stride])
	}
	return out
}

// transposeSquare emits transpose<width><level> for width-byte elements
// (4, 8 or 16; AVX2 16 is transpose16AVX2): load n = vector/width source
// rows, transpose the n×n square in registers (xposeSquare), store the n
// columns as destination rows with store (the kernels use the plain
// unaligned move; VMOVNTDQ would make a streaming one). With AVX2 it does
// that twice, the second square's columns at offset 32 of the destination
// rows, so that a block writes whole 64-byte lines of its destination rows.
func (g *gen) transposeSquare(l *level, width int, store mov) {
	n := l.bytes / width
	halves := 64 / l.bytes
	name := fmt.Sprintf("transpose%d%s", width, l.name)
	doc := fmt.Sprintf("A block: %d source rows of %d %d-byte elements, one %d×%d transpose in registers.", n, n, width, n, n)
	if halves == 2 {
		doc = fmt.Sprintf("A block: %d source rows of %d %d-byte elements, two %d×%d transposes in registers side by side in the destination rows.", 2*n, n, width, n, n)
	}
	g.transposeKernel(name, doc, log2(n), l.bytes, func() {
		for h := range halves {
			g.loadRows(g.rowsMov(l, width), l.vs(0, n))
			g.storeRows(store, h*l.bytes, g.xposeSquare(l, width))
		}
	})
}

// transpose16AVX2 emits the AVX2 kernel for 16-byte elements: four source
// rows of two elements, two 2×2 transposes of lanes (VPERM2I128), written
// as two destination rows of 64 bytes.
func (g *gen) transpose16AVX2(store mov) {
	doc := "A block: 4 source rows of 2 16-byte elements, two 2×2 transposes of lanes side by side in the destination rows."
	g.transposeKernel("transpose16AVX2", doc, 1, 32, func() {
		y := avx2.vs(0, 8)
		for i := range 4 {
			g.VMOVDQU(row(r10, bx, r8, i, 0), y[i])
		}
		g.joinLanes(y[0], y[1], y[4], y[5])
		g.joinLanes(y[2], y[3], y[6], y[7])
		store(y[4], at(di, 0))
		store(y[6], at(di, 32))
		store(y[5], atIdx(di, dx, 1, 0))
		store(y[7], atIdx(di, dx, 1, 32))
	})
}

// transposeGather emits transpose<width>AVX512 for 1- and 2-byte elements,
// which reads 16*width bytes of 64 source rows (width 1) or 32 (width 2)
// and writes 16 whole destination rows: gather turns every 4/width
// source rows into one register of dwords (dword i holding element i of
// each row), the 16×16 dword transpose follows, and the columns are
// stored with store.
func (g *gen) transposeGather(width int, store mov) {
	perm := permBytes4x16
	if width == 2 {
		perm = permWords2x16
	}
	name := fmt.Sprintf("transpose%dAVX512", width)
	doc := fmt.Sprintf("A block: %d source rows of 16 %d-byte elements, every %d rows gathered into a register of dwords, then the 16×16 dword transpose.", 64/width, width, 4/width)
	g.transposeKernel(name, doc, 4, 16*width, func() {
		g.VMOVDQU64(perm.addr(), avx512.v(31))
		for _, z := range avx512.vs(0, 16) {
			g.gather(width, z)
		}
		g.storeRows(store, 0, g.xposeSquare(avx512, 4))
	})
}

// gather loads a 16*width-byte piece of each of 4/width source rows from
// R10 into the lanes (width 1) or halves (width 2) of z, advances R10 by
// as many rows, and reorders the elements so that dword i holds element
// i of each row (VPERMB or VPERMW with the index in Z31).
func (g *gen) gather(width int, z reg.VecPhysical) {
	rows := 4 / width
	first, insert, perm := z.AsX(), g.VINSERTI32X4, g.VPERMB
	if width == 2 {
		first, insert, perm = z.AsY(), g.VINSERTI64X4, g.VPERMW
	}
	g.VMOVDQU(at(r10, 0), first)
	for i := 1; i < rows; i++ {
		insert(operand.U8(i), row(r10, bx, r8, i, 0), z, z)
	}
	g.LEAQ(atIdx(r10, bx, uint8(rows), 0), r10)
	perm(z, avx512.v(31), z)
}

// transposeSplit emits the kernel for 1- and 2-byte elements that reads
// whole source rows and writes part rows: load a vector of each of
// vector/4 source rows, transpose them as dwords, then split every
// column of dwords (4/width elements from each source row) into 4/width
// destination rows (split). At AVX-512 these are the Rows kernels of the
// staged path (transpose<width>RowsAVX512; transposeGather makes the
// others), at AVX2 the only kernels for these widths.
func (g *gen) transposeSplit(l *level, width int) {
	n := l.bytes / 4
	name := fmt.Sprintf("transpose%d%s", width, l.name)
	if l == avx512 {
		name = fmt.Sprintf("transpose%dRows%s", width, l.name)
	}
	doc := fmt.Sprintf("A block: %d source rows of %d %d-byte elements, the %d×%d dword transpose, then each column of dwords split into %d destination rows.", n, l.bytes/width, width, n, n, 4/width)
	g.transposeKernel(name, doc, log2(n*4/width), l.bytes, func() {
		g.loadRows(g.rowsMov(l, 4), l.vs(0, n))
		cols := g.xposeSquare(l, 4)
		switch {
		case l == avx512 && width == 1:
			g.VMOVDQU64(permBytes16x4.addr(), avx512.v(16))
		case l == avx512:
			g.VMOVDQU64(permWords16x2.addr(), avx512.v(16))
		case width == 1:
			g.VMOVDQU(shufBytes4x4.addr(), avx2.v(0))
			g.VMOVDQU(permDwordsLanes.addr(), avx2.v(1))
		default:
			g.VMOVDQU(shufWords2x4.addr(), avx2.v(0))
		}
		g.MOVQ(di, r11)
		for _, c := range cols {
			g.split(l, width, c)
		}
	})
}

// split sorts the dwords of column c (one per source row) into 4/width
// destination rows and stores them at R11, advancing R11 by as many rows:
//
//	AVX-512, bytes: VPERMB (index in Z16), then the four 16-byte lanes
//	AVX-512, words: VPERMW (index in Z16), then the two 32-byte halves
//	AVX2, words:    VPSHUFB (mask in Y0) sorts each lane, VPERMQ joins
//	                the lanes, then the two 16-byte lanes
//	AVX2, bytes:    VPSHUFB (mask in Y0), VPERMD (index in Y1), then the
//	                four 8-byte pieces, through X2
func (g *gen) split(l *level, width int, c reg.VecPhysical) {
	rows := 4 / width
	switch {
	case l == avx512 && width == 1:
		g.VPERMB(c, avx512.v(16), c)
		g.VMOVDQU(c.AsX(), at(r11, 0))
		for i := 1; i < rows; i++ {
			g.VEXTRACTI32X4(operand.U8(i), c, row(r11, dx, r9, i, 0))
		}
	case l == avx512:
		g.VPERMW(c, avx512.v(16), c)
		g.VMOVDQU(c.AsY(), at(r11, 0))
		g.VEXTRACTI64X4(operand.U8(1), c, row(r11, dx, r9, 1, 0))
	case width == 2:
		g.VPSHUFB(avx2.v(0), c, c)
		g.VPERMQ(operand.U8(0xD8), c, c)
		g.VMOVDQU(c.AsX(), at(r11, 0))
		g.VEXTRACTI128(operand.U8(1), c, row(r11, dx, r9, 1, 0))
	default:
		x2 := vec(2, reg.S128)
		g.VPSHUFB(avx2.v(0), c, c)
		g.VPERMD(c, avx2.v(1), c)
		g.VMOVQ(c.AsX(), at(r11, 0))
		g.VPEXTRQ(operand.U8(1), c.AsX(), row(r11, dx, r9, 1, 0))
		g.VEXTRACTI128(operand.U8(1), c, x2)
		g.VMOVQ(x2, row(r11, dx, r9, 2, 0))
		g.VPEXTRQ(operand.U8(1), x2, row(r11, dx, r9, 3, 0))
	}
	g.LEAQ(atIdx(r11, dx, uint8(rows), 0), r11)
}
