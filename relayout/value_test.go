package relayout

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestEncodeValueKnown(t *testing.T) {
	cases := []struct {
		t    DType
		v    float64
		want []byte
	}{
		{F16, 1, []byte{0x00, 0x3c}},
		{F16, -2, []byte{0x00, 0xc0}},
		{F16, 65504, []byte{0xff, 0x7b}},
		{F16, math.Inf(1), []byte{0x00, 0x7c}},
		{F8E5M2, math.Inf(-1), []byte{0xfc}},
		{F32, math.Inf(1), []byte{0x00, 0x00, 0x80, 0x7f}},
		{F32, 0x1.fffffep127, []byte{0xff, 0xff, 0x7f, 0x7f}},
		{F16, 0x1p-24, []byte{0x01, 0x00}},
		{F16, 0x1p-26, []byte{0x00, 0x00}},
		{F16, math.Copysign(0, -1), []byte{0x00, 0x80}},
		{BF16, 1, []byte{0x80, 0x3f}},
		{BF16, -1, []byte{0x80, 0xbf}},
		{F8E4M3FN, 448, []byte{0x7e}},
		{F8E4M3FN, -448, []byte{0xfe}},
		{F8E4M3FN, 1, []byte{0x38}},
		{F8E5M2, 1, []byte{0x3c}},
		{F8E5M2, 57344, []byte{0x7b}},
		{F8E4M3, 1, []byte{0x38}},
		{F8E4M3, 240, []byte{0x77}},
		{F8E3M4, 1, []byte{0x30}},
		{F8E5M2FNUZ, 1, []byte{0x40}},
		{F8E4M3FNUZ, 1, []byte{0x40}},
		{F8E4M3B11FNUZ, 1, []byte{0x58}},
		{F8E4M3FNUZ, math.Copysign(0, -1), []byte{0x00}}, // no -0 in fnuz
		{F8E4M3FNUZ, -1e-10, []byte{0x00}},
		{F4E2M1FN, 6, []byte{0x07}},
		{F4E2M1FN, -0.5, []byte{0x09}},
		{F4E2M1FN, 1.25, []byte{0x02}}, // tie between 1 (0x2) and 1.5 (0x3): even
		{F4E2M1FN, 1.75, []byte{0x04}}, // tie between 1.5 and 2 (0x4): even
		{F4E2M1FN, 0.25, []byte{0x00}}, // tie between 0 and 0.5: even
		{F8E8M0FNU, 1, []byte{0x7f}},
		{F8E8M0FNU, 0.5, []byte{0x7e}},
		{F8E8M0FNU, 0x1p127, []byte{0xfe}},
		{F8E8M0FNU, 0x1p-127, []byte{0x00}},
		{F8E8M0FNU, 0x1p-140, []byte{0x00}},
		{F32, 1, []byte{0x00, 0x00, 0x80, 0x3f}},
		{F64, 1, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}},
		{C64, 1, []byte{0x00, 0x00, 0x80, 0x3f, 0, 0, 0, 0}},
		{C128, -2, []byte{0, 0, 0, 0, 0, 0, 0x00, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{PRED, 1, []byte{0x01}},
		{PRED, 0, []byte{0x00}},
		{S1, -1, []byte{0x01}},
		{S2, -2, []byte{0x02}},
		{S4, -1, []byte{0x0f}},
		{S4, -8, []byte{0x08}},
		{S4, 7, []byte{0x07}},
		{U4, 15, []byte{0x0f}},
		{U1, 1, []byte{0x01}},
		{U2, 3, []byte{0x03}},
		{S8, -128, []byte{0x80}},
		{U8, 255, []byte{0xff}},
		{S16, -2, []byte{0xfe, 0xff}},
		{U16, 0x1234, []byte{0x34, 0x12}},
		{S32, -1, []byte{0xff, 0xff, 0xff, 0xff}},
		{U32, 0x89abcdef, []byte{0xef, 0xcd, 0xab, 0x89}},
		{S64, -0x1p63, []byte{0, 0, 0, 0, 0, 0, 0, 0x80}},
		{U64, 0x1p63, []byte{0, 0, 0, 0, 0, 0, 0, 0x80}},
	}
	for _, c := range cases {
		got, err := encodeValue(c.t, c.v)
		if err != nil {
			t.Errorf("encodeValue(%v, %v): %v", c.t, c.v, err)
			continue
		}
		if !bytes.Equal(got, c.want) {
			t.Errorf("encodeValue(%v, %v) = % x, want % x", c.t, c.v, got, c.want)
		}
	}
}

func TestEncodeValueErrors(t *testing.T) {
	cases := []struct {
		t DType
		v float64
	}{
		{S4, 8}, {S4, -9}, {U4, 16}, {U8, -1}, {U8, 1.5}, {U8, 256}, {PRED, 2}, {PRED, -1},
		{S1, 1}, {U1, 2}, {S64, 0x1p63}, {U64, 0x1p64}, {S32, math.NaN()}, {S32, math.Inf(1)},
		{F8E4M3FN, 480}, {F8E4M3FN, 1e6}, {F8E4M3FN, math.Inf(1)},
		// Finite values that would round to ±inf: out of range, not inf.
		{F16, 65520}, {F16, -1e6}, {BF16, 1e39}, {F8E5M2, 61440}, {F32, 1e40}, {F32, -1e40},
		{C64, 1e39}, {F32, math.MaxFloat64},
		{F8E4M3FNUZ, math.Inf(-1)}, {F4E2M1FN, 7}, {F4E2M1FN, math.NaN()},
		{F8E8M0FNU, 0}, {F8E8M0FNU, -1}, {F8E8M0FNU, 0x1p128}, {F8E8M0FNU, math.Inf(1)},
		{Token, 0}, {Tuple, 0}, {InvalidType, 0},
	}
	for _, c := range cases {
		got, err := encodeValue(c.t, c.v)
		if err == nil {
			t.Errorf("encodeValue(%v, %v) = % x, want an error", c.t, c.v, got)
			continue
		}
		if !errors.Is(err, ErrBadPadding) {
			t.Errorf("encodeValue(%v, %v) error %q does not wrap ErrBadPadding", c.t, c.v, err)
		}
	}
}

// TestEncodeValuePadPatterns checks the encoder against the fixed padding
// patterns: lowest, highest and NaN.
func TestEncodeValuePadPatterns(t *testing.T) {
	for ty := PRED; ty < numDTypes; ty++ {
		if !ty.IsArray() {
			continue
		}
		info := dtypes[ty]
		if info.hasNaN {
			want, _ := padPattern(ty, PadNaN)
			got, err := encodeValue(ty, math.NaN())
			if err != nil || (ty != C64 && ty != C128 && !bytes.Equal(got, want)) {
				t.Errorf("encodeValue(%v, NaN) = % x, %v; want % x", ty, got, err, want)
			}
		}
		if !info.hasOrder || ty == PRED || ty == S64 || ty == U64 {
			continue
		}
		for _, k := range []PadKind{PadLowest, PadHighest} {
			want, _ := padPattern(ty, k)
			v := decodeForTest(ty, want)
			got, err := encodeValue(ty, v)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("encodeValue(%v, %v) = % x, %v; want the %v pattern % x", ty, v, got, err, k, want)
			}
		}
	}
}

