package relayout

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// convertBits converts one pattern from type from to type to.
func convertBits(from, to DType, x uint64) uint64 {
	return newConversion(from, to, false)(x)
}

// TestConvertGolden checks conversions against bit patterns worked out
// from the formats' definitions (sign, exponent and mantissa fields,
// bias): f32 1.5 is 0x3fc00000, f16's largest finite value 65504 is
// 0x7bff, f8e4m3fn's 448 is 0x7e, and so on.
func TestConvertGolden(t *testing.T) {
	tests := []struct {
		name     string
		from, to DType
		in, want uint64
	}{
		// f32 → bf16: keep the top 16 bits, rounding the low 16 to even.
		{"bf16 one", F32, BF16, 0x3f800000, 0x3f80},
		{"bf16 below tie", F32, BF16, 0x3f807fff, 0x3f80},
		{"bf16 tie to even down", F32, BF16, 0x3f808000, 0x3f80},
		{"bf16 tie to even up", F32, BF16, 0x3f818000, 0x3f82},
		{"bf16 above tie", F32, BF16, 0x3f808001, 0x3f81},
		{"bf16 -0", F32, BF16, 0x80000000, 0x8000},
		{"bf16 max f32 to inf", F32, BF16, 0x7f7fffff, 0x7f80},
		{"bf16 largest that stays finite", F32, BF16, 0x7f7f7fff, 0x7f7f},
		{"bf16 -inf", F32, BF16, 0xff800000, 0xff80},
		{"bf16 subnormal", F32, BF16, 0x00010000, 0x0001},
		{"bf16 subnormal tie to zero", F32, BF16, 0x00008000, 0x0000},
		{"bf16 subnormal tie up", F32, BF16, 0x00018000, 0x0002},
		{"bf16 quiet NaN", F32, BF16, 0x7fc00000, 0x7fc0},
		{"bf16 negative NaN", F32, BF16, 0xffc00001, 0xffc0},
		{"bf16 signaling NaN quieted", F32, BF16, 0x7f800001, 0x7fc0},
		{"bf16 NaN payload", F32, BF16, 0x7fa00000, 0x7fe0},
		// f32 → f16: 5 exponent bits, bias 15, 10 mantissa bits.
		{"f16 one", F32, F16, 0x3f800000, 0x3c00},
		{"f16 -2", F32, F16, 0xc0000000, 0xc000},
		{"f16 max", F32, F16, f32b(65504), 0x7bff},
		{"f16 just under the tie to inf", F32, F16, f32b(65519.99), 0x7bff},
		{"f16 tie to even is inf", F32, F16, f32b(65520), 0x7c00},
		{"f16 1+2^-11 tie down", F32, F16, f32b(1 + 1.0/2048), 0x3c00},
		{"f16 1+3·2^-11 tie up", F32, F16, f32b(1 + 3.0/2048), 0x3c02},
		{"f16 min normal", F32, F16, f32b(1.0 / 16384), 0x0400},
		{"f16 min subnormal", F32, F16, f32b(0x1p-24), 0x0001},
		{"f16 half min subnormal ties to 0", F32, F16, f32b(0x1p-25), 0x0000},
		{"f16 just over half min subnormal", F32, F16, f32b(0x1.000002p-25), 0x0001},
		{"f16 3·2^-25 ties to 2", F32, F16, f32b(0x3p-25), 0x0002},
		{"f16 largest subnormal rounds to min normal", F32, F16, f32b(0x1.ffcp-15), 0x0400},
		{"f16 f32 subnormal to -0", F32, F16, 0x80000001, 0x8000},
		{"f16 inf", F32, F16, 0x7f800000, 0x7c00},
		{"f16 quiet NaN", F32, F16, 0x7fc00000, 0x7e00},
		{"f16 signaling NaN quieted", F32, F16, 0xff800001, 0xfe00},
		{"f16 NaN payload", F32, F16, 0x7fa00000, 0x7f00},
		// f32 → f8e5m2: f16's exponent, 2 mantissa bits.
		{"e5m2 one", F32, F8E5M2, 0x3f800000, 0x3c},
		{"e5m2 1.125 ties to 1", F32, F8E5M2, f32b(1.125), 0x3c},
		{"e5m2 1.375 ties to 1.5", F32, F8E5M2, f32b(1.375), 0x3e},
		{"e5m2 max", F32, F8E5M2, f32b(57344), 0x7b},
		{"e5m2 tie above max is inf", F32, F8E5M2, f32b(61440), 0x7c},
		{"e5m2 just under that tie", F32, F8E5M2, f32b(61439), 0x7b},
		{"e5m2 -inf", F32, F8E5M2, 0xff800000, 0xfc},
		{"e5m2 min subnormal", F32, F8E5M2, f32b(0x1p-16), 0x01},
		{"e5m2 half of it ties to 0", F32, F8E5M2, f32b(0x1p-17), 0x00},
		{"e5m2 NaN", F32, F8E5M2, 0x7fc00000, 0x7e},
		{"e5m2 negative NaN", F32, F8E5M2, 0xffc00000, 0xfe},
		// f32 → f8e4m3fn: 4 exponent bits, bias 7, 3 mantissa bits, no
		// infinity, S.1111.111 NaN, so the largest value is 448 (0x7e).
		{"e4m3fn one", F32, F8E4M3FN, 0x3f800000, 0x38},
		{"e4m3fn -1.75", F32, F8E4M3FN, f32b(-1.75), 0xbe},
		{"e4m3fn max", F32, F8E4M3FN, f32b(448), 0x7e},
		{"e4m3fn 464 ties to 448", F32, F8E4M3FN, f32b(464), 0x7e},
		{"e4m3fn over 464 overflows to NaN", F32, F8E4M3FN, f32b(464.01), 0x7f},
		{"e4m3fn negative overflow to -NaN", F32, F8E4M3FN, f32b(-1000), 0xff},
		{"e4m3fn inf to NaN", F32, F8E4M3FN, 0x7f800000, 0x7f},
		{"e4m3fn -inf to -NaN", F32, F8E4M3FN, 0xff800000, 0xff},
		{"e4m3fn NaN", F32, F8E4M3FN, 0x7fc00000, 0x7f},
		{"e4m3fn min subnormal", F32, F8E4M3FN, f32b(0x1p-9), 0x01},
		{"e4m3fn 3·2^-10 ties to 2·2^-9", F32, F8E4M3FN, f32b(0x3p-10), 0x02},
		{"e4m3fn min normal", F32, F8E4M3FN, f32b(0x1p-6), 0x08},
		// f8e4m3fnuz: bias 8, no -0: NaN is 0x80, -tiny rounds to +0.
		{"e4m3fnuz one", F32, F8E4M3FNUZ, 0x3f800000, 0x40},
		{"e4m3fnuz -0 is +0", F32, F8E4M3FNUZ, 0x80000000, 0x00},
		{"e4m3fnuz -tiny is +0", F32, F8E4M3FNUZ, f32b(-0x1p-30), 0x00},
		{"e4m3fnuz NaN", F32, F8E4M3FNUZ, 0xffc00000, 0x80},
		{"e4m3fnuz overflow", F32, F8E4M3FNUZ, f32b(1000), 0x80},
		// f64 → narrower: one rounding from the f64 value.
		{"f64 to f32 tie", F64, F32, 0x3ff0000010000000, 0x3f800000},
		{"f64 to f32 just over tie", F64, F32, 0x3ff0000010000001, 0x3f800001},
		{"f64 to f32 subnormal", F64, F32, math.Float64bits(0x1p-149), 0x00000001},
		{"f64 to bf16 no double rounding", F64, BF16, math.Float64bits(1 + 0x1p-8 + 0x1p-30), 0x3f81},
		{"f64 to f16 NaN payload", F64, F16, 0x7ff4000000000000, 0x7f00},
		{"f64 to e4m3fn", F64, F8E4M3FN, math.Float64bits(-0.5), 0xb0},
		// Widening: exact, NaN quieted.
		{"bf16 to f32", BF16, F32, 0x3f81, 0x3f810000},
		{"bf16 signaling NaN to f32", BF16, F32, 0x7f81, 0x7fc10000},
		{"f16 subnormal to f32", F16, F32, 0x0001, 0x33800000},
		{"f16 largest subnormal to f32", F16, F32, 0x83ff, 0xb87fc000},
		{"f16 to f64", F16, F64, 0x3c01, 0x3ff0040000000000},
		{"f16 inf to f64", F16, F64, 0xfc00, 0xfff0000000000000},
		{"e4m3fn NaN to f32", F8E4M3FN, F32, 0xff, 0xffc00000},
		{"e4m3fn max to f32", F8E4M3FN, F32, 0x7e, f32b(448)},
		{"e4m3fn subnormal to f16", F8E4M3FN, F16, 0x01, 0x1800},
		{"e5m2 to f16 is a shift", F8E5M2, F16, 0xbb, 0xbb00},
		{"e5m2 signaling NaN to f16", F8E5M2, F16, 0x7d, 0x7f00},
		{"e4m3fnuz NaN to f32", F8E4M3FNUZ, F32, 0x80, 0x7fc00000},
		// bf16 ↔ f16.
		{"bf16 to f16 rounds", BF16, F16, 0x3f81, 0x3c08},
		{"bf16 to f16 overflow", BF16, F16, 0x4780, 0x7c00},
		{"bf16 to f16 underflow", BF16, F16, 0x3300, 0x0000},
		{"f16 to bf16 rounds", F16, BF16, 0x3c03, 0x3f80},
		{"f16 to bf16 tie", F16, BF16, 0x3c04, 0x3f80},
		{"f16 to bf16 subnormal", F16, BF16, 0x0001, 0x3380},
		// Integers: sign or zero extension, wrapping truncation.
		{"s8 -1 to s32", S8, S32, 0xff, 0xffffffff},
		{"s8 -128 to s64", S8, S64, 0x80, 0xffffffffffffff80},
		{"u8 255 to u32", U8, U32, 0xff, 0xff},
		{"u8 255 to s32", U8, S32, 0xff, 0xff},
		{"s8 -1 to u32 wraps", S8, U32, 0xff, 0xffffffff},
		{"s4 -8 to s32", S4, S32, 0x8, 0xfffffff8},
		{"s4 -1 unpacked to s16", S4, S16, 0xff, 0xffff},
		{"u4 15 to u32", U4, U32, 0xf, 0xf},
		{"s32 300 to s8 wraps", S32, S8, 300, 44},
		{"s32 -129 to s8 wraps", S32, S8, 0xffffff7f, 0x7f},
		{"s32 to s4 keeps 4 bits", S32, S4, 0x17, 0x7},
		{"u32 to u4", U32, U4, 0x1f, 0xf},
		{"s2 -2 to s8", S2, S8, 0x2, 0xfe},
		{"u64 max to s64", U64, S64, ^uint64(0), ^uint64(0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := checkConvertible(tc.from, tc.to); err != nil {
				t.Fatal(err)
			}
			if got := convertBits(tc.from, tc.to, tc.in); got != tc.want {
				t.Errorf("%s %#x to %s: got %#x, want %#x", tc.from, tc.in, tc.to, got, tc.want)
			}
		})
	}
}

