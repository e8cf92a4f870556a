package kernel

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// field returns element i of a packed buffer, by definition: bits i*bits
// to (i+1)*bits counted from the most significant bit of byte 0.
func field(src []byte, i, bits int) byte {
	bit := i * bits
	return src[bit/8] >> (8 - bits - bit%8) & (1<<bits - 1)
}

func TestPackUnpackBits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, bits := range []int{1, 2, 4} {
		for natural := 1; natural <= bits; natural++ {
			for _, signed := range []bool{false, true} {
				t.Run(fmt.Sprintf("E%d/natural%d/signed=%v", bits, natural, signed), func(t *testing.T) {
					for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000 + r.IntN(100)} {
						src := make([]byte, n)
						for i := range src {
							src[i] = byte(r.Uint32())
						}
						packed := bytes.Repeat([]byte{0xff}, (n*bits+7)/8)
						PackBits(packed, src, n, bits)
						for i := range n {
							if got, want := field(packed, i, bits), src[i]&(1<<bits-1); got != want {
								t.Fatalf("n=%d: packed field %d = %x, want %x", n, i, got, want)
							}
						}
						if used := n * bits % 8; used != 0 && packed[len(packed)-1]&(0xff>>used) != 0 {
							t.Fatalf("n=%d: unused bits of the last byte not cleared: %08b", n, packed[len(packed)-1])
						}
						out := make([]byte, n)
						UnpackBits(out, packed, n, bits, natural, signed)
						for i := range n {
							v := src[i] & (1<<natural - 1)
							if signed && v&(1<<(natural-1)) != 0 {
								v |= ^byte(1<<natural - 1)
							}
							if out[i] != v {
								t.Fatalf("n=%d: unpacked %d = %x, want %x (source byte %x)", n, i, out[i], v, src[i])
							}
						}
					}
				})
			}
		}
	}
}

// TestRepackBitsLevels runs PackBits and UnpackBits at every level
// against the generic code, on lengths around the kernels' 64-element
// pieces, in buffers fenced by guard pages at either end.
func TestRepackBitsLevels(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		for _, bits := range []int{1, 2, 4} {
			for natural := 1; natural <= bits; natural++ {
				for _, n := range []int{1, 63, 64, 65, 127, 128, 129, 191, 4096, 4097 + r.IntN(200), 64 * (1 + r.IntN(300))} {
					checkRepack(t, r, n, bits, natural, r.IntN(2) == 0, r.IntN(2) == 0)
				}
			}
		}
	})
}

// checkRepack packs n random bytes and unpacks the result with the
// exported calls, in guarded buffers (flush against the guard page after
// them with atEnd, else before them), and compares both with the generic
// code.
func checkRepack(t *testing.T, r *rand.Rand, n, bits, natural int, signed, atEnd bool) {
	t.Helper()
	packed := (n*bits + 7) / 8
	src := guarded(t, n, atEnd)
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	got, want := guarded(t, packed, !atEnd), make([]byte, packed)
	PackBits(got, src, n, bits)
	packBitsGeneric(want, src, n, bits)
	if !bytes.Equal(got, want) {
		t.Fatalf("PackBits(n=%d, bits=%d) differs from the generic code at byte %d", n, bits, firstDiff(got, want))
	}
	out, ref := guarded(t, n, !atEnd), make([]byte, n)
	UnpackBits(out, got, n, bits, natural, signed)
	unpackBitsGeneric(ref, got, n, bits, natural, signed)
	if !bytes.Equal(out, ref) {
		t.Fatalf("UnpackBits(n=%d, bits=%d, natural=%d, signed=%v) differs from the generic code at byte %d", n, bits, natural, signed, firstDiff(out, ref))
	}
}

// FuzzRepackBits compares PackBits and UnpackBits at the level in use with
// the generic code.
func FuzzRepackBits(f *testing.F) {
	f.Add(uint16(64), uint8(2), uint8(3), uint64(1))
	f.Add(uint16(1000), uint8(2), uint8(7), uint64(2))
	f.Add(uint16(129), uint8(1), uint8(1), uint64(3))
	f.Fuzz(func(t *testing.T, n uint16, bsel, flags uint8, seed uint64) {
		bits := []int{1, 2, 4}[int(bsel)%3]
		natural := 1 + int(flags>>2)%bits
		checkRepack(t, rand.New(rand.NewPCG(seed, 8)), int(n), bits, natural, flags&1 != 0, flags&2 != 0)
	})
}

