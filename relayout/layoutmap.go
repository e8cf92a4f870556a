package relayout

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tilecopy/tilecopy/tiling"
)

// elementBits is the storage width of one element of s: the layout's E when
// set, else the type's byte width × 8.
func (s Shape) elementBits() int64 {
	if s.layout != nil && s.layout.ElementSizeInBits != 0 {
		return s.layout.ElementSizeInBits
	}
	return int64(s.dtype.ByteWidth() * 8)
}

// isPacked reports whether several elements of s share a byte.
func (s Shape) isPacked() bool { return s.elementBits() < 8 }

// denseMap checks that s is a static dense array the engine can move and
// returns its index map.
func (s Shape) denseMap() (*tiling.Map, error) {
	if s.IsTuple() || !s.dtype.IsArray() {
		return nil, fmt.Errorf("%w: %s", ErrNotArray, s)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.HasDynamicDims() {
		return nil, fmt.Errorf("%w: %s", ErrDynamic, s)
	}
	l := s.layout
	if e := l.ElementSizeInBits; e != 0 {
		natural := int64(s.dtype.Bits())
		ok := e == int64(s.dtype.ByteWidth()*8) || (s.dtype.IsSubByte() && e >= natural && (e == 1 || e == 2 || e == 4))
		if !ok {
			return nil, fmt.Errorf("%w: E(%d) cannot store %s elements (want E(%d)%s)",
				ErrInvalidLayout, e, s.dtype, s.dtype.ByteWidth()*8, subBytePackHint(s.dtype))
		}
	}
	spec := tiling.Spec{
		Dims:         s.dims,
		MinorToMajor: l.MinorToMajor,
		ElementBits:  s.elementBits(),
		TailAlign:    l.TailPaddingAlignment,
	}
	for _, t := range l.Tiles {
		spec.Tiles = append(spec.Tiles, []int64(t))
	}
	m, err := tiling.New(spec)
	switch {
	case errors.Is(err, tiling.ErrOverflow):
		return nil, fmt.Errorf("%w: %s: %s", ErrOverflow, s, detail(err, tiling.ErrOverflow))
	case err != nil:
		return nil, fmt.Errorf("%w: %s: %s", ErrInvalidLayout, s, detail(err, tiling.ErrInvalid))
	}
	return m, nil
}

// detail is the text of err without the sentinel's own words, which the
// caller's sentinel repeats.
func detail(err, sentinel error) string {
	return strings.Replace(err.Error(), sentinel.Error()+": ", "", 1)
}

func subBytePackHint(t DType) string {
	if !t.IsSubByte() {
		return ""
	}
	return fmt.Sprintf(" or a packed width of %d to 4 bits", t.Bits())
}

// ByteSize returns the size in bytes of a buffer holding s: padding, tail
// alignment and sub-byte packing included. It fails for shapes that are not
// static dense arrays, for invalid layouts, and when the size overflows
// int64 (ErrOverflow).
func (s Shape) ByteSize() (int64, error) {
	m, err := s.denseMap()
	if err != nil {
		return 0, err
	}
	return m.Bytes(), nil
}

// PhysicalDims returns the dimensions of s's buffer after tiling, major to
// minor, and the number of physical elements (the product, rounded up to
// the tail alignment).
func (s Shape) PhysicalDims() (dims []int64, elements int64, err error) {
	m, err := s.denseMap()
	if err != nil {
		return nil, 0, err
	}
	return m.PhysicalDims(), m.Elements(), nil
}

// sameArray checks that two shapes describe the same logical array, of
// element types that convert one to the other.
func sameArray(to, from Shape) error {
	for _, s := range []Shape{from, to} {
		if s.IsTuple() || !s.dtype.IsArray() {
			return fmt.Errorf("%w: %s", ErrNotArray, s)
		}
	}
	if err := checkConvertible(from.dtype, to.dtype); err != nil {
		return err
	}
	if len(from.dims) != len(to.dims) {
		return fmt.Errorf("%w: %s has rank %d, %s rank %d", ErrShapeMismatch, from, len(from.dims), to, len(to.dims))
	}
	for i := range from.dims {
		if from.dims[i] != to.dims[i] {
			return fmt.Errorf("%w: dimension %d is %d in %s and %d in %s", ErrShapeMismatch, i, from.dims[i], from, to.dims[i], to)
		}
	}
	return nil
}