// f32b is the f32 bit pattern of v.
func f32b(v float32) uint64 { return uint64(math.Float32bits(v)) }

// TestConvertSaturate checks the integer narrowing that Options.Saturate
// asks for: out-of-range values become the nearest bound.
func TestConvertSaturate(t *testing.T) {
	tests := []struct {
		from, to DType
		in, want uint64
	}{
		{S32, S8, 300, 0x7f},
		{S32, S8, 0xffffff7f, 0x80}, // -129
		{S32, S8, 0xffffff80, 0x80}, // -128 stays
		{S32, S8, 5, 5},
		{S32, U8, 0xffffffff, 0}, // -1
		{S32, U8, 256, 0xff},
		{U32, S8, 200, 0x7f},
		{U32, S32, 0xffffffff, 0x7fffffff},
		{S64, U64, 1 << 63, 0},
		{U64, S64, ^uint64(0), 1<<63 - 1},
		{S32, S4, 9, 0x7},
		{S32, S4, 0xfffffff0, 0x8}, // -16 → -8
		{S8, U4, 0x20, 0xf},
		{S8, S32, 0x80, 0xffffff80}, // widening is exact either way
	}
	for _, tc := range tests {
		if got := newConversion(tc.from, tc.to, true)(tc.in); got != tc.want {
			t.Errorf("%s %#x to %s saturating: got %#x, want %#x", tc.from, tc.in, tc.to, got, tc.want)
		}
	}
}

