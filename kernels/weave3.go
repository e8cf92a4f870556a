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

// weave3Tables holds, by direction (de-interleave or not) and element
// width, the six indexes of a 3-way weave: [k][0] picks output k's
// elements from the first two input vectors, [k][1] keeps those and picks
// the others from the third.
var weave3Tables = map[bool]map[int][3][2]table{false: {}, true: {}}

func init() {
	for _, inverse := range []bool{false, true} {
		for _, w := range []int{1, 2, 4} {
			weave3Tables[inverse][w] = weave3Indexes(inverse, w)
		}
	}
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

// weave3 emits interleave3xWAVX512 or deinterleave3xWAVX512 for w-byte
// elements (1 needs VBMI, 2 BW): inputs in Z0..Z2, each output's first
// permute into Z3..Z5 and its second into Z6..Z8.
func (g *gen) weave3(w int, inverse bool) {
	s := weaveSpec{lvl: avx512, k: 3, width: w, inverse: inverse}
	if inverse {
		g.text(s.name(), "func(dst *byte, dstStride int, src *byte, n int)")
		g.params([]string{"dst", "dstStride", "src", "n"}, di, dx, si, cx)
		g.Commentf("A chunk: 192 bytes of groups of 3 %d-byte elements, split into 64 bytes of each of 3 rows.", w)
	} else {
		g.text(s.name(), "func(dst *byte, src *byte, srcStride int, n int)")
		g.params([]string{"dst", "src", "srcStride", "n"}, di, si, bx, cx)
		g.Commentf("A chunk: 64 bytes of each of 3 rows, interleaved by %d-byte elements into 192 bytes.", w)
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
			g.VMOVDQU64(second, row(di, dx, r8, k, 0))
		} else {
			g.VMOVDQU64(second, at(di, 64*k))
		}
	}
	srcStep, dstStep := 64, 192
	if inverse {
		srcStep, dstStep = dstStep, srcStep
	}
	g.ADDQ(imm(srcStep), si)
	g.ADDQ(imm(dstStep), di)
	g.loopEnd("loop")
}

// permi2 returns the two-table permute of w-byte elements that overwrites
// its index: VPERMI2B, VPERMI2W or VPERMI2D (Go operand order: second
// table, first table, index and result).
func (g *gen) permi2(w int) func(...operand.Op) {
	switch w {
	case 1:
		return g.VPERMI2B
	case 2:
		return g.VPERMI2W
	}
	return g.VPERMI2D
}
