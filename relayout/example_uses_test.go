package relayout_test

import (
	"encoding/binary"
	"fmt"
	"log"
	"math"

	"github.com/tilecopy/tilecopy/relayout"
)

// Convert typed Go slices between row-major (C, Go, NumPy's default) and
// column-major (Fortran, LAPACK) order without writing any shape text.
func ExampleToColumnMajor() {
	rowMajor := []float32{
		1, 2, 3,
		4, 5, 6,
	}
	dims := []int64{2, 3}
	colMajor := make([]float32, len(rowMajor))
	if err := relayout.ToColumnMajor(colMajor, rowMajor, dims); err != nil {
		log.Fatal(err)
	}
	fmt.Println(colMajor)

	back := make([]float32, len(rowMajor))
	if err := relayout.ToRowMajor(back, colMajor, dims); err != nil {
		log.Fatal(err)
	}
	fmt.Println(back)

	// NumPy's np.transpose(a, (1, 0)) made contiguous is the same bytes.
	perm := make([]float32, len(rowMajor))
	if err := relayout.Permute(perm, rowMajor, dims, []int{1, 0}); err != nil {
		log.Fatal(err)
	}
	fmt.Println(perm)
	// Output:
	// [1 4 2 5 3 6]
	// [1 2 3 4 5 6]
	// [1 4 2 5 3 6]
}

// Turn an RGB image from channels last (height × width × 3, the order
// image files decode to) into channels first (3 planes of height ×
// width, the order most vision models take), and back.
func ExamplePermute() {
	hwc := []uint8{ // 2×2 pixels: red, green, blue; white, black
		255, 0, 0, 0, 255, 0,
		0, 0, 255, 255, 255, 255,
	}
	dims := []int64{2, 2, 3}
	chw := make([]uint8, len(hwc))
	if err := relayout.Permute(chw, hwc, dims, []int{2, 0, 1}); err != nil {
		log.Fatal(err)
	}
	fmt.Println(chw)

	back := make([]uint8, len(hwc))
	if err := relayout.Permute(back, chw, []int64{3, 2, 2}, []int{1, 2, 0}); err != nil {
		log.Fatal(err)
	}
	fmt.Println(back)
	// Output:
	// [255 0 0 255 0 255 0 255 0 0 255 255]
	// [255 0 0 0 255 0 0 0 255 255 255 255]
}

// Pad and tile a bf16 matrix for a TPU, then undo it after the device is
// done: Upload lays the array out as ForDevice says (here T(8,128)(2,1):
// 8×128 tiles, rows paired so a 32-bit word holds two rows of a column),
// writing the padding in the same pass; Download crops it again.
func ExampleUpload() {
	host := relayout.NewShape(relayout.BF16, []int64{3, 200}, nil)
	src := make([]byte, 3*200*2)
	for i := range src {
		src[i] = byte(i)
	}
	size, err := relayout.DeviceSize(host, relayout.PresetTPU)
	if err != nil {
		log.Fatal(err)
	}
	onDevice := make([]byte, size)
	device, err := relayout.Upload(onDevice, src, host, relayout.PresetTPU, relayout.Padding{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(device)
	fmt.Printf("%d bytes on the host, %d on the device\n", len(src), len(onDevice))

	back := make([]byte, len(src))
	if err := relayout.Download(back, onDevice, device, host); err != nil {
		log.Fatal(err)
	}
	fmt.Println("round trip exact:", string(back) == string(src))
	// Output:
	// bf16[3,200]{1,0:T(8,128)(2,1)}
	// 1200 bytes on the host, 4096 on the device
	// round trip exact: true
}

// ExampleUploadAs uploads f32 values as bf16 tiles, converting as it
// tiles, and downloads them back to f32.
func ExampleUploadAs() {
	host := relayout.NewShape(relayout.F32, []int64{3, 200}, nil)
	src := make([]byte, 3*200*4)
	for i := range 3 * 200 {
		binary.LittleEndian.PutUint32(src[4*i:], math.Float32bits(float32(i)+0.25))
	}
	size, err := relayout.DeviceSizeAs(host, relayout.BF16, relayout.PresetTPU)
	if err != nil {
		log.Fatal(err)
	}
	onDevice := make([]byte, size)
	device, err := relayout.UploadAs(onDevice, src, host, relayout.BF16, relayout.PresetTPU, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(device)
	back := make([]byte, len(src))
	if err := relayout.Download(back, onDevice, device, host); err != nil {
		log.Fatal(err)
	}
	for _, i := range []int{0, 1, 257, 599} {
		fmt.Print(math.Float32frombits(binary.LittleEndian.Uint32(back[4*i:])), " ")
	}
	fmt.Println()
	// Output:
	// bf16[3,200]{1,0:T(8,128)(2,1)}
	// 0.25 1.25 258 600
}
