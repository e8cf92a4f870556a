package relayout

import (
	"fmt"
)

// Device layout presets for ForDevice.
const (
	// PresetTPU tiles the two most-minor dims of the row-major order in
	// (8,128) tiles, as TPUs lay out arrays: T(8,128) for 32- and 64-bit
	// types; T(8,128)(2,1) for 16-bit types, which pairs rows so that a
	// 32-bit word holds two elements of one column; T(8,128)(4,1) for
	// 8-bit types (four rows per word); and for 4-bit types
	// T(8,128)(8,1) packed with E(4), eight rows per word. Rank-1 arrays
	// get T(1024) (and E(4) for 4-bit types); scalars are left alone.
	PresetTPU = "tpu"
)

// ForDevice returns s laid out as device preset wants it (PresetTPU is the
// only preset). The logical dims and element type are kept; the layout is
// row-major order tiled, with the memory space of s.
func ForDevice(s Shape, preset string) (Shape, error) {
	if preset != PresetTPU {
		return Shape{}, fmt.Errorf("%w: unknown device preset %q (known: %s)", ErrInvalidLayout, preset, PresetTPU)
	}
	if _, err := s.denseMap(); err != nil {
		return Shape{}, err
	}
	l, _ := s.Layout()
	out := Layout{MinorToMajor: RowMajor(s.Rank()), MemorySpace: l.MemorySpace}
	if s.Rank() == 0 {
		return s.WithLayout(out), nil
	}
	first := Tile{8, 128}
	if s.Rank() == 1 {
		first = Tile{1024}
	}
	out.Tiles = []Tile{first}
	var rowsPerWord int64
	switch bits := s.DType().Bits(); {
	case bits <= 4:
		rowsPerWord = 8
		out.ElementSizeInBits = 4
	case bits <= 8:
		rowsPerWord = 4
	case bits <= 16:
		rowsPerWord = 2
	}
	if rowsPerWord > 0 && s.Rank() > 1 {
		out.Tiles = append(out.Tiles, Tile{rowsPerWord, 1})
	}
	return s.WithLayout(out), nil
}

// Upload relayouts src, laid out as host, into dst in the device layout of
// preset (see ForDevice), padding and tiling in one pass, and returns the
// device shape. dst must be the device shape's ByteSize; DeviceSize tells
// it beforehand.
func Upload(dst, src []byte, host Shape, preset string, pad Padding) (Shape, error) {
	dev, err := ForDevice(host, preset)
	if err != nil {
		return Shape{}, err
	}
	p, err := Compile(host, dev, &Options{Pad: pad})
	if err != nil {
		return Shape{}, err
	}
	if err := p.Run(dst, src); err != nil {
		return Shape{}, fmt.Errorf("upload to %s: %w", dev, err)
	}
	return dev, nil
}

// UploadAs is Upload to a device that holds elements of type dev: the
// elements convert as they move (see Compile; f32 to bf16, say), with
// the padding and Saturate of opts (nil for the defaults; Threads as
// Compile takes it). dst must be DeviceSizeAs bytes.
func UploadAs(dst, src []byte, host Shape, dev DType, preset string, opts *Options) (Shape, error) {
	device, err := ForDevice(host.WithDType(dev), preset)
	if err != nil {
		return Shape{}, err
	}
	p, err := Compile(host, device, opts)
	if err != nil {
		return Shape{}, err
	}
	if err := p.Run(dst, src); err != nil {
		return Shape{}, fmt.Errorf("upload to %s: %w", device, err)
	}
	return device, nil
}

// DeviceSizeAs is the byte size of host's array in the device layout of
// preset, holding elements of type dev.
func DeviceSizeAs(host Shape, dev DType, preset string) (int64, error) {
	return DeviceSize(host.WithDType(dev), preset)
}

// DeviceSize is the byte size of host's array in the device layout of
// preset.
func DeviceSize(host Shape, preset string) (int64, error) {
	dev, err := ForDevice(host, preset)
	if err != nil {
		return 0, err
	}
	return dev.ByteSize()
}

// Download relayouts src, laid out as device, into dst laid out as host
// (untiling and dropping the padding in one pass). Where their element
// types differ the elements convert as they move (a bf16 device buffer
// into an f32 host array, say; see Compile).
func Download(dst, src []byte, device, host Shape) error {
	p, err := Compile(device, host, nil)
	if err != nil {
		return err
	}
	if err := p.Run(dst, src); err != nil {
		return fmt.Errorf("download from %s: %w", device, err)
	}
	return nil
}
