package relayout

import (
	"fmt"
	"strings"
)

// Validate checks s against XLA's rules for shapes and layouts. It returns
// nil for a valid shape, else an error wrapping
//
//   - ErrInvalidShape: an element type that cannot form an array, or a
//     negative dimension size other than UnboundedDim on a dynamic dimension;
//   - ErrInvalidLayout: a minor_to_major list whose length is not the rank
//     or that names a dimension out of range or twice, a negative tail
//     padding alignment (0 means none), an empty tile, a tile size that is
//     neither positive nor CombineDim, a negative element size E, or an
//     invalid physical shape P;
//   - ErrNotDense: a layout that sets the sparse index (#) or pointer (*)
//     primitive type.
//
// A tile of higher rank than the shape is valid, as are token and opaque.
// Tuples are valid when every element is.
func (s Shape) Validate() error {
	switch s.dtype {
	case Tuple:
		for i, e := range s.tuple {
			if err := e.Validate(); err != nil {
				return fmt.Errorf("tuple element %d: %w", i, err)
			}
		}
		return nil
	case Token, Opaque:
		return nil
	}
	if !s.dtype.IsArray() {
		return fmt.Errorf("%w: %s is not an array element type", ErrInvalidShape, s.dtype)
	}
	for i, d := range s.dims {
		if d >= 0 {
			continue
		}
		if d == UnboundedDim && i < len(s.dynamic) && s.dynamic[i] {
			continue
		}
		return fmt.Errorf("%w: dimension %d has negative size %d", ErrInvalidShape, i, d)
	}
	if s.layout == nil {
		return nil
	}
	return s.layout.validateFor(len(s.dims))
}

// validateFor checks l as the layout of an array of the given rank.
func (l *Layout) validateFor(rank int) error {
	m2m := l.MinorToMajor
	if len(m2m) != rank {
		return fmt.Errorf("%w: minor_to_major %s has %d entries but the shape has rank %d",
			ErrInvalidLayout, formatMinorToMajor(m2m), len(m2m), rank)
	}
	seen := make([]bool, rank)
	for _, d := range m2m {
		if d < 0 || d >= rank {
			return fmt.Errorf("%w: minor_to_major %s names dimension %d, outside 0..%d",
				ErrInvalidLayout, formatMinorToMajor(m2m), d, rank-1)
		}
		if seen[d] {
			return fmt.Errorf("%w: minor_to_major %s repeats dimension %d",
				ErrInvalidLayout, formatMinorToMajor(m2m), d)
		}
		seen[d] = true
	}
	for _, t := range l.Tiles {
		if len(t) == 0 {
			return fmt.Errorf("%w: tile T() is empty", ErrInvalidLayout)
		}
		for i, d := range t {
			if d <= 0 && d != CombineDim {
				var b strings.Builder
				writeTile(&b, t)
				return fmt.Errorf("%w: tile T%s has size %d at position %d; tile sizes must be positive or *",
					ErrInvalidLayout, b.String(), d, i)
			}
		}
	}
	if l.TailPaddingAlignment < 0 {
		return fmt.Errorf("%w: tail padding alignment L(%d) is negative", ErrInvalidLayout, l.TailPaddingAlignment)
	}
	if l.ElementSizeInBits < 0 {
		return fmt.Errorf("%w: element size E(%d) is negative", ErrInvalidLayout, l.ElementSizeInBits)
	}
	if l.PhysicalShape != nil {
		if err := l.PhysicalShape.Validate(); err != nil {
			return fmt.Errorf("physical shape P(%s): %w", l.PhysicalShape, err)
		}
	}
	if l.IndexPrimitiveType != InvalidType {
		return fmt.Errorf("%w: layout sets the sparse index primitive type #(%s)", ErrNotDense, l.IndexPrimitiveType)
	}
	if l.PointerPrimitiveType != InvalidType {
		return fmt.Errorf("%w: layout sets the sparse pointer primitive type *(%s)", ErrNotDense, l.PointerPrimitiveType)
	}
	return nil
}
