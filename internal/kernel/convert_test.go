package kernel

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"testing"
)

// convertInputs returns n source elements of kind k as bytes: for the
// f32 sources, random bits mixed with values near 1, ties of bf16 and
// f16, f16 subnormals and f32 subnormals, NaNs (quiet and signaling),
// ±inf and ±0; for the 16-bit sources, every pattern in turn from a
// random start.
func convertInputs(r *rand.Rand, k convKind, n int) []byte {
	w := convWidths[k][0]
	b := make([]byte, w*n)
	if w == 2 {
		start := r.Uint32()
		for i := range n {
			binary.LittleEndian.PutUint16(b[2*i:], uint16(start+uint32(i)))
		}
		return b
	}
	special := []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x7fa00000,
		0x00000001, 0x807fffff, 0x7f7fffff, 0x477fefff, 0x477ff000, 0x33000000, 0x33000001, 0x3f808000, 0x3f818000}
	for i := range n {
		x := r.Uint32()
		switch r.IntN(7) {
		case 0:
			x = special[r.IntN(len(special))]
		case 1:
			x = x&0x80ffffff | 0x3f000000 // near 1
		case 2:
			x = x&^0xffff | 0x8000 // a bf16 tie
		case 3:
			x = x&^0x1fff | 0x1000 // an f16 tie
		case 4:
			x = x&0x807fffff | uint32(103+r.IntN(10))<<23 // f16 subnormals
		case 5:
			x &= 0x807fffff // f32 subnormals
		}
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

// TestConvertKernels runs every conversion kernel at every level on
// random inputs of many lengths, in buffers fenced by inaccessible pages,
// against the generic conversion.
func TestConvertKernels(t *testing.T) {
	names := [numConvKinds]string{"F32ToBF16", "BF16ToF32", "F32ToF16", "F16ToF32"}
	exported := [numConvKinds]func(dst, src []byte, n int){ConvertF32ToBF16, ConvertBF16ToF32, ConvertF32ToF16, ConvertF16ToF32}
	streamed := [numConvKinds]func(s Stream, dst, src []byte, n int){Stream.ConvertF32ToBF16, Stream.ConvertBF16ToF32, Stream.ConvertF32ToF16, Stream.ConvertF16ToF32}
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(42, 7))
		for k := range numConvKinds {
			sw, dw := convWidths[k][0], convWidths[k][1]
			for _, n := range []int{0, 1, 15, 16, 17, 31, 32, 33, 100, 1000, 4099, 1 << 16} {
				for _, way := range []int{0, 1, 2, 3} { // plain, streamed, both at either end
					atEnd := way%2 == 1
					in := convertInputs(r, k, n)
					src := guarded(t, sw*n, atEnd)
					copy(src, in)
					// Streamed, dst starts on a 64-byte boundary or one
					// to 3 elements after (guarded buffers start on a page).
					skip := 0
					if way >= 2 && !atEnd {
						skip = r.IntN(4)
					}
					dst := guarded(t, dw*(n+skip), !atEnd && skip == 0)[dw*skip:]
					if way >= 2 {
						streamed[k](Stream{Unfenced: r.IntN(2) == 0}, dst, src, n)
						StoreFence()
					} else {
						exported[k](dst, src, n)
					}
					want := make([]byte, dw*n)
					convertGeneric(k, want, in, n)
					if !bytes.Equal(dst, want) || !bytes.Equal(src, in) {
						for i := 0; i < n; i++ {
							if !bytes.Equal(dst[dw*i:dw*i+dw], want[dw*i:dw*i+dw]) {
								t.Fatalf("%s n=%d: element %d (% x): got % x, want % x", names[k], n, i, in[sw*i:sw*i+sw], dst[dw*i:dw*i+dw], want[dw*i:dw*i+dw])
							}
						}
						t.Fatalf("%s n=%d: the source changed", names[k], n)
					}
				}
			}
		}
	})
}

