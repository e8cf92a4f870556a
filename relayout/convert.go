package relayout

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

// Element type conversions: what a plan between shapes of different
// element types does to each element, one element at a time. The bulk
// conversions of the common pairs (kernel.ConvertF32ToBF16 and the
// like) must give the same bits; the tests hold them to these.
//
// Floating-point types (f64, f32, bf16, f16 and the 8-bit floats with a
// sign and a NaN) convert among themselves by the rules below. What they
// rely on: the formats' definitions (fields, bias, which patterns are
// NaN and inf), IEEE 754's round to nearest even, and, for what those
// leave open (overflow in a type without infinity, NaN payloads), a
// recollection of XLA's convert and ml_dtypes' float8 conversions that
// was not checked against their sources here (neither was at hand).
// f32 to f16 is checked bit for bit against NumPy's astype(np.float16)
// (TestConvertF32ToF16NumPy), f64 to f32 against Go's conversion.
//
//   - A finite value rounds once, from its exact value, to the nearest
//     value of the destination, ties to even; subnormals of either side
//     are kept, so widening is exact.
//   - A value beyond the largest finite one after rounding becomes ±inf
//     where the destination has infinities. Where it has none (f8e4m3fn,
//     the fnuz types) it becomes NaN: ml_dtypes' float8_e4m3fn has no
//     infinity, and its non-saturating conversion (the default, which
//     astype uses) returns for an overflow the type's "infinity", which
//     is the NaN pattern S.1111.111 (sign kept). ±inf converts the same
//     way. There is no saturating float conversion here.
//   - NaN stays NaN, and a quiet one: the sign and the top bits of the
//     payload are kept and the quiet bit is set, as x86's VCVTPS2PH,
//     VCVTPH2PS and VCVTNEPS2BF16 do with a NaN operand. A destination
//     with a single NaN pattern gets it (with the sign for f8e4m3fn's
//     S.1111.111; the fnuz types' NaN is the -0 pattern).
//   - fnuz destinations have no -0: a negative value that rounds to zero
//     becomes +0.
//
// Integer types (s1 to s64, u1 to u64) convert among themselves: the
// source is sign-extended (signed) or zero-extended (unsigned), then
// the destination keeps its low bits, two's complement wrapping as
// XLA's convert does (C++'s conversion of an integer to a narrower
// integer type); with Options.Saturate a value out of the destination's
// range becomes its nearest bound instead.
//
// Other pairs (an integer and a float, complex types, pred, f4e2m1fn,
// f8e8m0fnu, tuples and tokens) are not converted: Compile refuses them
// with ErrTypeMismatch.

// floatFormat returns the format of a float type that conversions take:
// the minifloats with a sign and a NaN, and f32 and f64 in the same
// terms.
func floatFormat(t DType) (minifloat, bool) {
	switch t {
	case F32:
		return minifloat{expBits: 8, mantBits: 23, bias: 127, nan: nanIEEE, signed: true}, true
	case F64:
		return minifloat{expBits: 11, mantBits: 52, bias: 1023, nan: nanIEEE, signed: true}, true
	case F4E2M1FN, F8E8M0FNU:
		return minifloat{}, false // no NaN, or no sign and no zero
	}
	return minifloatFormat(t)
}

// isIntType reports whether t is a signed or unsigned integer type (not
// pred).
func isIntType(t DType) bool {
	switch t {
	case S1, S2, S4, S8, S16, S32, S64, U1, U2, U4, U8, U16, U32, U64:
		return true
	}
	return false
}

// checkConvertible returns an error wrapping ErrTypeMismatch unless
// elements of type from convert to type to (see the rules above).
func checkConvertible(from, to DType) error {
	if from == to {
		return nil
	}
	_, ff := floatFormat(from)
	_, tf := floatFormat(to)
	if (ff && tf) || (isIntType(from) && isIntType(to)) {
		return nil
	}
	return fmt.Errorf("%w: no conversion from %s to %s (conversions are between float types f64 f32 bf16 f16 f8*, or between integer types s1-s64 u1-u64)",
		ErrTypeMismatch, from, to)
}

