package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sbinet/npyio/npy"
	"github.com/tilecopy/tilecopy/relayout"
)

func TestNpyType(t *testing.T) {
	tests := []struct {
		descr string
		want  relayout.DType
		err   string
	}{
		{"<f4", relayout.F32, ""}, {"<f8", relayout.F64, ""}, {"<f2", relayout.F16, ""},
		{"|i1", relayout.S8, ""}, {"<i2", relayout.S16, ""}, {"<i4", relayout.S32, ""}, {"<i8", relayout.S64, ""},
		{"|u1", relayout.U8, ""}, {"<u2", relayout.U16, ""}, {"<u4", relayout.U32, ""}, {"<u8", relayout.U64, ""},
		{"|b1", relayout.PRED, ""}, {"<c8", relayout.C64, ""}, {"<c16", relayout.C128, ""},
		{">i1", relayout.S8, ""}, // one byte: the order does not apply
		{">f4", 0, "big-endian"},
		{">c16", 0, "big-endian"},
		{"f4", 0, "byte order"},
		{"=i4", 0, "byte order"},
		{"<U3", 0, "not supported"},
		{"|O", 0, "not supported"},
		{"<M8[ns]", 0, "not supported"},
		{"|V2", 0, "not supported"},
		{"", 0, "not supported"},
	}
	for _, tc := range tests {
		got, err := npyType(tc.descr)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("npyType(%q) = %v, %v; want %v", tc.descr, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("npyType(%q) error %v, want one saying %q", tc.descr, err, tc.err)
		}
	}
	for code, dt := range npyTypes {
		d, err := npyDescr(dt)
		if back, err2 := npyType(d); err != nil || err2 != nil || back != dt || !strings.HasSuffix(d, code) {
			t.Errorf("npyDescr(%v) = %q, %v; back %v, %v", dt, d, err, back, err2)
		}
	}
	for dt, want := range map[relayout.DType]string{relayout.BF16: "|V2", relayout.F8E5M2: "|V1", relayout.S4: "|V1"} {
		if d, err := npyDescr(dt); err != nil || d != want {
			t.Errorf("npyDescr(%v) = %q, %v; want %q, a void type as ml_dtypes saves it", dt, d, err, want)
		}
	}
}

func TestNpyElementType(t *testing.T) {
	tests := []struct {
		descr    string
		voidType relayout.DType
		want     relayout.DType
		err      string
	}{
		{"|V2", relayout.InvalidType, relayout.BF16, ""},
		{"<V2", relayout.InvalidType, relayout.BF16, ""},
		{"|V2", relayout.F16, relayout.F16, ""},
		{"|V1", relayout.F8E4M3FN, relayout.F8E4M3FN, ""},
		{"|V1", relayout.S4, relayout.S4, ""},
		{"|V1", relayout.InvalidType, 0, "--type"},
		{"|V1", relayout.BF16, 0, "2 bytes wide"},
		{"|V4", relayout.InvalidType, 0, "--type"},
		{"|V16", relayout.C128, relayout.C128, ""},
		{"<f4", relayout.BF16, relayout.F32, ""}, // not void: the header's type
		{"|Vx", relayout.InvalidType, 0, "not supported"},
		{"<>V2", relayout.InvalidType, 0, "not supported"},
	}
	for _, tc := range tests {
		got, err := npyElementType(tc.descr, tc.voidType)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("npyElementType(%q, %v) = %v, %v; want %v", tc.descr, tc.voidType, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("npyElementType(%q, %v) error %v, want one saying %q", tc.descr, tc.voidType, err, tc.err)
		}
	}
}