// TestConvertRefused checks that pairs without a conversion are refused.
func TestConvertRefused(t *testing.T) {
	for _, p := range [][2]DType{{F32, S32}, {S8, F16}, {C64, F32}, {F32, C64}, {PRED, S8}, {S8, PRED},
		{F32, F4E2M1FN}, {F8E8M0FNU, F32}, {Token, F32}, {C64, C128}} {
		if err := checkConvertible(p[0], p[1]); !errors.Is(err, ErrTypeMismatch) {
			t.Errorf("%s to %s: got %v, want ErrTypeMismatch", p[0], p[1], err)
		}
	}
}

// TestConvertWideningExact checks that every pattern of the 8- and
// 16-bit floats survives widening to f32 and f64 and narrowing back
// (NaNs as NaNs), and that the 16-bit kernels agree with the scalar
// conversion on every pattern.
func TestConvertWideningExact(t *testing.T) {
	for _, small := range []DType{F16, BF16, F8E5M2, F8E4M3FN, F8E4M3, F8E3M4, F8E5M2FNUZ, F8E4M3FNUZ, F8E4M3B11FNUZ} {
		f, _ := floatFormat(small)
		n := uint64(1) << small.Bits()
		for _, wide := range []DType{F32, F64} {
			for x := range n {
				w := convertBits(small, wide, x)
				back := convertBits(wide, small, w)
				if isNaNBits(small, x) {
					if !isNaNBits(small, back) || !isNaNBits(wide, w) {
						t.Fatalf("%s NaN %#x via %s %#x came back %#x", small, x, wide, w, back)
					}
					continue
				}
				if back != x {
					t.Fatalf("%s %#x via %s %#x came back %#x", small, x, wide, w, back)
				}
				if wide == F64 && f.nan == nanIEEE && math.Float64frombits(w) != float64(math.Float32frombits(uint32(convertBits(small, F32, x)))) {
					t.Fatalf("%s %#x: f64 and f32 widening disagree", small, x)
				}
			}
		}
	}
	src := make([]byte, 2<<16)
	for x := range 1 << 16 {
		binary.LittleEndian.PutUint16(src[2*x:], uint16(x))
	}
	for _, small := range []DType{F16, BF16} {
		dst := make([]byte, 4<<16)
		plain, _ := bulkConversion(small, F32)
		plain(dst, src, 1<<16)
		for x := range 1 << 16 {
			if got, want := binary.LittleEndian.Uint32(dst[4*x:]), convertBits(small, F32, uint64(x)); uint64(got) != want {
				t.Fatalf("%s %#x to f32: kernel %#x, scalar %#x", small, x, got, want)
			}
		}
	}
}