// conversion converts the bit pattern of one element (in the source
// type's natural width, in the low bits) to the destination's.
type conversion func(x uint64) uint64

// newConversion returns the conversion from type from to type to, which
// checkConvertible has accepted.
func newConversion(from, to DType, saturate bool) conversion {
	if from == to {
		return func(x uint64) uint64 { return x }
	}
	if isIntType(from) {
		fb, tb := from.Bits(), to.Bits()
		fs, ts := from.IsSigned(), to.IsSigned()
		return func(x uint64) uint64 { return convertInt(x, fb, fs, tb, ts, saturate) }
	}
	f, _ := floatFormat(from)
	t, _ := floatFormat(to)
	return newFloatConversion(f, t).convert
}

// floatConversion is convertFloat from f to t with the formats' masks
// and bounds worked out once: finite non-zero values take the short way,
// everything else (NaN, inf, zero) convertFloat.
type floatConversion struct {
	f, t minifloat
	// special is the least magnitude pattern of f that is not finite (f's
	// NaNs and infinities are at and above it), or above every pattern.
	special  uint64
	fSign    uint64
	fMag     uint64 // the bits below f's sign
	fMant    uint64 // f's mantissa field
	tSign    uint64
	tMax     uint64 // t's largest finite magnitude pattern
	tOver    uint64 // what a positive overflow becomes: +inf, or t's NaN
	tOverNeg uint64 // what a negative one becomes
	fMantB   int
	fSubExp  int // the exponent of f's subnormals' unit: 1 - bias - mantBits
	fNormExp int // bias + mantBits
	// Where t has fewer mantissa bits than f (shift of them), a normal
	// of f whose exponent field rebiased (+rebias) is one of t's normal
	// fields (1 to teTop-1) rounds by the bits it drops: half is half
	// the unit of t's last place, in f's.
	shift  int
	rebias int
	teTop  int
	half   uint64
}

// newFloatConversion returns the conversion from f to t.
func newFloatConversion(f, t minifloat) *floatConversion {
	c := &floatConversion{f: f, t: t, fSign: f.signBit(), tSign: t.signBit(), tMax: t.maxCode(),
		fMag: uint64(1)<<(f.expBits+f.mantBits) - 1, fMant: uint64(1)<<f.mantBits - 1, fMantB: f.mantBits,
		fSubExp: 1 - f.bias - f.mantBits, fNormExp: f.bias + f.mantBits,
		shift: f.mantBits - t.mantBits, rebias: t.bias - f.bias, teTop: 1 << t.expBits}
	if c.shift > 0 {
		c.half = uint64(1) << (c.shift - 1)
	}
	if t.nan == nanIEEE {
		c.tOver = (uint64(1)<<t.expBits - 1) << t.mantBits
		c.tOverNeg = c.tSign | c.tOver
	} else {
		c.tOver, c.tOverNeg = t.nanOf(0, 0, 0), t.nanOf(c.tSign, 0, 0)
	}
	switch f.nan {
	case nanIEEE:
		c.special = (uint64(1)<<f.expBits - 1) << f.mantBits
	case nanFN:
		c.special = c.fMag
	default:
		c.special = c.fMag + 1 // fnuz: NaN is the -0 pattern, zero's way
	}
	return c
}

// convert converts the pattern x (convertFloat).
func (c *floatConversion) convert(x uint64) uint64 {
	m := x & c.fMag
	if m == 0 || m >= c.special {
		return convertFloat(c.f, c.t, x)
	}
	var code uint64
	if te := int(m>>c.fMantB) + c.rebias; c.shift > 0 && te >= 1 && te < c.teTop && m>>c.fMantB != 0 {
		// Round to nearest even on the dropped bits; a carry moves
		// into the exponent, past the largest finite value to overflow.
		r := uint64(te)<<c.fMantB | m&c.fMant
		code = (r + c.half - 1 + (r>>c.shift)&1) >> c.shift
	} else {
		sig, exp := m&c.fMant, int(m>>c.fMantB)
		if exp == 0 {
			exp = c.fSubExp
		} else {
			sig |= c.fMant + 1
			exp -= c.fNormExp
		}
		code = c.t.round(sig, exp)
	}
	neg := x&c.fSign != 0
	switch {
	case code > c.tMax && neg:
		return c.tOverNeg
	case code > c.tMax:
		return c.tOver
	case code == 0 && c.t.nan == nanFNUZ, !neg:
		return code
	}
	return c.tSign | code
}

