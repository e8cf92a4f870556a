package relayout

import (
	"fmt"
)

// DType is an XLA primitive element type.
type DType uint8

// The XLA primitive types, named as XLA's shape text names them.
const (
	InvalidType DType = iota
	PRED
	S1
	S2
	S4
	S8
	S16
	S32
	S64
	U1
	U2
	U4
	U8
	U16
	U32
	U64
	F16
	BF16
	F32
	F64
	C64
	C128
	F8E5M2
	F8E4M3
	F8E4M3FN
	F8E4M3B11FNUZ
	F8E3M4
	F8E5M2FNUZ
	F8E4M3FNUZ
	F4E2M1FN
	F8E8M0FNU
	Token
	Opaque
	Tuple
	numDTypes
)

// dtypeInfo describes one primitive type.
type dtypeInfo struct {
	name   string
	bits   int  // natural width in bits (pred: 8, as XLA stores it)
	array  bool // can be the element type of an array
	signed bool // integer type whose unpacked form is sign-extended
	// little-endian bit patterns of the padding values, nil when the type has none
	lowest, highest, nan uint64
	hasOrder, hasNaN     bool
}

var dtypes = [numDTypes]dtypeInfo{
	InvalidType:   {name: "invalid"},
	PRED:          {name: "pred", bits: 8, array: true, lowest: 0, highest: 1, hasOrder: true},
	S1:            {name: "s1", bits: 1, array: true, signed: true, lowest: 0x1, highest: 0x0, hasOrder: true},
	S2:            {name: "s2", bits: 2, array: true, signed: true, lowest: 0x2, highest: 0x1, hasOrder: true},
	S4:            {name: "s4", bits: 4, array: true, signed: true, lowest: 0x8, highest: 0x7, hasOrder: true},
	S8:            {name: "s8", bits: 8, array: true, signed: true, lowest: 0x80, highest: 0x7f, hasOrder: true},
	S16:           {name: "s16", bits: 16, array: true, signed: true, lowest: 0x8000, highest: 0x7fff, hasOrder: true},
	S32:           {name: "s32", bits: 32, array: true, signed: true, lowest: 0x80000000, highest: 0x7fffffff, hasOrder: true},
	S64:           {name: "s64", bits: 64, array: true, signed: true, lowest: 1 << 63, highest: 1<<63 - 1, hasOrder: true},
	U1:            {name: "u1", bits: 1, array: true, lowest: 0, highest: 0x1, hasOrder: true},
	U2:            {name: "u2", bits: 2, array: true, lowest: 0, highest: 0x3, hasOrder: true},
	U4:            {name: "u4", bits: 4, array: true, lowest: 0, highest: 0xf, hasOrder: true},
	U8:            {name: "u8", bits: 8, array: true, lowest: 0, highest: 0xff, hasOrder: true},
	U16:           {name: "u16", bits: 16, array: true, lowest: 0, highest: 0xffff, hasOrder: true},
	U32:           {name: "u32", bits: 32, array: true, lowest: 0, highest: 0xffffffff, hasOrder: true},
	U64:           {name: "u64", bits: 64, array: true, lowest: 0, highest: ^uint64(0), hasOrder: true},
	F16:           {name: "f16", bits: 16, array: true, lowest: 0xfc00, highest: 0x7c00, nan: 0x7e00, hasOrder: true, hasNaN: true},
	BF16:          {name: "bf16", bits: 16, array: true, lowest: 0xff80, highest: 0x7f80, nan: 0x7fc0, hasOrder: true, hasNaN: true},
	F32:           {name: "f32", bits: 32, array: true, lowest: 0xff800000, highest: 0x7f800000, nan: 0x7fc00000, hasOrder: true, hasNaN: true},
	F64:           {name: "f64", bits: 64, array: true, lowest: 0xfff0000000000000, highest: 0x7ff0000000000000, nan: 0x7ff8000000000000, hasOrder: true, hasNaN: true},
	C64:           {name: "c64", bits: 64, array: true, nan: 0x7fc000007fc00000, hasNaN: true},
	C128:          {name: "c128", bits: 128, array: true, nan: 0x7ff8000000000000, hasNaN: true},
	F8E5M2:        {name: "f8e5m2", bits: 8, array: true, lowest: 0xfc, highest: 0x7c, nan: 0x7e, hasOrder: true, hasNaN: true},
	F8E4M3:        {name: "f8e4m3", bits: 8, array: true, lowest: 0xf8, highest: 0x78, nan: 0x7c, hasOrder: true, hasNaN: true},
	F8E4M3FN:      {name: "f8e4m3fn", bits: 8, array: true, lowest: 0xfe, highest: 0x7e, nan: 0x7f, hasOrder: true, hasNaN: true},
	F8E4M3B11FNUZ: {name: "f8e4m3b11fnuz", bits: 8, array: true, lowest: 0xff, highest: 0x7f, nan: 0x80, hasOrder: true, hasNaN: true},
	F8E3M4:        {name: "f8e3m4", bits: 8, array: true, lowest: 0xf0, highest: 0x70, nan: 0x78, hasOrder: true, hasNaN: true},
	F8E5M2FNUZ:    {name: "f8e5m2fnuz", bits: 8, array: true, lowest: 0xff, highest: 0x7f, nan: 0x80, hasOrder: true, hasNaN: true},
	F8E4M3FNUZ:    {name: "f8e4m3fnuz", bits: 8, array: true, lowest: 0xff, highest: 0x7f, nan: 0x80, hasOrder: true, hasNaN: true},
	F4E2M1FN:      {name: "f4e2m1fn", bits: 4, array: true, lowest: 0xf, highest: 0x7, hasOrder: true},
	F8E8M0FNU:     {name: "f8e8m0fnu", bits: 8, array: true, lowest: 0x00, highest: 0xfe, nan: 0xff, hasOrder: true, hasNaN: true},
	Token:         {name: "token"},
	Opaque:        {name: "opaque"},
	Tuple:         {name: "tuple"},
}

