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

// transposeStreamSig is the Go signature of the streaming transpose
// kernels.
const transposeStreamSig = "func(dst *byte, dstStride int, src *byte, srcStride int, n int, pf *byte, pfStride int, pfN int)"

// transposeStreamKernel emits name, the streaming twin of a transpose
// kernel whose block is bi destination rows by bj source rows, bj
// elements making one 64-byte line of each destination row. Its n blocks
// lie one after another down the source (the body's block starts at
// R10 = SI, SI steps bj rows) and so along the destination rows (DI
// steps 64 bytes): n blocks write bi runs of 64n bytes, with VMOVNTDQ
// (the destination must be 64-aligned; the caller fences). Before each
// block it prefetches bi lines, one per line the block writes, walking
// runs of pfN bytes pfStride apart from pf: R13 the run, AX the offset in
// it, R14 pfStride.
//
// With skew it emits the twin for destination rows off line boundaries
// instead (transpose<width>SkewAVX512, signature transposeSkewSig): DX
// holds prev and R9 rows, which the body's stores use (storeRowsSkew).
func (g *gen) transposeStreamKernel(name, doc string, bi, bj int, body func(), skew bool) {
	if skew {
		g.text(name, transposeSkewSig)
		g.params([]string{"dst", "prev", "src", "srcStride", "n", "pf", "pfStride", "rows"}, di, dx, si, bx, cx, r13, r14, r9)
	} else {
		g.text(name, transposeStreamSig)
		g.params([]string{"dst", "dstStride", "src", "srcStride", "n", "pf", "pfStride"}, di, dx, si, bx, cx, r13, r14)
		g.LEAQ(atIdx(dx, dx, 2, 0), r9)
	}
	g.LEAQ(atIdx(bx, bx, 2, 0), r8)
	g.MOVQ(bx, r12)
	g.SHLQ(operand.U8(log2(bj)), r12)
	g.XORQ(ax, ax)
	g.Comment(doc)
	g.Label("loop")
	for i := range bi {
		g.PREFETCHT0(atIdx(r13, ax, 1, 0))
		g.nextPrefetchLine(r13, ax, r14, operand.NewParamAddr("pfN", 56), fmt.Sprintf("pf%d", i))
	}
	g.MOVQ(si, r10)
	body()
	g.ADDQ(r12, si)
	g.ADDQ(imm(64), di)
	g.loopEnd("loop")
}

// transposeSkewSig is the Go signature of the streaming transposes to
// destination rows off line boundaries.
const transposeSkewSig = "func(dst *byte, prev *byte, src *byte, srcStride int, n int, pf *byte, pfStride int, pfN int, rows *byte)"

// storeRowsSkew is storeRows for the skew twins of the streaming
// kernels: block k's register r holds 64 bytes of destination row r that
// start on no line boundary, so it writes the line of row r that ends
// inside them, which starts inside block k-1, whose register r the block
// before (or the caller) left at prev+64r. The line is the two registers
// joined at row r's offset: VPERMI2D with the index iotaDwords (in Z30)
// plus rows[r].add, the line then in Z31, stored with VMOVNTDQ at DI +
// rows[r].off. Register r then goes to prev+64r for the next block. rows,
// at R9, holds two int64s a row: off, the line's offset from the block's
// DI, and add. The permute is of dwords where the elements are 4 bytes
// wide or wider (row offsets are whole dwords); of bytes (VPERMI2B,
// iotaBytes) for 1-byte elements and of words (VPERMI2W, iotaWords) for
// 2-byte ones, add then counting in those.
func (g *gen) storeRowsSkew(width int, regs []reg.VecPhysical) {
	g.storeRowsSkewFrom(width, 0, regs)
}