// convertInt converts the integer x, fb bits wide (signed when fs), to
// tb bits (signed when ts): wrapping, or clamped when saturate.
func convertInt(x uint64, fb int, fs bool, tb int, ts, saturate bool) uint64 {
	mask := func(b int) uint64 {
		if b >= 64 {
			return ^uint64(0)
		}
		return uint64(1)<<b - 1
	}
	x &= mask(fb)
	neg := false
	if fs {
		x = uint64(int64(x<<(64-fb)) >> (64 - fb)) // sign-extended
		neg = int64(x) < 0
	}
	if saturate {
		hi := mask(tb) // the largest value of to, as a non-negative number
		if ts {
			hi >>= 1
		}
		switch {
		case neg && !ts:
			x = 0
		case neg && int64(x) < -int64(hi)-1:
			x = uint64(-int64(hi) - 1)
		case !neg && x > hi:
			x = hi
		}
	}
	return x & mask(tb)
}

// magnitude returns the bits of x below f's sign bit.
func (f minifloat) magnitude(x uint64) uint64 {
	return x & (uint64(1)<<(f.expBits+f.mantBits) - 1)
}

// convertFloat converts the pattern x of format f to format t (see the
// rules at the top of this file).
func convertFloat(f, t minifloat, x uint64) uint64 {
	neg := x&f.signBit() != 0
	m := f.magnitude(x)
	var sign uint64
	if neg {
		sign = t.signBit()
	}
	expAll := uint64(1)<<f.expBits - 1
	frac := m & (uint64(1)<<f.mantBits - 1)
	switch {
	case f.nan == nanIEEE && m>>f.mantBits == expAll && frac != 0,
		f.nan == nanFN && m == f.nanCode(),
		f.nan == nanFNUZ && neg && m == 0:
		// NaN: the payload's top bits, quieted.
		var payload uint64
		switch f.nan {
		case nanIEEE:
			payload = frac
		case nanFNUZ:
			sign = 0 // the sign bit is what makes the pattern NaN
		}
		return t.nanOf(sign, payload, f.mantBits)
	case f.nan == nanIEEE && m>>f.mantBits == expAll:
		if t.nan == nanIEEE {
			return sign | (uint64(1)<<t.expBits-1)<<t.mantBits
		}
		return t.nanOf(sign, 0, 0)
	}
	if m == 0 {
		if t.nan == nanFNUZ {
			return 0
		}
		return sign
	}
	// The value is sig·2^exp.
	sig, exp := frac, int(m>>f.mantBits)
	if exp == 0 {
		exp = 1 - f.bias - f.mantBits
	} else {
		sig |= uint64(1) << f.mantBits
		exp -= f.bias + f.mantBits
	}
	code := t.round(sig, exp)
	if code > t.maxCode() {
		if t.nan == nanIEEE {
			return sign | (uint64(1)<<t.expBits-1)<<t.mantBits
		}
		return t.nanOf(sign, 0, 0)
	}
	if code == 0 && t.nan == nanFNUZ {
		return 0
	}
	return sign | code
}

// nanOf returns t's quiet NaN with sign (t's sign bit or 0) and, for
// IEEE formats, the top bits of payload, a fraction of payloadBits bits.
func (t minifloat) nanOf(sign, payload uint64, payloadBits int) uint64 {
	switch t.nan {
	case nanFNUZ:
		return t.signBit() // the one NaN, the -0 pattern
	case nanFN:
		return sign | t.nanCode()
	}
	if payloadBits > t.mantBits {
		payload >>= payloadBits - t.mantBits
	} else {
		payload <<= t.mantBits - payloadBits
	}
	return sign | t.nanCode() | payload
}