// TestConvertPanics checks that the kernels refuse buffers too short.
func TestConvertPanics(t *testing.T) {
	for _, c := range []struct {
		f           func(dst, src []byte, n int)
		dst, src, n int
	}{
		{ConvertF32ToBF16, 2 * 16, 4*16 - 1, 16},
		{ConvertF32ToBF16, 2*16 - 1, 4 * 16, 16},
		{ConvertBF16ToF32, 4*16 - 1, 2 * 16, 16},
		{ConvertF16ToF32, 4 * 16, 2*16 - 1, 16},
		{ConvertF32ToF16, 2 * 16, 4 * 16, -1},
	} {
		func() {
			defer func() { _ = recover() }()
			c.f(make([]byte, c.dst), make([]byte, c.src), c.n)
			t.Errorf("no panic for %d elements from %d bytes into %d", c.n, c.src, c.dst)
		}()
	}
}

// TestConvertAsmTakes checks that the assembly levels do convert: the
// kernels' whole 16-element pieces, where the CPU has what they need.
func TestConvertAsmTakes(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for k := range numConvKinds {
			dst, src := make([]byte, 4*40), make([]byte, 4*40)
			want := 0
			if useAVX2 && (useF16C || k == convF32ToBF16 || k == convBF16ToF32) || useNEON {
				want = 32
			}
			if got := convertAsm(k, dst, src, 40, false); got != want {
				t.Errorf("kind %d: the kernels converted %d of 40 elements, want %d", k, got, want)
			}
			aligned := guarded(t, 4*40, false) // starts a page
			if got := convertAsm(k, aligned, src, 40, true); got != want {
				t.Errorf("kind %d: the streaming kernels converted %d of 40 elements, want %d", k, got, want)
			}
			StoreFence()
		}
	})
}

// FuzzConvert converts fuzzer-chosen bytes with each conversion kernel at
// the level in use (TILECOPY_CPU caps it) and with the generic code: the
// bits must agree, for every pattern the fuzzer finds.
func FuzzConvert(f *testing.F) {
	f.Add([]byte{0x00, 0x80, 0x7f, 0xff, 0x01, 0x80, 0x80, 0x7f})
	f.Add(bytes.Repeat([]byte{0x00, 0x80, 0xc0, 0x7f}, 33))
	f.Fuzz(func(t *testing.T, in []byte) {
		for k := range numConvKinds {
			sw, dw := convWidths[k][0], convWidths[k][1]
			n := len(in) / sw
			got, want := make([]byte, dw*n), make([]byte, dw*n)
			convertGeneric(k, want, in, n)
			for _, s := range []*Stream{nil, {}} {
				clear(got)
				convert(k, got, in, n, s)
				if !bytes.Equal(got, want) {
					t.Fatalf("kind %d, %d elements, streamed %v: % x, the generic code gives % x", k, n, s != nil, got, want)
				}
			}
		}
	})
}

