package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sbinet/npyio/npy"
	"github.com/tilecopy/tilecopy/relayout"
)

// A .npy file (NumPy's format, https://numpy.org/neps/nep-0001-npy-format.html)
// is a short header, a Python dict literal naming the dtype, the order
// ("fortran_order") and the shape, followed by the array's bytes in C
// (row-major) or Fortran (column-major) order. convert reads the header
// with github.com/sbinet/npyio and maps the array onto an XLA shape, so a
// .npy file is a raw array file that says its own shape.

// isNpy reports whether the file name says .npy.
func isNpy(name string) bool { return strings.EqualFold(filepath.Ext(name), ".npy") }

// npyTypes maps NumPy's dtype codes (kind and byte size, without the byte
// order character) to XLA element types.
var npyTypes = map[string]relayout.DType{
	"b1": relayout.PRED,
	"i1": relayout.S8, "i2": relayout.S16, "i4": relayout.S32, "i8": relayout.S64,
	"u1": relayout.U8, "u2": relayout.U16, "u4": relayout.U32, "u8": relayout.U64,
	"f2": relayout.F16, "f4": relayout.F32, "f8": relayout.F64,
	"c8": relayout.C64, "c16": relayout.C128,
}

// npyInfo is what the header of a .npy file says.
type npyInfo struct {
	shape   relayout.Shape // element type, dims and order (row- or column-major)
	fortran bool           // the header's fortran_order
	offset  int64          // where the array's bytes start
}

// order names the file's order as convert's --order spells it.
func (n npyInfo) order() string {
	if n.fortran {
		return "F"
	}
	return "C"
}

// npyLayout is the layout of a .npy array of the given rank: row-major for
// C order, column-major for Fortran order.
func npyLayout(rank int, fortran bool) relayout.Layout {
	if fortran {
		return relayout.Layout{MinorToMajor: relayout.ColumnMajor(rank)}
	}
	return relayout.Layout{MinorToMajor: relayout.RowMajor(rank)}
}

// npyType maps a NumPy dtype string from a header ("<f4", "|u1") to an
// XLA element type. Big-endian data and types without an XLA counterpart
// are errors.
func npyType(descr string) (relayout.DType, error) {
	code, order := descr, byte(0)
	if code != "" && strings.ContainsRune("<>|=", rune(code[0])) {
		order, code = code[0], code[1:]
	}
	t, ok := npyTypes[code]
	if !ok {
		return 0, fmt.Errorf("dtype %q is not supported (supported: bool, int8..int64, uint8..uint64, float16, float32, float64, complex64, complex128)", descr)
	}
	if t.ByteWidth() == 1 {
		return t, nil // byte order does not apply
	}
	switch order {
	case '<':
		return t, nil
	case '>':
		return 0, fmt.Errorf("dtype %q is big-endian; relayout moves little-endian data (in NumPy: a.astype(a.dtype.newbyteorder('<')))", descr)
	default:
		return 0, fmt.Errorf("dtype %q does not state its byte order", descr)
	}
}

// npyVoid reports whether descr is a void dtype ("|V2", "<V1": raw bytes,
// as NumPy saves the types ml_dtypes adds) and how many bytes wide.
func npyVoid(descr string) (width int64, ok bool) {
	code := strings.TrimLeft(descr, "<>|=")
	if len(descr)-len(code) > 1 || !strings.HasPrefix(code, "V") {
		return 0, false
	}
	w, err := strconv.ParseInt(code[1:], 10, 64)
	if err != nil || w < 1 {
		return 0, false
	}
	return w, true
}