// isNaNBits reports whether x is a NaN of float type t.
func isNaNBits(t DType, x uint64) bool {
	f, _ := floatFormat(t)
	return math.IsNaN(convFloat64(f, x))
}

// convFloat64 is the value of pattern x of format f as an f64.
func convFloat64(f minifloat, x uint64) float64 {
	f64, _ := floatFormat(F64)
	return math.Float64frombits(convertFloat(f, f64, x))
}

// randomF32 returns n f32 patterns: random bits, random values near 1,
// exact ties of bf16 and f16, subnormals, and the special values.
func randomF32(r *rand.Rand, n int) []uint32 {
	out := []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7fc00001,
		0x00000001, 0x807fffff, 0x7f7fffff, 0x477fefff, 0x477ff000, 0x33000000, 0x33000001, 0x387fc000}
	for len(out) < n {
		x := r.Uint32()
		switch r.IntN(6) {
		case 0: // near 1
			x = math.Float32bits(float32(r.NormFloat64()))
		case 1: // an exact tie of bf16 (and of f16 when the low 13 bits are too)
			x = x&^0xffff | 0x8000
		case 2: // an exact tie of f16 normals
			x = x&^0x1fff | 0x1000
		case 3: // in f16's subnormal range, possibly a tie
			x = x&0x80000000 | uint32(103+r.IntN(10))<<23 | x&0x7fe000 | uint32(r.IntN(2))<<12
		case 4: // f32 subnormal
			x &= 0x807fffff
		}
		out = append(out, x)
	}
	return out
}

