package relayout

import (
	"fmt"
	"slices"
	"unsafe"
)

// Element is the set of Go element types the typed helpers and RunSlices
// move. Only the size matters: elements are moved as bytes.
type Element interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// byteType is the XLA type of T: F32 for float32, S16 for int16 and so
// on, or for a type defined on one of them the unsigned (or complex)
// type of the same width. Only the width matters to a plan; the name
// shows in its shapes and errors.
func byteType[T Element]() DType {
	var z T
	switch any(z).(type) {
	case int8:
		return S8
	case int16:
		return S16
	case int32:
		return S32
	case int64:
		return S64
	case float32:
		return F32
	case float64:
		return F64
	case complex64:
		return C64
	}
	switch unsafe.Sizeof(z) {
	case 1:
		return U8
	case 2:
		return U16
	case 4:
		return U32
	case 8:
		return U64
	default:
		return C128
	}
}

// asBytes views s as bytes.
func asBytes[T Element](s []T) []byte {
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// RunSlices runs p from src into dst as p.Run does, over slices of Go
// values instead of bytes: a caller holding []float32, []uint16 or
// []complex64 needs no package unsafe. T must be as wide as one element
// of p's type (ErrTypeMismatch otherwise): float32, int32 or uint32 for
// f32, s32 and u32; uint16 (or int16) for bf16 and f16; a one-byte T for
// s8, u8, pred, the f8 types and the sub-byte types, whose buffers count
// bytes, packed or not. Only the width matters: elements move as bytes.
// The lengths count elements of T, and so do the errors about them
// (ErrBufferSize).
func RunSlices[T Element](p *Plan, dst, src []T) error {
	var z T
	w := int64(unsafe.Sizeof(z))
	if e := int64(p.dtype.ByteWidth()); w != e {
		return fmt.Errorf("%w: %T is %d bytes wide, an element of %s %d", ErrTypeMismatch, z, w, p.dtype, e)
	}
	if n := int64(len(src)); n*w != p.srcBytes {
		return fmt.Errorf("%w: source holds %d %T elements, the plan's source %s needs %d", ErrBufferSize, n, z, p.from, p.srcBytes/w)
	}
	if n := int64(len(dst)); n*w != p.dstBytes {
		return fmt.Errorf("%w: destination holds %d %T elements, the plan's destination %s needs %d", ErrBufferSize, n, z, p.to, p.dstBytes/w)
	}
	return p.Run(asBytes(dst), asBytes(src))
}

// relayoutTyped compiles and runs from → to over typed slices.
func relayoutTyped[T Element](dst, src []T, from, to Shape, threads int) error {
	p, err := Compile(from, to, &Options{Threads: threads})
	if err != nil {
		return err
	}
	return RunSlices(p, dst, src)
}

// Transpose2D writes the transpose of the rows × cols row-major matrix src
// into dst (cols × rows, row-major). It compiles a plan per call (a few
// microseconds); compile once with Compile to repeat one transpose.
func Transpose2D[T Element](dst, src []T, rows, cols int) error {
	dims := []int64{int64(rows), int64(cols)}
	s := NewShape(byteType[T](), dims, nil)
	return relayoutTyped(dst, src, s, s.WithLayout(Layout{MinorToMajor: []int{0, 1}}), 0)
}

// ToColumnMajor copies src, a row-major array of the given dims, into dst
// in column-major (Fortran) order: the first dim varies fastest.
func ToColumnMajor[T Element](dst, src []T, dims []int64) error {
	s := NewShape(byteType[T](), dims, nil)
	return relayoutTyped(dst, src, s, s.WithLayout(Layout{MinorToMajor: ColumnMajor(len(dims))}), 0)
}

// ToRowMajor copies src, a column-major (Fortran order) array of the given
// dims, into dst in row-major (C) order.
func ToRowMajor[T Element](dst, src []T, dims []int64) error {
	s := NewShape(byteType[T](), dims, nil)
	return relayoutTyped(dst, src, s.WithLayout(Layout{MinorToMajor: ColumnMajor(len(dims))}), s, 0)
}

// Permute writes into dst the row-major array whose dimension i is
// dimension perm[i] of src, a row-major array of the given dims: NumPy's
// np.ascontiguousarray(np.transpose(src, perm)).
func Permute[T Element](dst, src []T, dims []int64, perm []int) error {
	if len(perm) != len(dims) {
		return fmt.Errorf("%w: permutation of %d entries for rank %d", ErrShapeMismatch, len(perm), len(dims))
	}
	seen := make([]bool, len(dims))
	for _, p := range perm {
		if p < 0 || p >= len(dims) || seen[p] {
			return fmt.Errorf("%w: %v is not a permutation of 0..%d", ErrShapeMismatch, perm, len(dims)-1)
		}
		seen[p] = true
	}
	// The same logical array, laid out with perm[0] slowest and perm[r-1]
	// fastest: minor_to_major is perm reversed.
	m2m := slices.Clone(perm)
	slices.Reverse(m2m)
	s := NewShape(byteType[T](), dims, nil)
	return relayoutTyped(dst, src, s, s.WithLayout(Layout{MinorToMajor: m2m}), 0)
}