// TestTransposeFields runs TransposeFields at every level against the
// definition, field by field, and against the generic code, on lengths
// around the kernels' 32-byte chunks and on short rows back to back, in
// guarded buffers.
func TestTransposeFields(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		for _, bits := range []int{1, 2, 4} {
			e := 8 / bits
			for _, rows := range []int{0, e, 2 * e, e * (1 + r.IntN(20))} {
				for _, n := range []int{0, 1, 3, 31, 32, 33, 64, 95, 100 + r.IntN(200)} {
					checkFields(t, r, rows, n, n+r.IntN(3)*r.IntN(70), bits, r.IntN(2) == 0)
				}
			}
			// Short rows back to back, around the short-row kernel's
			// 64-byte blocks (e*n divides 16, so 64/n rows are whole
			// groups).
			for n := 1; e*n <= 16; n *= 2 {
				for _, rows := range []int{e, 64 / n, 64/n + e, 128/n - e, e * (1 + r.IntN(400))} {
					checkFields(t, r, rows, n, n, bits, r.IntN(2) == 0)
				}
			}
		}
	})
}

// checkFields runs TransposeFields or TransposeFieldsStreaming, at
// random, on rows random rows of n bytes,
// srcStride apart, in guarded buffers (flush against the guard page after
// them with atEnd, else before them), and compares the result with the
// definition and with the generic code.
func checkFields(t *testing.T, r *rand.Rand, rows, n, srcStride, bits int, atEnd bool) {
	t.Helper()
	e := 8 / bits
	size := 0
	if rows > 0 {
		size = (rows-1)*srcStride + n
	}
	src := guarded(t, size, atEnd)
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	got, want := guarded(t, rows*n, !atEnd), make([]byte, rows*n)
	stream := r.IntN(2) == 0
	if stream {
		TransposeFieldsStreaming(got, src, srcStride, rows, n, bits)
	} else {
		TransposeFields(got, src, srcStride, rows, n, bits)
	}
	for k := range rows / e {
		m := got[k*e*n : (k+1)*e*n]
		for b := range n {
			for q := range e {
				for row := range e {
					f, w := field(m, (e*b+q)*e+row, bits), field(src[(e*k+row)*srcStride:], e*b+q, bits)
					if f != w {
						t.Fatalf("bits=%d rows=%d n=%d stride=%d stream=%v: group %d, byte %d, field %d of row %d: got %x, want %x", bits, rows, n, srcStride, stream, k, b, q, row, f, w)
					}
				}
			}
		}
	}
	transposeFieldsGeneric(want, src, srcStride, rows, n, 0, bits)
	if !bytes.Equal(got, want) {
		t.Fatalf("bits=%d rows=%d n=%d stride=%d stream=%v: differs from the generic code at byte %d", bits, rows, n, srcStride, stream, firstDiff(got, want))
	}
}

// FuzzTransposeFields compares TransposeFields at the level in use with
// the definition and with the generic code.
func FuzzTransposeFields(f *testing.F) {
	f.Add(uint8(8), uint16(40), uint8(3), uint8(0), uint64(1))
	f.Add(uint8(2), uint16(64), uint8(0), uint8(2), uint64(2))
	f.Add(uint8(30), uint16(4), uint8(0), uint8(4), uint64(3))
	f.Fuzz(func(t *testing.T, groups uint8, n uint16, gap, flags uint8, seed uint64) {
		bits := []int{1, 2, 4}[int(flags>>1)%3]
		rows := int(groups%32) * (8 / bits)
		checkFields(t, rand.New(rand.NewPCG(seed, 9)), rows, int(n%2048), int(n%2048)+int(gap), bits, flags&1 != 0)
	})
}

