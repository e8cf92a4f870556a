package relayout

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// naivePermute is NumPy's transpose by definition: out[i] = in[j] with
// j[perm[k]] = i[k].
func naivePermute(src []int32, dims []int64, perm []int) []int32 {
	r := len(dims)
	out := make([]int32, len(src))
	odims := make([]int64, r)
	for k := range r {
		odims[k] = dims[perm[k]]
	}
	idx := make([]int64, r)
	for o := range out {
		rem := int64(o)
		for k := r - 1; k >= 0; k-- {
			idx[k] = rem % odims[k]
			rem /= odims[k]
		}
		j := make([]int64, r)
		for k := range r {
			j[perm[k]] = idx[k]
		}
		off := int64(0)
		for d := range r {
			off = off*dims[d] + j[d]
		}
		out[o] = src[off]
	}
	return out
}

func TestPermute(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		rank := 1 + r.IntN(5)
		dims := make([]int64, rank)
		n := int64(1)
		for i := range dims {
			dims[i] = int64(1 + r.IntN(6))
			n *= dims[i]
		}
		perm := r.Perm(rank)
		src := make([]int32, n)
		for i := range src {
			src[i] = int32(r.Uint32())
		}
		dst := make([]int32, n)
		if err := Permute(dst, src, dims, perm); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if want := naivePermute(src, dims, perm); !slices.Equal(dst, want) {
			t.Fatalf("trial %d: dims %v perm %v: got %v want %v", trial, dims, perm, dst, want)
		}
	}
}

func TestTypedHelpers(t *testing.T) {
	src := []float64{1, 2, 3, 4, 5, 6} // 2×3 row-major
	tr := make([]float64, 6)
	if err := Transpose2D(tr, src, 2, 3); err != nil {
		t.Fatal(err)
	}
	if want := []float64{1, 4, 2, 5, 3, 6}; !slices.Equal(tr, want) {
		t.Errorf("Transpose2D = %v, want %v", tr, want)
	}
	cm := make([]float64, 6)
	if err := ToColumnMajor(cm, src, []int64{2, 3}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cm, tr) {
		t.Errorf("ToColumnMajor = %v, want %v", cm, tr)
	}
	back := make([]float64, 6)
	if err := ToRowMajor(back, cm, []int64{2, 3}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back, src) {
		t.Errorf("ToRowMajor = %v, want %v", back, src)
	}
	c := []complex128{1, 2i, 3, 4i}
	ct := make([]complex128, 4)
	if err := Transpose2D(ct, c, 2, 2); err != nil || !slices.Equal(ct, []complex128{1, 3, 2i, 4i}) {
		t.Errorf("complex Transpose2D = %v, %v", ct, err)
	}
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"short dst", Transpose2D(make([]float64, 5), src, 2, 3), ErrBufferSize},
		{"bad perm", Permute(make([]int32, 6), make([]int32, 6), []int64{2, 3}, []int{0, 0}), ErrShapeMismatch},
		{"perm rank", Permute(make([]int32, 6), make([]int32, 6), []int64{2, 3}, []int{0}), ErrShapeMismatch},
		{"same slice", Transpose2D(src, src, 2, 3), ErrOverlap},
	}
	for _, tc := range tests {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, tc.err, tc.want)
		}
	}
}

func TestForDevice(t *testing.T) {
	tests := []struct{ host, want string }{
		{"f32[3,5]", "f32[3,5]{1,0:T(8,128)}"},
		{"f32[2,3,5]{0,1,2}", "f32[2,3,5]{2,1,0:T(8,128)}"},
		{"f64[300,200]", "f64[300,200]{1,0:T(8,128)}"},
		{"bf16[3,5]", "bf16[3,5]{1,0:T(8,128)(2,1)}"},
		{"s8[3,5]", "s8[3,5]{1,0:T(8,128)(4,1)}"},
		{"s4[3,5]", "s4[3,5]{1,0:T(8,128)(8,1)E(4)}"},
		{"f32[5]", "f32[5]{0:T(1024)}"},
		{"u4[5]", "u4[5]{0:T(1024)E(4)}"},
		{"f32[]", "f32[]"},
		{"f32[3,5]{1,0:S(1)}", "f32[3,5]{1,0:T(8,128)S(1)}"},
	}
	for _, tc := range tests {
		host, err := ParseShape(tc.host)
		if err != nil {
			t.Fatal(err)
		}
		dev, err := ForDevice(host, PresetTPU)
		if err != nil {
			t.Fatalf("%s: %v", tc.host, err)
		}
		if got := dev.String(); got != tc.want {
			t.Errorf("ForDevice(%s) = %s, want %s", tc.host, got, tc.want)
		}
		// Upload then Download gives the host bytes back.
		n, _ := host.ByteSize()
		src := fillRandom(n, 11)
		if host.DType().IsSubByte() { // host bytes hold sign-extended values
			for i := range src {
				src[i] = widenSubByte(src[i], host.DType())
			}
		}
		size, err := DeviceSize(host, PresetTPU)
		if err != nil {
			t.Fatal(err)
		}
		devBuf := make([]byte, size)
		if _, err := Upload(devBuf, src, host, PresetTPU, Padding{Kind: PadZero}); err != nil {
			t.Fatalf("%s: %v", tc.host, err)
		}
		back := make([]byte, n)
		if err := Download(back, devBuf, dev, host); err != nil {
			t.Fatalf("%s: %v", tc.host, err)
		}
		if !bytes.Equal(back, src) {
			t.Errorf("%s: round trip through %s changed the bytes", tc.host, dev)
		}
	}
	if _, err := ForDevice(NewShape(F32, []int64{2}, nil), "gpu"); !errors.Is(err, ErrInvalidLayout) {
		t.Errorf("unknown preset: err = %v", err)
	}
}