// TestConvertF32Kernels checks the bulk f32 to bf16 and f16 kernels
// against the scalar conversion, and bf16 against the round-to-nearest-
// even bit formula (bits + 0x7FFF + ((bits>>16)&1)) >> 16 for non-NaNs.
func TestConvertF32Kernels(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := randomF32(r, 1<<16)
	src := make([]byte, 4*len(vals))
	for i, x := range vals {
		binary.LittleEndian.PutUint32(src[4*i:], x)
	}
	for _, to := range []DType{BF16, F16} {
		dst := make([]byte, 2*len(vals))
		plain, _ := bulkConversion(F32, to)
		plain(dst, src, len(vals))
		for i, x := range vals {
			got := binary.LittleEndian.Uint16(dst[2*i:])
			want := convertBits(F32, to, uint64(x))
			if uint64(got) != want {
				t.Fatalf("f32 %#x to %s: kernel %#x, scalar %#x", x, to, got, want)
			}
			if to == BF16 && x&0x7fffffff <= 0x7f800000 {
				if f := uint16((x + 0x7fff + ((x >> 16) & 1)) >> 16); f != got {
					t.Fatalf("f32 %#x to bf16: %#x, the formula gives %#x", x, got, f)
				}
			}
		}
	}
}

// TestConvertF64ToF32 checks f64 to f32 against Go's conversion, which
// rounds to nearest even, on random f64 patterns around f32's range.
func TestConvertF64ToF32(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		x := r.Uint64()
		if r.IntN(2) == 0 { // exponents f32 can hold or nearly: normals, subnormals, overflow
			x = x&0x800fffffffffffff | uint64(1023-160+r.IntN(300))<<52
		}
		v := math.Float64frombits(x)
		got := convertBits(F64, F32, x)
		want := uint64(math.Float32bits(float32(v)))
		if math.IsNaN(v) {
			want = uint64(uint32(x>>32)&0x80000000 | 0x7fc00000 | uint32(x>>29)&0x7fffff)
		}
		if got != want {
			t.Fatalf("f64 %#x (%g) to f32: got %#x, want %#x", x, v, got, want)
		}
	}
}

