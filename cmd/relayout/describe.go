package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tilecopy/tilecopy/relayout"
)

// describeCmd prints the canonical text of a shape and what its buffer
// holds: element width, logical and physical dims, size and padding.
func describeCmd(args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newCommand("describe", "describe SHAPE",
		"describe prints SHAPE in canonical XLA text, then its element type and width,\n"+
			"logical and physical dims, byte size and share of padding.")
	pos, err := c.parse(args, 1, stdout)
	if err != nil {
		return err
	}
	s, err := parseShape("shape", pos[0])
	if err != nil {
		return err
	}
	d, err := describe(s)
	if err != nil {
		return fmt.Errorf("shape %q: %w", pos[0], err)
	}
	_, err = io.WriteString(stdout, d)
	return err
}

// describe returns the text describeCmd prints for a valid shape s.
func describe(s relayout.Shape) (string, error) {
	size, err := s.ByteSize()
	if err != nil {
		return "", err
	}
	phys, physElems, err := s.PhysicalDims()
	if err != nil {
		return "", err
	}
	logical, err := s.ElementCount()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", s)
	fmt.Fprintf(&b, "element type:      %s, %s\n", s.DType(), elementWidth(s))
	fmt.Fprintf(&b, "logical dims:      %s (%s)\n", formatDims(s.Dims()), plural(logical, "element"))
	fmt.Fprintf(&b, "physical dims:     %s (major to minor)\n", formatDims(phys))
	fmt.Fprintf(&b, "physical elements: %d\n", physElems)
	fmt.Fprintf(&b, "byte size:         %d (%s)\n", size, humanBytes(size))
	pad := physElems - logical
	share := 0.0
	if physElems > 0 {
		share = 100 * float64(pad) / float64(physElems)
	}
	fmt.Fprintf(&b, "padding:           %.2f%% (%d of %d physical elements)\n", share, pad, physElems)
	return b.String(), nil
}

// elementWidth says how many bits one element of s takes in its buffer
// and whether elements are packed several to a byte.
func elementWidth(s relayout.Shape) string {
	t := s.DType()
	bits := int64(t.ByteWidth() * 8)
	if l, ok := s.Layout(); ok && l.ElementSizeInBits != 0 {
		bits = l.ElementSizeInBits
	}
	switch {
	case bits < 8:
		return fmt.Sprintf("%d bits per element (packed, %d per byte)", bits, 8/bits)
	case t.IsSubByte():
		return fmt.Sprintf("%d bits per element (%d-bit values, not packed: one per byte)", bits, t.Bits())
	}
	return fmt.Sprintf("%d bits per element (not packed)", bits)
}

// formatDims prints dims as shape text does: [8,1,1280].
func formatDims(dims []int64) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = strconv.FormatInt(d, 10)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// humanBytes prints n bytes with a binary unit: 320.0 MiB.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v := float64(n)
	i := -1
	for v >= unit && i < 5 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTPE"[i])
}

// plural returns "1 element", "2 elements".
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
