package kernel

import (
	"fmt"
	"math"
)

// PackBits packs n elements, one per byte of src (the value in the low
// bits), into dst as fields of bits bits each, the first element of a byte
// in its most significant bits (XLA's packing). bits is 1, 2 or 4; dst
// holds ceil(n×bits/8) bytes and the unused low bits of its last byte are
// cleared.
func PackBits(dst, src []byte, n, bits int) {
	checkBits(bits)
	if n < 0 || n > len(src) || (n*bits+7)/8 > len(dst) {
		panic(fmt.Sprintf("tilecopy: packing %d elements from %d bytes into %d", n, len(src), len(dst)))
	}
	packBitsFast(dst, src, n, bits)
}

// UnpackBits unpacks n fields of bits bits each from src (first element in
// the most significant bits) into dst, one element per byte: the low
// natural bits of the field, sign-extended when signed, zero-filled
// otherwise. bits is 1, 2 or 4 and natural ≤ bits.
func UnpackBits(dst, src []byte, n, bits, natural int, signed bool) {
	checkBits(bits)
	if natural < 1 || natural > bits {
		panic(fmt.Sprintf("tilecopy: %d-bit values in %d-bit fields", natural, bits))
	}
	if n < 0 || n > len(dst) || (n*bits+7)/8 > len(src) {
		panic(fmt.Sprintf("tilecopy: unpacking %d elements from %d bytes into %d", n, len(src), len(dst)))
	}
	unpackBitsFast(dst, src, n, bits, natural, signed)
}

// PackRows8 packs 8 source rows of one 4-bit value a byte (the low
// nibble), srcStride apart, into n 4-byte words at dst: word j holds byte
// j of rows 0 to 7 as 4-bit fields, row 0 first (in the high nibble of
// the word's first byte, as PackBits orders fields). It is the (8,1) tile
// of the tpu preset's T(8,128)(8,1)E(4) layout, which Transpose with 8
// columns followed by PackBits would make in two passes.
func PackRows8(dst, src []byte, srcStride, n int) {
	checkSpan("source", src, 8, srcStride, n)
	checkSpan("destination", dst, 1, 0, 4*n)
	if n > 0 {
		packRows8Fast(dst, src, srcStride, n, nil)
	}
}

// PackRows8Streaming is PackRows8 writing dst with non-temporal stores
// where the level has them and dst is aligned for them (to 64 bytes):
// for a destination larger than the caches. It is Stream{}.PackRows8.
func PackRows8Streaming(dst, src []byte, srcStride, n int) {
	Stream{}.PackRows8(dst, src, srcStride, n)
}

// UnpackRows8 is the inverse of PackRows8: it unpacks n 4-byte words of
// 4-bit fields at src into 8 destination rows of n bytes, dstStride
// apart, field k of word j into byte j of row k. Each value is the low
// natural bits of its field, sign-extended when signed (as UnpackBits
// does); natural is 1 to 4.
func UnpackRows8(dst []byte, dstStride int, src []byte, n, natural int, signed bool) {
	checkUnpackRows8(dst, dstStride, src, n, natural)
	if n > 0 {
		unpackRows8Fast(dst, dstStride, src, n, natural, signed, nil)
	}
}

// UnpackRows8Streaming is UnpackRows8 writing dst with non-temporal
// stores where the level has them (AVX-512) and the rows are aligned for
// them (dst and dstStride multiples of 64): for a destination larger
// than the caches. It is Stream{}.UnpackRows8.
func UnpackRows8Streaming(dst []byte, dstStride int, src []byte, n, natural int, signed bool) {
	Stream{}.UnpackRows8(dst, dstStride, src, n, natural, signed)
}

// InterleaveNibbles8 lays out n 4-bit fields of each of 8 packed rows,
// srcStride bytes apart, as n 4-byte words at dst: word j holds field j
// of rows 0 to 7, row 0 first, as PackRows8 orders them. A row holds its
// fields as PackBits packs them (the first of a byte in its high nibble),
// ceil(n/2) bytes. It is the (8,1) tile of the tpu preset's
// T(8,128)(8,1)E(4) layout made from a packed row-major array in one
// pass, where UnpackBits and PackRows8 would take two.
func InterleaveNibbles8(dst, src []byte, srcStride, n int) {
	checkNibbleRows8(src, srcStride, dst, n)
	if n > 0 {
		interleaveNibbles8Fast(dst, src, srcStride, n, nil)
	}
}