// storeRowsSkewFrom is storeRowsSkew for regs holding rows first to
// first+len(regs)-1 of the block: their entries in rows and their 64
// bytes in prev are first rows in.
func (g *gen) storeRowsSkewFrom(width, first int, regs []reg.VecPhysical) {
	idx, line := avx512.v(30), avx512.v(31)
	iota, bcast, add, perm := iotaDwords, g.VPBROADCASTD, g.VPADDD, g.VPERMI2D
	switch width {
	case 1:
		iota, bcast, add, perm = iotaBytes, g.VPBROADCASTB, g.VPADDB, g.VPERMI2B
	case 2:
		iota, bcast, add, perm = iotaWords, g.VPBROADCASTW, g.VPADDW, g.VPERMI2W
	}
	g.VMOVDQU64(iota.addr(), idx)
	for i, v := range regs {
		r := first + i
		bcast(at(r9, 16*r+8), line)
		add(idx, line, line)
		perm(at(dx, 64*r), v, line)
		g.MOVQ(at(r9, 16*r), r11)
		g.VMOVNTDQ(line, atIdx(di, r11, 1, 0))
		g.VMOVDQU64(v, at(dx, 64*r))
	}
}

// storeFence emits storeFence, SFENCE as a function: the one fence after
// the streaming transpose kernels of a call.
func (g *gen) storeFence() {
	g.text("storeFence", "func()")
	g.SFENCE()
	g.RET()
}

// log2 returns the base-2 logarithm of the power of two n.
func log2(n int) int { return bits.TrailingZeros(uint(n)) }

// storeRows stores regs to as many destination rows from DI (at offset
// off in each row), four at a time through R11.
func (g *gen) storeRows(op mov, off int, regs []reg.VecPhysical) {
	g.eachRow(0, len(regs), func(i int, at func(off int) operand.Mem) {
		op(regs[i], at(off))
	})
}