// TestConvertNpyMLDtypes converts .npy files as NumPy saves ml_dtypes'
// bfloat16, float8 and int4 arrays (void dtypes, built here by hand: no
// ml_dtypes needed), from files and from stdin, against the oracle.
func TestConvertNpyMLDtypes(t *testing.T) {
	tests := []struct {
		name  string
		descr string // as the header says it
		dt    relayout.DType
		args  []string // besides IN and OUT
		to    string   // the raw OUT's shape
	}{
		{"bfloat16", "|V2", relayout.BF16, []string{"--to", "bf16[3,70]{0,1}"}, "bf16[3,70]{0,1}"},
		{"bfloat16 <V2 to tiles", "<V2", relayout.BF16, []string{"--to", "bf16[3,70]{1,0:T(8,128)(2,1)}"}, "bf16[3,70]{1,0:T(8,128)(2,1)}"},
		{"float8_e5m2", "|V1", relayout.F8E5M2, []string{"--type", "f8e5m2", "--to", "f8e5m2[3,70]{0,1}"}, "f8e5m2[3,70]{0,1}"},
		{"float8_e4m3fn by --from", "|V1", relayout.F8E4M3FN, []string{"--from", "f8e4m3fn[3,70]", "--to", "f8e4m3fn[3,70]{0,1}", "--pad", "nan"}, "f8e4m3fn[3,70]{0,1}"},
		{"int4 packed", "|V1", relayout.S4, []string{"--type", "s4", "--to", "s4[3,70]{1,0:E(4)}"}, "s4[3,70]{1,0:E(4)}"},
	}
	dims := []int64{3, 70}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			from := npyShape(tc.dt, dims, false)
			n, _ := from.ByteSize()
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(i*7 + 3)
				if tc.dt.IsSubByte() {
					data[i] &= 0x7 // int4 values as ml_dtypes stores them, one per byte
				}
			}
			to, err := relayout.ParseShape(tc.to)
			if err != nil {
				t.Fatal(err)
			}
			pad := relayout.Padding{}
			if slices.Contains(tc.args, "nan") {
				pad.Kind = relayout.PadNaN
			}
			want := reference(t, data, from, to, pad)
			h, err := npyHeader(tc.dt, dims, false)
			if err != nil {
				t.Fatal(err)
			}
			h = bytes.Replace(h, []byte("'|V"), []byte("'"+tc.descr[:2]), 1)
			if !bytes.Contains(h, []byte("'"+tc.descr+"'")) {
				t.Fatalf("header %q lacks %q", h, tc.descr)
			}
			file := append(h, data...)
			dir := t.TempDir()
			in, out := filepath.Join(dir, "in.npy"), filepath.Join(dir, "out.bin")
			if err := os.WriteFile(in, file, 0o644); err != nil {
				t.Fatal(err)
			}
			r := runCLI(t, nil, append(append([]string{"convert"}, tc.args...), in, out)...)
			if got, _ := os.ReadFile(out); r.code != 0 || !bytes.Equal(got, want) {
				t.Errorf("file: exit %d, stderr %q, output equal %v", r.code, r.stderr, bytes.Equal(got, want))
			}
			if !slices.Contains(tc.args, "--from") { // stdin with --from is raw
				r = runCLI(t, file, append(append([]string{"convert"}, tc.args...), "-", "-")...)
				if r.code != 0 || r.stdout != string(want) {
					t.Errorf("stdin: exit %d, stderr %q, output equal %v", r.code, r.stderr, r.stdout == string(want))
				}
			}
			// To a .npy OUT, in Fortran order: a void dtype of the
			// element's width, as ml_dtypes saves it, then the array.
			npyOut := filepath.Join(dir, "out.npy")
			args := slices.DeleteFunc(slices.Clone(tc.args), func(a string) bool { return strings.HasPrefix(a, "--to") || a == tc.to })
			r = runCLI(t, nil, append(append([]string{"convert", "--order", "F"}, args...), in, npyOut)...)
			wantF := reference(t, data, from, npyShape(tc.dt, dims, true), relayout.Padding{})
			hF, _ := npyHeader(tc.dt, dims, true)
			got, _ := os.ReadFile(npyOut)
			if r.code != 0 || !bytes.Equal(got, append(hF, wantF...)) || !bytes.Contains(hF, []byte(fmt.Sprintf("'|V%d'", tc.dt.ByteWidth()))) {
				t.Errorf(".npy OUT: exit %d, stderr %q, header %q", r.code, r.stderr, got[:min(len(got), 64)])
			}
		})
	}
}