// TestPackRows8 runs PackRows8 and UnpackRows8 at every level, in guarded
// buffers, against their definitions (field k of word j is byte j of row
// k, by the field function) on lengths around the kernels' chunks, with
// padded strides, and checks that unpacking gives back the rows' values.
func TestPackRows8(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		for _, n := range []int{0, 1, 7, 8, 31, 32, 33, 63, 64, 65, 127, 128, 129, 300, 1000 + r.IntN(100)} {
			stride := n + r.IntN(3)*r.IntN(70)
			checkRows8(t, r, n, stride, r.IntN(2) == 0)
		}
	})
}

// checkRows8 packs 8 random rows of n bytes, stride apart, and unpacks
// the words into rows again at every natural width, signed and not.
func checkRows8(t *testing.T, r *rand.Rand, n, stride int, atEnd bool) {
	t.Helper()
	src := guarded(t, span(8, stride, n), atEnd)
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	// The streaming call wants an aligned destination: one that starts on
	// its page.
	words := guarded(t, 4*n, !atEnd)
	if atEnd {
		streamed(r, func(s Stream) { s.PackRows8(words, src, stride, n) })
	} else {
		PackRows8(words, src, stride, n)
	}
	for j := range n {
		for k := range 8 {
			if got, want := field(words, 8*j+k, 4), src[k*stride+j]&0x0f; got != want {
				t.Fatalf("n=%d stride=%d: field %d of word %d = %x, want %x", n, stride, k, j, got, want)
			}
		}
	}
	for natural := 1; natural <= 4; natural++ {
		for _, signed := range []bool{false, true} {
			unpack, dstStride, outAtEnd := UnpackRows8, n+r.IntN(3)*r.IntN(70), atEnd
			if natural%2 == 0 {
				// The streaming kernel wants rows aligned to 64 bytes: a
				// buffer starting on its page and a stride to match.
				unpack, dstStride, outAtEnd = UnpackRows8Streaming, (n+63)/64*64+64*r.IntN(2), false
				if r.IntN(2) == 0 {
					unpack = func(dst []byte, dstStride int, src []byte, n, natural int, signed bool) {
						streamed(r, func(s Stream) { s.UnpackRows8(dst, dstStride, src, n, natural, signed) })
					}
				}
			}
			out := guarded(t, span(8, dstStride, n), outAtEnd)
			unpack(out, dstStride, words, n, natural, signed)
			for j := range n {
				for k := range 8 {
					v := src[k*stride+j] & (1<<natural - 1)
					if signed && v&(1<<(natural-1)) != 0 {
						v |= ^byte(1<<natural - 1)
					}
					if got := out[k*dstStride+j]; got != v {
						t.Fatalf("n=%d natural=%d signed=%v: row %d byte %d = %x, want %x", n, natural, signed, k, j, got, v)
					}
				}
			}
		}
	}
}

// streamed runs call with the zero Stream (the ...Streaming functions'
// stores) or, as often, a random one: Unfenced, then StoreFence, and
// Ahead anywhere in ±64 KiB, past the guarded buffers (prefetches
// do not fault).
func streamed(r *rand.Rand, call func(Stream)) {
	var s Stream
	if r.IntN(2) == 0 {
		s = Stream{Unfenced: r.IntN(2) == 0, Ahead: r.IntN(1<<17) - 1<<16}
	}
	call(s)
	if s.Unfenced {
		StoreFence()
	}
}

// FuzzPackRows8 runs checkRows8 and checkNibbles8 at the level in use on
// fuzzed lengths and strides.
func FuzzPackRows8(f *testing.F) {
	f.Add(uint16(64), uint16(3), uint64(1))
	f.Add(uint16(129), uint16(0), uint64(2))
	f.Fuzz(func(t *testing.T, n, pad uint16, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 9))
		checkRows8(t, r, int(n%2048), int(n%2048)+int(pad%200), seed%2 == 0)
		checkNibbles8(t, r, int(n%4096), int(n%4096+1)/2+int(pad%200), seed%4 < 2)
	})
}

