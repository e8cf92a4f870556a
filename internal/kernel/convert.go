package kernel

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unsafe"
)

// Element type conversions of the common float pairs, on little-endian
// arrays. Rounding is to nearest, ties to even; subnormals are kept;
// overflow gives ±inf; a NaN stays NaN with its sign and the top bits of
// its payload, and quiet (the quiet bit set), as x86's VCVTPS2PH does.
// These are the rules of package relayout's element conversions, which
// the tests hold these kernels to.

// convKind names one conversion kernel.
type convKind uint8

const (
	convF32ToBF16 convKind = iota
	convBF16ToF32
	convF32ToF16
	convF16ToF32
	numConvKinds
)

// convWidths are the source and destination element bytes of each kind.
var convWidths = [numConvKinds][2]int{
	convF32ToBF16: {4, 2},
	convBF16ToF32: {2, 4},
	convF32ToF16:  {4, 2},
	convF16ToF32:  {2, 4},
}

// ConvertF32ToBF16 converts n f32 values at src (4 bytes each) to bf16 at
// dst (2 bytes each).
func ConvertF32ToBF16(dst, src []byte, n int) { convert(convF32ToBF16, dst, src, n, nil) }

// ConvertBF16ToF32 converts n bf16 values at src (2 bytes each) to f32 at
// dst (4 bytes each): exact, a NaN quieted.
func ConvertBF16ToF32(dst, src []byte, n int) { convert(convBF16ToF32, dst, src, n, nil) }

// ConvertF32ToF16 converts n f32 values at src (4 bytes each) to f16 at
// dst (2 bytes each).
func ConvertF32ToF16(dst, src []byte, n int) { convert(convF32ToF16, dst, src, n, nil) }

// ConvertF16ToF32 converts n f16 values at src (2 bytes each) to f32 at
// dst (4 bytes each): exact, a NaN quieted.
func ConvertF16ToF32(dst, src []byte, n int) { convert(convF16ToF32, dst, src, n, nil) }

// ConvertF32ToBF16 is ConvertF32ToBF16 (the function) with s's stores:
// non-temporal where the level has them (for a destination larger than
// the caches), fenced unless s.Unfenced.
func (s Stream) ConvertF32ToBF16(dst, src []byte, n int) { convert(convF32ToBF16, dst, src, n, &s) }

// ConvertBF16ToF32 is ConvertBF16ToF32 (the function) with s's stores.
func (s Stream) ConvertBF16ToF32(dst, src []byte, n int) { convert(convBF16ToF32, dst, src, n, &s) }

// ConvertF32ToF16 is ConvertF32ToF16 (the function) with s's stores.
func (s Stream) ConvertF32ToF16(dst, src []byte, n int) { convert(convF32ToF16, dst, src, n, &s) }

// ConvertF16ToF32 is ConvertF16ToF32 (the function) with s's stores.
func (s Stream) ConvertF16ToF32(dst, src []byte, n int) { convert(convF16ToF32, dst, src, n, &s) }

// convert checks the buffers, runs what the assembly kernel of kind k
// takes and converts the rest in Go. With s, the kernel streams from the
// first element on a 64-byte boundary of dst (those before convert in
// Go) and fences after, unless s.Unfenced.
func convert(k convKind, dst, src []byte, n int, s *Stream) {
	w := convWidths[k]
	if n < 0 || n > len(src)/w[0] || n > len(dst)/w[1] {
		panic(fmt.Sprintf("tilecopy: converting %d elements from %d bytes into %d", n, len(src), len(dst)))
	}
	head := 0
	if s != nil && n > 0 {
		addr := int(uintptr(unsafe.Pointer(&dst[0])))
		if addr%w[1] != 0 {
			s = nil // no element starts a line
		} else {
			head = min(n, (64-addr%64)%64/w[1])
			convertGeneric(k, dst, src, head)
		}
	}
	done := head + convertAsm(k, dst[head*w[1]:], src[head*w[0]:], n-head, s != nil)
	if s != nil && done > head && !s.Unfenced {
		storeFence()
	}
	convertGeneric(k, dst[done*w[1]:], src[done*w[0]:], n-done)
}

