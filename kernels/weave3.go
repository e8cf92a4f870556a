package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
)

// The 3-way weaves: Transpose with 3 columns and a contiguous destination
// (three planes, such as an image's red, green and blue, into one stream
// of pixels) and with 3 rows and a contiguous source (the stream split
// into its planes), with the signatures of the other weaves:
//
//	func interleave3xWAVX512(dst *byte, src *byte, srcStride int, n int)
//	func deinterleave3xWAVX512(dst *byte, dstStride int, src *byte, n int)
//
// A chunk is 64 bytes of each of the 3 rows, 192 bytes of the stream.
// Three is no power of two, so the stages of pairs that weave 2, 4 and 8
// rows do not apply. Each of the three vectors a chunk writes takes its
// elements from all three it reads: one two-table permute (VPERMI2B, W
// or D) picks those in the first two, a second keeps them and picks the
// rest from the third. Six permutes a chunk, their indexes in Z26..Z31
// for the whole call.
//
// AVX2 has no permute of bytes or words across its two lanes, so its
// weaves work within them: each lane holds a block of 48 bytes of the
// stream (16 of each row), and each 16-byte piece of the output is the OR
// of three VPSHUFBs, one of each input piece, masks from lane3Masks. A
// chunk is two blocks, 32 bytes of each row:
//
//	func interleave3xWAVX2(dst *byte, src *byte, srcStride int, n int)
//	func deinterleave3xWAVX2(dst *byte, dstStride int, src *byte, n int)

// weave3Tables holds, by direction (de-interleave or not) and element
// width, the six indexes of a 3-way weave: [k][0] picks output k's
// elements from the first two input vectors, [k][1] keeps those and picks
// the others from the third.
var weave3Tables = map[bool]map[int][3][2]table{false: {}, true: {}}

// weave3Lanes holds, the same way, the VPSHUFB masks of the AVX2 weaves:
// [q][r] takes output piece q's bytes from input piece r.
var weave3Lanes = map[bool]map[int][3][3]table{false: {}, true: {}}

func init() {
	for _, inverse := range []bool{false, true} {
		for _, w := range []int{1, 2, 4} {
			weave3Tables[inverse][w] = weave3Indexes(inverse, w)
			weave3Lanes[inverse][w] = lane3Masks(inverse, w)
		}
		weave3Tables[inverse][8] = weave3Indexes(inverse, 8) // AVX-512 only
	}
}

// lane3Masks computes the VPSHUFB masks of the AVX2 3-way weave of w-byte
// elements, on a block of 48 bytes of the stream and 16 of each row. A
// de-interleave's input pieces are the stream's 16-byte thirds and its
// output q is row q: byte i*w+b is stream byte (3i+q)*w+b. An
// interleave's inputs are the rows and its output q the stream's third
// q: stream byte 16q+o is byte b of element e = (16q+o)/w, which row e%3
// holds as its element e/3. Bytes from other pieces are 0x80 (zero).
func lane3Masks(inverse bool, w int) [3][3]table {
	var m [3][3][]byte
	for q := range 3 {
		for r := range 3 {
			m[q][r] = make([]byte, 32)
		}
		for o := range 16 {
			var r, at int // the input piece and byte of output q's byte o
			if inverse {
				s := (3*(o/w)+q)*w + o%w
				r, at = s/16, s%16
			} else {
				e := (16*q + o) / w
				r, at = e%3, e/3*w+(16*q+o)%w
			}
			for rr := range 3 {
				b := byte(0x80)
				if rr == r {
					b = byte(at)
				}
				m[q][rr][o], m[q][rr][16+o] = b, b // the same in both lanes
			}
		}
	}
	name := "weave3"
	if inverse {
		name = "deweave3"
	}
	var t [3][3]table
	for q := range 3 {
		for r := range 3 {
			t[q][r] = table{fmt.Sprintf("%sLanes%dOut%dIn%d", name, w, q, r), m[q][r]}
		}
	}
	return t
}

// weave3Indexes computes the indexes of the 3-way weave of w-byte
// elements: n = 64/w elements a vector, the stream's element e = 3p + c
// being element p of row c. A de-interleave's output k (row k) lane i is
// stream element 3i+k, which input vector e/n holds in lane e%n; an
// interleave's output k lane j is stream element kn+j, which input
// vector (row) e%3 holds in lane e/3.
func weave3Indexes(inverse bool, w int) [3][2]table {
	n := 64 / w
	var t [3][2]table
	for k := range 3 {
		first, second := make([]int, n), make([]int, n)
		for i := range n {
			var v, l int // the input vector and lane of output k's lane i
			if inverse {
				e := 3*i + k
				v, l = e/n, e%n
			} else {
				e := k*n + i
				v, l = e%3, e/3
			}
			if v < 2 {
				first[i], second[i] = v*n+l, i // index 0 (unused) for the third's
			} else {
				second[i] = n + l
			}
		}
		name := "weave3"
		if inverse {
			name = "deweave3"
		}
		t[k][0] = index(fmt.Sprintf("%s3x%dOut%dFirst", name, w, k), w, first)
		t[k][1] = index(fmt.Sprintf("%s3x%dOut%dSecond", name, w, k), w, second)
	}
	return t
}