// readHead returns the first n bytes of the file at path.
func readHead(t *testing.T, path string, n int) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || len(b) < n {
		t.Fatalf("%s: %d bytes, %v; want %d", path, len(b), err, n)
	}
	return b[:n]
}

func TestConvertNpyTypeErrors(t *testing.T) {
	dir := t.TempDir()
	v1 := writeNpy(t, filepath.Join(dir, "v1.npy"), relayout.F8E5M2, []int64{2, 3}, false, make([]byte, 6))
	f4 := writeNpy(t, filepath.Join(dir, "f4.npy"), relayout.F32, []int64{2, 3}, false, make([]byte, 24))
	raw := filepath.Join(dir, "raw.bin")
	if err := os.WriteFile(raw, make([]byte, 24), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.bin")
	tests := []struct {
		name  string
		args  []string
		stdin []byte
		code  int
		want  string
	}{
		{"void 1 byte, no --type", []string{"convert", "--to", "f8e5m2[2,3]{0,1}", v1, out}, nil, exitError, "say which with --type"},
		{"--type too wide", []string{"convert", "--type", "bf16", "--to", "bf16[2,3]{0,1}", v1, out}, nil, exitError, "2 bytes wide"},
		{"--type on a typed dtype", []string{"convert", "--type", "s32", "--to", "s32[2,3]{0,1}", f4, out}, nil, exitError, "says f32"},
		{"--type on raw IN", []string{"convert", "--type", "bf16", "--from", "f32[2,3]", "--to", "f32[2,3]{0,1}", raw, out}, nil, exitUsage, "--type applies to a .npy IN"},
		{"--type not a type", []string{"convert", "--type", "float", "--to", "f32[2,3]{0,1}", f4, out}, nil, exitUsage, "not an element type"},
		{"stdin neither .npy nor --from", []string{"convert", "--to", "f32[2,3]{0,1}", "-", out}, make([]byte, 24), exitUsage, "--from is required"},
		{"stdin .npy header cut", []string{"convert", "--to", "f32[2,3]{0,1}", "-", out}, readHead(t, f4, 64), exitError, "input stdin: truncated .npy header: 128 bytes declared, the input ends after 64"},
		{"stdin .npy data short", []string{"convert", "--to", "f32[2,3]{0,1}", "-", out}, readHead(t, f4, 128+20), exitError, "input stdin is too short: 20 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, tc.stdin, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, tc.code, tc.want)
			}
		})
	}
}

