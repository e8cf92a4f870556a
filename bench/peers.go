package bench

import (
	"slices"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/tilecopy/tilecopy/relayout"
)

// The peers are what a Go user would write or reach for without tilecopy.
// Each writes the same destination bytes as the case's plan.
const (
	// PeerNaive is the obvious nested index loop over a typed slice.
	PeerNaive = "naive"
	// PeerGonum is gonum's mat.Dense.Copy of a transposed view (f64 2-D).
	PeerGonum = "gonum"
)

// peer is one prepared peer: run moves src into dst.
type peer struct {
	name string
	run  func()
}

// numpyPerm returns the NumPy permutation a case performs when it is one:
// a row-major source, a destination with no tiles, packing or padding of
// rank 2 to 4, so that dst = src.transpose(perm) copied to row-major.
func numpyPerm(c Case) ([]int, bool) {
	r := c.From.Rank()
	if r < 2 || r > 4 || c.Pad.Widths != nil || !plain(c.From) || !plain(c.To) || c.From.DType() != c.To.DType() {
		return nil, false
	}
	fl, _ := c.From.Layout()
	if !slices.Equal(fl.MinorToMajor, relayout.RowMajor(r)) {
		return nil, false
	}
	tl, _ := c.To.Layout()
	perm := slices.Clone(tl.MinorToMajor)
	slices.Reverse(perm)
	return perm, true
}

// plain reports whether s is laid out by its minor_to_major alone, one
// whole element per place.
func plain(s relayout.Shape) bool {
	l, ok := s.Layout()
	return ok && len(l.Tiles) == 0 && l.TailPaddingAlignment <= 1 && l.ElementSizeInBits == 0
}

// peersFor prepares the peers that apply to c, working on the case's
// buffers dst and src.
func peersFor(c Case, dst, src []byte) []peer {
	perm, ok := numpyPerm(c)
	if !ok {
		return nil
	}
	dims := c.From.Dims()
	// Embed in rank 4: leading size-1 dims cost the loop nothing.
	var d4 [4]int
	var p4 [4]int
	k := 4 - len(dims)
	for i := range 4 {
		d4[i], p4[i] = 1, i
		if i >= k {
			d4[i] = int(dims[i-k])
			p4[i] = perm[i-k] + k
		}
	}
	var naive func()
	switch c.From.DType().ByteWidth() {
	case 1:
		naive = func() { naivePermute4(dst, src, d4, p4) }
	case 2:
		naive = func() { naivePermute4(as[uint16](dst), as[uint16](src), d4, p4) }
	case 4:
		naive = func() { naivePermute4(as[uint32](dst), as[uint32](src), d4, p4) }
	case 8:
		naive = func() { naivePermute4(as[uint64](dst), as[uint64](src), d4, p4) }
	case 16:
		naive = func() { naivePermute4(as[[2]uint64](dst), as[[2]uint64](src), d4, p4) }
	default:
		return nil
	}
	peers := []peer{{PeerNaive, naive}}
	if c.From.DType() == relayout.F64 && len(dims) == 2 && perm[0] == 1 && dims[0] > 0 && dims[1] > 0 {
		r, cols := int(dims[0]), int(dims[1])
		a := mat.NewDense(r, cols, as[float64](src))
		t := mat.NewDense(cols, r, as[float64](dst))
		peers = append(peers, peer{PeerGonum, func() { t.Copy(a.T()) }})
	}
	return peers
}

// as views a byte buffer as a slice of T. Buffers come from make, whose
// large allocations are aligned for any T here.
func as[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// naivePermute4 is the loop a user writes for NumPy's
// dst = src.transpose(perm) on row-major arrays of rank 4: walk the
// destination in order and read the element each index names. dims are
// the source dims.
func naivePermute4[T any](dst, src []T, dims, perm [4]int) {
	var stride [4]int
	stride[3] = 1
	for i := 2; i >= 0; i-- {
		stride[i] = stride[i+1] * dims[i+1]
	}
	n0, n1, n2, n3 := dims[perm[0]], dims[perm[1]], dims[perm[2]], dims[perm[3]]
	s0, s1, s2, s3 := stride[perm[0]], stride[perm[1]], stride[perm[2]], stride[perm[3]]
	k := 0
	for i0 := 0; i0 < n0; i0++ {
		for i1 := 0; i1 < n1; i1++ {
			for i2 := 0; i2 < n2; i2++ {
				for i3 := 0; i3 < n3; i3++ {
					dst[k] = src[i0*s0+i1*s1+i2*s2+i3*s3]
					k++
				}
			}
		}
	}
}
