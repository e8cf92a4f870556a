package densemat

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tilecopy/tilecopy/relayout"
	"gonum.org/v1/gonum/mat"
)

// randomDense returns a rows × cols matrix of random values.
func randomDense(rng *rand.Rand, rows, cols int) *mat.Dense {
	d := make([]float64, rows*cols)
	for i := range d {
		d[i] = rng.NormFloat64()
	}
	return mat.NewDense(rows, cols, d)
}

// colMajor is the column-major array of m, element by element.
func colMajor(m mat.Matrix) []float64 {
	r, c := m.Dims()
	out := make([]float64, r*c)
	for j := range c {
		for i := range r {
			out[i+j*r] = m.At(i, j)
		}
	}
	return out
}

// views returns matrices to convert: contiguous ones of several sizes
// (small, ragged, and large enough to split among goroutines) and views
// with a stride wider than their columns.
func views(rng *rand.Rand) map[string]mat.Matrix {
	out := map[string]mat.Matrix{}
	for _, sz := range [][2]int{{1, 1}, {1, 7}, {7, 1}, {3, 5}, {17, 33}, {64, 64}, {129, 250}, {1030, 700}} {
		out[fmt.Sprintf("dense %dx%d", sz[0], sz[1])] = randomDense(rng, sz[0], sz[1])
	}
	big := randomDense(rng, 1100, 900)
	out["slice 3x4 of 9x11"] = randomDense(rng, 9, 11).Slice(2, 5, 3, 7)
	out["slice 37x20 of 50x61"] = randomDense(rng, 50, 61).Slice(5, 42, 40, 60)
	out["slice 1000x800 of 1100x900"] = big.Slice(50, 1050, 17, 817) // splits among goroutines
	out["transpose 13x6"] = randomDense(rng, 6, 13).T()
	out["transpose of a slice"] = randomDense(rng, 20, 30).Slice(1, 19, 2, 25).T()
	out["symmetric (At path)"] = mat.NewSymDense(4, []float64{1, 2, 3, 4, 2, 5, 6, 7, 3, 6, 8, 9, 4, 7, 9, 10})
	return out
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for name, m := range views(rng) {
		t.Run(name, func(t *testing.T) {
			r, c := m.Dims()
			cm := make([]float64, r*c)
			if err := ToColumnMajor(cm, m); err != nil {
				t.Fatal(err)
			}
			want := colMajor(m)
			for k := range cm {
				if cm[k] != want[k] {
					t.Fatalf("column-major element %d (row %d, col %d) is %v, want %v", k, k%r, k/r, cm[k], want[k])
				}
			}
			back, err := FromColumnMajor(r, c, cm)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(back, m) {
				t.Fatalf("round trip differs")
			}
		})
	}
}

// TestFromColumnMajorIntoView writes into a view with a wide stride: the
// view's elements change, the rest of the parent does not.
func TestFromColumnMajorIntoView(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][4]int{{9, 11, 3, 4}, {300, 400, 250, 350}, {1100, 1200, 1000, 1000}} {
		t.Run(fmt.Sprintf("%dx%d in %dx%d", sz[2], sz[3], sz[0], sz[1]), func(t *testing.T) {
			parent := randomDense(rng, sz[0], sz[1])
			orig := mat.DenseCopyOf(parent)
			r0, c0 := 1, sz[1]-sz[3]-1
			view := parent.Slice(r0, r0+sz[2], c0, c0+sz[3]).(*mat.Dense)
			src := colMajor(randomDense(rng, sz[2], sz[3]))
			if err := FromColumnMajorInto(view, src); err != nil {
				t.Fatal(err)
			}
			for i := range sz[0] {
				for j := range sz[1] {
					got := parent.At(i, j)
					in := i >= r0 && i < r0+sz[2] && j >= c0 && j < c0+sz[3]
					want := orig.At(i, j)
					if in {
						want = src[(i-r0)+(j-c0)*sz[2]]
					}
					if got != want {
						t.Fatalf("(%d,%d) inside view %v: %v, want %v", i, j, in, got, want)
					}
				}
			}
		})
	}
}

func TestErrors(t *testing.T) {
	m := mat.NewDense(2, 3, nil)
	if err := ToColumnMajor(make([]float64, 5), m); !errors.Is(err, relayout.ErrBufferSize) {
		t.Errorf("short dst: %v", err)
	}
	if _, err := FromColumnMajor(2, 3, make([]float64, 7)); !errors.Is(err, relayout.ErrBufferSize) {
		t.Errorf("long src: %v", err)
	}
	if _, err := FromColumnMajor(0, 3, nil); !errors.Is(err, relayout.ErrInvalidShape) {
		t.Errorf("0 rows: %v", err)
	}
	if err := FromColumnMajorInto(m, make([]float64, 5)); !errors.Is(err, relayout.ErrBufferSize) {
		t.Errorf("short src: %v", err)
	}
}

// The benchmarks compare the conversion of a 4096×4096 matrix (128 MiB)
// with gonum's own way, Dense.Copy of the transpose.
const benchN = 4096

func BenchmarkToColumnMajor(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		name string
		m    mat.Matrix
	}{
		{fmt.Sprintf("%dx%d", benchN, benchN), randomDense(rng, benchN, benchN)},
		{fmt.Sprintf("%dx%d-view", benchN, benchN), randomDense(rng, benchN, benchN+8).Slice(0, benchN, 0, benchN)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			dst := make([]float64, benchN*benchN)
			b.SetBytes(2 * 8 * benchN * benchN)
			for b.Loop() {
				if err := ToColumnMajor(dst, tc.m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkGonumCopyT(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	m := randomDense(rng, benchN, benchN)
	b.Run(fmt.Sprintf("%dx%d", benchN, benchN), func(b *testing.B) {
		dst := mat.NewDense(benchN, benchN, nil)
		b.SetBytes(2 * 8 * benchN * benchN)
		for b.Loop() {
			dst.Copy(m.T())
		}
	})
}

// BenchmarkVersusGonum runs ToColumnMajor and gonum's Dense.Copy(m.T())
// on the same 4096×4096 matrix, interleaved, and reports how many times
// faster ToColumnMajor is ("x-gonum"): a ratio from one run, as the
// machines are shared and noisy.
func BenchmarkVersusGonum(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	m := randomDense(rng, benchN, benchN)
	dst := make([]float64, benchN*benchN)
	gd := mat.NewDense(benchN, benchN, nil)
	var ours, theirs time.Duration
	if err := ToColumnMajor(dst, m); err != nil { // fault the pages in
		b.Fatal(err)
	}
	gd.Copy(m.T())
	b.SetBytes(2 * 8 * benchN * benchN)
	for b.Loop() {
		t0 := time.Now()
		if err := ToColumnMajor(dst, m); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		gd.Copy(m.T())
		t2 := time.Now()
		ours += t1.Sub(t0)
		theirs += t2.Sub(t1)
	}
	b.ReportMetric(float64(theirs)/float64(ours), "x-gonum")
}
