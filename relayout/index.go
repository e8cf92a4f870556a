package relayout

import (
	"fmt"
)

// Offset returns the element offset of the logical index index in a
// buffer laid out as s: how many physical places (elements and padding
// alike) come before the element in the buffer. It is XLA's
// IndexUtil::MultidimensionalIndexToLinearIndex extended to every layout
// the package reads: tiles of several levels, combined dims ("*" in a
// tile), tail alignment (L) and packed elements (E). For where the
// element starts in bytes and bits, see BitOffset.
//
// It fails for a shape that is not a static dense array (as ByteSize
// does), for an index of another rank (ErrShapeMismatch) and for an index
// outside the dims (ErrOutOfRange).
func (s Shape) Offset(index []int64) (int64, error) {
	m, err := s.denseMap()
	if err != nil {
		return 0, err
	}
	if len(index) != len(s.dims) {
		return 0, fmt.Errorf("%w: an index of rank %d for %s, of rank %d", ErrShapeMismatch, len(index), s, len(s.dims))
	}
	for d, v := range index {
		if v < 0 || v >= s.dims[d] {
			return 0, fmt.Errorf("%w: index %s: %d is outside dimension %d of %s, of size %d",
				ErrOutOfRange, formatIndex(index), v, d, s, s.dims[d])
		}
	}
	return m.Offset(index), nil
}

// Index is the inverse of Offset: it returns the logical index of the
// element at element offset off of a buffer laid out as s, or padding
// true (and no index) when the place at off holds no element: the
// padding of a tile, of a combined dim or of the tail alignment. An
// offset outside the buffer's physical places, [0, PhysicalDims'
// elements), is an error (ErrOutOfRange).
func (s Shape) Index(off int64) (index []int64, padding bool, err error) {
	m, err := s.denseMap()
	if err != nil {
		return nil, false, err
	}
	if off < 0 || off >= m.Elements() {
		return nil, false, fmt.Errorf("%w: offset %d is outside the %d places of %s", ErrOutOfRange, off, m.Elements(), s)
	}
	index = make([]int64, len(s.dims))
	if !m.Index(off, index) {
		return nil, true, nil
	}
	return index, false, nil
}

// BitOffset returns where the place at element offset off of a buffer
// laid out as s starts: byte byteOff and, within it, bit shift (counted
// from the least significant bit). An element of 8 bits or more fills
// bytes [byteOff, byteOff+bits/8), little-endian, with shift 0. A packed
// element of E bits (E(4), E(2), E(1)) fills bits [shift, shift+E) of
// byte byteOff, the first element of a byte in its most significant bits:
// its value is buf[byteOff] >> shift & (1<<E - 1). An offset outside
// the buffer's places is an error (ErrOutOfRange).
func (s Shape) BitOffset(off int64) (byteOff int64, shift uint, err error) {
	m, err := s.denseMap()
	if err != nil {
		return 0, 0, err
	}
	if off < 0 || off >= m.Elements() {
		return 0, 0, fmt.Errorf("%w: offset %d is outside the %d places of %s", ErrOutOfRange, off, m.Elements(), s)
	}
	byteOff, shift = m.BitOffset(off)
	return byteOff, shift, nil
}

// formatIndex prints a logical index as (6,5).
func formatIndex(index []int64) string {
	b := []byte{'('}
	for i, v := range index {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "%d", v)
	}
	return string(append(b, ')'))
}
