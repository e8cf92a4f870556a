package relayout

import (
	"errors"
	"github.com/tilecopy/tilecopy/internal/checked"
	"slices"
)

// Errors returned by this package wrap one of these sentinels, so callers
// can test them with errors.Is.
var (
	ErrSyntax          = errors.New("malformed shape text")
	ErrUnknownType     = errors.New("unknown element type")
	ErrInvalidLayout   = errors.New("invalid layout")
	ErrInvalidShape    = errors.New("invalid shape")
	ErrNotDense        = errors.New("not a dense array")
	ErrDynamic         = errors.New("dynamic dimensions are not supported")
	ErrOverflow        = errors.New("size overflows int64")
	ErrShapeMismatch   = errors.New("shapes do not match")
	ErrTypeMismatch    = errors.New("element types do not match")
	ErrBufferSize      = errors.New("buffer has the wrong size")
	ErrOverlap         = errors.New("source and destination overlap")
	ErrBadPadding      = errors.New("invalid padding value")
	ErrNotArray        = errors.New("not an array shape")
	ErrUnsupportedPlan = errors.New("unsupported relayout")
	ErrBadOptions      = errors.New("invalid options")
	ErrOutOfRange      = errors.New("out of range")
)

// UnboundedDim is the size recorded for a dimension written "?" (unbounded
// dynamic) in shape text.
const UnboundedDim int64 = -1

// CombineDim is the tile dimension written "*": the dimension is combined
// with the next more-minor one before tiling.
const CombineDim int64 = -1

// Tile is one level of tiling: tile sizes for the most-minor len(Tile)
// physical dimensions, major to minor. CombineDim marks a combined dimension.
type Tile []int64

// SplitConfig is XLA's SC(dim:i,j,...) layout property: the split indices
// of one dimension (used by memory-space assignment; relayout ignores it).
type SplitConfig struct {
	Dimension    int64
	SplitIndices []int64
}

// Layout is an XLA array layout. The zero value of every field except
// MinorToMajor is XLA's default, which shape text does not print.
type Layout struct {
	// MinorToMajor lists the logical dimensions from fastest- to
	// slowest-varying. {r-1,...,0} is row-major.
	MinorToMajor []int
	// Tiles are the tiling levels, applied in order (T(8,128)(2,1)).
	Tiles []Tile
	// TailPaddingAlignment (L) rounds the element count up to a multiple
	// of it; 0 and 1 both mean none.
	TailPaddingAlignment int64
	// IndexPrimitiveType (#) and PointerPrimitiveType (*) belong to
	// sparse layouts; a layout that sets them is not a dense array.
	IndexPrimitiveType   DType
	PointerPrimitiveType DType
	// ElementSizeInBits (E) overrides the element's storage width; with
	// a sub-byte type, E(4) or E(2) packs several elements into a byte.
	// 0 means the natural byte width.
	ElementSizeInBits int64
	// MemorySpace (S) tags the buffer's memory space; it does not change
	// where elements go.
	MemorySpace int64
	// SplitConfigs (SC) are kept and printed; they do not move elements.
	SplitConfigs []SplitConfig
	// PhysicalShape (P) is kept and printed.
	PhysicalShape *Shape
	// DynamicShapeMetadataPrefixBytes (M) is kept and printed.
	DynamicShapeMetadataPrefixBytes int64
}

// Shape is an XLA shape: an array (element type, dimensions, layout) or a
// tuple of shapes.
type Shape struct {
	dtype   DType
	dims    []int64
	dynamic []bool // per dim: written "<=N" or "?"
	layout  *Layout
	tuple   []Shape
}

// NewShape returns an array shape. A nil layout means row-major. The slices
// are copied.
func NewShape(t DType, dims []int64, layout *Layout) Shape {
	s := Shape{dtype: t, dims: slices.Clone(dims)}
	if s.dims == nil {
		s.dims = []int64{}
	}
	if layout == nil {
		s.layout = &Layout{MinorToMajor: RowMajor(len(dims))}
	} else {
		l := layout.clone()
		s.layout = &l
	}
	return s
}

// NewTuple returns a tuple shape of the given elements.
func NewTuple(elems ...Shape) Shape {
	s := Shape{dtype: Tuple, tuple: make([]Shape, len(elems))}
	for i, e := range elems {
		s.tuple[i] = e.clone()
	}
	return s
}

// RowMajor returns the minor_to_major order {rank-1, ..., 1, 0}.
func RowMajor(rank int) []int {
	m := make([]int, rank)
	for i := range m {
		m[i] = rank - 1 - i
	}
	return m
}

// ColumnMajor returns the minor_to_major order {0, 1, ..., rank-1}.
func ColumnMajor(rank int) []int {
	m := make([]int, rank)
	for i := range m {
		m[i] = i
	}
	return m
}

// DType returns the element type (Tuple for a tuple).
func (s Shape) DType() DType { return s.dtype }

// Dims returns a copy of the dimension sizes; a "?" dimension is UnboundedDim.
func (s Shape) Dims() []int64 { return slices.Clone(s.dims) }

// Rank is the number of dimensions.
func (s Shape) Rank() int { return len(s.dims) }

// Dim returns the size of dimension d; negative d counts from the end
// (-1 is the last). It panics if d is out of range, like an index.
func (s Shape) Dim(d int) int64 { return s.dims[s.DimIndex(d)] }

// DimIndex maps a possibly negative dimension number to 0..rank-1; it
// returns -1 when d is out of range.
func (s Shape) DimIndex(d int) int {
	if d < 0 {
		d += len(s.dims)
	}
	if d < 0 || d >= len(s.dims) {
		return -1
	}
	return d
}