// round returns the magnitude pattern of the value sig·2^exp (sig > 0,
// under 2^63) rounded to t, ties to even; a pattern beyond maxCode means
// overflow. In integers: the value's leading bit gives its binade in t
// (or t's subnormals), whose spacing 2^q it is rounded to a multiple n
// of; the pattern of a normal is its biased exponent over the mantissa
// field plus n - 2^mantBits, which carries into the exponent when n
// rounds up to the next binade, and that of a subnormal is n.
func (t *minifloat) round(sig uint64, exp int) uint64 {
	lead := bits.Len64(sig) - 1 + exp // the value is in [2^lead, 2^(lead+1))
	emin := 1 - t.bias
	q := emin - t.mantBits
	if lead >= emin {
		q = lead - t.mantBits
	}
	var n uint64
	switch s := q - exp; {
	case s <= 0:
		n = sig << -s // exact: a wider format's value, or a narrower one's
	case s > 63:
		n = 0 // under half the spacing
	default:
		n = sig >> s
		rem, half := sig&(uint64(1)<<s-1), uint64(1)<<(s-1)
		if rem > half || rem == half && n&1 == 1 {
			n++
		}
	}
	if lead < emin {
		return n
	}
	return uint64(lead+t.bias)<<t.mantBits + n - uint64(1)<<t.mantBits
}

// converter converts runs of elements between two buffers of different
// element types. Elements are addressed by element offset; a packed
// side (storage bits under 8) holds its elements as tiling.Map.BitOffset
// places them. Sub-byte elements are written sign- or zero-extended to
// their byte or field, as the plans hold them.
type converter struct {
	from, to         DType
	srcBits, dstBits int64 // storage bits per element
	saturate         bool
	one              conversion
	// bulk, when set, converts n unpacked elements at once (the common
	// float pairs' kernels); streamed, when set with it, writes dst with
	// non-temporal stores (Stream's twins), which run takes with stream
	// (a destination larger than the caches).
	bulk, streamed func(dst, src []byte, n int)
	stream         bool
	// table, for sources of 16 bits or fewer, holds what put writes for
	// each source pattern (conversionTable); mask keeps a pattern's
	// natural bits.
	table []uint64
	mask  uint64
}

// newConverter returns the converter from elements of type from stored
// in srcBits bits to elements of type to in dstBits bits.
func newConverter(from, to DType, srcBits, dstBits int64, saturate bool) *converter {
	c := &converter{from: from, to: to, srcBits: srcBits, dstBits: dstBits, saturate: saturate, one: newConversion(from, to, saturate)}
	c.bulk, c.streamed = bulkConversion(from, to)
	if c.bulk == nil && from.Bits() <= 16 {
		c.table = conversionTable(from, to, saturate, c.one)
		c.mask = uint64(1)<<from.Bits() - 1
	}
	return c
}

// tableKey names a conversion table.
type tableKey struct {
	from, to DType
	saturate bool
}

// tables holds the conversion tables made so far ([]uint64 by tableKey):
// at most 2^16 entries each, made once per process.
var tables sync.Map

// conversionTable returns the table of the conversion one from type from
// (16 bits or fewer) to type to: entry x is one(x), sign-extended or
// masked to a byte for a sub-byte destination, as put writes it.
func conversionTable(from, to DType, saturate bool, one conversion) []uint64 {
	key := tableKey{from, to, saturate}
	if t, ok := tables.Load(key); ok {
		return t.([]uint64)
	}
	t := make([]uint64, 1<<from.Bits())
	for x := range t {
		v := one(uint64(x))
		if to.IsSubByte() {
			v = uint64(widenSubByte(byte(v), to))
		}
		t[x] = v
	}
	got, _ := tables.LoadOrStore(key, t)
	return got.([]uint64)
}