// String returns the type's name in XLA shape text ("f32", "bf16", ...).
func (t DType) String() string {
	if t >= numDTypes {
		return fmt.Sprintf("DType(%d)", uint8(t))
	}
	return dtypes[t].name
}

// ParseDType returns the type named s in XLA shape text. Names are lowercase.
func ParseDType(s string) (DType, error) {
	for t := PRED; t < numDTypes; t++ {
		if t != Tuple && dtypes[t].name == s {
			return t, nil
		}
	}
	return InvalidType, fmt.Errorf("%w: %q", ErrUnknownType, s)
}

// Bits is the natural width of one element in bits: 4 for s4, 8 for pred,
// 128 for c128. It is 0 for types that are not array elements.
func (t DType) Bits() int {
	if t >= numDTypes {
		return 0
	}
	return dtypes[t].bits
}

// IsArray reports whether t can be the element type of an array.
func (t DType) IsArray() bool { return t < numDTypes && dtypes[t].array }

// IsSubByte reports whether t is narrower than a byte (s1 s2 s4 u1 u2 u4 f4e2m1fn).
func (t DType) IsSubByte() bool { return t.IsArray() && dtypes[t].bits < 8 }

// IsSigned reports whether t is a signed integer type; when a sub-byte signed
// value is unpacked to one byte, it is sign-extended.
func (t DType) IsSigned() bool { return t < numDTypes && dtypes[t].signed }

// ByteWidth is the number of bytes one unpacked element occupies:
// ceil(Bits/8), so 1 for every sub-byte type.
func (t DType) ByteWidth() int { return (t.Bits() + 7) / 8 }

// PadKind names a padding value.
type PadKind uint8

// Padding value kinds.
const (
	PadZero    PadKind = iota // all bits zero
	PadLowest                 // the type's lowest value (-inf for floats that have it)
	PadHighest                // the type's highest value (+inf for floats that have it)
	PadNaN                    // a quiet NaN
	PadValue                  // a value given by the caller
)

// padPattern returns the bit pattern of one element of padding of kind k for
// type t, in the type's natural width (for c64 and c128, both parts), as
// little-endian bytes of t.ByteWidth() length. Sub-byte patterns sit in the
// low bits of the byte.
func padPattern(t DType, k PadKind) ([]byte, error) {
	if !t.IsArray() {
		return nil, fmt.Errorf("%w: %s is not an array element type", ErrBadPadding, t)
	}
	info := dtypes[t]
	var v uint64
	switch k {
	case PadZero:
		return make([]byte, t.ByteWidth()), nil
	case PadLowest, PadHighest:
		if !info.hasOrder {
			return nil, fmt.Errorf("%w: %s has no %s value", ErrBadPadding, t, k)
		}
		v = info.lowest
		if k == PadHighest {
			v = info.highest
		}
	case PadNaN:
		if !info.hasNaN {
			return nil, fmt.Errorf("%w: %s has no NaN", ErrBadPadding, t)
		}
		v = info.nan
	default:
		return nil, fmt.Errorf("%w: kind %d has no fixed pattern", ErrBadPadding, k)
	}
	b := make([]byte, t.ByteWidth())
	for i := 0; i < len(b) && i < 8; i++ {
		b[i] = byte(v >> (8 * i))
	}
	if t == C128 { // both halves NaN
		copy(b[8:], b[:8])
	}
	return b, nil
}

// String names the padding kind as the CLI spells it.
func (k PadKind) String() string {
	switch k {
	case PadZero:
		return "zero"
	case PadLowest:
		return "lowest"
	case PadHighest:
		return "highest"
	case PadNaN:
		return "nan"
	case PadValue:
		return "value"
	}
	return fmt.Sprintf("PadKind(%d)", uint8(k))
}