// TestFusedTiles runs the fused tile kernels at every level, plain and
// streamed, in buffers fenced by inaccessible pages at either end,
// against the generic conversion followed by the generic relayout (the
// transpose of each row pair's 16·lines columns into pairs): random f32
// bits with NaN payloads, ±inf, ±0, subnormals and ties of bf16 going
// to tiles, and every bf16 pattern coming back.
func TestFusedTiles(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(42, 8))
		for _, g := range []struct{ tiles, lines, pairs, pad int }{
			{1, 1, 1, 0}, {1, 1, 1, 4}, {2, 3, 1, 0}, {3, 8, 4, 0}, {3, 8, 4, 64}, {5, 1, 2, 12}, {1, 2, 3, 60}, {64, 8, 4, 0},
		} {
			width := 64 * g.tiles * g.lines
			stride := width + g.pad
			rowBytes := (2*g.pairs-1)*stride + width
			n := g.tiles * g.pairs * g.lines * 32   // elements on the tile side
			for _, way := range []int{0, 1, 2, 3} { // plain, streamed (unfenced), at either end
				atEnd, stream := way%2 == 1, way >= 2
				// Up: f32 rows to bf16 tiles, streamed with a prefetch that runs
				// past the rows into the guard page (prefetches never fault).
				rows := guarded(t, rowBytes, atEnd)
				copy(rows, convertInputs(r, convF32ToBF16, rowBytes/4))
				in := bytes.Clone(rows)
				tiles := guarded(t, 2*n, !atEnd)
				if stream {
					Stream{Unfenced: way == 3, Prefetch: rows[rowBytes-1:]}.TilesF32ToBF16(tiles, rows, stride, g.tiles, g.lines, g.pairs)
					StoreFence()
				} else {
					TilesF32ToBF16(tiles, rows, stride, g.tiles, g.lines, g.pairs)
				}
				want := tilesWant(true, in, stride, g.tiles, g.lines, g.pairs)
				if !bytes.Equal(tiles, want) || !bytes.Equal(rows, in) {
					t.Fatalf("%+v, way %d: tiles differ from the generic conversion and relayout at byte %d", g, way, firstDiff(tiles, want))
				}
				// Down: bf16 tiles (every pattern, from a random start) to
				// f32 rows; the gaps between rows stay as they were.
				copy(tiles, convertInputs(r, convBF16ToF32, n))
				in = bytes.Clone(tiles)
				before := bytes.Clone(rows)
				if stream {
					Stream{Unfenced: way == 3}.UntileBF16ToF32(rows, tiles, stride, g.tiles, g.lines, g.pairs)
					StoreFence()
				} else {
					UntileBF16ToF32(rows, tiles, stride, g.tiles, g.lines, g.pairs)
				}
				want = tilesWant(false, in, stride, g.tiles, g.lines, g.pairs)[:rowBytes]
				for i := range want {
					if i%stride >= width {
						want[i] = before[i]
					}
				}
				if !bytes.Equal(rows, want) || !bytes.Equal(tiles, in) {
					t.Fatalf("%+v, way %d: rows differ from the generic conversion and relayout at byte %d", g, way, firstDiff(rows, want))
				}
			}
		}
	})
}

// tilesWant is what the fused kernel gives, up (rows to tiles) or down,
// by the generic conversion and then the generic transpose of each row
// pair (as the planner's two passes do it): the tile side for up, the
// row side (rows·stride bytes, the gaps zero) for down.
func tilesWant(up bool, src []byte, stride, tiles, lines, pairs int) []byte {
	cols := 16 * lines
	if up {
		conv := make([]byte, len(src)/2) // bf16 rows, stride/2 apart
		convertGeneric(convF32ToBF16, conv, src, len(src)/4)
		out := make([]byte, 64*tiles*pairs*lines)
		at := 0
		for t := range tiles {
			for k := range pairs {
				transposeGeneric(2, out[at:], 4, conv[2*k*stride/2+2*cols*t:], stride/2, cols, 2)
				at += 4 * cols
			}
		}
		return out
	}
	conv := make([]byte, 2*len(src)) // f32 pairs, in the tiles' order
	convertGeneric(convBF16ToF32, conv, src, len(src)/2)
	out := make([]byte, 2*pairs*stride)
	at := 0
	for t := range tiles {
		for k := range pairs {
			transposeGeneric(4, out[2*k*stride+4*cols*t:], stride, conv[at:], 8, 2, cols)
			at += 8 * cols
		}
	}
	return out
}