// TestPackedPanics checks that the packed calls, their grids too, refuse
// bad arguments with a panic, before any write.
func TestPackedPanics(t *testing.T) {
	buf := make([]byte, 64)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"transpose bits 3", func() { TransposePacked(3, buf, 8, buf, 8, 8, 8) }},
		{"transpose odd rows", func() { TransposePacked(4, buf, 8, buf, 8, 3, 4) }},
		{"transpose 2-bit cols", func() { TransposePacked(2, buf, 8, buf, 8, 4, 6) }},
		{"transpose dst short", func() { TransposePacked(1, buf[:7], 1, buf, 1, 8, 64) }},
		{"transpose src short", func() { TransposePacked(4, buf, 8, buf[:10], 1, 4, 64) }},
		{"interleave negative", func() { InterleaveNibbles8(buf, buf, 1, -2) }},
		{"interleave rows short", func() { InterleaveNibbles8(buf, buf[:31], 4, 8) }},
		{"interleave words short", func() { InterleaveNibbles8(buf[:31], buf, 4, 8) }},
		{"interleave huge", func() { InterleaveNibbles8(buf, buf, 0, math.MaxInt/4) }},
		{"deinterleave rows short", func() { DeinterleaveNibbles8(buf[:31], 4, buf, 8) }},
		{"deinterleave stride", func() { DeinterleaveNibbles8(buf, math.MaxInt/2, buf, 8) }},
		{"interleave grid rows short", func() { InterleaveNibbles8Grid(make([]byte, 64), 32, make([]byte, 63), 4, 32, 8, 2) }},
		{"interleave grid words short", func() { InterleaveNibbles8Grid(make([]byte, 63), 32, make([]byte, 64), 4, 32, 8, 2) }},
		{"deinterleave grid negative count", func() { DeinterleaveNibbles8Grid(make([]byte, 64), 4, 32, make([]byte, 64), 32, 8, -1) }},
		{"deinterleave grid huge step", func() { DeinterleaveNibbles8Grid(make([]byte, 64), 4, math.MaxInt/2, make([]byte, 64), 32, 8, 3) }},
		{"pack grid source short", func() { PackRows8Grid(make([]byte, 64), 32, make([]byte, 127), 8, 64, 8, 2) }},
		{"pack grid destination short", func() { PackRows8Grid(make([]byte, 63), 32, make([]byte, 128), 8, 64, 8, 2) }},
		{"pack grid negative count", func() { PackRows8Grid(make([]byte, 64), 32, make([]byte, 128), 8, 64, 8, -1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			tc.f()
		})
	}
}

// TestInterleaveNibbles8 runs InterleaveNibbles8 and DeinterleaveNibbles8
// at every level, in guarded buffers, against their definition (field k
// of word j is field j of row k) on lengths around the kernels' chunks
// and the generic code's steps of 16 and 8 fields, odd ones included,
// with padded strides, streaming and not.
func TestInterleaveNibbles8(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		for _, n := range []int{0, 1, 2, 8, 9, 15, 16, 17, 24, 25, 63, 64, 65, 127, 128, 129, 130, 255, 256, 257, 600, 2000 + r.IntN(200)} {
			stride := (n+1)/2 + r.IntN(3)*r.IntN(70)
			checkNibbles8(t, r, n, stride, r.IntN(2) == 0)
		}
	})
}

// checkNibbles8 lays out 8 random packed rows of n fields, stride bytes
// apart, as words, and the words as rows again, into rows whose bytes
// past the fields must keep their values.
func checkNibbles8(t *testing.T, r *rand.Rand, n, stride int, atEnd bool) {
	t.Helper()
	src := guarded(t, span(8, stride, (n+1)/2), atEnd)
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	// The streaming calls want aligned buffers: ones that start on their
	// page.
	words := guarded(t, 4*n, !atEnd)
	if atEnd {
		streamed(r, func(s Stream) { s.InterleaveNibbles8(words, src, stride, n) })
	} else {
		InterleaveNibbles8(words, src, stride, n)
	}
	for j := range n {
		for k := range 8 {
			if got, want := field(words, 8*j+k, 4), field(src[k*stride:], j, 4); got != want {
				t.Fatalf("n=%d stride=%d: field %d of word %d = %x, want %x", n, stride, k, j, got, want)
			}
		}
	}
	deinterleave, dstStride, outAtEnd := DeinterleaveNibbles8, (n+1)/2+r.IntN(3)*r.IntN(70), atEnd
	if r.IntN(2) == 0 {
		deinterleave, dstStride, outAtEnd = DeinterleaveNibbles8Streaming, (n+127)/128*64+64*r.IntN(2), false
		if r.IntN(2) == 0 {
			deinterleave = func(dst []byte, dstStride int, src []byte, n int) {
				streamed(r, func(s Stream) { s.DeinterleaveNibbles8(dst, dstStride, src, n) })
			}
		}
	}
	out := guarded(t, span(8, dstStride, (n+1)/2), outAtEnd)
	for i := range out {
		out[i] = byte(r.Uint32())
	}
	before := slices.Clone(out)
	deinterleave(out, dstStride, words, n)
	for k := range 8 * min(n, 1) {
		row, was := out[k*dstStride:], before[k*dstStride:]
		for j := range 2 * min(dstStride, len(row)) {
			want := field(was, j, 4) // past the fields, as it was
			if j < n {
				want = field(src[k*stride:], j, 4)
			}
			if got := field(row, j, 4); got != want {
				t.Fatalf("n=%d stride=%d: row %d field %d = %x, want %x", n, dstStride, k, j, got, want)
			}
		}
	}
}