// InterleaveNibbles8Streaming is InterleaveNibbles8 writing dst with
// non-temporal stores where the level has them and dst is aligned for
// them (to 64 bytes): for a destination larger than the caches. It is
// Stream{}.InterleaveNibbles8.
func InterleaveNibbles8Streaming(dst, src []byte, srcStride, n int) {
	Stream{}.InterleaveNibbles8(dst, src, srcStride, n)
}

// DeinterleaveNibbles8 is the inverse of InterleaveNibbles8: it lays out
// n 4-byte words of 4-bit fields at src as 8 packed rows of n fields,
// dstStride bytes apart, field k of word j as field j of row k. With an
// odd n the low nibble of each row's last byte, which holds no field of
// the words, is left as it was.
func DeinterleaveNibbles8(dst []byte, dstStride int, src []byte, n int) {
	checkNibbleRows8(dst, dstStride, src, n)
	if n > 0 {
		deinterleaveNibbles8Fast(dst, dstStride, src, n, nil)
	}
}

// DeinterleaveNibbles8Streaming is DeinterleaveNibbles8 writing dst with
// non-temporal stores where the level has them and the rows are aligned
// for them (dst and dstStride multiples of 64): for a destination larger
// than the caches. It is Stream{}.DeinterleaveNibbles8.
func DeinterleaveNibbles8Streaming(dst []byte, dstStride int, src []byte, n int) {
	Stream{}.DeinterleaveNibbles8(dst, dstStride, src, n)
}

// PackRows8 is PackRows8 (the function) with s's stores.
func (s Stream) PackRows8(dst, src []byte, srcStride, n int) {
	checkSpan("source", src, 8, srcStride, n)
	checkSpan("destination", dst, 1, 0, 4*n)
	if n > 0 {
		packRows8Fast(dst, src, srcStride, n, &s)
	}
}

// UnpackRows8 is UnpackRows8 (the function) with s's stores.
func (s Stream) UnpackRows8(dst []byte, dstStride int, src []byte, n, natural int, signed bool) {
	checkUnpackRows8(dst, dstStride, src, n, natural)
	if n > 0 {
		unpackRows8Fast(dst, dstStride, src, n, natural, signed, &s)
	}
}

// InterleaveNibbles8 is InterleaveNibbles8 (the function) with s's
// stores.
func (s Stream) InterleaveNibbles8(dst, src []byte, srcStride, n int) {
	checkNibbleRows8(src, srcStride, dst, n)
	if n > 0 {
		interleaveNibbles8Fast(dst, src, srcStride, n, &s)
	}
}

// DeinterleaveNibbles8 is DeinterleaveNibbles8 (the function) with s's
// stores.
func (s Stream) DeinterleaveNibbles8(dst []byte, dstStride int, src []byte, n int) {
	checkNibbleRows8(dst, dstStride, src, n)
	if n > 0 {
		deinterleaveNibbles8Fast(dst, dstStride, src, n, &s)
	}
}

// PackRows8Grid is PackRows8 on count blocks at once: block b reads its
// 8 rows from src[b*srcStep:] and writes its n words to
// dst[b*dstStep:]. Blocks of 8 fields (T(8,8)E(4) tiles packed from
// byte rows) take one kernel call where the level has AVX-512 VBMI
// (through the caches, also with a Stream).
func PackRows8Grid(dst []byte, dstStep int, src []byte, srcStride, srcStep, n, count int) {
	packRows8Grid(dst, dstStep, src, srcStride, srcStep, n, count, nil)
}

// PackRows8Grid is PackRows8Grid (the function) with s's stores.
func (s Stream) PackRows8Grid(dst []byte, dstStep int, src []byte, srcStride, srcStep, n, count int) {
	packRows8Grid(dst, dstStep, src, srcStride, srcStep, n, count, &s)
}