// decodeForTest returns the value of one element's pattern, written
// independently of the encoder for integers, f32, f64, and from the
// format description for the small floats.
func decodeForTest(ty DType, b []byte) float64 {
	var bits uint64
	for i := len(b) - 1; i >= 0; i-- {
		bits = bits<<8 | uint64(b[i])
	}
	switch {
	case ty == F32:
		return float64(math.Float32frombits(uint32(bits)))
	case ty == F64:
		return math.Float64frombits(bits)
	case ty.IsSigned():
		n := ty.Bits()
		return float64(int64(bits<<(64-n)) >> (64 - n))
	case ty <= U64:
		return float64(bits)
	}
	f, _ := minifloatFormat(ty)
	return f.decode(bits)
}

// decode is the inverse of encode, for tests.
func (f minifloat) decode(bits uint64) float64 {
	sign := 1.0
	if f.signed && bits&f.signBit() != 0 {
		sign = -1
	}
	mag := bits &^ f.signBit()
	if f.nan == nanFNUZ && bits == f.signBit() || f.nan == nanFN && mag == f.maxCode()+1 {
		return math.NaN()
	}
	e := int(mag >> f.mantBits)
	m := float64(mag & (1<<f.mantBits - 1))
	if f.nan == nanIEEE && e == 1<<f.expBits-1 {
		if m == 0 {
			return math.Inf(int(sign))
		}
		return math.NaN()
	}
	if e == 0 && !f.noZero {
		return sign * math.Ldexp(m, 1-f.bias-f.mantBits)
	}
	return sign * math.Ldexp(math.Ldexp(1, f.mantBits)+m, e-f.bias-f.mantBits)
}