// naivePacked is the definition of TransposePacked, field by field.
func naivePacked(bits int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	e := 8 / bits
	for i := range rows {
		for j := range cols {
			v := field(src[j*srcStride:], i, bits)
			k, shift := i*dstStride+j/e, 8-bits*(j%e+1)
			dst[k] = dst[k]&^(byte(1<<bits-1)<<shift) | v<<shift
		}
	}
}

// TestTransposePacked runs TransposePacked and TransposePackedStreaming
// of 1-, 2- and 4-bit fields at every level against the definition on
// random sizes, strides and tiles (small ones, so that the one-pass path
// runs many).
func TestTransposePacked(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 20
	}
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(4, 4))
		for _, bits := range []int{1, 2, 4} {
			e := 8 / bits
			for k := range n {
				rows, cols := e*r.IntN(600/e), e*r.IntN(800/e)
				if k%3 == 0 { // whole tiles and then some
					rows, cols = 64*e*(1+r.IntN(3))+e*r.IntN(3), 64*e*(1+r.IntN(3))+e*r.IntN(3)
				}
				dstStride := (cols/e+63)/64*64 + 64*r.IntN(2)
				if k%5 == 4 {
					dstStride = cols/e + r.IntN(40) // not aligned: a byte at a time
				}
				srcStride := rows/e + r.IntN(3)*64 + r.IntN(2)*r.IntN(30)
				checkPackedTranspose(t, r, bits, rows, cols, dstStride, srcStride, []int{128, 256, 1024}[k%3], []int{128, 256, 512}[(k/3)%3])
			}
		}
	})
}

// FuzzTransposePacked runs TransposePacked at the level in use against
// the definition on fuzzed field widths, sizes, strides and tiles.
func FuzzTransposePacked(f *testing.F) {
	f.Add(uint16(256), uint16(384), uint8(0), uint8(3), uint8(0), uint64(1))
	f.Add(uint16(130), uint16(260), uint8(64), uint8(7), uint8(1), uint64(2))
	f.Add(uint16(6), uint16(10), uint8(1), uint8(0), uint8(2), uint64(3))
	f.Add(uint16(512), uint16(1024), uint8(0), uint8(0), uint8(12), uint64(4))
	f.Fuzz(func(t *testing.T, rows, cols uint16, pad, gap, tiles uint8, seed uint64) {
		bits := []int{1, 2, 4}[int(tiles/9)%3]
		e := 8 / bits
		r, c := e*int(rows%(1600/uint16(e))), e*int(cols%(1600/uint16(e)))
		checkPackedTranspose(t, rand.New(rand.NewPCG(seed, 5)), bits, r, c, (c/e+63)/64*64+int(pad)%2*64, r/e+int(gap),
			[]int{128, 256, 1024}[int(tiles)%3], []int{128, 256, 512}[int(tiles/3)%3])
	})
}

