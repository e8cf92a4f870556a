package relayout_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log"
	"math"
	"strings"

	"github.com/tilecopy/tilecopy/relayout"
)

// float32Bytes returns the little-endian bytes of v.
func float32Bytes(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// float32s reads little-endian float32 values from b.
func float32s(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// Convert a row-major 2×3 matrix to column-major (Fortran, LAPACK) order.
func ExampleCompile() {
	from, err := relayout.ParseShape("f32[2,3]") // row-major: {1,0}
	if err != nil {
		log.Fatal(err)
	}
	to, err := relayout.ParseShape("f32[2,3]{0,1}") // column-major
	if err != nil {
		log.Fatal(err)
	}
	p, err := relayout.Compile(from, to, nil)
	if err != nil {
		log.Fatal(err)
	}
	src := float32Bytes(
		1, 2, 3,
		4, 5, 6,
	)
	dst := make([]byte, p.DestinationSize())
	if err := p.Run(dst, src); err != nil {
		log.Fatal(err)
	}
	fmt.Println(float32s(dst))
	// Output: [1 4 2 5 3 6]
}

// Tile a 3×5 matrix into 2×4 tiles for upload to a device, padding with
// NaN, then untile it again as after a download. TPUs use T(8,128) tiles
// the same way; small tiles keep the output short.
func ExamplePlan_Run() {
	host := relayout.NewShape(relayout.F32, []int64{3, 5}, nil)
	device, err := relayout.ParseShape("f32[3,5]{1,0:T(2,4)}")
	if err != nil {
		log.Fatal(err)
	}
	up, err := relayout.Compile(host, device, &relayout.Options{Pad: relayout.Padding{Kind: relayout.PadNaN}})
	if err != nil {
		log.Fatal(err)
	}
	src := float32Bytes(
		1, 2, 3, 4, 5,
		6, 7, 8, 9, 10,
		11, 12, 13, 14, 15,
	)
	tiled := make([]byte, up.DestinationSize())
	if err := up.Run(tiled, src); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d bytes become %d\n", up.SourceSize(), up.DestinationSize())
	v := float32s(tiled)
	for t := 0; t < len(v); t += 8 { // one 2×4 tile per line
		fmt.Println(v[t:t+4], v[t+4:t+8])
	}

	down, err := relayout.Compile(device, host, nil)
	if err != nil {
		log.Fatal(err)
	}
	back := make([]byte, down.DestinationSize())
	if err := down.Run(back, tiled); err != nil {
		log.Fatal(err)
	}
	fmt.Println(float32s(back))
	// Output:
	// 60 bytes become 128
	// [1 2 3 4] [6 7 8 9]
	// [5 NaN NaN NaN] [10 NaN NaN NaN]
	// [11 12 13 14] [NaN NaN NaN NaN]
	// [15 NaN NaN NaN] [NaN NaN NaN NaN]
	// [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]
}

func ExampleParseShape() {
	s, err := relayout.ParseShape("bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)S(1)}")
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		log.Fatal(err)
	}
	size, err := s.ByteSize()
	if err != nil {
		log.Fatal(err)
	}
	phys, elems, err := s.PhysicalDims()
	if err != nil {
		log.Fatal(err)
	}
	l, _ := s.Layout()
	fmt.Println(s)
	fmt.Println("type:", s.DType(), "dims:", s.Dims())
	fmt.Println("minor_to_major:", l.MinorToMajor, "tiles:", l.Tiles, "memory space:", l.MemorySpace)
	fmt.Println("physical dims:", phys, "elements:", elems, "bytes:", size)

	// Errors wrap sentinels: test them with errors.Is, not by their text.
	_, err = relayout.ParseShape("f32[2,3]{1,0:T(2,2)L(0)}")
	fmt.Println("L(0) is an invalid layout:", errors.Is(err, relayout.ErrInvalidLayout))
	// Output:
	// bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)S(1)}
	// type: bf16 dims: [8 1 1280 16384]
	// minor_to_major: [3 2 0 1] tiles: [[8 128] [2 1]] memory space: 1
	// physical dims: [1 8 160 128 4 128 2 1] elements: 167772160 bytes: 335544320
	// L(0) is an invalid layout: true
}

// Plan.String explains a plan: its first line names the two layouts, the
// lines after it the loop nest, strides and kernel the planner chose.
func ExamplePlan_String() {
	from := relayout.NewShape(relayout.F32, []int64{1000, 1000}, nil)
	to := from.WithLayout(relayout.Layout{MinorToMajor: relayout.ColumnMajor(2)})
	p, err := relayout.Compile(from, to, nil)
	if err != nil {
		log.Fatal(err)
	}
	first, _, _ := strings.Cut(p.String(), "\n")
	fmt.Println(first)
	// Output: relayout f32[1000,1000]{1,0} -> f32[1000,1000]{0,1}
}

// Run a plan over []float32 slices: no byte conversion, no unsafe.
func ExampleRunSlices() {
	from, _ := relayout.ParseShape("f32[2,3]")
	to, _ := relayout.ParseShape("f32[2,3]{1,0:T(2,2)}") // 2×2 tiles, padded
	p, err := relayout.Compile(from, to, &relayout.Options{Pad: relayout.PadWith(-1)})
	if err != nil {
		log.Fatal(err)
	}
	src := []float32{1, 2, 3, 4, 5, 6}
	dst := make([]float32, p.DestinationSize()/4)
	if err := relayout.RunSlices(p, dst, src); err != nil {
		log.Fatal(err)
	}
	fmt.Println(dst)
	fmt.Println(relayout.RunSlices(p, dst[:5], src))
	// Output:
	// [1 2 4 5 3 -1 6 -1]
	// buffer has the wrong size: destination holds 5 float32 elements, the plan's destination f32[2,3]{1,0:T(2,2)} needs 8
}