// TestNpyHeader writes headers and reads them back, with this package's
// reader and with npyio's.
func TestNpyHeader(t *testing.T) {
	tests := []struct {
		t       relayout.DType
		dims    []int64
		fortran bool
		shape   string // as npyio reports it
	}{
		{relayout.F32, []int64{2, 3, 4}, true, "[2 3 4]"},
		{relayout.F32, []int64{2, 3, 4}, false, "[2 3 4]"},
		{relayout.PRED, []int64{7}, false, "[7]"},
		{relayout.C128, nil, false, "[]"},
		{relayout.S16, []int64{0, 5}, true, "[0 5]"},
		{relayout.U64, slices.Repeat([]int64{1}, 32), false, "[" + strings.TrimSpace(strings.Repeat("1 ", 32)) + "]"},
	}
	for _, tc := range tests {
		h, err := npyHeader(tc.t, tc.dims, tc.fortran)
		if err != nil {
			t.Fatal(err)
		}
		if len(h)%64 != 0 || h[len(h)-1] != '\n' {
			t.Errorf("%v %v: header of %d bytes, last %q: not 64-aligned with a newline", tc.t, tc.dims, len(h), h[len(h)-1])
		}
		l := npyLayout(len(tc.dims), tc.fortran)
		want := relayout.NewShape(tc.t, tc.dims, &l)
		n, _ := want.ByteSize()
		file := append(h, make([]byte, n)...)
		info, err := parseNpyHeader(bytes.NewReader(file), int64(len(file)), relayout.InvalidType)
		if err != nil {
			t.Fatalf("%v %v: %v", tc.t, tc.dims, err)
		}
		if !info.shape.Equal(want) || info.offset != int64(len(h)) || info.fortran != tc.fortran {
			t.Errorf("read back %s at %d (fortran %v), want %s at %d", info.shape, info.offset, info.fortran, want, len(h))
		}
		r, err := npy.NewReader(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		if d := r.Header.Descr; d.Fortran != tc.fortran || fmt.Sprint(d.Shape) != tc.shape {
			t.Errorf("npyio reads fortran %v shape %v, want %v %s", d.Fortran, d.Shape, tc.fortran, tc.shape)
		}
	}
}

// writeNpy writes a .npy file of an array of type t and dims in C or
// Fortran order holding data, and returns its path.
func writeNpy(t *testing.T, path string, dt relayout.DType, dims []int64, fortran bool, data []byte) string {
	t.Helper()
	h, err := npyHeader(dt, dims, fortran)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(h, data...), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// npyShape is the shape of a .npy array of type t and dims in an order.
func npyShape(dt relayout.DType, dims []int64, fortran bool) relayout.Shape {
	l := npyLayout(len(dims), fortran)
	return relayout.NewShape(dt, dims, &l)
}

func TestConvertNpy(t *testing.T) {
	type end struct {
		npy     bool   // a .npy file (else raw)
		fortran bool   // its order, when npy
		shape   string // the raw file's shape, when not npy
	}
	tests := []struct {
		name    string
		dt      relayout.DType
		dims    []int64
		in, out end
		args    []string
		pad     relayout.Padding
		outDims []int64 // of the .npy header when widened
	}{
		{"F to C", relayout.F32, []int64{2, 3, 4}, end{npy: true, fortran: true}, end{npy: true}, nil, relayout.Padding{}, nil},
		{"C to F by --order", relayout.S16, []int64{5, 7}, end{npy: true}, end{npy: true, fortran: true}, []string{"--order", "F"}, relayout.Padding{}, nil},
		{"C to C by --order c", relayout.U32, []int64{5, 7}, end{npy: true}, end{npy: true}, []string{"--order", "c"}, relayout.Padding{}, nil},
		{"F to C by --to without layout", relayout.F64, []int64{3, 4}, end{npy: true, fortran: true}, end{npy: true}, []string{"--to", "f64[3,4]"}, relayout.Padding{}, nil},
		{"--to column-major picks F", relayout.U8, []int64{4, 6}, end{npy: true}, end{npy: true, fortran: true}, []string{"--to", "u8[4,6]{0,1}"}, relayout.Padding{}, nil},
		{"--to and --order agree", relayout.U8, []int64{4, 6}, end{npy: true}, end{npy: true, fortran: true}, []string{"--to", "u8[4,6]{0,1}", "--order", "F"}, relayout.Padding{}, nil},
		{"npy to tiled raw", relayout.F32, []int64{9, 130}, end{npy: true, fortran: true}, end{shape: "f32[9,130]{1,0:T(8,128)}"}, []string{"--to", "f32[9,130]{1,0:T(8,128)}"}, relayout.Padding{}, nil},
		{"raw to npy", relayout.F32, []int64{3, 5}, end{shape: "f32[3,5]{0,1}"}, end{npy: true}, []string{"--from", "f32[3,5]{0,1}"}, relayout.Padding{}, nil},
		{"--from without layout", relayout.F32, []int64{2, 3}, end{npy: true, fortran: true}, end{npy: true}, []string{"--from", "f32[2,3]"}, relayout.Padding{}, nil},
		{"--from with the file's layout", relayout.F32, []int64{2, 3}, end{npy: true, fortran: true}, end{npy: true}, []string{"--from", "f32[2,3]{0,1}"}, relayout.Padding{}, nil},
		{"--pad-to widens the header", relayout.F32, []int64{3, 5}, end{npy: true}, end{npy: true}, []string{"--pad-to", "4,8", "--pad", "nan"}, relayout.Padding{Kind: relayout.PadNaN, Widths: []int64{4, 8}}, []int64{4, 8}},
		{"bool", relayout.PRED, []int64{3, 4}, end{npy: true, fortran: true}, end{npy: true}, nil, relayout.Padding{}, nil},
		{"complex64", relayout.C64, []int64{3, 4}, end{npy: true, fortran: true}, end{npy: true}, nil, relayout.Padding{}, nil},
		{"complex128 1-D", relayout.C128, []int64{5}, end{npy: true}, end{npy: true, fortran: true}, []string{"--order", "F"}, relayout.Padding{}, nil},
		{"scalar", relayout.F32, nil, end{npy: true}, end{npy: true}, nil, relayout.Padding{}, nil},
		{"empty", relayout.F32, []int64{0, 3}, end{npy: true, fortran: true}, end{npy: true}, nil, relayout.Padding{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inShape := npyShape(tc.dt, tc.dims, tc.in.fortran)
			if !tc.in.npy {
				inShape, _ = relayout.ParseShape(tc.in.shape)
			}
			outShape := npyShape(tc.dt, tc.dims, tc.out.fortran)
			if !tc.out.npy {
				outShape, _ = relayout.ParseShape(tc.out.shape)
			}
			n, _ := inShape.ByteSize()
			data, _ := randomInput(t, relayout.NewShape(relayout.U8, []int64{n}, nil).String(), 4)
			if tc.dt == relayout.PRED {
				for i := range data {
					data[i] &= 1
				}
			}
			want := reference(t, data, inShape, outShape, tc.pad)
			dir := t.TempDir()
			in := filepath.Join(dir, "in.bin")
			if tc.in.npy {
				in = writeNpy(t, filepath.Join(dir, "in.npy"), tc.dt, tc.dims, tc.in.fortran, data)
			} else if err := os.WriteFile(in, data, 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out.bin")
			if tc.out.npy {
				out = filepath.Join(dir, "out.npy")
				dims := tc.dims
				if tc.outDims != nil {
					dims = tc.outDims
				}
				h, err := npyHeader(tc.dt, dims, tc.out.fortran)
				if err != nil {
					t.Fatal(err)
				}
				want = append(h, want...)
			}
			r := runCLI(t, nil, append(append([]string{"convert"}, tc.args...), in, out)...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs:\ngot  % x\nwant % x", got[:min(len(got), 200)], want[:min(len(want), 200)])
			}
		})
	}
}

func TestConvertNpyErrors(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 24)
	c := writeNpy(t, filepath.Join(dir, "c.npy"), relayout.F32, []int64{2, 3}, false, data)
	h, _ := npyHeader(relayout.F32, []int64{2, 3}, false)
	file := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := file("big.npy", append(bytes.Replace(h, []byte("'<f4'"), []byte("'>f4'"), 1), data...))
	str := file("str.npy", append(bytes.Replace(h, []byte("'<f4'"), []byte("'<U1'"), 1), data...))
	magic := file("magic.npy", append([]byte("NUMPY!"), data...))
	short := file("short.npy", h[:8])
	trunc := file("trunc.npy", h[:40])
	noNewline := file("nonl.npy", append(bytes.Replace(h, []byte("\n"), []byte(" "), 1), data...))
	badShape := file("shape.npy", append(bytes.Replace(h, []byte("(2, 3)"), []byte("(2, x)"), 1), data...))
	garbled := file("garbled.npy", append(append(h[:10:10], bytes.Repeat([]byte{'}'}, len(h)-11)...), append([]byte{'\n'}, data...)...))
	shortData := file("shortdata.npy", append(slices.Clone(h), data[:23]...))
	longData := file("longdata.npy", append(slices.Clone(h), append(data, 0)...))
	raw := file("raw.bin", data)
	dirNpy := filepath.Join(dir, "dir.npy")
	if err := os.Mkdir(dirNpy, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.npy")
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"--from type differs", []string{"--from", "s32[2,3]", c, out}, exitError, "does not match"},
		{"--from dims differ", []string{"--from", "f32[3,2]", c, out}, exitError, "does not match"},
		{"--from other order", []string{"--from", "f32[2,3]{0,1}", c, out}, exitError, "C-order .npy file"},
		{"--from tiled", []string{"--from", "f32[2,3]{1,0:T(2,2)}", c, out}, exitError, "C-order .npy file"},
		{"bad --order", []string{"--order", "X", c, out}, exitUsage, "want C or F"},
		{"--order with raw OUT", []string{"--order", "F", "--to", "f32[2,3]", c, filepath.Join(dir, "o.bin")}, exitUsage, "only when OUT is a .npy"},
		{"--to tiled for .npy", []string{"--to", "f32[2,3]{1,0:T(2,2)}", c, out}, exitError, "C (row-major) or Fortran"},
		{"--to and --order disagree", []string{"--to", "f32[2,3]{0,1}", "--order", "C", c, out}, exitError, "is not --order C"},
		{"big-endian", []string{big, out}, exitError, "big-endian"},
		{"unsupported dtype", []string{str, out}, exitError, "not supported"},
		{"no magic", []string{magic, out}, exitError, "not a .npy file"},
		{"shorter than a header", []string{short, out}, exitError, "not a .npy file"},
		{"truncated header", []string{trunc, out}, exitError, "truncated"},
		{"header without newline", []string{noNewline, out}, exitError, "malformed"},
		{"bad shape", []string{badShape, out}, exitError, "malformed"},
		{"garbled header", []string{garbled, out}, exitError, "malformed"},
		{"data short", []string{shortData, out}, exitError, "too short"},
		{"data long", []string{longData, out}, exitError, "too long"},
		{"not a regular file", []string{dirNpy, out}, exitError, "regular file"},
		{"missing", []string{filepath.Join(dir, "none.npy"), out}, exitError, "no such file"},
		{"raw IN without --from", []string{raw, out}, exitUsage, "--from is required"},
		{"raw OUT without --to", []string{c, filepath.Join(dir, "o.bin")}, exitUsage, "--to is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, nil, append([]string{"convert"}, tc.args...)...)
			if r.code != tc.code || !strings.HasPrefix(r.stderr, "relayout: convert: ") || !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", r.code, r.stderr, tc.code, tc.msg)
			}
			if tc.code == exitError {
				checkOneLineError(t, r, exitError)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a failed run wrote %s", out)
			}
		})
	}
}