// checkPackedTranspose runs TransposePacked and TransposePackedStreaming
// of rows × cols bits-bit fields with the given strides and staged tile
// extents, in guarded buffers, against the definition: the whole
// destination buffer must match, bytes outside the rows untouched.
func checkPackedTranspose(t *testing.T, r *rand.Rand, bits, rows, cols, dstStride, srcStride, stageRow, stageCol int) {
	t.Helper()
	setTuning(t, func(tu *Tuning) { tu.StageRow, tu.StageCol = stageRow, stageCol })
	e := 8 / bits
	src := guarded(t, span(cols, srcStride, rows/e), r.IntN(2) == 0)
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	init := make([]byte, span(rows, dstStride, cols/e))
	for i := range init {
		init[i] = byte(r.Uint32())
	}
	want := bytes.Clone(init)
	naivePacked(bits, want, dstStride, src, srcStride, rows, cols)
	for _, call := range []func(int, []byte, int, []byte, int, int, int){TransposePacked, TransposePackedStreaming} {
		got := guarded(t, len(init), r.IntN(2) == 0)
		copy(got, init)
		call(bits, got, dstStride, src, srcStride, rows, cols)
		if !bytes.Equal(got, want) {
			t.Fatalf("%d×%d %d-bit fields, strides %d/%d, tiles %d×%d: byte %d differs", rows, cols, bits, dstStride, srcStride, stageRow, stageCol, firstDiff(got, want))
		}
	}
}

// TestNibbles8Grid runs InterleaveNibbles8Grid and
// DeinterleaveNibbles8Grid at every level, in guarded buffers, against
// their definition (block b of the grid is InterleaveNibbles8 of rows
// src[b*srcStep:] into dst[b*dstStep:], and back), streaming and not:
// T(8,8)E(4) tiles (8 fields, rows 4 bytes apart, blocks 32), longer
// blocks that reach the kernels, and blocks that overlap in the rows
// they read. TestPackedPanics has their bad arguments.
func TestNibbles8Grid(t *testing.T) {
	tests := []struct{ n, stride, srcStep, dstStep, count int }{
		{8, 4, 32, 32, 1},
		{8, 4, 32, 32, 37},
		{8, 4, 64, 32, 5}, // every other tile
		{8, 8, 4, 128, 6}, // tiles side by side in 8-byte rows: each block's rows overlap the next's
		{9, 7, 29, 40, 3}, // an odd field count
		{64, 40, 320, 256, 4},
		{128, 64, 512, 512, 3},
		{0, 4, 32, 32, 4},
		{8, 4, 32, 32, 0},
	}
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		for _, tc := range tests {
			for _, stream := range []bool{false, true} {
				name := fmt.Sprintf("%+v/stream=%v", tc, stream)
				rowsLen := span(tc.count, tc.srcStep, span(8, tc.stride, (tc.n+1)/2))
				wordsLen := span(tc.count, tc.dstStep, 4*tc.n)
				src := guarded(t, rowsLen, true)
				for i := range src {
					src[i] = byte(r.Uint32())
				}
				words := guarded(t, wordsLen, !stream)
				for i := range words {
					words[i] = 0xa5
				}
				want := slices.Clone(words)
				for b := range tc.count * min(tc.n, 1) {
					InterleaveNibbles8(want[b*tc.dstStep:], src[b*tc.srcStep:], tc.stride, tc.n)
				}
				if stream {
					streamed(r, func(s Stream) {
						s.InterleaveNibbles8Grid(words, tc.dstStep, src, tc.stride, tc.srcStep, tc.n, tc.count)
					})
				} else {
					InterleaveNibbles8Grid(words, tc.dstStep, src, tc.stride, tc.srcStep, tc.n, tc.count)
				}
				if !bytes.Equal(words, want) {
					t.Fatalf("%s: InterleaveNibbles8Grid differs from its blocks", name)
				}
				// Back: the words' blocks into rows at the source's
				// geometry, over bytes that must keep their values
				// outside the fields.
				out := guarded(t, rowsLen, stream)
				for i := range out {
					out[i] = byte(r.Uint32())
				}
				wantOut := slices.Clone(out)
				for b := range tc.count * min(tc.n, 1) {
					DeinterleaveNibbles8(wantOut[b*tc.srcStep:], tc.stride, words[b*tc.dstStep:], tc.n)
				}
				if stream {
					streamed(r, func(s Stream) {
						s.DeinterleaveNibbles8Grid(out, tc.stride, tc.srcStep, words, tc.dstStep, tc.n, tc.count)
					})
				} else {
					DeinterleaveNibbles8Grid(out, tc.stride, tc.srcStep, words, tc.dstStep, tc.n, tc.count)
				}
				if !bytes.Equal(out, wantOut) {
					t.Fatalf("%s: DeinterleaveNibbles8Grid differs from its blocks", name)
				}
			}
		}
	})
}