func packRows8Grid(dst []byte, dstStep int, src []byte, srcStride, srcStep, n, count int, st *Stream) {
	if n < 0 || n > math.MaxInt/8 || count < 0 {
		panic(fmt.Sprintf("tilecopy: %d blocks of %d fields a row", count, n))
	}
	if count == 0 || n == 0 {
		return
	}
	checkBlocks("source", src, 1, 0, count, srcStep, 8, srcStride, n)
	checkBlocks("destination", dst, 1, 0, count, dstStep, 1, 0, 4*n)
	if n == 8 && packRows8x8Asm(dst, dstStep, src, srcStride, srcStep, count) {
		return
	}
	for b := range count {
		packRows8Fast(dst[b*dstStep:], src[b*srcStep:], srcStride, n, st)
	}
}

// InterleaveNibbles8Grid is InterleaveNibbles8 on count blocks at once:
// block b reads its 8 rows from src[b*srcStep:] and writes its n words
// to dst[b*dstStep:]. A walk of small (8,1) tiles (T(8,8)E(4), 8 fields
// a block) spent more in a call per block than in the fields. Blocks of
// 8 fields, 8×8 transposes of nibbles, take one kernel call where the
// level has AVX-512 VBMI (through the caches, also with a Stream).
func InterleaveNibbles8Grid(dst []byte, dstStep int, src []byte, srcStride, srcStep, n, count int) {
	interleaveNibbles8Grid(dst, dstStep, src, srcStride, srcStep, n, count, nil)
}

// InterleaveNibbles8Grid is InterleaveNibbles8Grid (the function) with
// s's stores.
func (s Stream) InterleaveNibbles8Grid(dst []byte, dstStep int, src []byte, srcStride, srcStep, n, count int) {
	interleaveNibbles8Grid(dst, dstStep, src, srcStride, srcStep, n, count, &s)
}

func interleaveNibbles8Grid(dst []byte, dstStep int, src []byte, srcStride, srcStep, n, count int, st *Stream) {
	checkNibbleGrid(src, srcStride, srcStep, dst, dstStep, n, count)
	if n == 0 || n == 8 && transposeNibbles8Asm(dst, 4, dstStep, src, srcStride, srcStep, count) {
		return
	}
	for b := range count {
		interleaveNibbles8Fast(dst[b*dstStep:], src[b*srcStep:], srcStride, n, st)
	}
}

// DeinterleaveNibbles8Grid is DeinterleaveNibbles8 on count blocks at
// once: block b reads its n words from src[b*srcStep:] and writes its 8
// rows to dst[b*dstStep:], as InterleaveNibbles8Grid in reverse.
func DeinterleaveNibbles8Grid(dst []byte, dstStride, dstStep int, src []byte, srcStep, n, count int) {
	deinterleaveNibbles8Grid(dst, dstStride, dstStep, src, srcStep, n, count, nil)
}

// DeinterleaveNibbles8Grid is DeinterleaveNibbles8Grid (the function)
// with s's stores.
func (s Stream) DeinterleaveNibbles8Grid(dst []byte, dstStride, dstStep int, src []byte, srcStep, n, count int) {
	deinterleaveNibbles8Grid(dst, dstStride, dstStep, src, srcStep, n, count, &s)
}

func deinterleaveNibbles8Grid(dst []byte, dstStride, dstStep int, src []byte, srcStep, n, count int, st *Stream) {
	checkNibbleGrid(dst, dstStride, dstStep, src, srcStep, n, count)
	if n == 0 || n == 8 && transposeNibbles8Asm(dst, dstStride, dstStep, src, 4, srcStep, count) {
		return
	}
	for b := range count {
		deinterleaveNibbles8Fast(dst[b*dstStep:], dstStride, src[b*srcStep:], n, st)
	}
}

// checkNibbleGrid panics unless count blocks of 8 packed rows of n 4-bit
// fields, stride apart, the blocks rowsStep apart, fit in rows, and
// count blocks of n words, wordsStep apart, in words.
func checkNibbleGrid(rows []byte, stride, rowsStep int, words []byte, wordsStep, n, count int) {
	if n < 0 || n > math.MaxInt/8 || count < 0 {
		panic(fmt.Sprintf("tilecopy: %d blocks of %d fields a row", count, n))
	}
	if count > 0 {
		checkBlocks("rows", rows, 1, 0, count, rowsStep, 8, stride, (n+1)/2)
		checkBlocks("words", words, 1, 0, count, wordsStep, 1, 0, 4*n)
	}
}