// eachRow walks n destination rows from row first (0, 1, 2, 4 or 8) on,
// DI the first row, DX the stride and R9 = 3*DX, through R11 four rows at
// a time: it calls each with each row's index i and at, the address of
// byte off of that row.
func (g *gen) eachRow(first, n int, each func(i int, at func(off int) operand.Mem)) {
	if first == 0 {
		g.MOVQ(di, r11)
	} else {
		g.LEAQ(atIdx(di, dx, uint8(first), 0), r11)
	}
	for i := range n {
		if i > 0 && i%4 == 0 {
			g.LEAQ(atIdx(r11, dx, 4, 0), r11)
		}
		each(i, func(off int) operand.Mem { return row(r11, dx, r9, i%4, off) })
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

// xposeDwords transposes the 16×16 matrix of dwords held one row a
// register in Z0..Z15, in place (column c in Zc), with Z16..Z31 as
// scratch: a 4×4 transpose in each lane of each group of four rows, then
// 4×4 transposes of the lanes of the registers c, c+4, c+8, c+12.
func (g *gen) xposeDwords() []reg.VecPhysical {
	live := avx512.vs(0, 16)
	g.dwordsInLanes(live, avx512.vs(16, 16))
	for c := range 4 {
		g.xpose4Lanes(live[c], live[c+4], live[c+8], live[c+12], avx512.vs(16+4*c, 4))
	}
	return live
}

// transposeSquare emits transpose<width><level> for width-byte elements
// (4, 8 or 16): load n = vector/width source rows and transpose the n×n
// square they make (xposeLoaded), then store the n columns as
// destination rows. With AVX2 it does that twice, the second square's
// columns at offset 32 of the destination rows, so that a block writes
// whole 64-byte lines of its destination rows. With stream it emits the
// streaming twin and its skew twin instead (transposeStreamKernel; the
// level is AVX-512, one square a block).
func (g *gen) transposeSquare(l *level, width int, stream bool) {
	n := l.bytes / width
	halves := 64 / l.bytes
	doc := fmt.Sprintf("A block: %d source rows of %d %d-byte elements, one %d×%d transpose in registers.", n, n, width, n, n)
	if halves == 2 {
		doc = fmt.Sprintf("A block: %d source rows of %d %d-byte elements, two %d×%d transposes in registers side by side in the destination rows.", 2*n, n, width, n, n)
	}
	store := g.blockStore(l, width, stream)
	body := func() {
		for h := range halves {
			g.storeRows(store, h*l.bytes, g.xposeLoaded(l, width))
		}
	}
	if stream {
		g.transposeStreamKernel(fmt.Sprintf("transpose%dStream%s", width, l.name), doc, n, n*halves, body, false)
		g.transposeStreamKernel(fmt.Sprintf("transpose%dSkew%s", width, l.name), doc, n, n*halves, func() {
			g.storeRowsSkew(width, g.xposeLoaded(l, width))
		}, true)
		return
	}
	g.transposeKernel(fmt.Sprintf("transpose%d%s", width, l.name), doc, log2(n), l.bytes, body)
}

// transposeLinesAVX2 emits transpose<width>StreamAVX2, the streaming
// kernel of AVX2 for width-byte elements (4, 8 or 16), whose block is
// that of the AVX-512 one: n = 64/width source rows by a line of each,
// written as a line of each of n destination rows. AVX2's square holds
// half a line of half the rows (n/2 × n/2), so a block is four: the
// first half of the source lines, rows 0 to n/2-1 then the rest, to the
// two halves of destination rows 0 to n/2-1; then the second half of
// the lines to rows n/2 to n-1. A source line is read whole within the
// block, where the plain kernels' blocks read half of it and leave the
// rest to a later strip (see streamKernel on the Go side).
//
// The first square of each pair goes to a buffer in the frame, and each
// destination line is then written whole, its two halves one after the
// other, so that no more than one line waits half written in the
// write-combining buffers. Written as the squares came, n/2 lines did: on
// an Intel core, which has 8 such buffers, f32 8192² then ran far below a
// copy (f64, 4 lines at a time, less so), where an AMD core kept up.
func (g *gen) transposeLinesAVX2(width int) {
	n := 64 / width
	h := n / 2
	doc := fmt.Sprintf("A block: %d source rows of %d %d-byte elements, four %d×%d transposes in registers, each line written whole.", n, n, width, h, h)
	g.transposeStreamKernel(fmt.Sprintf("transpose%dStreamAVX2", width), doc, n, n, func() {
		half := g.AllocLocal(32 * h)
		g.fourSquares(width, func(p, q int, regs []reg.VecPhysical) {
			if q == 0 {
				for i, v := range regs {
					g.VMOVDQU(v, half.Offset(32*i))
				}
				return
			}
			g.storeLines(p*h, half, regs)
		})
	}, false)
}

// storeLines writes whole 64-byte lines of the len(regs) destination rows
// from row first on (DI, stride DX, R9 = 3*DX) with VMOVNTDQ: bytes 0-31
// of row first+i from half+32i, then bytes 32-63 from regs[i]. Y15, free
// after every AVX2 square, carries the first half.
func (g *gen) storeLines(first int, half operand.Mem, regs []reg.VecPhysical) {
	tmp := avx2.v(15)
	g.eachRow(first, len(regs), func(i int, at func(off int) operand.Mem) {
		if regs[i] == tmp {
			panic("storeLines: Y15 holds a column")
		}
		g.VMOVDQU(half.Offset(32*i), tmp)
		g.VMOVNTDQ(tmp, at(0))
		g.VMOVNTDQ(regs[i], at(32))
	})
}

// fourSquares emits the four AVX2 squares of a line block of width-byte
// elements from SI (transposeLinesAVX2): for each half p of the source
// lines and each half q of the block's source rows, the square's
// columns, destination rows p*n/2 on, go to store at bytes 32q of
// those rows.
func (g *gen) fourSquares(width int, store func(p, q int, regs []reg.VecPhysical)) {
	for p := range 2 {
		if p == 1 {
			g.LEAQ(at(si, 32), r10)
		}
		for q := range 2 {
			store(p, q, g.xposeLoaded(avx2, width))
		}
	}
}

// transposeSkewAVX2 emits transpose<width>SkewAVX2, the skew twin of
// transpose<width>StreamAVX2 (transposeStreamKernel with skew), for
// destination rows that start off line boundaries. AVX2 has no
// two-register permute to join a line from two blocks as the AVX-512
// twins do (storeRowsSkew), so it joins them in memory: prev holds 128
// bytes a row, the last block's 64 bytes of the row and then this
// one's. The four squares store the block's rows after the last's; each
// row's line is then loaded from where it starts among those 128 bytes
// (prev + 128r - 64 + 4*rows[r].add) and stored with VMOVNTDQ at DI +
// rows[r].off, and the block's 64 bytes move to the front of the row
// for the next.
func (g *gen) transposeSkewAVX2(width int) {
	n := 64 / width
	h := n / 2
	doc := fmt.Sprintf("A block: %d source rows of %d %d-byte elements, four %d×%d transposes in registers, joined with the block before in prev.", n, n, width, h, h)
	g.transposeStreamKernel(fmt.Sprintf("transpose%dSkewAVX2", width), doc, n, n, func() {
		g.fourSquares(width, func(p, q int, regs []reg.VecPhysical) {
			for i, v := range regs {
				g.VMOVDQU(v, at(dx, 128*(p*h+i)+64+32*q))
			}
		})
		lo, hi := avx2.v(0), avx2.v(1)
		for r := range n {
			g.MOVQ(at(r9, 16*r+8), r10)
			g.LEAQ(atIdx(dx, r10, 4, 128*r-64), r10)
			g.VMOVDQU(at(r10, 0), lo)
			g.VMOVDQU(at(r10, 32), hi)
			g.MOVQ(at(r9, 16*r), r11)
			g.VMOVNTDQ(lo, atIdx(di, r11, 1, 0))
			g.VMOVNTDQ(hi, atIdx(di, r11, 1, 32))
			g.VMOVDQU(at(dx, 128*r+64), lo)
			g.VMOVDQU(at(dx, 128*r+96), hi)
			g.VMOVDQU(lo, at(dx, 128*r))
			g.VMOVDQU(hi, at(dx, 128*r+32))
		}
	}, true)
}

// blockStore is how the transpose kernels store a register to a
// destination row: VMOVNTDQ for the streaming ones, otherwise the plain
// unaligned move of the level (VMOVDQU32 for the dwords of AVX-512,
// VMOVDQU64 for its wider elements).
func (g *gen) blockStore(l *level, width int, stream bool) mov {
	switch {
	case stream:
		return g.VMOVNTDQ
	case l == avx2:
		return g.VMOVDQU
	case width <= 4:
		return g.vmovdqu32()
	}
	return g.vmovdqu64()
}

// xposeLoaded loads n source rows of width-byte elements (4, 8 or 16)
// from R10, n = l.bytes/width, and transposes the n×n matrix they make,
// moving the 128-bit lanes as it loads them: with m lanes a register and
// s = n/m, register c + s*L gets lane L of source row c + s*k in its
// lane k, by a load (k = 0) or an insert from memory. What is left is the
// transpose within the lanes (dwords: a 4×4 in each lane of each group
// of four registers; qwords: a 2×2 of pairs; 16-byte elements: none).
// The loads and inserts replace the shuffles across lanes that
// xposeDwords runs after whole-row loads: 32 of the 64 shuffles of a
// 16×16 dword transpose, 16 of the 24 of an 8×8 qword one. Rows are read
// in order, each row's lanes one after another, so that its line is
// fetched once even where the rows share an L1 set. Returns the
// registers holding the columns, column c in the c-th; R10 ends n rows
// on.
func (g *gen) xposeLoaded(l *level, width int) []reg.VecPhysical {
	n, m := l.bytes/width, l.bytes/16
	s := n / m
	insert := g.insert(l)
	live := l.vs(0, n)
	for r := 0; r < n; r += 4 {
		for i := range min(4, n-r) {
			c, k := (r+i)%s, (r+i)/s
			for L := range m {
				z := live[c+s*L]
				if k == 0 {
					g.VMOVDQU(row(r10, bx, r8, i, 16*L), z.AsX())
				} else {
					insert(operand.U8(k), row(r10, bx, r8, i, 16*L), z, z)
				}
			}
		}
		g.LEAQ(atIdx(r10, bx, uint8(min(4, n-r)), 0), r10)
	}
	switch width {
	case 4:
		g.dwordsInLanes(live, l.vs(n, n))
	case 8:
		out := l.vs(n, n)
		lo, hi := g.unpacks(8)
		g.unpack(lo, hi, live, out)
		return out
	}
	return live
}

// transposeGather emits transpose<width>AVX512 for 1- and 2-byte elements,
// which reads 16*width bytes of 64 source rows (width 1) or 32 (width 2)
// and writes 16 whole destination rows: gather turns every 4/width
// source rows into one register of dwords (dword i holding element i of
// each row), the 16×16 dword transpose follows, and the columns are
// stored. With stream it emits the streaming twin,
// transpose<width>StreamAVX512 (transposeStreamKernel), whose caller
// copies the source into a buffer where its rows share no L1 set.
func (g *gen) transposeGather(width int, stream bool) {
	perm := permBytes4x16
	if width == 2 {
		perm = permWords2x16
	}
	doc := fmt.Sprintf("A block: %d source rows of 16 %d-byte elements, every %d rows gathered into a register of dwords, then the 16×16 dword transpose.", 64/width, width, 4/width)
	store := g.blockStore(avx512, width, stream)
	// A block's columns, each a destination row's 64 bytes.
	block := func() []reg.VecPhysical {
		g.VMOVDQU64(perm.addr(), avx512.v(31))
		for _, z := range avx512.vs(0, 16) {
			g.gather(width, z)
		}
		return g.xposeDwords()
	}
	body := func() { g.storeRows(store, 0, block()) }
	if stream {
		g.transposeStreamKernel(fmt.Sprintf("transpose%dStreamAVX512", width), doc, 16, 64/width, body, false)
		g.transposeStreamKernel(fmt.Sprintf("transpose%dSkewAVX512", width), doc, 16, 64/width, func() {
			g.storeRowsSkew(width, block())
		}, true)
		return
	}
	g.transposeKernel(fmt.Sprintf("transpose%dAVX512", width), doc, 4, 16*width, body)
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

// transposeSplit emits transpose<width>RowsAVX512, the AVX-512 kernel for
// 1- and 2-byte elements of the staged path that reads whole source rows
// and writes part rows: load a vector of each of 16 source rows,
// transpose them as dwords, then split every column of dwords (4/width
// elements from each source row) into 4/width destination rows (split).
// (transposeGather makes the other AVX-512 kernels for these widths,
// transposeBytesAVX2 and transposeWordsAVX2 the AVX2 ones.)
func (g *gen) transposeSplit(width int) {
	l := avx512
	n := l.bytes / 4
	name := fmt.Sprintf("transpose%dRows%s", width, l.name)
	doc := fmt.Sprintf("A block: %d source rows of %d %d-byte elements, the %d×%d dword transpose, then each column of dwords split into %d destination rows.", n, l.bytes/width, width, n, n, 4/width)
	g.transposeKernel(name, doc, log2(n*4/width), l.bytes, func() {
		cols := g.xposeLoaded(l, 4)
		if width == 1 {
			g.VMOVDQU64(permBytes16x4.addr(), avx512.v(16))
		} else {
			g.VMOVDQU64(permWords16x2.addr(), avx512.v(16))
		}
		g.MOVQ(di, r11)
		for _, c := range cols {
			g.split(width, c)
		}
	})
}

// split sorts the dwords of column c (one per source row) into 4/width
// destination rows and stores them at R11, advancing R11 by as many rows:
// for bytes VPERMB (index in Z16), then the four 16-byte lanes; for words
// VPERMW (index in Z16), then the two 32-byte halves.
func (g *gen) split(width int, c reg.VecPhysical) {
	rows := 4 / width
	if width == 1 {
		g.VPERMB(c, avx512.v(16), c)
		g.VMOVDQU(c.AsX(), at(r11, 0))
		for i := 1; i < rows; i++ {
			g.VEXTRACTI32X4(operand.U8(i), c, row(r11, dx, r9, i, 0))
		}
	} else {
		g.VPERMW(c, avx512.v(16), c)
		g.VMOVDQU(c.AsY(), at(r11, 0))
		g.VEXTRACTI64X4(operand.U8(1), c, row(r11, dx, r9, 1, 0))
	}
	g.LEAQ(atIdx(r11, dx, uint8(rows), 0), r11)
}

// transposeBytesAVX2 emits transpose1AVX2, the AVX2 kernel for 1-byte
// elements: a block is 16 source rows of 32 bytes, written as 16 bytes
// of each of 32 destination rows. Each 128-bit lane holds a 16×16 byte
// matrix (the lane's 16 columns of the 16 rows), transposed by four
// stages of unpacks at 1-, 2-, 4- and 8-byte elements, 64 in all; column
// c of the low lane is destination row c, of the high lane row 16+c.
// Sixteen registers hold a stage's matrix with none to spare, so the
// block runs as two passes of eight columns a lane (the low and the high
// unpacks of the first stage never meet again), each over Y0..Y15 in
// turn: the first stage loads row 2i into Yi and unpacks it with row
// 2i+1 straight from memory; the second pass reads the rows again from
// L1.
//
// It replaces a kernel of 8 source rows that transposed dwords and sorted
// their bytes with VPSHUFB, which wrote 8 bytes a store and ran 128
// shuffles and 64 stores per 512 bytes (this one: 64 and 32).
func (g *gen) transposeBytesAVX2() {
	doc := "A block: 16 source rows of 32 bytes, a 16×16 byte transpose in each lane in two passes of 8 columns, to 32 destination rows of 16 bytes."
	g.transposeKernel("transpose1AVX2", doc, 5, 32, func() {
		y := func(i int) reg.VecPhysical { return avx2.v(i) }
		for pass := range 2 {
			if pass == 1 {
				g.MOVQ(si, r10)
			}
			g.unpackRowPairs(1, pass == 1, avx2.vs(0, 8), false)
			// Words: rows 4j..4j+3 of columns 0-3 and 4-7 of the pass.
			lo, hi := g.unpacks(2)
			for j := range 4 {
				lo(y(2*j+1), y(2*j), y(8+2*j))
				hi(y(2*j+1), y(2*j), y(9+2*j))
			}
			// Dwords: rows 8k..8k+7 of column pairs g = 0..3.
			lo, hi = g.unpacks(4)
			for k := range 2 {
				lo(y(10+4*k), y(8+4*k), y(4*k))
				hi(y(10+4*k), y(8+4*k), y(4*k+1))
				lo(y(11+4*k), y(9+4*k), y(4*k+2))
				hi(y(11+4*k), y(9+4*k), y(4*k+3))
			}
			// Qwords: all 16 rows of columns 2g and 2g+1.
			lo, hi = g.unpacks(8)
			for c := range 4 {
				lo(y(4+c), y(c), y(8+2*c))
				hi(y(4+c), y(c), y(9+2*c))
			}
			// Column c of the pass: destination rows 8*pass+c (low
			// lane) and 16+8*pass+c (high lane), through R11 and R13.
			if pass == 0 {
				g.MOVQ(di, r11)
			} else {
				g.LEAQ(atIdx(di, dx, 8, 0), r11)
			}
			g.MOVQ(dx, r13)
			g.SHLQ(operand.U8(4), r13)
			g.ADDQ(r11, r13)
			for c := range 8 {
				if c == 4 {
					g.LEAQ(atIdx(r11, dx, 4, 0), r11)
					g.LEAQ(atIdx(r13, dx, 4, 0), r13)
				}
				g.VMOVDQU(y(8+c).AsX(), row(r11, dx, r9, c%4, 0))
				g.VEXTRACTI128(operand.U8(1), y(8+c), row(r13, dx, r9, c%4, 0))
			}
		}
	})
}

// unpackRowPairs is the first stage of transposeBytesAVX2 and
// transposeWordsAVX2: for each register regs[i], row 2i of the rows at
// R10 (BX apart, R8 = 3*BX) loaded into it and unpacked with row 2i+1
// straight from memory, at width-byte elements, the high halves of the
// lanes if high, else the low ones. R10 steps 4 rows on before each four
// rows after the first, and before the first too with skip (rows that
// continue a call's earlier ones).
func (g *gen) unpackRowPairs(width int, high bool, regs []reg.VecPhysical, skip bool) {
	unpack, hi := g.unpacks(width)
	if high {
		unpack = hi
	}
	for i, y := range regs {
		r := 2 * i
		if r%4 == 0 && (skip || r > 0) {
			g.LEAQ(atIdx(r10, bx, 4, 0), r10)
		}
		g.VMOVDQU(row(r10, bx, r8, r%4, 0), y)
		unpack(row(r10, bx, r8, r%4+1, 0), y, y)
	}
}

// transposeWordsAVX2 emits transpose2AVX2, the AVX2 kernel for 2-byte
// elements: a block is 16 source rows of 16 words, written as 16
// destination rows of 16 words. Each lane of the rows' registers holds 8
// of their words; three stages of unpacks (words, dwords, qwords)
// transpose the 8×8 matrices in the lanes of rows 0-7 (group A) and of
// rows 8-15 (group B), and VPERM2I128 joins the lanes: destination row c
// is column c of A then of B from the low lanes, row 8+c the same from
// the high lanes. As in transposeBytesAVX2 the block runs as two passes,
// the low and the high unpacks of the first stage (four columns a lane
// each), which read the second row of each pair straight from memory.
// 64 shuffles and 16 stores of 32 bytes per 512 bytes, where the kernel
// it replaces (a dword transpose of 8 rows, then VPSHUFB, VPERMQ and two
// 16-byte stores per column) ran 112 and 32.
func (g *gen) transposeWordsAVX2() {
	doc := "A block: 16 source rows of 16 words, two 8×8 word transposes in each lane in two passes of 4 columns, lanes joined: 16 destination rows of 16 words."
	g.transposeKernel("transpose2AVX2", doc, 4, 32, func() {
		y := func(i int) reg.VecPhysical { return avx2.v(i) }
		for pass := range 2 {
			if pass == 1 {
				g.MOVQ(si, r10)
			}
			for grp := range 2 {
				b := 8 * grp // Y0..Y7 for A, Y8..Y15 for B
				g.unpackRowPairs(2, pass == 1, avx2.vs(b, 4), grp > 0)
				lo, hi := g.unpacks(4)
				lo(y(b+1), y(b), y(b+4))
				hi(y(b+1), y(b), y(b+5))
				lo(y(b+3), y(b+2), y(b+6))
				hi(y(b+3), y(b+2), y(b+7))
				lo, hi = g.unpacks(8)
				lo(y(b+6), y(b+4), y(b))
				hi(y(b+6), y(b+4), y(b+1))
				lo(y(b+7), y(b+5), y(b+2))
				hi(y(b+7), y(b+5), y(b+3))
			}
			// Column j of the pass: destination rows 4*pass+j (low
			// lanes) and 8+4*pass+j (high lanes), through R11 and R13.
			if pass == 0 {
				g.MOVQ(di, r11)
			} else {
				g.LEAQ(atIdx(di, dx, 4, 0), r11)
			}
			g.LEAQ(atIdx(r11, dx, 8, 0), r13)
			for j := range 4 {
				g.joinLanes(y(j), y(8+j), y(4+j), y(12+j))
				g.VMOVDQU(y(4+j), row(r11, dx, r9, j, 0))
				g.VMOVDQU(y(12+j), row(r13, dx, r9, j, 0))
			}
		}
	})
}

// transposeWordLines emits transpose2LinesStreamAVX512, a streaming
// kernel of 2-byte elements whose block reads one whole line of each of
// 32 source rows and writes one whole line of each of 32 destination
// rows, where the gather kernel's block reads half a line of each (so
// that at the power-of-two strides of large planes, whose rows share one
// L1 set, its caller must copy or slab the source first). The 32×32 words
// are 4×4 blocks of 8×8, one 128-bit lane of eight rows each: for each x
// of 0 to 7, rows x, x+8, x+16 and x+24 are loaded and their lanes
// transposed (xpose4Lanes), so that register L holds lane L of those four
// rows, one a lane; then, for each lane L, the eight registers of rows x
// hold in each lane an 8×8 block, which VPUNPCK[LH]WD, DQ and QDQ
// transpose, giving destination rows 8L to 8L+7 whole. Lane 3 waits in a
// buffer in the frame while the others are transposed.
//
// With skew it emits the twin, transpose2LinesSkewAVX512, whose stores
// (storeRowsSkewFrom) take Z30 and Z31: lane 2's registers of rows 6 and
// 7, which those are, wait in the frame too until lane 2 is transposed,
// then in Z8 and Z9, lane 0's, free by then.
func (g *gen) transposeWordLines(skew bool) {
	name := "transpose2LinesStreamAVX512"
	if skew {
		name = "transpose2LinesSkewAVX512"
	}
	doc := "A block: 32 source rows of 32 2-byte elements, a line each: the lanes of each four rows 8 apart transposed, then 8×8 words in each lane."
	g.transposeStreamKernel(name, doc, 32, 32, func() {
		frame := 8
		if skew {
			frame += 2 // lane 2 of rows 6 and 7
		}
		buf := g.AllocLocal(frame * 64)
		held := [3][]reg.VecPhysical{avx512.vs(8, 8), avx512.vs(16, 8), avx512.vs(24, 8)}
		for x := range 8 {
			a, b, c, d := held[0][x], held[1][x], held[2][x], avx512.v(0)
			// Rows x, x+8, x+16, x+24: R10 is row x, R11 walks on.
			for i, z := range []reg.VecPhysical{a, b, c, d} {
				switch i {
				case 0:
					g.VMOVDQU64(at(r10, 0), z)
					continue
				case 1:
					g.LEAQ(atIdx(r10, bx, 8, 0), r11)
				default:
					g.LEAQ(atIdx(r11, bx, 8, 0), r11)
				}
				g.VMOVDQU64(at(r11, 0), z)
			}
			g.xpose4Lanes(a, b, c, d, avx512.vs(1, 4))
			g.VMOVDQU64(d, buf.Offset(64*x))
			g.ADDQ(bx, r10)
		}
		if skew {
			g.VMOVDQU64(held[2][6], buf.Offset(64*8))
			g.VMOVDQU64(held[2][7], buf.Offset(64*9))
		}
		if !skew {
			g.MOVQ(di, r11) // the rows' stores walk on from DI
		}
		for L := range 4 {
			in := held[L%3]
			switch {
			case L == 3:
				for x, z := range in {
					g.VMOVDQU64(buf.Offset(64*x), z)
				}
			case L == 2 && skew:
				in = append(append([]reg.VecPhysical{}, held[2][:6]...), held[0][0], held[0][1])
				g.VMOVDQU64(buf.Offset(64*8), in[6])
				g.VMOVDQU64(buf.Offset(64*9), in[7])
			}
			out := g.wordsInLanes(in, avx512.vs(0, 8))
			if skew {
				g.storeRowsSkewFrom(2, 8*L, out)
				continue
			}
			for i := range 8 {
				if i == 4 {
					g.LEAQ(atIdx(r11, dx, 4, 0), r11)
				}
				g.VMOVNTDQ(out[i], row(r11, dx, r9, i%4, 0))
			}
			g.LEAQ(atIdx(r11, dx, 4, 0), r11)
		}
	}, skew)
}

// wordsInLanes transposes the 8×8 matrices of words that each 128-bit
// lane of the eight registers rows holds (rows[i] is row i), using the
// eight tmp registers: VPUNPCK[LH]WD of pairs of rows, DQ of pairs of
// those, then QDQ. It returns the columns, column c in the c-th register
// (in tmp or rows).
func (g *gen) wordsInLanes(rows, tmp []reg.VecPhysical) []reg.VecPhysical {
	lo, hi := g.unpacks(2)
	g.unpack(lo, hi, rows, tmp) // tmp: a0..a7, a[2i] lo of rows 2i, 2i+1
	lo, hi = g.unpacks(4)
	q := []reg.VecPhysical{tmp[0], tmp[2], tmp[1], tmp[3], tmp[4], tmp[6], tmp[5], tmp[7]}
	g.unpack(lo, hi, q, rows) // rows: b0, b2, b1, b3, b4, b6, b5, b7
	b := []reg.VecPhysical{rows[0], rows[2], rows[1], rows[3], rows[4], rows[6], rows[5], rows[7]}
	lo, hi = g.unpacks(8)
	q = []reg.VecPhysical{b[0], b[4], b[1], b[5], b[2], b[6], b[3], b[7]}
	g.unpack(lo, hi, q, tmp) // tmp: c0, c4, c1, c5, c2, c6, c3, c7
	c := []reg.VecPhysical{tmp[0], tmp[2], tmp[4], tmp[6], tmp[1], tmp[3], tmp[5], tmp[7]}
	// c[k] = unpack of b[k%4], b[k%4+4]: column bitrev3(k) of the 8×8.
	cols := make([]reg.VecPhysical, 8)
	for k, z := range c {
		cols[(k>>2)&1|(k>>1)&1<<1|(k&1)<<2] = z
	}
	return cols
}