// TestFusedTilesPanics checks that the fused kernels refuse buffers too
// short and rows that overlap.
func TestFusedTilesPanics(t *testing.T) {
	for _, c := range []struct {
		up                         bool
		rows, tile                 int
		stride, tiles, lines, pair int
	}{
		{true, 3*128 + 127, 4 * 64, 128, 1, 2, 2},   // the last row short
		{true, 3*128 + 128, 4*64 - 1, 128, 1, 2, 2}, // the tiles short
		{false, 3*128 + 127, 4 * 64, 128, 1, 2, 2},
		{false, 3*128 + 128, 4*64 - 1, 128, 1, 2, 2},
		{true, 4 * 128, 4 * 64, 64, 1, 2, 2}, // rows overlap
		{true, 4 * 128, 4 * 64, 128, 1, -2, 2},
	} {
		func() {
			defer func() { _ = recover() }()
			rows, tile := make([]byte, c.rows), make([]byte, c.tile)
			if c.up {
				TilesF32ToBF16(tile, rows, c.stride, c.tiles, c.lines, c.pair)
			} else {
				UntileBF16ToF32(rows, tile, c.stride, c.tiles, c.lines, c.pair)
			}
			t.Errorf("no panic for %+v", c)
		}()
	}
}

// FuzzFusedTiles runs the fused kernels at the level in use on
// fuzzer-chosen bytes and geometry against the generic conversion and
// relayout (tilesWant): the bits must agree both ways.
func FuzzFusedTiles(f *testing.F) {
	f.Add([]byte{0x00, 0x80, 0x7f, 0xff, 0x01, 0x80, 0x80, 0x7f}, uint8(1), uint8(1), uint8(1), uint8(0))
	f.Add(bytes.Repeat([]byte{0x00, 0x80, 0xc0, 0x7f, 0x01, 0x00, 0x00, 0x00}, 40), uint8(2), uint8(3), uint8(2), uint8(5))
	f.Fuzz(func(t *testing.T, in []byte, tiles, lines, pairs, pad uint8) {
		g := [3]int{1 + int(tiles)%4, 1 + int(lines)%4, 1 + int(pairs)%4}
		width := 64 * g[0] * g[1]
		stride := width + 4*int(pad%16)
		rowBytes := (2*g[2]-1)*stride + width
		tileBytes := 64 * g[0] * g[1] * g[2]
		rows := make([]byte, rowBytes)
		for i := range rows {
			if len(in) > 0 {
				rows[i] = in[i%len(in)] ^ byte(i/len(in))
			}
		}
		tile := make([]byte, tileBytes)
		TilesF32ToBF16(tile, rows, stride, g[0], g[1], g[2])
		if want := tilesWant(true, rows, stride, g[0], g[1], g[2]); !bytes.Equal(tile, want) {
			t.Fatalf("%v stride %d: tiles differ at byte %d", g, stride, firstDiff(tile, want))
		}
		for i := range tile {
			if len(in) > 0 {
				tile[i] = in[(i+1)%len(in)]
			}
		}
		back := make([]byte, rowBytes)
		UntileBF16ToF32(back, tile, stride, g[0], g[1], g[2])
		want := tilesWant(false, tile, stride, g[0], g[1], g[2])[:rowBytes]
		for i := range want {
			if i%stride >= width {
				want[i] = 0
			}
		}
		if !bytes.Equal(back, want) {
			t.Fatalf("%v stride %d: rows differ at byte %d", g, stride, firstDiff(back, want))
		}
	})
}

// f32Specials are the f32 patterns where a conversion kernel is most
// likely to part from the generic one: ±0, ±inf, NaNs of both signs
// (quiet and signaling, payloads in the bits the narrowing keeps, in
// those it drops, and with all bits set, whose bf16 rounding would
// carry into the exponent), the largest finite f32, f16's largest
// finite, overflow and the tie just under it, f16's smallest normal and
// subnormal and the ties about them, ties of bf16 to even and to odd,
// and f32 subnormals.
var f32Specials = []uint32{
	0x00000000, 0x80000000, 0x7f800000, 0xff800000,
	0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fbfffff, 0xffbfffff,
	0x7fffffff, 0xffffffff, 0x7f80ffff, 0x7f801000, 0x7f802000, 0xffa00fff,
	0x7f7fffff, 0xff7fffff, 0x7f7f8000, 0x7f7f7fff,
	0x477fe000, 0xc77fe000, 0x477fefff, 0x477ff000, 0xc77ff000, 0x47800000,
	0x38800000, 0x387fffff, 0x387ff000, 0x33800000, 0xb3800000, 0x33000000,
	0x33000001, 0x33c00000, 0xb3c00000, 0x33400000,
	0x3f808000, 0x3f818000, 0x3f807fff, 0x3f808001, 0xbf808000,
	0x00000001, 0x807fffff, 0x00400000, 0x80000001,
}