// npyElementType maps the dtype string descr of a .npy header to an XLA
// element type. A void dtype, as NumPy saves ml_dtypes' bfloat16,
// float8_* and int4 arrays, is read as voidType when that is set (it must
// be as wide); else a 2-byte one is bf16, ml_dtypes' only 2-byte type
// (float16 has a code of its own), and a 1-byte one, which could be any
// of its float8, int4 or int2 types, is an error asking for --type.
func npyElementType(descr string, voidType relayout.DType) (relayout.DType, error) {
	w, ok := npyVoid(descr)
	switch {
	case !ok:
		return npyType(descr)
	case voidType != relayout.InvalidType:
		if int64(voidType.ByteWidth()) != w {
			return 0, fmt.Errorf("dtype %q holds %d-byte elements; %s elements are %d bytes wide", descr, w, voidType, voidType.ByteWidth())
		}
		return voidType, nil
	case w == 2:
		return relayout.BF16, nil
	case w == 1:
		return 0, fmt.Errorf("dtype %q is a void type of 1 byte, as NumPy saves ml_dtypes' float8 and int4 types: say which with --type (f8e4m3fn, f8e5m2, s4, u4, ...)", descr)
	}
	return 0, fmt.Errorf("dtype %q is a void type of %d bytes, which no element type is known to save as: say which with --type", descr, w)
}

