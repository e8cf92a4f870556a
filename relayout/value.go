package relayout

import (
	"fmt"
	"math"
)

// nanStyle says how a small float type encodes NaN and whether it has
// infinities.
type nanStyle uint8

const (
	nanIEEE nanStyle = iota // exponent all ones: mantissa 0 is ±inf, else NaN
	nanFN                   // no infinities; all ones (exponent and mantissa) is NaN
	nanFNUZ                 // no infinities, no -0; the -0 pattern (sign only) is NaN
	nanNone                 // no infinities and no NaN: every pattern is finite
)

// minifloat describes a small binary floating-point format.
type minifloat struct {
	expBits, mantBits int
	bias              int
	nan               nanStyle
	signed            bool // has a sign bit
	// noZero: the all-zero exponent field is a normal binade (no subnormals,
	// no zero), as in f8e8m0fnu.
	noZero bool
}

// minifloatFormat returns the format of a small float type.
func minifloatFormat(t DType) (minifloat, bool) {
	switch t {
	case F16:
		return minifloat{expBits: 5, mantBits: 10, bias: 15, nan: nanIEEE, signed: true}, true
	case BF16:
		return minifloat{expBits: 8, mantBits: 7, bias: 127, nan: nanIEEE, signed: true}, true
	case F8E5M2:
		return minifloat{expBits: 5, mantBits: 2, bias: 15, nan: nanIEEE, signed: true}, true
	case F8E4M3:
		return minifloat{expBits: 4, mantBits: 3, bias: 7, nan: nanIEEE, signed: true}, true
	case F8E4M3FN:
		return minifloat{expBits: 4, mantBits: 3, bias: 7, nan: nanFN, signed: true}, true
	case F8E4M3B11FNUZ:
		return minifloat{expBits: 4, mantBits: 3, bias: 11, nan: nanFNUZ, signed: true}, true
	case F8E3M4:
		return minifloat{expBits: 3, mantBits: 4, bias: 3, nan: nanIEEE, signed: true}, true
	case F8E5M2FNUZ:
		return minifloat{expBits: 5, mantBits: 2, bias: 16, nan: nanFNUZ, signed: true}, true
	case F8E4M3FNUZ:
		return minifloat{expBits: 4, mantBits: 3, bias: 8, nan: nanFNUZ, signed: true}, true
	case F4E2M1FN:
		return minifloat{expBits: 2, mantBits: 1, bias: 1, nan: nanNone, signed: true}, true
	case F8E8M0FNU:
		return minifloat{expBits: 8, mantBits: 0, bias: 127, nan: nanFN, noZero: true}, true
	}
	return minifloat{}, false
}

// signBit is the sign bit's mask (0 for an unsigned format).
func (f minifloat) signBit() uint64 {
	if !f.signed {
		return 0
	}
	return 1 << (f.expBits + f.mantBits)
}

// maxCode is the largest finite magnitude pattern. Magnitude patterns (the
// bits below the sign) order the same way as the values they encode.
func (f minifloat) maxCode() uint64 {
	all := uint64(1)<<(f.expBits+f.mantBits) - 1
	switch f.nan {
	case nanIEEE:
		return all - uint64(1)<<f.mantBits // exponent all ones is inf/NaN
	case nanFN:
		return all - 1
	}
	return all
}

// nanCode is the pattern of a positive quiet NaN.
func (f minifloat) nanCode() uint64 {
	switch f.nan {
	case nanIEEE:
		return (uint64(1)<<f.expBits-1)<<f.mantBits | uint64(1)<<(f.mantBits-1)
	case nanFN:
		return uint64(1)<<(f.expBits+f.mantBits) - 1
	}
	return f.signBit() // nanFNUZ
}

// encode rounds v to the nearest value of the format, ties to even, and
// returns its bit pattern. A finite value that rounds beyond the largest
// finite one is an error, whether or not the format has infinities: only
// an infinite v encodes as infinity.
func (f minifloat) encode(t DType, v float64) (uint64, error) {
	if math.IsNaN(v) {
		if f.nan == nanNone {
			return 0, fmt.Errorf("%w: %s has no NaN", ErrBadPadding, t)
		}
		return f.nanCode(), nil
	}
	neg := math.Signbit(v)
	if neg && !f.signed {
		return 0, fmt.Errorf("%w: %s cannot hold the negative value %v", ErrBadPadding, t, v)
	}
	var sign uint64
	if neg {
		sign = f.signBit()
	}
	a := math.Abs(v)
	infCode := (uint64(1)<<f.expBits - 1) << f.mantBits
	if math.IsInf(a, 0) {
		if f.nan != nanIEEE {
			return 0, fmt.Errorf("%w: %s has no infinity", ErrBadPadding, t)
		}
		return sign | infCode, nil
	}
	if a == 0 {
		if f.noZero {
			return 0, fmt.Errorf("%w: %s cannot hold zero", ErrBadPadding, t)
		}
		if f.nan == nanFNUZ {
			return 0, nil // no -0: its pattern is NaN
		}
		return sign, nil
	}
	// Field value of the lowest normal binade, and its unbiased exponent.
	minField := 1
	if f.noZero {
		minField = 0
	}
	emin := minField - f.bias
	// a = frac·2^exp with frac in [0.5, 1), so a is in [2^e, 2^(e+1)).
	_, exp := math.Frexp(a)
	e := exp - 1
	var code uint64
	switch {
	case e >= emin:
		// Normal: a/q in [2^m, 2^(m+1)) with q the spacing in this binade;
		// the pattern is field<<m + (n - 2^m), which carries into the
		// exponent when n rounds up to 2^(m+1).
		n := f.roundEven(math.Ldexp(a, f.mantBits-e), uint64(e+f.bias)<<f.mantBits-uint64(1)<<f.mantBits)
		code = uint64(e+f.bias)<<f.mantBits + n - uint64(1)<<f.mantBits
	case f.noZero:
		code = 0 // nothing smaller than the lowest binade: it is nearest
	default:
		// Subnormal: spacing 2^(emin-m); the pattern is the multiple.
		code = f.roundEven(math.Ldexp(a, f.mantBits-emin), 0)
	}
	if code > f.maxCode() {
		return 0, fmt.Errorf("%w: %v is out of range for %s", ErrBadPadding, v, t)
	}
	if code == 0 && f.nan == nanFNUZ {
		sign = 0 // a negative value that rounds to zero is +0
	}
	return sign | code, nil
}