// TestConvertSpecials converts each of f32Specials at every lane of the
// kernels' 16-element pieces, and every 16-bit pattern at every lane,
// at every level, in guarded buffers, against the generic conversion.
func TestConvertSpecials(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for k := range numConvKinds {
			sw, dw := convWidths[k][0], convWidths[k][1]
			var in []byte
			if sw == 4 {
				// Element 16q+l holds special q+l (mod their count): at
				// each lane, every one; and a few more elements than
				// whole pieces.
				m := len(f32Specials)
				n := 16*m + 7
				in = make([]byte, 4*n)
				for i := range n {
					binary.LittleEndian.PutUint32(in[4*i:], f32Specials[(i/16+i%16)%m])
				}
			} else {
				// Element 16q+l holds q + 4099l: at each lane l, every
				// pattern once.
				n := 16<<16 + 9
				in = make([]byte, 2*n)
				for i := range n {
					binary.LittleEndian.PutUint16(in[2*i:], uint16(i/16+i%16*4099))
				}
			}
			n := len(in) / sw
			src := guarded(t, len(in), true)
			copy(src, in)
			dst := guarded(t, dw*n, true)
			convert(k, dst, src, n, nil)
			want := make([]byte, dw*n)
			convertGeneric(k, want, in, n)
			if !bytes.Equal(dst, want) {
				e := firstDiff(dst, want) / dw
				t.Fatalf("kind %d: element %d (% x): got % x, want % x", k, e, in[sw*e:sw*e+sw], dst[dw*e:dw*e+dw], want[dw*e:dw*e+dw])
			}
		}
	})
}

// TestConvertExhaustive converts every f32 pattern to bf16 and to f16 at
// each assembly level and compares with the generic conversion. It takes
// minutes (more under an emulator), so it runs only with
// TILECOPY_EXHAUSTIVE=1.
func TestConvertExhaustive(t *testing.T) {
	if os.Getenv("TILECOPY_EXHAUSTIVE") != "1" {
		t.Skip("set TILECOPY_EXHAUSTIVE=1 to convert all 2^32 f32 patterns")
	}
	forEachLevel(t, func(t *testing.T) {
		if Level() == levelGeneric {
			t.Skip("the generic level is the reference")
		}
		const chunk = 1 << 20
		chunks := make(chan uint32)
		go func() {
			for c := uint64(0); c < 1<<32; c += chunk {
				chunks <- uint32(c)
			}
			close(chunks)
		}()
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				src, got, want := make([]byte, 4*chunk), make([]byte, 2*chunk), make([]byte, 2*chunk)
				for start := range chunks {
					for i := range chunk {
						binary.LittleEndian.PutUint32(src[4*i:], start+uint32(i))
					}
					for _, k := range []convKind{convF32ToBF16, convF32ToF16} {
						convert(k, got, src, chunk, nil)
						convertGeneric(k, want, src, chunk)
						if !bytes.Equal(got, want) {
							e := firstDiff(got, want) / 2
							t.Errorf("kind %d: f32 %#08x: got %#04x, want %#04x", k, start+uint32(e),
								binary.LittleEndian.Uint16(got[2*e:]), binary.LittleEndian.Uint16(want[2*e:]))
						}
					}
				}
			})
		}
		wg.Wait()
	})
}