// checkNibbleRows8 panics unless 8 packed rows of n 4-bit fields, stride
// apart, fit in rows, and n words in words.
func checkNibbleRows8(rows []byte, stride int, words []byte, n int) {
	if n < 0 || n > math.MaxInt/8 {
		panic(fmt.Sprintf("tilecopy: %d fields a row", n))
	}
	checkSpan("rows", rows, 8, stride, (n+1)/2)
	checkSpan("words", words, 1, 0, 4*n)
}

// checkUnpackRows8 panics unless UnpackRows8 can run on these arguments.
func checkUnpackRows8(dst []byte, dstStride int, src []byte, n, natural int) {
	if natural < 1 || natural > 4 {
		panic(fmt.Sprintf("tilecopy: %d-bit values in 4-bit fields", natural))
	}
	checkSpan("source", src, 1, 0, 4*n)
	checkSpan("destination", dst, 8, dstStride, n)
}

func checkBits(bits int) {
	if bits != 1 && bits != 2 && bits != 4 {
		panic(fmt.Sprintf("tilecopy: %d-bit packing", bits))
	}
}

// TransposeFields is the first pass of a transpose of packed sub-byte
// elements: it transposes every e×e block of bits-bit fields (e = 8/bits
// fields to a byte, the first in the most significant bits, as PackBits
// lays them out), after which a byte transpose finishes the job.
//
// It reads rows source rows of n bytes, row r at src[r*srcStride:], in
// groups of e (rows is a multiple of e), and writes the rows/e × e·n
// matrix M to dst, row after row: byte e·b+q of row k of M holds, in its
// field m, field q of byte b of source row e·k+m. For a source of R rows
// of C fields (n = C/e) and R and C multiples of e, the destination of
// the whole transpose, C rows of R fields, is M transposed as bytes:
// destination row j, byte k, is M[k][j].
func TransposeFields(dst, src []byte, srcStride, rows, n, bits int) {
	checkFieldRows(dst, src, srcStride, rows, n, bits)
	transposeFieldsFast(dst, src, srcStride, rows, n, bits, false)
}

// TransposeFieldsStreaming is TransposeFields writing dst with
// non-temporal stores where the level has them and dst is aligned for
// them: for a destination larger than the caches, whose lines are not
// worth reading in before they are overwritten.
func TransposeFieldsStreaming(dst, src []byte, srcStride, rows, n, bits int) {
	checkFieldRows(dst, src, srcStride, rows, n, bits)
	transposeFieldsFast(dst, src, srcStride, rows, n, bits, true)
}

// checkFieldRows panics unless TransposeFields can run on these
// arguments.
func checkFieldRows(dst, src []byte, srcStride, rows, n, bits int) {
	checkBits(bits)
	if e := 8 / bits; rows%e != 0 {
		panic(fmt.Sprintf("tilecopy: %d rows of %d-bit fields are not whole groups of %d", rows, bits, e))
	}
	checkSpan("source", src, rows, srcStride, n)
	checkSpan("destination", dst, rows, n, n)
}

// fieldSwap is one delta swap of transposeFieldsGeneric: the fields under
// mask trade places with those shift bits above them.
type fieldSwap struct {
	shift uint
	mask  uint64
}

// swapTable holds fieldSwaps(bits) for bits 1, 2 and 4, at index
// bits/2; read-only after package initialization.
var swapTable = [3][]fieldSwap{fieldSwaps(1), fieldSwaps(2), fieldSwaps(4)}

// swapsFor returns the delta swaps of fieldSwaps(bits) without building
// them: callers must not modify the slice.
func swapsFor(bits int) []fieldSwap { return swapTable[bits/2] }

// fieldSwaps returns the delta swaps that transpose the e×e field
// matrices of the e-byte groups of a word (e = 8/bits): row m of a group
// in its byte m, field q of a byte bits·(e-1-q) bits up. At each scale s,
// e/2 down to 1, the top-right s×s block of each 2s×2s block trades
// places with the bottom-left one, s·(8+bits) bits further up.
func fieldSwaps(bits int) []fieldSwap {
	e := 8 / bits
	var swaps []fieldSwap
	for s := e / 2; s >= 1; s /= 2 {
		var mask uint64
		for g := 0; g < 8; g += e {
			for m := range e {
				for q := range e {
					if m%(2*s) < s && q%(2*s) >= s {
						mask |= (1<<bits - 1) << (8*(g+m) + (e-1-q)*bits)
					}
				}
			}
		}
		swaps = append(swaps, fieldSwap{uint(s * (8 + bits)), mask})
	}
	return swaps
}