// TrueRank counts the dimensions larger than 1.
func (s Shape) TrueRank() int {
	n := 0
	for _, d := range s.dims {
		if d > 1 {
			n++
		}
	}
	return n
}

// IsDynamic reports whether dimension d was written "<=N" or "?".
func (s Shape) IsDynamic(d int) bool {
	return s.dynamic != nil && s.dynamic[s.DimIndex(d)]
}

// HasDynamicDims reports whether any dimension is dynamic.
func (s Shape) HasDynamicDims() bool { return slices.Contains(s.dynamic, true) }

// IsTuple reports whether s is a tuple shape.
func (s Shape) IsTuple() bool { return s.dtype == Tuple }

// TupleShapes returns copies of a tuple's element shapes.
func (s Shape) TupleShapes() []Shape {
	out := make([]Shape, len(s.tuple))
	for i, e := range s.tuple {
		out[i] = e.clone()
	}
	return out
}

// Layout returns a copy of the layout; ok is false for tuples, token,
// opaque, and arrays without one.
func (s Shape) Layout() (l Layout, ok bool) {
	if s.layout == nil {
		return Layout{}, false
	}
	return s.layout.clone(), true
}

// WithLayout returns s with layout l.
func (s Shape) WithLayout(l Layout) Shape {
	c := s.clone()
	l = l.clone()
	c.layout = &l
	return c
}

// WithDType returns the array shape s with element type t: the same
// dims and layout, except that a layout's element size (E) is dropped,
// as it is a storage width for the old type.
func (s Shape) WithDType(t DType) Shape {
	return withType(s, t)
}

// WithDynamic returns s with dimension d marked dynamic (as "<=N").
func (s Shape) WithDynamic(d int) Shape {
	c := s.clone()
	if c.dynamic == nil {
		c.dynamic = make([]bool, len(c.dims))
	}
	c.dynamic[c.DimIndex(d)] = true
	return c
}

// ElementCount is the product of the dimensions (1 for a scalar). It
// returns ErrOverflow if the product does not fit in int64, and
// ErrDynamic for unbounded dimensions.
func (s Shape) ElementCount() (int64, error) {
	n := int64(1)
	for _, d := range s.dims {
		if d < 0 {
			return 0, ErrDynamic
		}
		var ok bool
		if n, ok = checked.Mul(n, d); !ok {
			return 0, ErrOverflow
		}
	}
	return n, nil
}

// Equal reports whether s and o are the same shape, layout included.
func (s Shape) Equal(o Shape) bool {
	if s.dtype != o.dtype || !slices.Equal(s.dims, o.dims) || len(s.tuple) != len(o.tuple) {
		return false
	}
	if s.HasDynamicDims() || o.HasDynamicDims() {
		if !slices.Equal(dynOrFalse(s), dynOrFalse(o)) {
			return false
		}
	}
	for i := range s.tuple {
		if !s.tuple[i].Equal(o.tuple[i]) {
			return false
		}
	}
	if (s.layout == nil) != (o.layout == nil) {
		return false
	}
	return s.layout == nil || s.layout.Equal(*o.layout)
}

func dynOrFalse(s Shape) []bool {
	if s.dynamic != nil {
		return s.dynamic
	}
	return make([]bool, len(s.dims))
}

// Equal reports whether two layouts are the same, property by property.
// A TailPaddingAlignment of 0 equals one of 1.
func (l Layout) Equal(o Layout) bool {
	if !slices.Equal(l.MinorToMajor, o.MinorToMajor) ||
		!slices.EqualFunc(l.Tiles, o.Tiles, func(a, b Tile) bool { return slices.Equal(a, b) }) ||
		max(l.TailPaddingAlignment, 1) != max(o.TailPaddingAlignment, 1) ||
		l.IndexPrimitiveType != o.IndexPrimitiveType ||
		l.PointerPrimitiveType != o.PointerPrimitiveType ||
		l.ElementSizeInBits != o.ElementSizeInBits ||
		l.MemorySpace != o.MemorySpace ||
		l.DynamicShapeMetadataPrefixBytes != o.DynamicShapeMetadataPrefixBytes ||
		!slices.EqualFunc(l.SplitConfigs, o.SplitConfigs, func(a, b SplitConfig) bool {
			return a.Dimension == b.Dimension && slices.Equal(a.SplitIndices, b.SplitIndices)
		}) {
		return false
	}
	if (l.PhysicalShape == nil) != (o.PhysicalShape == nil) {
		return false
	}
	return l.PhysicalShape == nil || l.PhysicalShape.Equal(*o.PhysicalShape)
}

func (l Layout) clone() Layout {
	c := l
	c.MinorToMajor = slices.Clone(l.MinorToMajor)
	if l.Tiles != nil {
		c.Tiles = make([]Tile, len(l.Tiles))
		for i, t := range l.Tiles {
			c.Tiles[i] = slices.Clone(t)
		}
	}
	if l.SplitConfigs != nil {
		c.SplitConfigs = make([]SplitConfig, len(l.SplitConfigs))
		for i, sc := range l.SplitConfigs {
			c.SplitConfigs[i] = SplitConfig{sc.Dimension, slices.Clone(sc.SplitIndices)}
		}
	}
	if l.PhysicalShape != nil {
		p := l.PhysicalShape.clone()
		c.PhysicalShape = &p
	}
	return c
}

func (s Shape) clone() Shape {
	c := s
	c.dims = slices.Clone(s.dims)
	c.dynamic = slices.Clone(s.dynamic)
	if s.layout != nil {
		l := s.layout.clone()
		c.layout = &l
	}
	if s.tuple != nil {
		c.tuple = make([]Shape, len(s.tuple))
		for i, e := range s.tuple {
			c.tuple[i] = e.clone()
		}
	}
	return c
}