// TestEncodeMinifloatExhaustive checks, for every finite pattern of every
// small float type, that the value encodes back to it, that the midpoint
// to the next pattern rounds to the even one, and that points just off the
// midpoint round to the nearer one.
func TestEncodeMinifloatExhaustive(t *testing.T) {
	for ty := PRED; ty < numDTypes; ty++ {
		f, ok := minifloatFormat(ty)
		if !ok {
			continue
		}
		enc := func(v float64) uint64 {
			b, err := encodeValue(ty, v)
			if err != nil {
				t.Fatalf("encodeValue(%v, %v): %v", ty, v, err)
			}
			var bits uint64
			for i := len(b) - 1; i >= 0; i-- {
				bits = bits<<8 | uint64(b[i])
			}
			return bits
		}
		for c := uint64(0); c <= f.maxCode(); c++ {
			v := f.decode(c)
			if got := enc(v); got != c {
				t.Fatalf("%v: encode(%v) = %#x, want %#x", ty, v, got, c)
			}
			if f.signed && (c != 0 || f.nan != nanFNUZ) {
				if got := enc(-v); got != c|f.signBit() {
					t.Fatalf("%v: encode(%v) = %#x, want %#x", ty, -v, got, c|f.signBit())
				}
			}
			if c == f.maxCode() {
				break
			}
			w := f.decode(c + 1)
			mid := v + (w-v)/2
			even := c
			if c%2 == 1 {
				even = c + 1
			}
			if got := enc(mid); got != even {
				t.Fatalf("%v: encode(midpoint %v) = %#x, want %#x", ty, mid, got, even)
			}
			if got := enc(math.Nextafter(mid, 0)); got != c {
				t.Fatalf("%v: encode(%v) = %#x, want %#x", ty, math.Nextafter(mid, 0), got, c)
			}
			if got := enc(math.Nextafter(mid, math.Inf(1))); got != c+1 {
				t.Fatalf("%v: encode(%v) = %#x, want %#x", ty, math.Nextafter(mid, math.Inf(1)), got, c+1)
			}
		}
	}
}

// TestEncodeBF16MatchesFloat32Rounding compares bf16 with the usual
// round-to-nearest-even truncation of a float32.
func TestEncodeBF16MatchesFloat32Rounding(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		x := r.Uint32()
		v := math.Float32frombits(x)
		if v != v {
			continue
		}
		want := uint16((x + 0x7fff + (x>>16)&1) >> 16)
		if uint64(x)+0x7fff+uint64(x>>16)&1 >= 1<<32 { // wrapped: -inf or beyond
			continue
		}
		got, err := encodeValue(BF16, float64(v))
		if want&0x7fff == 0x7f80 && !math.IsInf(float64(v), 0) { // a finite value rounding to ±inf
			if !errors.Is(err, ErrBadPadding) {
				t.Fatalf("bf16(%v) = % x, %v; want an out-of-range error", v, got, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if g := uint16(got[0]) | uint16(got[1])<<8; g != want {
			t.Fatalf("bf16(%v) = %#04x, want %#04x", v, g, want)
		}
	}
}