// TestConvertF32ToF16NumPy checks f32 to f16 bit for bit against NumPy's
// astype(np.float16) on random values with NaNs, ±inf, ±0, subnormals and
// exact ties. NumPy (1.24 at least) keeps a signaling NaN's payload
// without setting the quiet bit (0x7f800001 becomes 0x7c01) where the
// conversion here quiets it as x86's VCVTPS2PH does (0x7e00): for those,
// both must be NaN of the same sign.
func TestConvertF32ToF16NumPy(t *testing.T) {
	py := numpyPython()
	if py == "" {
		t.Skip("no python3 with numpy (Debian: apt-get install python3-numpy); skipping the NumPy comparison")
	}
	r := rand.New(rand.NewPCG(5, 6))
	vals := randomF32(r, 20000)
	var in strings.Builder
	for _, x := range vals {
		fmt.Fprintf(&in, "%d\n", x)
	}
	const script = `
import sys, numpy as np, warnings
warnings.simplefilter("ignore")
x = np.array([int(l) for l in sys.stdin.read().split()], dtype=np.uint32)
h = x.view(np.float32).astype(np.float16).view(np.uint16)
print(" ".join(str(int(v)) for v in h))
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("numpy: %v", err)
	}
	fields := strings.Fields(string(out))
	if len(fields) != len(vals) {
		t.Fatalf("numpy returned %d values for %d", len(fields), len(vals))
	}
	for i, x := range vals {
		np, err := strconv.ParseUint(fields[i], 10, 16)
		if err != nil {
			t.Fatal(err)
		}
		got := convertBits(F32, F16, uint64(x))
		if signaling := x&0x7f800000 == 0x7f800000 && x&0x7fffff != 0 && x&0x400000 == 0; signaling {
			if !isNaNBits(F16, np) || !isNaNBits(F16, got) || np&0x8000 != got&0x8000 {
				t.Errorf("f32 signaling NaN %#x: numpy %#x, here %#x", x, np, got)
			}
			continue
		}
		if got != np {
			t.Errorf("f32 %#x (%g) to f16: numpy %#x, here %#x", x, math.Float32frombits(x), np, got)
		}
	}
}

// numpyPython returns a Python interpreter that can import numpy: python3
// on PATH or Debian's /usr/bin/python3 (python3-numpy), or "".
func numpyPython() string {
	cands := []string{"/usr/bin/python3"}
	if p, err := exec.LookPath("python3"); err == nil {
		cands = append([]string{p}, cands...)
	}
	for _, p := range cands {
		if exec.Command(p, "-c", "import numpy").Run() == nil {
			return p
		}
	}
	return ""
}

// TestConverterPacked checks that the converter reads and writes packed
// elements where tiling.Map.BitOffset puts them, and sign-extends
// unpacked sub-byte destinations.
func TestConverterPacked(t *testing.T) {
	// s4 packed, first element in the high nibble: -1, 7, -8.
	src := []byte{0xf7, 0x80}
	dst := make([]byte, 12)
	newConverter(S4, S32, 4, 32, false).run(dst, 0, src, 0, 3)
	want := []uint32{0xffffffff, 7, 0xfffffff8}
	for i, w := range want {
		if got := binary.LittleEndian.Uint32(dst[4*i:]); got != w {
			t.Errorf("element %d: got %#x, want %#x", i, got, w)
		}
	}
	back := make([]byte, 2)
	newConverter(S32, S4, 32, 4, false).run(back, 0, dst, 0, 3)
	if back[0] != 0xf7 || back[1] != 0x80 {
		t.Errorf("packed back: %x, want f7 80", back)
	}
	one := make([]byte, 3)
	newConverter(S32, S4, 32, 8, false).run(one, 0, dst, 0, 3)
	if one[0] != 0xff || one[1] != 7 || one[2] != 0xf8 {
		t.Errorf("unpacked s4: %x, want ff 07 f8", one)
	}
}

// TestConvertMatchesEncode checks the conversions from f64 against the
// padding encoder (minifloat.encode, value.go), which rounds in float64
// arithmetic: random f64 values around each type's range, NaN and
// overflow aside (the encoder refuses overflow where there is no
// infinity).
func TestConvertMatchesEncode(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for _, ty := range []DType{F16, BF16, F8E5M2, F8E4M3, F8E4M3FN, F8E4M3B11FNUZ, F8E3M4, F8E5M2FNUZ, F8E4M3FNUZ} {
		f, _ := floatFormat(ty)
		compared := 0
		for range 100000 {
			x := r.Uint64()
			// Exponents from well under the subnormals to past the top.
			x = x&0x800fffffffffffff | uint64(1023-f.bias-f.mantBits-3+r.IntN(f.bias+f.mantBits+(1<<f.expBits)-f.bias+6))<<52
			if r.IntN(4) == 0 { // a tie or close to one
				x &^= 1<<(52-f.mantBits) - 1
				x |= uint64(r.IntN(3)) << (51 - f.mantBits)
			}
			v := math.Float64frombits(x)
			want, err := f.encode(ty, v)
			if err != nil {
				continue
			}
			if got := convertBits(F64, ty, x); got != want {
				t.Fatalf("f64 %#x (%g) to %s: %#x, the encoder gives %#x", x, v, ty, got, want)
			}
			compared++
		}
		if compared < 50000 {
			t.Errorf("%s: only %d of 100000 values compared", ty, compared)
		}
	}
}