// run converts n elements: source elements [sOff, sOff+n) of src into
// destination elements [dOff, dOff+n) of dst.
func (c *converter) run(dst []byte, dOff int64, src []byte, sOff, n int64) {
	if n <= 0 {
		return
	}
	sw, dw := c.srcBits/8, c.dstBits/8
	if c.srcBits < 8 || c.dstBits < 8 {
		for i := range n {
			x := c.get(src, sOff+i)
			if c.table != nil {
				putElement(dst, dOff+i, c.dstBits, c.table[x&c.mask])
			} else {
				c.put(dst, dOff+i, c.one(x))
			}
		}
		return
	}
	s, d := src[sOff*sw:(sOff+n)*sw], dst[dOff*dw:(dOff+n)*dw]
	switch {
	case c.bulk != nil && c.stream:
		c.streamed(d, s, int(n))
	case c.bulk != nil:
		c.bulk(d, s, int(n))
	case c.table != nil:
		convertRun(d, dw, s, sw, n, func(x uint64) uint64 { return c.table[x&c.mask] })
	case c.to.IsSubByte():
		convertRun(d, dw, s, sw, n, func(x uint64) uint64 { return uint64(widenSubByte(byte(c.one(x)), c.to)) })
	default:
		convertRun(d, dw, s, sw, n, c.one)
	}
}

// convertRun writes conv of each of the n elements of s, sw bytes each,
// into d, dw bytes each.
func convertRun(d []byte, dw int64, s []byte, sw int64, n int64, conv func(uint64) uint64) {
	le := binary.LittleEndian
	for i := range n {
		var x uint64
		switch sw {
		case 1:
			x = uint64(s[i])
		case 2:
			x = uint64(le.Uint16(s[2*i:]))
		case 4:
			x = uint64(le.Uint32(s[4*i:]))
		default:
			x = le.Uint64(s[8*i:])
		}
		v := conv(x)
		switch dw {
		case 1:
			d[i] = byte(v)
		case 2:
			le.PutUint16(d[2*i:], uint16(v))
		case 4:
			le.PutUint32(d[4*i:], uint32(v))
		default:
			le.PutUint64(d[8*i:], v)
		}
	}
}

// get returns source element off's pattern in the low bits.
func (c *converter) get(src []byte, off int64) uint64 {
	return getElement(src, off, c.srcBits)
}

// put writes v as destination element off: a sub-byte value
// sign-extended first, as unpacked elements hold it and as fields wider
// than the value keep it (writeElement).
func (c *converter) put(dst []byte, off int64, v uint64) {
	if c.to.IsSubByte() {
		v = uint64(widenSubByte(byte(v), c.to))
	}
	putElement(dst, off, c.dstBits, v)
}

// getElement returns element off of a buffer of bits-bit elements.
func getElement(b []byte, off, bits int64) uint64 {
	switch bits {
	case 8:
		return uint64(b[off])
	case 16:
		return uint64(binary.LittleEndian.Uint16(b[2*off:]))
	case 32:
		return uint64(binary.LittleEndian.Uint32(b[4*off:]))
	case 64:
		return binary.LittleEndian.Uint64(b[8*off:])
	}
	bit := off * bits
	return uint64(b[bit/8]>>(8-bits-bit%8)) & (uint64(1)<<bits - 1)
}

// putElement writes the low bits of v as element off of a buffer of
// bits-bit elements.
func putElement(b []byte, off, bits int64, v uint64) {
	switch bits {
	case 8:
		b[off] = byte(v)
	case 16:
		binary.LittleEndian.PutUint16(b[2*off:], uint16(v))
	case 32:
		binary.LittleEndian.PutUint32(b[4*off:], uint32(v))
	case 64:
		binary.LittleEndian.PutUint64(b[8*off:], v)
	default:
		bit := off * bits
		shift := 8 - bits - bit%8
		mask := byte(1)<<bits - 1
		b[bit/8] = b[bit/8]&^(mask<<shift) | (byte(v)&mask)<<shift
	}
}

// bulkConversion returns the kernel that converts unpacked runs of from
// elements to to elements and its streaming twin, or nils where there is
// none (the elements then convert one at a time).
func bulkConversion(from, to DType) (plain, streamed func(dst, src []byte, n int)) {
	var s kernel.Stream
	switch {
	case from == F32 && to == BF16:
		return kernel.ConvertF32ToBF16, s.ConvertF32ToBF16
	case from == BF16 && to == F32:
		return kernel.ConvertBF16ToF32, s.ConvertBF16ToF32
	case from == F32 && to == F16:
		return kernel.ConvertF32ToF16, s.ConvertF32ToF16
	case from == F16 && to == F32:
		return kernel.ConvertF16ToF32, s.ConvertF16ToF32
	}
	return nil, nil
}
