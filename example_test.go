package tilecopy_test

import (
	"fmt"

	"github.com/tilecopy/tilecopy"
)

// Copy moves a buffer as copy() does; past Tuning.CopyStreamBytes it
// streams over several parts at once.
func ExampleCopy() {
	src := make([]byte, 3<<20)
	for i := range src {
		src[i] = byte(i % 251)
	}
	dst := make([]byte, len(src))
	n := tilecopy.Copy(dst, src)
	fmt.Println(n, dst[12345] == src[12345], dst[len(dst)-1] == src[len(src)-1])
	// Output: 3145728 true true
}

// A tuning of its own: four parts past 1 MiB, each prefetched 2 KiB
// ahead, as a TILECOPY_TUNING file could set it.
func ExampleTuning_Copy() {
	t := tilecopy.DefaultTuning()
	t.CopyStreamBytes, t.CopyParts, t.CopyAhead = 1<<20, 4, 2048
	if err := t.Check(); err != nil {
		fmt.Println(err)
		return
	}
	src := []byte("a buffer smaller than the threshold goes through copy()")
	dst := make([]byte, len(src))
	t.Copy(dst, src)
	fmt.Println(string(dst[:8]))
	// Output: a buffer
}

// A 2×3 matrix of bytes, row-major, becomes its 3×2 transpose.
func ExampleTranspose() {
	src := []byte("abc" + "def") // 2 rows of 3
	dst := make([]byte, 6)       // 3 rows of 2
	// dst row i, element j = src row j, element i.
	tilecopy.Transpose(1, dst, 2, src, 3, 3, 2)
	fmt.Printf("%s %s %s\n", dst[0:2], dst[2:4], dst[4:6])
	// Output: ad be cf
}

// Interleaving pairs of rows, as a (2,1) tile holds them, for two pairs
// in one call: each block is a transpose of 4 × 2 elements whose
// destination is contiguous.
func ExampleTransposeGrid() {
	src := []byte("abcd" + "ABCD" + "efgh" + "EFGH") // 4 rows of 4
	dst := make([]byte, 16)
	g := tilecopy.Grid{Inner: 2, Outer: 1, DstInner: 8, SrcInner: 8}
	tilecopy.TransposeGrid(1, dst, 2, src, 4, 4, 2, g)
	fmt.Printf("%s %s\n", dst[:8], dst[8:])
	// Output: aAbBcCdD eEfFgGhH
}

// Runs of 2 bytes gathered from a row of 4-byte records, two steps of
// two runs each, streamed.
func ExampleStream_CopyRuns_steps() {
	src := []byte("ab--cd--ef--gh--")
	dst := make([]byte, 8)
	// Run r of step s: src[s*8 + r*4:], 2 bytes, to dst[s*4 + r*2:].
	tilecopy.Stream{}.CopyRuns(dst, 2, 4, src, 4, 8, 2, 2, 2)
	fmt.Printf("%s\n", dst)
	// Output: abcdefgh
}

// A destination built a band at a time in a small buffer, each band
// copied out in one streamed call that prefetches the next band's
// source and leaves its fence to one StoreFence at the end.
func ExampleStream_CopyRuns() {
	src := []byte("abcdefghijklmnop") // 4 bands of 4 bytes
	dst := make([]byte, len(src))
	band := make([]byte, 4)
	for b := 0; b < len(src); b += 4 {
		for i := range band { // the band, reversed, in the buffer
			band[i] = src[b+3-i]
		}
		next := src[min(b+4, len(src)):] // read by the next band
		s := tilecopy.Stream{Prefetch: next[:min(4, len(next))], Unfenced: true}
		s.CopyRuns(dst[b:], 0, 0, band, 0, 0, 4, 1, 1)
	}
	tilecopy.StoreFence()
	fmt.Printf("%s\n", dst)
	// Output: dcbahgfelkjiponm
}

// Many streaming calls, one store fence: each band of two rows of a
// 4-row matrix is interleaved with Stream.Unfenced, and StoreFence orders
// all their stores before the result is handed on.
func ExampleStoreFence() {
	src := []byte("abcd" + "ABCD" + "efgh" + "EFGH") // 4 rows of 4
	dst := make([]byte, 16)
	s := tilecopy.Stream{Unfenced: true}
	g := tilecopy.Grid{Inner: 1, Outer: 1}
	for band := range 2 { // a call a band, as a plan's walk makes them
		s.TransposeGrid(1, dst[band*8:], 2, src[band*8:], 4, 4, 2, g)
	}
	tilecopy.StoreFence()
	fmt.Printf("%s %s\n", dst[:8], dst[8:])
	// Output: aAbBcCdD eEfFgGhH
}