// ShortFieldRows reports whether TransposeFields treats rows of n bytes,
// srcStride apart, of bits-bit fields as short rows, which have kernels
// of their own however few their bytes: rows back to back whose groups
// of e = 8/bits rows fill 16 bytes evenly. Each group is then e*n
// contiguous bytes, and a byte shuffle within 16-byte lanes interleaves
// its rows (fieldPerm). Other rows take the kernels 32 bytes at a time.
func ShortFieldRows(srcStride, n, bits int) bool {
	e := 8 / bits
	return srcStride == n && n > 0 && 16%(e*n) == 0
}

// fieldPerm returns the byte shuffle, the same in both 16-byte lanes of
// 32 bytes, that interleaves each group of e short rows of n bytes:
// output byte e*b+m of a group is byte b of its row m.
func fieldPerm(bits, n int) (p [32]byte) {
	e := 8 / bits
	for lane := 0; lane < 32; lane += 16 {
		for g := 0; g < 16; g += e * n {
			for b := range n {
				for m := range e {
					p[lane+g+e*b+m] = byte(g + m*n + b)
				}
			}
		}
	}
	return p
}

// TransposePacked transposes a rows × cols matrix of bits-bit fields
// (bits 1, 2 or 4) packed e = 8/bits to a byte, the first in the high
// bits (as PackBits packs them):
//
//	field j of destination row i = field i of source row j
//
// for i < rows, j < cols. Destination rows are dstStride bytes apart and
// hold cols fields (cols/e bytes); source rows are srcStride bytes apart
// and hold rows fields. rows and cols must be multiples of e. Where the
// level has the kernels (PackedOnePass) and the destination is as large as
// Tuning.TransposeStreamBytes, it runs in one pass: tiles are byte-transposed
// in the caches and the fields of each of their rows split among e
// destination rows with non-temporal stores; the edges, and other levels,
// go a byte at a time.
func TransposePacked(bits int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	checkTransposePacked(bits, dst, dstStride, src, srcStride, rows, cols)
	transposePackedFast(bits, dst, dstStride, src, srcStride, rows, cols, rows*dstStride >= tuning.TransposeStreamBytes)
}

// TransposePackedStreaming is TransposePacked for a caller that writes a
// destination of Tuning.TransposeStreamBytes bytes or more in many calls:
// each call takes the one-pass path where it can, however small its own
// block.
func TransposePackedStreaming(bits int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	checkTransposePacked(bits, dst, dstStride, src, srcStride, rows, cols)
	transposePackedFast(bits, dst, dstStride, src, srcStride, rows, cols, true)
}

// TransposePacked is TransposePackedStreaming. s's fields do not apply.
func (s Stream) TransposePacked(bits int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	TransposePackedStreaming(bits, dst, dstStride, src, srcStride, rows, cols)
}

// PackedOnePass reports whether TransposePacked has its one-pass kernels
// at the level in use (AVX2 and up).
func PackedOnePass() bool { return packedOnePass() }

// checkTransposePacked panics unless TransposePacked can run on its
// arguments.
func checkTransposePacked(bits int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	checkBits(bits)
	e := 8 / bits
	if rows < 0 || cols < 0 || rows%e != 0 || cols%e != 0 {
		panic(fmt.Sprintf("tilecopy: a %d×%d transpose of %d-bit fields is not whole bytes", rows, cols, bits))
	}
	checkSpan("destination", dst, rows, dstStride, cols/e)
	checkSpan("source", src, cols, srcStride, rows/e)
}

// transposePackedGeneric transposes destination rows [r0, r1) and fields
// [c0, c1) of them (all multiples of e = 8/bits), e destination rows at
// a time: byte i/e of source rows j to j+e-1 holds their fields j to
// j+e-1. Those e bytes, byte m of a word from row j+m, are the e×e
// matrix of fields that the fieldSwaps delta swaps transpose: byte f is
// then that of destination row i+f.
func transposePackedGeneric(bits int, dst []byte, dstStride int, src []byte, srcStride int, r0, r1, c0, c1 int) {
	if c0 >= c1 {
		return
	}
	e := 8 / bits
	swaps := swapsFor(bits)
	for i := r0; i < r1; i += e {
		s := src[c0*srcStride+i/e:]
		for k := range (c1 - c0) / e {
			var x uint64
			for m := range e {
				x |= uint64(s[(e*k+m)*srcStride]) << (8 * m)
			}
			for _, w := range swaps {
				t := (x>>w.shift ^ x) & w.mask
				x ^= t ^ t<<w.shift
			}
			for f := range e {
				dst[(i+f)*dstStride+c0/e+k] = byte(x >> (8 * f))
			}
		}
	}
}