// convertGeneric is the portable conversion of n elements of kind k.
func convertGeneric(k convKind, dst, src []byte, n int) {
	le := binary.LittleEndian
	switch k {
	case convF32ToBF16:
		for i := range n {
			le.PutUint16(dst[2*i:], F32ToBF16(le.Uint32(src[4*i:])))
		}
	case convBF16ToF32:
		for i := range n {
			le.PutUint32(dst[4*i:], BF16ToF32(le.Uint16(src[2*i:])))
		}
	case convF32ToF16:
		for i := range n {
			le.PutUint16(dst[2*i:], F32ToF16(le.Uint32(src[4*i:])))
		}
	case convF16ToF32:
		for i := range n {
			le.PutUint32(dst[4*i:], F16ToF32(le.Uint16(src[2*i:])))
		}
	}
}

// F32ToBF16 converts the f32 bit pattern x to bf16, rounding to nearest
// even: (x + 0x7FFF + ((x>>16)&1)) >> 16, which also carries an overflow
// into the infinity pattern; a NaN keeps its sign and payload's top bits
// and is quieted.
func F32ToBF16(x uint32) uint16 {
	if x&0x7fffffff > 0x7f800000 {
		return uint16(x>>16) | 0x0040
	}
	return uint16((x + 0x7fff + (x>>16)&1) >> 16)
}

// BF16ToF32 converts the bf16 bit pattern h to f32: exact, a NaN quieted.
func BF16ToF32(h uint16) uint32 {
	x := uint32(h) << 16
	if x&0x7fffffff > 0x7f800000 {
		x |= 0x00400000
	}
	return x
}

// F32ToF16 converts the f32 bit pattern x to f16, rounding to nearest
// even.
func F32ToF16(x uint32) uint16 {
	sign := uint16(x>>16) & 0x8000
	e := int(x>>23) & 0xff
	m := x & 0x7fffff
	switch {
	case e == 0xff && m != 0: // NaN
		return sign | 0x7e00 | uint16(m>>13)
	case e >= 143: // ±inf, or at least 2^16: beyond f16's range
		return sign | 0x7c00
	case e >= 113: // an f16 normal before rounding (2^-14 up)
		t := uint32(e-112)<<23 | m
		return sign | uint16((t+0xfff+(t>>13)&1)>>13) // may round up to inf
	}
	// An f16 subnormal (in units of 2^-24), or zero.
	s := uint(126 - e)
	if e == 0 || s > 25 {
		return sign // under half of 2^-24, f32 subnormals included
	}
	mm := m | 0x800000
	return sign | uint16((mm+(uint32(1)<<(s-1)-1)+(mm>>s)&1)>>s)
}

// F16ToF32 converts the f16 bit pattern h to f32: exact, a NaN quieted.
func F16ToF32(h uint16) uint32 {
	sign := uint32(h&0x8000) << 16
	e := uint32(h>>10) & 0x1f
	m := uint32(h & 0x3ff)
	switch {
	case e == 0x1f && m != 0:
		return sign | 0x7fc00000 | m<<13
	case e == 0x1f:
		return sign | 0x7f800000
	case e != 0:
		return sign | (e+112)<<23 | m<<13
	case m == 0:
		return sign
	}
	k := uint32(bits.Len32(m) - 1) // m·2^-24 = 1.f·2^(k-24)
	return sign | (k+103)<<23 | (m<<(23-k))&0x7fffff
}

// Fused conversions between f32 rows and bf16 tiles whose (2,1)
// sub-tiles interleave row pairs (TPU's T(8,128)(2,1)): one pass that
// relayouts and converts, with the bits of F32ToBF16 and BF16ToF32.
//
// The tile side is tiles·pairs·lines lines of 64 bytes, one after the
// other: tile t, then pair k of its rows, then line j of the pair. Line
// (t, k, j) holds 16 columns, 16·(lines·t + j) on, of rows 2k and 2k+1
// of the row side, each column's two bf16 elements side by side (row
// 2k's first). The row side is 2·pairs rows of f32, stride bytes apart,
// at least tiles·lines·64 bytes long: a band of a row-major array whose
// tiles are 2·pairs rows by 16·lines columns.

// TilesF32ToBF16 converts the f32 rows at src into bf16 tiles at dst
// (the tile side, as above).
func TilesF32ToBF16(dst, src []byte, stride, tiles, lines, pairs int) {
	fuseTiles(true, dst, src, stride, tiles, lines, pairs, nil)
}