// TestPackRows8Grid runs PackRows8Grid at every level, in guarded
// buffers, against PackRows8 on each block, streaming and not: blocks
// of 8 fields (the AVX-512 VBMI kernel's) at several strides and steps,
// values with their high nibbles set (sign-extended), and longer blocks.
// TestPackedPanics has its bad arguments.
func TestPackRows8Grid(t *testing.T) {
	tests := []struct{ n, stride, srcStep, dstStep, count int }{
		{8, 8, 64, 32, 1},
		{8, 8, 64, 32, 29},
		{8, 1054, 8, 32, 17},  // rows far apart, blocks along them
		{8, 20, 160, 96, 5},   // every third tile
		{9, 13, 121, 40, 3},   // an odd field count
		{64, 64, 512, 256, 3}, // long blocks
		{0, 8, 64, 32, 4},
		{8, 8, 64, 32, 0},
	}
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(9, 10))
		for _, tc := range tests {
			for _, stream := range []bool{false, true} {
				name := fmt.Sprintf("%+v/stream=%v", tc, stream)
				src := guarded(t, span(tc.count, tc.srcStep, span(8, tc.stride, tc.n)), true)
				for i := range src {
					src[i] = byte(r.Uint32()) // high nibbles set: PackRows8 keeps the low
				}
				dst := guarded(t, span(tc.count, tc.dstStep, 4*tc.n), !stream)
				for i := range dst {
					dst[i] = 0xa5
				}
				want := slices.Clone(dst)
				for b := range tc.count * min(tc.n, 1) {
					PackRows8(want[b*tc.dstStep:], src[b*tc.srcStep:], tc.stride, tc.n)
				}
				if stream {
					streamed(r, func(s Stream) { s.PackRows8Grid(dst, tc.dstStep, src, tc.stride, tc.srcStep, tc.n, tc.count) })
				} else {
					PackRows8Grid(dst, tc.dstStep, src, tc.stride, tc.srcStep, tc.n, tc.count)
				}
				if !bytes.Equal(dst, want) {
					t.Fatalf("%s: PackRows8Grid differs from its blocks", name)
				}
			}
		}
	})
}

// TestTransposeNibblePairs runs TransposeNibblePairs at every level, in
// guarded buffers, against its definition field by field: halves a
// vector holds whole, halves of vectors and a rest, and halves too
// short for a vector; the byte after the blocks is left alone.
func TestTransposeNibblePairs(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		for _, h := range []int{1, 2, 3, 4, 5, 8, 12, 16, 24, 31, 32, 33, 64, 100, 2496} {
			for _, n := range []int{1, 2, 3, 15, 16, 17, 64 + r.IntN(64)} {
				if 2*h*n > 1<<20 {
					continue
				}
				atEnd := r.IntN(2) == 0
				size := 2*h*n + 1
				if atEnd {
					size--
				}
				buf := guarded(t, size, atEnd)
				for i := range buf {
					buf[i] = byte(r.Uint32())
				}
				orig := bytes.Clone(buf)
				TransposeNibblePairs(buf, h, n)
				for b := range n {
					for i := range h {
						x, y := orig[2*b*h+i], orig[2*b*h+h+i]
						gx, gy := buf[2*b*h+i], buf[2*b*h+h+i]
						if gx != x&0xf0|y>>4 || gy != x<<4|y&0x0f {
							t.Fatalf("h %d, n %d: block %d byte %d: got %02x %02x from %02x %02x", h, n, b, i, gx, gy, x, y)
						}
					}
				}
				if !atEnd && buf[2*h*n] != orig[2*h*n] {
					t.Fatalf("h %d, n %d: the byte after the blocks changed", h, n)
				}
			}
		}
	})
}
