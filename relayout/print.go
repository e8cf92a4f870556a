package relayout

import (
	"strconv"
	"strings"
)

// String returns s as XLA shape text, the way XLA prints a shape with its
// layout: bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)S(1)}. Arrays of rank
// one or more always show their minor_to_major list; a scalar shows its
// layout only when some property is set (f32[] rather than f32[]{}).
// Tuples print as (f32[2]{0}, s8[3,4]{0,1}), token and opaque as token[]
// and opaque[]. ParseShape(s.String()) returns a shape equal to s.
func (s Shape) String() string {
	var b strings.Builder
	s.print(&b)
	return b.String()
}

func (s Shape) print(b *strings.Builder) {
	switch s.dtype {
	case Tuple:
		b.WriteByte('(')
		for i, e := range s.tuple {
			if i > 0 {
				b.WriteString(", ")
			}
			e.print(b)
		}
		b.WriteByte(')')
		return
	case Token, Opaque:
		b.WriteString(s.dtype.String())
		b.WriteString("[]")
		return
	}
	b.WriteString(s.dtype.String())
	b.WriteByte('[')
	for i, d := range s.dims {
		if i > 0 {
			b.WriteByte(',')
		}
		dynamic := i < len(s.dynamic) && s.dynamic[i]
		switch {
		case dynamic && d == UnboundedDim:
			b.WriteByte('?')
		case dynamic:
			b.WriteString("<=")
			b.WriteString(strconv.FormatInt(d, 10))
		default:
			b.WriteString(strconv.FormatInt(d, 10))
		}
	}
	b.WriteByte(']')
	if s.layout == nil || (len(s.dims) == 0 && len(s.layout.MinorToMajor) == 0 && !s.layout.hasProperties()) {
		return
	}
	s.layout.print(b)
}

// String returns the layout as XLA shape text prints it, braces included:
// {3,2,0,1:T(8,128)(2,1)S(1)}. Properties appear only when not default.
func (l Layout) String() string {
	var b strings.Builder
	l.print(&b)
	return b.String()
}

// hasProperties reports whether any property after the minor_to_major list
// differs from its default, so that the text needs a ':'.
func (l *Layout) hasProperties() bool {
	return len(l.Tiles) > 0 || l.TailPaddingAlignment > 1 ||
		l.IndexPrimitiveType != InvalidType || l.PointerPrimitiveType != InvalidType ||
		l.ElementSizeInBits != 0 || l.MemorySpace != 0 || len(l.SplitConfigs) > 0 ||
		l.PhysicalShape != nil || l.DynamicShapeMetadataPrefixBytes != 0
}

func (l *Layout) print(b *strings.Builder) {
	b.WriteByte('{')
	for i, d := range l.MinorToMajor {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(d))
	}
	if !l.hasProperties() {
		b.WriteByte('}')
		return
	}
	b.WriteByte(':')
	if len(l.Tiles) > 0 {
		b.WriteByte('T')
		for _, t := range l.Tiles {
			writeTile(b, t)
		}
	}
	if l.TailPaddingAlignment > 1 {
		writeProp(b, "L", strconv.FormatInt(l.TailPaddingAlignment, 10))
	}
	if l.IndexPrimitiveType != InvalidType {
		writeProp(b, "#", l.IndexPrimitiveType.String())
	}
	if l.PointerPrimitiveType != InvalidType {
		writeProp(b, "*", l.PointerPrimitiveType.String())
	}
	if l.ElementSizeInBits != 0 {
		writeProp(b, "E", strconv.FormatInt(l.ElementSizeInBits, 10))
	}
	if l.MemorySpace != 0 {
		writeProp(b, "S", strconv.FormatInt(l.MemorySpace, 10))
	}
	for _, sc := range l.SplitConfigs {
		b.WriteString("SC(")
		b.WriteString(strconv.FormatInt(sc.Dimension, 10))
		b.WriteByte(':')
		writeInts(b, sc.SplitIndices)
		b.WriteByte(')')
	}
	if l.PhysicalShape != nil {
		b.WriteString("P(")
		l.PhysicalShape.print(b)
		b.WriteByte(')')
	}
	if l.DynamicShapeMetadataPrefixBytes != 0 {
		writeProp(b, "M", strconv.FormatInt(l.DynamicShapeMetadataPrefixBytes, 10))
	}
	b.WriteByte('}')
}

// writeTile writes one tile as it appears after T in shape text: (8,128),
// with "*" for CombineDim.
func writeTile(b *strings.Builder, t Tile) {
	b.WriteByte('(')
	for i, d := range t {
		if i > 0 {
			b.WriteByte(',')
		}
		if d == CombineDim {
			b.WriteByte('*')
		} else {
			b.WriteString(strconv.FormatInt(d, 10))
		}
	}
	b.WriteByte(')')
}

func writeProp(b *strings.Builder, name, value string) {
	b.WriteString(name)
	b.WriteByte('(')
	b.WriteString(value)
	b.WriteByte(')')
}

func writeInts(b *strings.Builder, v []int64) {
	for i, d := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(d, 10))
	}
}

// formatMinorToMajor renders a minor_to_major list as shape text does: {1,0}.
func formatMinorToMajor(m2m []int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, d := range m2m {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(d))
	}
	b.WriteByte('}')
	return b.String()
}