// packBitsFast is PackBits after its checks: the pieces of 4-bit fields
// the level's kernel takes (pack4Asm), then the generic code.
func packBitsFast(dst, src []byte, n, bits int) {
	m := 0
	if bits == 4 {
		m = pack4Asm(dst, src, n)
	}
	if m < n {
		packBitsGeneric(dst[m/2:], src[m:], n-m, bits)
	}
}

// unpackBitsFast is UnpackBits after its checks: the pieces of 4-bit
// fields the level's kernel takes (unpack4Asm), then the generic code.
func unpackBitsFast(dst, src []byte, n, bits, natural int, signed bool) {
	m := 0
	if bits == 4 {
		fv := newFieldValues(natural, signed)
		m = unpack4Asm(dst, src, n, fv.mask, fv.sign)
	}
	if m < n {
		unpackBitsGeneric(dst[m:], src[m/2:], n-m, bits, natural, signed)
	}
}

// packRows8Fast is PackRows8 after its checks: the columns the level's
// kernel takes (packRows8Asm), then the generic code. st is the
// streaming form's Stream, nil for plain stores; so for the others.
func packRows8Fast(dst, src []byte, srcStride, n int, st *Stream) {
	if m := packRows8Asm(dst, src, srcStride, n, st); m < n {
		packRows8Generic(dst[4*m:], src[m:], srcStride, n-m)
	}
}

// unpackRows8Fast is UnpackRows8 after its checks, split as
// packRows8Fast splits (unpackRows8Asm).
func unpackRows8Fast(dst []byte, dstStride int, src []byte, n, natural int, signed bool, st *Stream) {
	fv := newFieldValues(natural, signed)
	if m := unpackRows8Asm(dst, dstStride, src, n, fv.mask, fv.sign, st); m < n {
		unpackRows8Generic(dst[m:], dstStride, src[4*m:], n-m, natural, signed)
	}
}

// interleaveNibbles8Fast is InterleaveNibbles8 after its checks: the
// assembly takes whole chunks of the rows (interleaveNibbles8Asm), the
// generic code the rest.
func interleaveNibbles8Fast(dst, src []byte, srcStride, n int, st *Stream) {
	if m := interleaveNibbles8Asm(dst, src, srcStride, n, st); m < n {
		interleaveNibbles8Generic(dst[4*m:], src[m/2:], srcStride, n-m)
	}
}

// deinterleaveNibbles8Fast is DeinterleaveNibbles8 after its checks,
// split as interleaveNibbles8Fast splits.
func deinterleaveNibbles8Fast(dst []byte, dstStride int, src []byte, n int, st *Stream) {
	if m := deinterleaveNibbles8Asm(dst, dstStride, src, n, st); m < n {
		deinterleaveNibbles8Generic(dst[m/2:], dstStride, src[4*m:], n-m)
	}
}

// TransposeNibblePairs turns around, in place, the 2×2 blocks of 4-bit
// fields that pairs of bytes h apart hold: n blocks of 2h bytes from
// buf[0], byte i of a block's first half paired with byte i of its
// second. Byte x (first half) holds fields (x0, x1), byte y (second
// half) (y0, y1), first in the high nibble; after, x holds (x0, y0) and
// y (x1, y1). Two layouts of 4-bit fields that pair fields into bytes
// along different dims meet through it: a byte plan between the two
// moves the pairs of one, and this turns them into the other's.
func TransposeNibblePairs(buf []byte, h, n int) {
	if h < 1 || n < 0 || n > 0 && 2*h > len(buf)/n {
		panic(fmt.Sprintf("tilecopy: turning %d blocks of 2×%d bytes in %d", n, h, len(buf)))
	}
	transposeNibblePairsFast(buf, h, n)
}
