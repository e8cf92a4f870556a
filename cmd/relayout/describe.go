package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tilecopy/tilecopy/relayout"
)

// describeCmd prints the canonical text of a shape and what its buffer
// holds: element width, logical and physical dims, size and padding; or,
// with --index or --offset, where one element sits.
func describeCmd(args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newCommand("describe", "describe [--index I,J,... | --offset N] SHAPE",
		"describe prints SHAPE in canonical XLA text, then its element type and width,\n"+
			"logical and physical dims, byte size and share of padding.\n"+
			"With --index, it prints instead the element offset of that logical index in\n"+
			"SHAPE's buffer (places before it, padding included) and the byte (and, for\n"+
			"packed elements, the bits) where it starts; with --offset, the logical index\n"+
			"stored at that element offset, or that the place is padding.")
	var index, offset string
	c.fs.StringVar(&index, "index", "", "print where the element at logical index `I,J,...` sits")
	c.fs.StringVar(&offset, "offset", "", "print the logical index stored at element offset `N`, or that it is padding")
	pos, err := c.parse(args, 1, stdout)
	if err != nil {
		return err
	}
	if index != "" && offset != "" {
		return c.usageErr("--index and --offset exclude each other")
	}
	s, err := parseShape("shape", pos[0])
	if err != nil {
		return err
	}
	var out string
	switch {
	case index != "":
		idx, perr := parseIndex(index)
		if perr != nil {
			return c.usageErr("--index %q: %v", index, perr)
		}
		out, err = describeIndex(s, idx)
	case offset != "":
		off, perr := strconv.ParseInt(strings.TrimSpace(offset), 10, 64)
		if perr != nil {
			return c.usageErr("--offset %q: want an integer", offset)
		}
		out, err = describeOffset(s, off)
	default:
		out, err = describe(s)
	}
	if err != nil {
		return fmt.Errorf("shape %q: %w", pos[0], err)
	}
	_, err = io.WriteString(stdout, out)
	return err
}

// parseIndex reads a logical index written I,J,... (or (I,J,...));
// "()" is the index of a rank-0 shape.
func parseIndex(text string) ([]int64, error) {
	text = strings.TrimSpace(text)
	text = strings.TrimSuffix(strings.TrimPrefix(text, "("), ")")
	if strings.TrimSpace(text) == "" {
		return []int64{}, nil
	}
	parts := strings.Split(text, ",")
	idx := make([]int64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("entry %d (%q) is not an integer", i, p)
		}
		idx[i] = v
	}
	return idx, nil
}

// describeIndex returns the line describeCmd prints for --index.
func describeIndex(s relayout.Shape, idx []int64) (string, error) {
	off, err := s.Offset(idx)
	if err != nil {
		return "", err
	}
	where, err := placeOf(s, off)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("index %s: element offset %d, %s\n", formatIndex(idx), off, where), nil
}

// describeOffset returns the line describeCmd prints for --offset.
func describeOffset(s relayout.Shape, off int64) (string, error) {
	idx, padding, err := s.Index(off)
	if err != nil {
		return "", err
	}
	where, err := placeOf(s, off)
	if err != nil {
		return "", err
	}
	if padding {
		return fmt.Sprintf("element offset %d (%s) is padding: no element is stored there\n", off, where), nil
	}
	return fmt.Sprintf("element offset %d (%s): index %s\n", off, where, formatIndex(idx)), nil
}

// placeOf says where element offset off of s starts: "byte 102", or for a
// packed element "byte 3, bits 4-7".
func placeOf(s relayout.Shape, off int64) (string, error) {
	b, shift, err := s.BitOffset(off)
	if err != nil {
		return "", err
	}
	l, _ := s.Layout()
	if e := l.ElementSizeInBits; e > 0 && e < 8 {
		return fmt.Sprintf("byte %d, bits %d-%d", b, shift, int64(shift)+e-1), nil
	}
	return fmt.Sprintf("byte %d", b), nil
}

// formatIndex prints a logical index as (6,5).
func formatIndex(idx []int64) string {
	return "(" + strings.Trim(formatDims(idx), "[]") + ")"
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