// celsius is a type defined on float32: RunSlices takes it as a float32.
type celsius float32

func TestRunSlices(t *testing.T) {
	// f32 transpose over []float32 and over a defined type.
	from, to := parsePair(t, "f32[2,3]", "f32[2,3]{0,1}")
	p, err := Compile(from, to, nil)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float32, 6)
	if err := RunSlices(p, dst, []float32{1, 2, 3, 4, 5, 6}); err != nil {
		t.Fatal(err)
	}
	if want := []float32{1, 4, 2, 5, 3, 6}; !slices.Equal(dst, want) {
		t.Errorf("f32: %v, want %v", dst, want)
	}
	cdst := make([]celsius, 6)
	if err := RunSlices(p, cdst, []celsius{1, 2, 3, 4, 5, 6}); err != nil || cdst[1] != 4 {
		t.Errorf("celsius: %v, %v", cdst, err)
	}
	// bf16 into tiles, padding included, over []uint16.
	from, to = parsePair(t, "bf16[3,3]", "bf16[3,3]{1,0:T(2,2)(2,1)}")
	p, err = Compile(from, to, &Options{Pad: PadWith(1)})
	if err != nil {
		t.Fatal(err)
	}
	src := []uint16{'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'}
	tiled := make([]uint16, p.DestinationSize()/2)
	if err := RunSlices(p, tiled, src); err != nil {
		t.Fatal(err)
	}
	const one = 0x3f80 // bf16 1.0
	// The buffer of bf16[3,3]{1,0:T(2,2)(2,1)}: a d b e c f _ _ g _ h _ i _ _ _
	if want := []uint16{'a', 'd', 'b', 'e', 'c', 'f', one, one, 'g', one, 'h', one, 'i', one, one, one}; !slices.Equal(tiled, want) {
		t.Errorf("bf16: %x, want %x", tiled, want)
	}
	// s4 packed two to a byte, over []uint8: lengths count bytes.
	from, to = parsePair(t, "s4[2,4]", "s4[2,4]{0,1:E(4)}")
	p, err = Compile(from, to, nil)
	if err != nil {
		t.Fatal(err)
	}
	packed := make([]uint8, 4)
	if err := RunSlices(p, packed, []uint8{1, 2, 3, 4, 5, 6, 7, 8}); err != nil {
		t.Fatal(err)
	}
	if want := []uint8{0x15, 0x26, 0x37, 0x48}; !slices.Equal(packed, want) {
		t.Errorf("s4: % x, want % x", packed, want)
	}

	f64, _ := parsePair(t, "f64[37,53]", "f64[37,53]{0,1}")
	big, err := Compile(f64, f64.WithLayout(Layout{MinorToMajor: []int{0, 1}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		err  error
		want error
		text string // in the message
	}{
		{"five float64s", RunSlices(big, make([]float64, 5), make([]float64, 37*53)), ErrBufferSize,
			"destination holds 5 float64 elements, the plan's destination f64[37,53]{0,1} needs 1961"},
		{"short source", RunSlices(big, make([]float64, 37*53), make([]float64, 7)), ErrBufferSize,
			"source holds 7 float64 elements, the plan's source f64[37,53]{1,0} needs 1961"},
		{"too wide", RunSlices(p, make([]uint16, 2), make([]uint16, 4)), ErrTypeMismatch, "uint16 is 2 bytes wide, an element of s4 1"},
		{"too narrow", RunSlices(big, make([]float32, 2*1961), make([]float32, 2*1961)), ErrTypeMismatch, "float32 is 4 bytes wide"},
		{"same slice", func() error { s := make([]float64, 1961); return RunSlices(big, s, s) }(), ErrOverlap, ""},
		{"Transpose2D, five float64s", Transpose2D(make([]float64, 5), make([]float64, 6), 2, 3), ErrBufferSize,
			"destination holds 5 float64 elements, the plan's destination f64[2,3]{0,1} needs 6"},
	}
	for _, tc := range tests {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, tc.err, tc.want)
			continue
		}
		if msg := tc.err.Error(); !strings.Contains(msg, tc.text) || strings.Contains(msg, "bytes, its shape") {
			t.Errorf("%s: %q does not say %q in elements", tc.name, msg, tc.text)
		}
	}
}
