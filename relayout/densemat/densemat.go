// Package densemat converts gonum's row-major dense matrices (mat.Dense)
// to and from column-major []float64, the order LAPACK, BLAS and Fortran
// code expect, with tilecopy's blocked transposes instead of an element
// loop. It is a package of its own so that gonum is not a dependency of
// package relayout.
//
// A contiguous matrix (stride equal to its columns) moves through a
// relayout plan, which splits large matrices among GOMAXPROCS goroutines.
// A view with a wider stride (from Dense.Slice) moves through tilecopy's
// strided transpose kernel directly, since a relayout shape has no
// stride: the same kernels, split among goroutines the same way.
package densemat

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/tilecopy/tilecopy/internal/kernel"
	"github.com/tilecopy/tilecopy/relayout"
	"gonum.org/v1/gonum/mat"
)

// ToColumnMajor writes m into dst in column-major order: element (i, j)
// at dst[i + j*rows]. dst must hold exactly rows×cols elements. A
// mat.RawMatrixer (such as *mat.Dense, with any stride) takes the fast
// path, one pass over memory; the transpose of one (m.T()) is a row copy;
// any other mat.Matrix is read element by element with At.
func ToColumnMajor(dst []float64, m mat.Matrix) error {
	rows, cols := m.Dims()
	if len(dst) != rows*cols {
		return fmt.Errorf("densemat: %w: dst holds %d elements, a %d×%d matrix needs %d",
			relayout.ErrBufferSize, len(dst), rows, cols, rows*cols)
	}
	if rows == 0 || cols == 0 {
		return nil
	}
	switch a := m.(type) {
	case mat.RawMatrixer:
		raw := a.RawMatrix()
		if raw.Stride == cols {
			return runPlan(dst, raw.Data[:rows*cols], rows, cols, relayout.RowMajor(2), relayout.ColumnMajor(2))
		}
		// dst row j (column j of m) is src column j: dst[j*rows + i] = src[i*stride + j].
		transpose(dst, rows, raw.Data, raw.Stride, cols, rows)
		return nil
	case mat.Transpose:
		if u, ok := a.Matrix.(mat.RawMatrixer); ok { // column-major of aᵀ is row-major of a
			raw := u.RawMatrix()
			for j := range cols {
				copy(dst[j*rows:(j+1)*rows], raw.Data[j*raw.Stride:])
			}
			return nil
		}
	}
	for j := range cols {
		for i := range rows {
			dst[i+j*rows] = m.At(i, j)
		}
	}
	return nil
}

// FromColumnMajor returns a new rows × cols matrix holding src, a
// column-major array of rows×cols elements.
func FromColumnMajor(rows, cols int, src []float64) (*mat.Dense, error) {
	if rows <= 0 || cols <= 0 {
		return nil, fmt.Errorf("densemat: %w: a %d×%d matrix (gonum matrices are at least 1×1)", relayout.ErrInvalidShape, rows, cols)
	}
	if len(src) != rows*cols {
		return nil, fmt.Errorf("densemat: %w: src holds %d elements, a %d×%d matrix needs %d",
			relayout.ErrBufferSize, len(src), rows, cols, rows*cols)
	}
	d := mat.NewDense(rows, cols, nil)
	if err := FromColumnMajorInto(d, src); err != nil {
		return nil, err
	}
	return d, nil
}

// FromColumnMajorInto writes src, a column-major array of the size of
// dst, into dst. dst may be a view (Dense.Slice) with a stride wider than
// its columns: only its own elements are written.
func FromColumnMajorInto(dst *mat.Dense, src []float64) error {
	raw := dst.RawMatrix()
	rows, cols := raw.Rows, raw.Cols
	if len(src) != rows*cols {
		return fmt.Errorf("densemat: %w: src holds %d elements, a %d×%d matrix needs %d",
			relayout.ErrBufferSize, len(src), rows, cols, rows*cols)
	}
	if rows == 0 || cols == 0 {
		return nil
	}
	if raw.Stride == cols {
		return runPlan(raw.Data[:rows*cols], src, rows, cols, relayout.ColumnMajor(2), relayout.RowMajor(2))
	}
	// dst row i is src column i: dst[i*stride + j] = src[j*rows + i].
	transpose(raw.Data, raw.Stride, src, rows, rows, cols)
	return nil
}

// runPlan relayouts the rows × cols f64 array src, laid out in order
// from, into dst laid out in order to.
func runPlan(dst, src []float64, rows, cols int, from, to []int) error {
	dims := []int64{int64(rows), int64(cols)}
	p, err := relayout.Compile(
		relayout.NewShape(relayout.F64, dims, &relayout.Layout{MinorToMajor: from}),
		relayout.NewShape(relayout.F64, dims, &relayout.Layout{MinorToMajor: to}), nil)
	if err != nil {
		return fmt.Errorf("densemat: %w", err)
	}
	if err := relayout.RunSlices(p, dst, src); err != nil {
		return fmt.Errorf("densemat: %w", err)
	}
	return nil
}

// transpose writes the n × k block whose row i is column i of src into
// dst: dst[i*dstStride + j] = src[j*srcStride + i] for i < n, j < k
// (strides in elements), splitting the rows of dst among goroutines when
// the block is large.
func transpose(dst []float64, dstStride int, src []float64, srcStride int, n, k int) {
	const w = 8
	parts := 1
	if t, _ := kernel.CurrentTuning(); n*k*w >= t.ParallelMinBytes { // as relayout plans do
		parts = min(runtime.GOMAXPROCS(0), n)
	}
	db, sb := bytesOf(dst), bytesOf(src)
	run := func(lo, hi int) {
		kernel.Transpose(w, db[lo*dstStride*w:], dstStride*w, sb[lo*w:], srcStride*w, hi-lo, k)
	}
	if parts == 1 {
		run(0, n)
		return
	}
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := n*p/parts, n*(p+1)/parts
		wg.Go(func() { run(lo, hi) })
	}
	wg.Wait()
}

// bytesOf views s as bytes.
func bytesOf(s []float64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*8)
}