// roundEven rounds the non-negative x to an integer n, breaking ties toward
// the n whose pattern offset+n is even (offset may wrap around; only its
// parity matters).
func (f minifloat) roundEven(x float64, offset uint64) uint64 {
	fl := math.Floor(x)
	n := uint64(fl)
	switch rem := x - fl; {
	case rem > 0.5:
		n++
	case rem == 0.5 && (offset+n)%2 == 1:
		n++
	}
	return n
}

// encodeValue encodes v as one element of type t: the little-endian bit
// pattern in t.ByteWidth() bytes, sub-byte types in the low bits of their
// byte (s4 -1 is 0x0f, not sign-extended).
//
// Integer types (pred included, whose values are 0 and 1) need an integer
// within the type's range. f32 and f64 convert as Go does, except
// that every NaN becomes the type's quiet NaN and that a finite value
// that f32 cannot hold (it would round to ±inf) is an error. The smaller
// float types round to nearest, ties to even, through one encoder
// parameterised by their exponent and mantissa widths, bias, NaN and
// infinity encoding and sign: NaN becomes the type's quiet NaN; a finite
// value too large for the type is an error (neither silent saturation nor
// a silent ±inf; ±inf itself encodes where the type has it); a value too small
// becomes zero (f8e8m0fnu, which has no zero, rejects 0 and negatives and
// rounds tiny values up to 2^-127). c64 and c128 take v as the real part,
// with a zero imaginary part. Every error wraps ErrBadPadding.
func encodeValue(t DType, v float64) ([]byte, error) {
	if !t.IsArray() {
		return nil, fmt.Errorf("%w: %s is not an array element type", ErrBadPadding, t)
	}
	out := make([]byte, t.ByteWidth())
	var bits uint64
	switch t {
	case F32, C64:
		f := float32(v)
		if math.IsInf(float64(f), 0) && !math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: %v is out of range for %s", ErrBadPadding, v, t)
		}
		bits = uint64(math.Float32bits(f))
		if math.IsNaN(v) {
			bits = dtypes[F32].nan
		}
	case F64, C128:
		bits = math.Float64bits(v)
		if math.IsNaN(v) {
			bits = dtypes[F64].nan
		}
	case PRED, S1, S2, S4, S8, S16, S32, S64, U1, U2, U4, U8, U16, U32, U64:
		var err error
		if bits, err = encodeInt(t, v); err != nil {
			return nil, err
		}
	default:
		f, ok := minifloatFormat(t)
		if !ok {
			return nil, fmt.Errorf("%w: no encoding for %s", ErrBadPadding, t)
		}
		var err error
		if bits, err = f.encode(t, v); err != nil {
			return nil, err
		}
	}
	for i := 0; i < len(out) && i < 8; i++ {
		out[i] = byte(bits >> (8 * i))
	}
	return out, nil
}

// encodeInt returns the pattern of the integer v in t's natural width.
func encodeInt(t DType, v float64) (uint64, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v != math.Trunc(v) {
		return 0, fmt.Errorf("%w: %v is not an integer, as %s requires", ErrBadPadding, v, t)
	}
	n := t.Bits()
	if t == PRED {
		n = 1 // pred is stored in a byte but holds 0 or 1
	}
	if t.IsSigned() {
		lo, hi := -math.Ldexp(1, n-1), math.Ldexp(1, n-1) // v in [lo, hi)
		if v < lo || v >= hi {
			return 0, fmt.Errorf("%w: %v is out of range for %s", ErrBadPadding, v, t)
		}
		x := uint64(int64(v))
		if n < 64 {
			x &= uint64(1)<<n - 1
		}
		return x, nil
	}
	if v < 0 || v >= math.Ldexp(1, n) {
		return 0, fmt.Errorf("%w: %v is out of range for %s", ErrBadPadding, v, t)
	}
	return uint64(v), nil
}