// numpyPython returns a Python interpreter that can import numpy: python3
// on PATH or Debian's /usr/bin/python3 (python3-numpy), or "".
func numpyPython() string {
	var cands []string
	if p, err := exec.LookPath("python3"); err == nil {
		cands = append(cands, p)
	}
	cands = append(cands, "/usr/bin/python3")
	for _, p := range cands {
		if exec.Command(p, "-c", "import numpy").Run() == nil {
			return p
		}
	}
	return ""
}

// TestNumpyRoundTrip has NumPy write Fortran-order arrays, converts them
// to C order (and C-order ones to Fortran order) with the command, and
// has NumPy check that what it loads equals np.ascontiguousarray (or
// np.asfortranarray) of the original, dtype, shape and order included.
func TestNumpyRoundTrip(t *testing.T) {
	py := numpyPython()
	if py == "" {
		t.Skip("no python3 with numpy (Debian: apt-get install python3-numpy); skipping the NumPy round trip")
	}
	dir := t.TempDir()
	const arrays = `
import numpy as np
rng = np.random.default_rng(7)
arrays = {
    "f32_3d": rng.standard_normal((5, 6, 7)).astype("<f4"),
    "f64_2d": rng.standard_normal((130, 70)),
    "f16": rng.standard_normal((9, 33)).astype("<f2"),
    "i8": rng.integers(-128, 127, (17, 5), dtype="i1"),
    "i16": rng.integers(-30000, 30000, (4, 3, 2), dtype="<i2"),
    "i64": rng.integers(-2**62, 2**62, (3, 8), dtype="<i8"),
    "u8": rng.integers(0, 255, (300, 4), dtype="u1"),
    "u32": rng.integers(0, 2**32 - 1, (6, 6), dtype="<u4"),
    "bool": rng.integers(0, 2, (7, 9)).astype(bool),
    "c64": (rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))).astype("<c8"),
    "c128": rng.standard_normal((3, 2, 2)) * (1 + 2j),
    "vector": np.arange(10, dtype="<f4"),
    "empty": np.zeros((0, 4), dtype="<f4"),
}
`
	write := arrays + `
import sys
d = sys.argv[1]
for name, a in arrays.items():
    np.save(f"{d}/{name}_F.npy", np.asfortranarray(a))
    np.save(f"{d}/{name}_C.npy", np.ascontiguousarray(a))
print(" ".join(arrays))
`
	out, err := exec.Command(py, "-c", write, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy could not write the arrays: %v\n%s", err, out)
	}
	names := strings.Fields(string(out))
	for _, name := range names {
		for _, args := range [][]string{
			{"convert", filepath.Join(dir, name+"_F.npy"), filepath.Join(dir, name+"_toC.npy")},
			{"convert", "--order", "F", filepath.Join(dir, name+"_C.npy"), filepath.Join(dir, name+"_toF.npy")},
		} {
			if r := runCLI(t, nil, args...); r.code != 0 {
				t.Fatalf("%v: exit %d, stderr %q", args, r.code, r.stderr)
			}
		}
	}
	check := arrays + `
import sys
d = sys.argv[1]
bad = []
for name, a in arrays.items():
    f = np.load(f"{d}/{name}_F.npy")
    c = np.load(f"{d}/{name}_toC.npy")
    want = np.ascontiguousarray(f)
    if c.dtype != want.dtype or c.shape != want.shape or not c.flags.c_contiguous or not np.array_equal(c, want, equal_nan=False) or not np.array_equal(c, a):
        bad.append(name + " (to C)")
    g = np.load(f"{d}/{name}_toF.npy")
    want = np.asfortranarray(a)
    if g.dtype != want.dtype or g.shape != want.shape or not g.flags.f_contiguous or not np.array_equal(g, want):
        bad.append(name + " (to F)")
    if a.ndim >= 2 and a.size > 1 and not np.load(f"{d}/{name}_toF.npy", mmap_mode="r").flags.f_contiguous:
        bad.append(name + " (F header)")
print("bad: " + ", ".join(bad) if bad else "ok")
`
	out, err = exec.Command(py, "-c", check, dir).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("numpy check: %v\n%s", err, out)
	}
}

// TestConvertNpyStreams converts a .npy file to stdout and stdin to a
// .npy file: the buffered path skips and writes headers too.
func TestConvertNpyStreams(t *testing.T) {
	dims := []int64{3, 4}
	data, _ := randomInput(t, "f64[3,4]", 8)
	want := reference(t, data, npyShape(relayout.F64, dims, true), npyShape(relayout.F64, dims, false), relayout.Padding{})
	dir := t.TempDir()
	in := writeNpy(t, filepath.Join(dir, "in.npy"), relayout.F64, dims, true, data)
	r := runCLI(t, nil, "convert", "--to", "f64[3,4]", in, "-")
	if r.code != 0 || r.stdout != string(want) {
		t.Errorf(".npy to stdout: exit %d, stderr %q, output equal %v", r.code, r.stderr, r.stdout == string(want))
	}
	out := filepath.Join(dir, "out.npy")
	r = runCLI(t, data, "convert", "--from", "f64[3,4]{0,1}", "-", out)
	h, _ := npyHeader(relayout.F64, dims, false)
	if got, _ := os.ReadFile(out); r.code != 0 || !bytes.Equal(got, append(h, want...)) {
		t.Errorf("stdin to .npy: exit %d, stderr %q", r.code, r.stderr)
	}
}