// UntileBF16ToF32 converts the bf16 tiles at src into f32 rows at dst
// (the row side, as above), exactly, a NaN quieted.
func UntileBF16ToF32(dst, src []byte, stride, tiles, lines, pairs int) {
	fuseTiles(false, dst, src, stride, tiles, lines, pairs, nil)
}

// TilesF32ToBF16 is TilesF32ToBF16 (the function) with s's stores:
// non-temporal where the level has them and dst starts on a 64-byte
// boundary, fenced unless s.Unfenced. With s.Prefetch, the kernel
// brings it into L2 as it goes, two lines for each line it writes: one
// from its start and one from pairs·stride bytes on (as many bytes as it
// reads; prefetches never fault, so a shorter Prefetch is safe). A
// caller that converts a matrix a band at a time gives the next band's
// rows, which the hardware reads ahead better walked as two streams of
// whole rows than this band's rows, read a few lines of each at a time.
func (s Stream) TilesF32ToBF16(dst, src []byte, stride, tiles, lines, pairs int) {
	fuseTiles(true, dst, src, stride, tiles, lines, pairs, &s)
}

// UntileBF16ToF32 is UntileBF16ToF32 (the function) with s's stores:
// non-temporal where the level has them and dst and stride are
// multiples of 64, fenced unless s.Unfenced.
func (s Stream) UntileBF16ToF32(dst, src []byte, stride, tiles, lines, pairs int) {
	fuseTiles(false, dst, src, stride, tiles, lines, pairs, &s)
}

// FusedTiles reports whether the level in use has assembly for
// TilesF32ToBF16 and UntileBF16ToF32; without it they run in Go, slower
// than a conversion and a relayout apart, and a planner should not
// choose them.
func FusedTiles() bool { return fusedTilesAsm() }

// fuseTiles checks the buffers and runs the fused kernel, up (rows to
// tiles) or down, with s's stores where s is not nil.
func fuseTiles(up bool, dst, src []byte, stride, tiles, lines, pairs int, s *Stream) {
	if tiles < 0 || lines < 0 || pairs < 0 {
		panic(fmt.Sprintf("tilecopy: fused tiles: %d tiles of %d lines and %d pairs", tiles, lines, pairs))
	}
	if tiles == 0 || lines == 0 || pairs == 0 {
		return
	}
	width := 64 * tiles * lines // of a row's f32, in bytes
	rows, tile := dst, src
	if up {
		rows, tile = src, dst
	}
	if width/64/tiles != lines || stride < width || stride > (len(rows)-width)/max(2*pairs-1, 1) ||
		len(tile)/64/pairs/tiles < lines {
		panic(fmt.Sprintf("tilecopy: fused tiles: %d tiles of %d lines and %d pairs, row stride %d, between %d and %d bytes",
			tiles, lines, pairs, stride, len(rows), len(tile)))
	}
	stream, pf := false, &src[0]
	if s != nil {
		addr := uintptr(unsafe.Pointer(&dst[0]))
		stream = addr%64 == 0 && (up || stride%64 == 0)
		if len(s.Prefetch) > 0 {
			pf = &s.Prefetch[0]
		}
	}
	if !fuseTilesAsm(up, dst, src, stride, tiles, lines, pairs, stream, pf) {
		fuseTilesGeneric(up, dst, src, stride, tiles, lines, pairs)
		return
	}
	if stream && !s.Unfenced {
		storeFence()
	}
}

// fuseTilesGeneric is the portable fused kernel.
func fuseTilesGeneric(up bool, dst, src []byte, stride, tiles, lines, pairs int) {
	le := binary.LittleEndian
	at := 0 // the tile side's byte
	for t := range tiles {
		for k := range pairs {
			for j := range 16 * lines {
				r := 2*k*stride + 4*(16*lines*t+j) // row 2k's element
				if up {
					le.PutUint16(dst[at:], F32ToBF16(le.Uint32(src[r:])))
					le.PutUint16(dst[at+2:], F32ToBF16(le.Uint32(src[r+stride:])))
				} else {
					le.PutUint32(dst[r:], BF16ToF32(le.Uint16(src[at:])))
					le.PutUint32(dst[r+stride:], BF16ToF32(le.Uint16(src[at+2:])))
				}
				at += 4
			}
		}
	}
}