// weave3AVX512 emits interleave3xWAVX512 or deinterleave3xWAVX512 for w-byte
// elements (1 needs VBMI, 2 BW): inputs in Z0..Z2, each output's first
// permute into Z3..Z5 and its second into Z6..Z8. With stream, the
// kernel (interleave3xWStreamAVX512, deinterleave3xWStreamAVX512) stores
// with VMOVNTDQ, left unfenced.
func (g *gen) weave3AVX512(w int, inverse, stream bool) {
	g.weave3Head(weaveSpec{lvl: avx512, k: 3, width: w, inverse: inverse, stream: stream})
	store := g.vmov(avx512)
	if stream {
		store = g.VMOVNTDQ
	}
	tables := weave3Tables[inverse][w]
	for k := range 3 {
		for step := range 2 {
			g.VMOVDQU64(tables[k][step].addr(), avx512.v(26+2*k+step))
		}
	}
	perm := g.permi2(w)
	in := avx512.vs(0, 3)
	g.Label("loop")
	for i, r := range in {
		if inverse {
			g.VMOVDQU64(at(si, 64*i), r)
		} else {
			g.VMOVDQU64(row(si, bx, r8, i, 0), r)
		}
	}
	for k := range 3 {
		first, second := avx512.v(3+k), avx512.v(6+k)
		g.VMOVDQA64(avx512.v(26+2*k), first)
		perm(in[1], in[0], first)
		g.VMOVDQA64(avx512.v(27+2*k), second)
		perm(in[2], first, second)
		if inverse {
			store(second, row(di, dx, r8, k, 0))
		} else {
			store(second, at(di, 64*k))
		}
	}
	g.weave3Step(avx512, inverse)
}

// permi2 returns the two-table permute of w-byte elements that overwrites
// its index: VPERMI2B, VPERMI2W, VPERMI2D or VPERMI2Q (Go operand order:
// second table, first table, index and result).
func (g *gen) permi2(w int) func(...operand.Op) {
	switch w {
	case 1:
		return g.VPERMI2B
	case 2:
		return g.VPERMI2W
	case 8:
		return g.VPERMI2Q
	}
	return g.VPERMI2D
}

// weave3AVX2 emits interleave3xWAVX2 or deinterleave3xWAVX2 for w-byte
// elements: the input pieces of both blocks in Y0..Y2 (block 0 in the
// low lanes), each output piece ORed together in Y3 from the shuffles in
// Y4. With stream, the kernel (…StreamAVX2) stores with VMOVNTDQ, left
// unfenced: the interleave's 16-byte pieces, the high ones taken out of
// Y3 into X4 first (VEXTRACTI128 stores only plainly).
func (g *gen) weave3AVX2(w int, inverse, stream bool) {
	g.weave3Head(weaveSpec{lvl: avx2, k: 3, width: w, inverse: inverse, stream: stream})
	store := g.vmov(avx2)
	if stream {
		store = g.VMOVNTDQ
	}
	masks := weave3Lanes[inverse][w]
	in := avx2.vs(0, 3)
	acc, t := avx2.v(3), avx2.v(4)
	g.Label("loop")
	for r, y := range in {
		if inverse {
			g.VMOVDQU(at(si, 16*r), y.AsX())
			g.VINSERTI128(operand.U8(1), at(si, 48+16*r), y, y)
		} else {
			g.VMOVDQU(row(si, bx, r8, r, 0), y)
		}
	}
	for q := range 3 {
		g.VPSHUFB(masks[q][0].addr(), in[0], acc)
		for r := 1; r < 3; r++ {
			g.VPSHUFB(masks[q][r].addr(), in[r], t)
			g.VPOR(t, acc, acc)
		}
		switch {
		case inverse:
			store(acc, row(di, dx, r8, q, 0))
		case stream:
			store(acc.AsX(), at(di, 16*q))
			g.VEXTRACTI128(operand.U8(1), acc, t.AsX())
			store(t.AsX(), at(di, 48+16*q))
		default:
			g.VMOVDQU(acc.AsX(), at(di, 16*q))
			g.VEXTRACTI128(operand.U8(1), acc, at(di, 48+16*q))
		}
	}
	g.weave3Step(avx2, inverse)
}

// weave3Head starts the 3-way weave s: its signature, its arguments in
// DI, DX or BX (the rows' stride), SI and CX, and the comment on its
// chunk (a vector of each row).
func (g *gen) weave3Head(s weaveSpec) {
	row := s.lvl.bytes
	if s.inverse {
		g.text(s.name(), "func(dst *byte, dstStride int, src *byte, n int)")
		g.params([]string{"dst", "dstStride", "src", "n"}, di, dx, si, cx)
		g.Commentf("A chunk: %d bytes of groups of 3 %d-byte elements, split into %d bytes of each of 3 rows.", 3*row, s.width, row)
		return
	}
	g.text(s.name(), "func(dst *byte, src *byte, srcStride int, n int)")
	g.params([]string{"dst", "src", "srcStride", "n"}, di, si, bx, cx)
	g.Commentf("A chunk: %d bytes of each of 3 rows, interleaved by %d-byte elements into %d bytes.", row, s.width, 3*row)
}

// weave3Step ends the loop of a 3-way weave at level l: the rows move on
// a vector, the stream three.
func (g *gen) weave3Step(l *level, inverse bool) {
	srcStep, dstStep := l.bytes, 3*l.bytes
	if inverse {
		srcStep, dstStep = dstStep, srcStep
	}
	g.ADDQ(imm(srcStep), si)
	g.ADDQ(imm(dstStep), di)
	g.loopEnd("loop")
}