// npyDescr is the NumPy dtype string of an XLA element type. The types
// NumPy lacks (bf16, the f8 types, s4 and the other sub-byte types,
// which a .npy file holds one per byte) are written as a void type of
// their width ("|V2" for bf16), as NumPy saves them from ml_dtypes: load
// the file with NumPy and view it as the ml_dtypes type.
func npyDescr(t relayout.DType) (string, error) {
	for code, u := range npyTypes {
		if u != t {
			continue
		}
		if t.ByteWidth() == 1 {
			return "|" + code, nil
		}
		return "<" + code, nil
	}
	if t.IsArray() && t.ByteWidth() > 0 {
		return fmt.Sprintf("|V%d", t.ByteWidth()), nil
	}
	return "", fmt.Errorf("%s has no NumPy dtype; a .npy file cannot hold it", t)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readNpyHeader reads the header of the .npy file name and checks that
// the file holds exactly the array it describes. A void dtype is read as
// voidType (see npyElementType).
func readNpyHeader(name string, voidType relayout.DType) (npyInfo, error) {
	f, err := os.Open(name)
	if err != nil {
		return npyInfo{}, fmt.Errorf("input: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return npyInfo{}, fmt.Errorf("input: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return npyInfo{}, fmt.Errorf("input %s: a .npy input must be a regular file", name)
	}
	info, err := parseNpyHeader(f, fi.Size(), voidType)
	if err != nil {
		return npyInfo{}, fmt.Errorf("input %s: %w", name, err)
	}
	want, _ := info.shape.ByteSize() // checked by parseNpyHeader
	if got := fi.Size() - info.offset; got != want {
		what := "short"
		if got > want {
			what = "long"
		}
		return npyInfo{}, fmt.Errorf("input %s is too %s: its header says %s (%d bytes) after %d header bytes, the file has %d bytes of data",
			name, what, info.shape, want, info.offset, got)
	}
	return info, nil
}

// npyStreamHeaderMax is the largest header read from a stream, whose size
// is not known beforehand (NumPy's own default limit is 10000 bytes).
const npyStreamHeaderMax = 1 << 20

// isNpyStream reports whether r starts with the magic of a .npy file.
func isNpyStream(r *bufio.Reader) bool {
	b, _ := r.Peek(len(npy.Magic))
	return bytes.Equal(b, npy.Magic[:])
}

// readNpyStream reads the header of a .npy stream from r (stdin, for IN
// "-"), leaving r at the array's first byte; the array's bytes are
// counted as they are read. A void dtype is read as voidType.
func readNpyStream(r *bufio.Reader, voidType relayout.DType) (npyInfo, error) {
	info, err := parseNpyHeader(r, -1, voidType)
	if err != nil {
		return npyInfo{}, fmt.Errorf("input stdin: %w", err)
	}
	info.offset = 0 // the stream goes on from the array's first byte
	return info, nil
}

// parseNpyHeader reads a .npy header from r, a file of size bytes (-1:
// a stream of unknown size). A void dtype is read as voidType (see
// npyElementType).
func parseNpyHeader(r io.Reader, size int64, voidType relayout.DType) (info npyInfo, err error) {
	// The reader allocates the header's declared length before reading
	// it: check that length against the file first.
	var prefix [12]byte
	cr := &countingReader{r: r}
	if _, err := io.ReadFull(cr, prefix[:10]); err != nil {
		return npyInfo{}, errors.New("not a .npy file: shorter than a header")
	}
	if !bytes.Equal(prefix[:6], npy.Magic[:]) {
		return npyInfo{}, errors.New("not a .npy file: no \\x93NUMPY magic")
	}
	hdrLen := int64(binary.LittleEndian.Uint16(prefix[8:10])) + 10
	if prefix[6] >= 2 {
		if _, err := io.ReadFull(cr, prefix[10:12]); err != nil {
			return npyInfo{}, errors.New("not a .npy file: shorter than a header")
		}
		hdrLen = int64(binary.LittleEndian.Uint32(prefix[8:12])) + 12
	}
	switch {
	case size < 0 && hdrLen > npyStreamHeaderMax:
		return npyInfo{}, fmt.Errorf(".npy header of %d bytes: more than the %d read from a stream", hdrLen, npyStreamHeaderMax)
	case size >= 0 && hdrLen > size:
		return npyInfo{}, fmt.Errorf("truncated .npy header: %d bytes declared, the file has %d", hdrLen, size)
	}
	defer func() { // npyio indexes the header text without checking it
		if r := recover(); r != nil {
			info, err = npyInfo{}, fmt.Errorf("malformed .npy header: %v", r)
		}
	}()
	// The whole header, read here: a stream that ends inside it is
	// truncated, not a header npyio would misread.
	hdr := make([]byte, hdrLen)
	n := copy(hdr, prefix[:cr.n])
	if m, err := io.ReadFull(r, hdr[n:]); err != nil {
		return npyInfo{}, fmt.Errorf("truncated .npy header: %d bytes declared, the input ends after %d", hdrLen, int64(n+m))
	}
	rd, err := npy.NewReader(bytes.NewReader(hdr))
	if err != nil {
		return npyInfo{}, fmt.Errorf("malformed .npy header: %w", err)
	}
	h := rd.Header.Descr
	t, err := npyElementType(h.Type, voidType)
	if err != nil {
		return npyInfo{}, err
	}
	dims := make([]int64, len(h.Shape))
	for i, d := range h.Shape {
		if d < 0 {
			return npyInfo{}, fmt.Errorf("malformed .npy header: shape %v", h.Shape)
		}
		dims[i] = int64(d)
	}
	l := npyLayout(len(dims), h.Fortran)
	s := relayout.NewShape(t, dims, &l)
	if _, err := s.ByteSize(); err != nil {
		return npyInfo{}, fmt.Errorf("shape %v: %w", h.Shape, err)
	}
	return npyInfo{shape: s, fortran: h.Fortran, offset: hdrLen}, nil
}

// npyHeader returns the header of a version 1.0 .npy file (2.0 when the
// dict is too long for 1.0) holding an array of type t and the given
// dims in C or Fortran order, padded with spaces so that the data starts
// at a multiple of 64 bytes, as NumPy writes it.
//
// npyio writes headers only for the Go values it serialises, always in C
// order; relayout needs Fortran order and any rank, so it writes the few
// bytes of the header itself and reads them back with npyio in its tests.
func npyHeader(t relayout.DType, dims []int64, fortran bool) ([]byte, error) {
	descr, err := npyDescr(t)
	if err != nil {
		return nil, err
	}
	shape := make([]string, len(dims))
	for i, d := range dims {
		shape[i] = strconv.FormatInt(d, 10)
	}
	tuple := "(" + strings.Join(shape, ", ") + ")"
	if len(dims) == 1 {
		tuple = "(" + shape[0] + ",)"
	}
	order := "False"
	if fortran {
		order = "True"
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, order, tuple)
	const align = 64
	prefix := 10 // magic, version, uint16 length
	if prefix+len(dict)+1 > 65535 {
		prefix = 12 // version 2.0: uint32 length
	}
	total := (prefix + len(dict) + 1 + align - 1) / align * align
	h := make([]byte, 0, total)
	h = append(h, npy.Magic[:]...)
	if prefix == 10 {
		h = append(h, 1, 0)
		h = binary.LittleEndian.AppendUint16(h, uint16(total-prefix))
	} else {
		h = append(h, 2, 0)
		h = binary.LittleEndian.AppendUint32(h, uint32(total-prefix))
	}
	h = append(h, dict...)
	for len(h) < total-1 {
		h = append(h, ' ')
	}
	return append(h, '\n'), nil
}
