package relayout

import (
	"fmt"
	"slices"
)

// Padding says what to write into the destination's padding: the places a
// tiled or padded layout holds that are not elements of the array. XLA
// leaves them undefined; this package always writes them.
type Padding struct {
	Kind  PadKind
	Value float64 // the value for PadValue, encoded in the element type
	// Widths, when set, pads each logical dimension of the destination to
	// the given width before its layout applies (XLA's former
	// padded_dimensions): element (i, j) of a [1000,1000] array padded to
	// [1008,1024] sits where (i, j) of a [1008,1024] array would.
	Widths []int64
	// raw, when set, is the pattern itself, as pattern returns it (a
	// conversion plan's intermediate padding, of the source type).
	raw []byte
}

// PadWith returns a Padding that writes v, encoded in the element type.
func PadWith(v float64) Padding { return Padding{Kind: PadValue, Value: v} }

// pattern returns one padding element of type t as an unpacked element
// holds it: little-endian, t.ByteWidth() bytes, sub-byte values widened.
func (p Padding) pattern(t DType) ([]byte, error) {
	if p.raw != nil {
		return slices.Clone(p.raw), nil
	}
	var b []byte
	var err error
	if p.Kind == PadValue {
		if b, err = encodeValue(t, p.Value); err != nil {
			return nil, fmt.Errorf("padding %v for %s: %w", p.Value, t, err)
		}
	} else if b, err = padPattern(t, p.Kind); err != nil {
		return nil, err
	}
	if t.IsSubByte() { // as an unpacked element holds it
		b[0] = widenSubByte(b[0], t)
	}
	return b, nil
}

// String describes the padding as the CLI spells it.
func (p Padding) String() string {
	if p.Kind == PadValue {
		return fmt.Sprint(p.Value)
	}
	return p.Kind.String()
}

// widened returns the shape whose buffer holds `to` padded to p.Widths
// (the same shape when Widths is nil).
func (p Padding) widened(to Shape) (Shape, error) {
	if p.Widths == nil {
		return to, nil
	}
	if len(p.Widths) != len(to.dims) {
		return Shape{}, fmt.Errorf("%w: %d padded widths for rank %d", ErrShapeMismatch, len(p.Widths), len(to.dims))
	}
	for i, w := range p.Widths {
		if w < to.dims[i] {
			return Shape{}, fmt.Errorf("%w: padded width %d of dimension %d is less than its size %d", ErrShapeMismatch, w, i, to.dims[i])
		}
	}
	out := to.clone()
	out.dims = slices.Clone(p.Widths)
	return out, nil
}