// A walk that tiles packed 4-bit rows a band of 8 at a time: each call
// prefetches the next band's rows (Ahead, 8 bytes on here) and leaves its
// fence to one StoreFence after the last.
func ExampleStream() {
	// Two bands of 8 packed rows of 2 fields (a byte a row): in the
	// first, row k holds k and k+8; in the second, 15-k and k.
	src := []byte{
		0x08, 0x19, 0x2a, 0x3b, 0x4c, 0x5d, 0x6e, 0x7f,
		0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87,
	}
	words := make([]byte, 16) // a word per field: its 8 rows' values
	s := tilecopy.Stream{Ahead: 8, Unfenced: true}
	for band := range 2 {
		s.InterleaveNibbles8(words[band*8:], src[band*8:], 1, 2)
	}
	tilecopy.StoreFence()
	fmt.Printf("% x\n", words)
	// Output: 01 23 45 67 89 ab cd ef fe dc ba 98 01 23 45 67
}

// A 2×4 matrix of 4-bit fields, two to a byte, becomes its 4×2 transpose.
func ExampleTransposePacked() {
	src := []byte{0x12, 0x34, 0x56, 0x78} // 4-bit fields: rows 1 2 3 4 and 5 6 7 8
	dst := make([]byte, 4)                // 4 rows of 2 fields, a byte each
	// Field j of dst row i = field i of src row j.
	tilecopy.TransposePacked(4, dst, 1, src, 2, 4, 2)
	fmt.Printf("% x\n", dst)
	// 2-bit fields: 4 source rows of 4 fields (a byte each) become 4
	// destination rows of 4.
	src2 := []byte{0b00_01_10_11, 0b01_01_01_01, 0b10_10_10_10, 0b11_00_11_00}
	dst2 := make([]byte, 4)
	tilecopy.TransposePacked(2, dst2, 1, src2, 1, 4, 4)
	fmt.Printf("%08b\n", dst2)
	// Output:
	// 15 26 37 48
	// [00011011 01011000 10011011 11011000]
}

// The (8,1) tile of 4-bit fields and back, streamed.
func ExampleStream_InterleaveNibbles8() {
	// 8 packed rows of 2 fields each: row k holds k and k+8.
	src := []byte{0x08, 0x19, 0x2a, 0x3b, 0x4c, 0x5d, 0x6e, 0x7f}
	words := make([]byte, 8) // a word per field: its 8 rows' values
	tilecopy.Stream{}.InterleaveNibbles8(words, src, 1, 2)
	fmt.Printf("% x\n", words)
	back := make([]byte, 8)
	tilecopy.Stream{}.DeinterleaveNibbles8(back, 1, words, 2)
	fmt.Printf("% x\n", back)
	// Output:
	// 01 23 45 67 89 ab cd ef
	// 08 19 2a 3b 4c 5d 6e 7f
}

// Two f32 values to bf16 and back: 1.5 is exact in bf16, 1/3 rounds.
func ExampleConvert() {
	src := []byte{0x00, 0x00, 0xc0, 0x3f, 0xab, 0xaa, 0xaa, 0x3e} // 1.5, 1/3
	half := make([]byte, 4)
	tilecopy.Convert(tilecopy.F32ToBF16, half, src, 2)
	back := make([]byte, 8)
	tilecopy.Convert(tilecopy.BF16ToF32, back, half, 2)
	fmt.Printf("% x\n% x\n", half, back)
	// Output:
	// c0 3f ab 3e
	// 00 00 c0 3f 00 00 ab 3e
}

// Rows of 3 bytes at a stride of 4, each filled with a 3-byte pattern.
func ExampleFillRuns() {
	dst := []byte("............")
	tilecopy.FillRuns(dst, 4, 3, 3, []byte("xyz"))
	fmt.Printf("%s\n", dst)
	// Output: xyz.xyz.xyz.
}

// Four 2-bit values packed into one byte, first in the high bits, and
// unpacked as signed 2-bit numbers.
func ExamplePackBits() {
	packed := make([]byte, 1)
	tilecopy.PackBits(packed, []byte{0, 1, 2, 3}, 4, 2)
	vals := make([]byte, 4)
	tilecopy.UnpackBits(vals, packed, 4, 2, 2, true)
	fmt.Printf("%08b %d\n", packed[0], []int8{int8(vals[0]), int8(vals[1]), int8(vals[2]), int8(vals[3])})
	// Output: 00011011 [0 1 -2 -1]
}

// A tuning of this machine with a lower run-copy threshold, in use from
// here on: plans compiled after it stream their run copies sooner.
func ExampleSetTuning() {
	t := tilecopy.DefaultTuning()
	defer func() { _ = tilecopy.SetTuning(t) }() // the defaults again
	low := t
	low.RunStreamBytes = 1 << 20
	fmt.Println(tilecopy.SetTuning(low))
	now, _ := tilecopy.CurrentTuning()
	fmt.Println(now.RunStreamBytes)
	low.CopyParts = 0
	fmt.Println(tilecopy.SetTuning(low))
	// Output:
	// <nil>
	// 1048576
	// tuning: copy_parts 0 is not between 1 and 64
}
