package main

import (
	"encoding/binary"
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The index tables of the kernels: VPERMB/W/D and VPERMT2B/W/D/Q indexes
// and VPSHUFB masks, read-only static data. Each is computed from what it
// does; almost all are gathers with a stride (see gather).

// A table is a read-only static symbol of the kernels.
type table struct {
	name string
	data []byte
}

// addr returns the address of t: name<>(SB).
func (t table) addr() operand.Mem {
	return operand.Mem{Symbol: operand.NewStaticSymbol(t.name), Base: reg.StaticBase}
}

// tables emits the DATA and GLOBL of ts, eight bytes a DATA line.
func (g *gen) tables(ts ...table) {
	for _, t := range ts {
		g.StaticGlobal(t.name)
		g.DataAttributes(attr.RODATA | attr.NOPTR)
		for off := 0; off < len(t.data); off += 8 {
			g.AddDatum(off, operand.U64(binary.LittleEndian.Uint64(t.data[off:])))
		}
	}
}

// gather returns the order that reads a sequence of n elements stride
// apart: for each phase p < stride, elements p, p+stride, p+2*stride, ...
// It is the transpose of an (n/stride)×stride matrix: element i of row r
// (element r*stride+i) goes to i*(n/stride)+r.
func gather(n, stride int) []int {
	idx := make([]int, 0, n)
	for p := range stride {
		for i := p; i < n; i += stride {
			idx = append(idx, i)
		}
	}
	return idx
}

// index makes a permute index: the element indexes idx, each a w-byte
// little-endian integer.
func index(name string, w int, idx []int) table {
	data := make([]byte, w*len(idx))
	for i, x := range idx {
		for b := range w {
			data[w*i+b] = byte(x >> (8 * b))
		}
	}
	return table{name, data}
}

// shuffle makes a 32-byte VPSHUFB mask that moves the w-byte elements of
// each 16-byte lane in the order idx (element indexes within the lane).
func shuffle(name string, w int, idx []int) table {
	var data []byte
	for range 2 {
		for _, x := range idx {
			for b := range w {
				data = append(data, byte(w*x+b))
			}
		}
	}
	return table{name, data}
}

var (
	// permBytes4x16: byte 4i+r of the result takes byte 16r+i (four
	// rows of sixteen bytes become sixteen dwords of four bytes).
	permBytes4x16 = index("permBytes4x16", 1, gather(64, 16))

	// permWords2x16: word 2i+r of the result takes word 16r+i (two rows
	// of sixteen words become sixteen dwords of two words).
	permWords2x16 = index("permWords2x16", 2, gather(32, 16))

	// permBytes16x4: byte 16b+r of the result takes byte 4r+b (sixteen
	// dwords of four bytes become four rows of sixteen bytes).
	permBytes16x4 = index("permBytes16x4", 1, gather(64, 4))

	// permWords16x2: word 16b+r of the result takes word 2r+b (sixteen
	// dwords of two words become two rows of sixteen words).
	permWords16x2 = index("permWords16x2", 2, gather(32, 2))
)

// By element width W (1, 2, 4, 8; ilLo, ilHi, deEven and deOdd also 16,
// their indexes in qwords, two an element, for VPERMT2Q):
//
// ilLoW, ilHiW: VPERMT2B/W/D/Q indexes that interleave the first (Lo) or
// second (Hi) halves of two registers (n elements each, indexes 0..2n-1):
// together the gather of 2n elements n apart.
//
// deEvenW, deOddW: VPERMT2B/W/D/Q indexes taking the even or the odd
// elements of two registers: together the gather of 2n elements 2 apart.
//
// deShufW: VPSHUFB masks sorting each 16-byte lane into its even then its
// odd W-byte elements.
var ilLo, ilHi, deEven, deOdd, deShuf = map[int]table{}, map[int]table{}, map[int]table{}, map[int]table{}, map[int]table{}

// deLanes is the VPSHUFB mask of deweaveLanes for groups of e elements of
// w bytes (e*w < 16): each 16-byte lane gathered by the element's place
// in its group, element r of every group of the lane together.
func deLanes(e, w int) table {
	return shuffle(fmt.Sprintf("deLanes%dx%d", e, w), w, gather(16/w, e))
}

// iotaDwords holds the index of each dword of a 64-byte vector: 0, 1, 2,
// ..., 15.
var iotaDwords = index("iotaDwords", 4, gather(16, 1))

// iotaBytes and iotaWords are iotaDwords for the byte and word permutes of
// the skew twins of the 1- and 2-byte transposes.
var (
	iotaBytes = index("iotaBytes", 1, gather(64, 1))
	iotaWords = index("iotaWords", 2, gather(32, 1))
)

// deLaneShapes are the groups (e, w) deweaveLanes takes with a mask: the
// 4-row de-interleaves of 1 and 2 bytes, and 8 rows of bytes.
var deLaneShapes = [][2]int{{4, 1}, {4, 2}, {8, 1}}

func init() {
	for _, w := range []int{1, 2, 4, 8} {
		n := 64 / w
		il, de := gather(2*n, n), gather(2*n, 2)
		ilLo[w] = index(fmt.Sprint("ilLo", w), w, il[:n])
		ilHi[w] = index(fmt.Sprint("ilHi", w), w, il[n:])
		deEven[w] = index(fmt.Sprint("deEven", w), w, de[:n])
		deOdd[w] = index(fmt.Sprint("deOdd", w), w, de[n:])
		deShuf[w] = shuffle(fmt.Sprint("deShuf", w), w, gather(16/w, 2))
	}
	il, de := gather(8, 4), gather(8, 2)
	ilLo[16] = index("ilLo16", 8, qwordPairs(il[:4]))
	ilHi[16] = index("ilHi16", 8, qwordPairs(il[4:]))
	deEven[16] = index("deEven16", 8, qwordPairs(de[:4]))
	deOdd[16] = index("deOdd16", 8, qwordPairs(de[4:]))
}

// qwordPairs returns the qword indexes of 16-byte elements idx: 2i and
// 2i+1 for each.
func qwordPairs(idx []int) []int {
	q := make([]int, 0, 2*len(idx))
	for _, i := range idx {
		q = append(q, 2*i, 2*i+1)
	}
	return q
}
