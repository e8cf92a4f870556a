package densemat_test

import (
	"fmt"
	"log"

	"github.com/tilecopy/tilecopy/relayout/densemat"
	"gonum.org/v1/gonum/mat"
)

// Hand a gonum matrix to a LAPACK-style routine that wants column-major
// data, and read its column-major result back into a mat.Dense. A view
// of a larger matrix (stride wider than its columns) works the same.
func Example() {
	m := mat.NewDense(2, 3, []float64{
		1, 2, 3,
		4, 5, 6,
	})
	colMajor := make([]float64, 2*3)
	if err := densemat.ToColumnMajor(colMajor, m); err != nil {
		log.Fatal(err)
	}
	fmt.Println(colMajor) // column by column, as Fortran stores it

	// ... a Fortran routine works on colMajor in place, say doubling it ...
	for i := range colMajor {
		colMajor[i] *= 2
	}

	back, err := densemat.FromColumnMajor(2, 3, colMajor)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(mat.Formatted(back))

	// The right 2×2 block of m, a view whose stride is 3.
	view := m.Slice(0, 2, 1, 3)
	block := make([]float64, 4)
	if err := densemat.ToColumnMajor(block, view); err != nil {
		log.Fatal(err)
	}
	fmt.Println(block)
	// Output:
	// [1 4 2 5 3 6]
	// ⎡ 2   4   6⎤
	// ⎣ 8  10  12⎦
	// [2 5 3 6]
}
