package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tilecopy/tilecopy/relayout"
)

// TestPadUnpad pads arrays for the TPU preset with the command, checks
// the result against relayout.Upload, and undoes it with unpad.
func TestPadUnpad(t *testing.T) {
	tests := []struct {
		host  string
		flags []string
		pad   relayout.Padding
	}{
		{"f32[3,5]", nil, relayout.Padding{}},
		{"f32[1000,1000]", []string{"--threads", "2"}, relayout.Padding{}},
		{"bf16[9,130]", []string{"--pad", "nan"}, relayout.Padding{Kind: relayout.PadNaN}},
		{"s8[17,3]", []string{"--pad", "-1"}, relayout.PadWith(-1)},
		{"f64[3,300]", nil, relayout.Padding{}},
		{"u8[2,3,4]", nil, relayout.Padding{}},
		{"f32[1000]", nil, relayout.Padding{}},
		{"f32[20,30]{0,1}", nil, relayout.Padding{}},
		{"s4[9,130]", nil, relayout.Padding{}},
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			in, host := randomInput(t, tc.host, 5)
			if host.DType() == relayout.S4 {
				for i := range in {
					in[i] = byte(int8(in[i]<<4) >> 4) // sign-extended 4-bit values
				}
			}
			n, err := relayout.DeviceSize(host, relayout.PresetTPU)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]byte, n)
			dev, err := relayout.Upload(want, in, host, relayout.PresetTPU, tc.pad)
			if err != nil {
				t.Fatal(err)
			}
			inPath, devPath, back := padFiles(t, in)
			r := runCLI(t, nil, append([]string{"pad", "--preset", "tpu", "--from", tc.host, inPath, devPath}, tc.flags...)...)
			if r.code != 0 || r.stderr != "device shape: "+dev.String()+"\n" {
				t.Fatalf("pad: exit %d, stderr %q", r.code, r.stderr)
			}
			if got, _ := os.ReadFile(devPath); !bytes.Equal(got, want) {
				t.Fatalf("pad output differs from relayout.Upload")
			}
			r = runCLI(t, nil, "pad", "--print", "--from", tc.host)
			if r.code != 0 || r.stdout != dev.String()+"\n" {
				t.Errorf("pad --print: exit %d, stdout %q, want %s", r.code, r.stdout, dev)
			}
			r = runCLI(t, nil, "unpad", "--to", tc.host, devPath, back)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("unpad: exit %d, stderr %q", r.code, r.stderr)
			}
			if got, _ := os.ReadFile(back); !bytes.Equal(got, in) {
				t.Errorf("unpad does not give back the array")
			}
			r = runCLI(t, want, "unpad", "--to", tc.host, "-", "-") // through buffers
			if r.code != 0 || r.stdout != string(in) {
				t.Errorf("unpad - -: exit %d, stderr %q", r.code, r.stderr)
			}
		})
	}
}

// TestPadNpy pads a .npy file, which gives its own shape, and unpads into
// a Fortran-order .npy file.
func TestPadNpy(t *testing.T) {
	dims := []int64{10, 140}
	data, _ := randomInput(t, "f32[10,140]", 6)
	dir := t.TempDir()
	in := writeNpy(t, filepath.Join(dir, "in.npy"), relayout.F32, dims, true, data)
	dev := filepath.Join(dir, "dev.bin")
	r := runCLI(t, nil, "pad", "--print", in)
	if r.code != 0 || r.stdout != "f32[10,140]{1,0:T(8,128)}\n" {
		t.Fatalf("pad --print IN: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, nil, "pad", in, dev); r.code != 0 {
		t.Fatalf("pad: exit %d, stderr %q", r.code, r.stderr)
	}
	out := filepath.Join(dir, "out.npy")
	if r := runCLI(t, nil, "unpad", "--to", "f32[10,140]", "--order", "F", dev, out); r.code != 0 {
		t.Fatalf("unpad: exit %d, stderr %q", r.code, r.stderr)
	}
	a, _ := os.ReadFile(in)
	b, _ := os.ReadFile(out)
	if !bytes.Equal(a, b) {
		t.Errorf("pad then unpad to the same order changed the .npy file")
	}
}

func TestPadErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(in, make([]byte, 60), 0o644); err != nil {
		t.Fatal(err)
	}
	npyIn := writeNpy(t, filepath.Join(dir, "in.npy"), relayout.F32, []int64{3, 5}, false, make([]byte, 60))
	out := filepath.Join(dir, "out.bin")
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"unknown preset", []string{"pad", "--preset", "gpu", "--from", "f32[3,5]", in, out}, exitError, "unknown device preset"},
		{"no --from", []string{"pad", in, out}, exitUsage, "--from is required"},
		{"one argument", []string{"pad", "--from", "f32[3,5]", in}, exitUsage, "want 2 argument(s)"},
		{"--print and OUT", []string{"pad", "--print", "--from", "f32[3,5]", in, out}, exitUsage, "no OUT"},
		{"--print without a shape", []string{"pad", "--print"}, exitUsage, "--print needs"},
		{"a .npy OUT", []string{"pad", "--from", "f32[3,5]", in, filepath.Join(dir, "out.npy")}, exitError, "cannot hold the tiled layout"},
		{"input short", []string{"pad", "--from", "f32[3,6]", in, out}, exitError, "too short"},
		{"tuple", []string{"pad", "--print", "--from", "(f32[2], f32[3])"}, exitError, "preset tpu"},
		{"unpad without --to", []string{"unpad", in, out}, exitUsage, "--to is required"},
		{"unpad a .npy IN", []string{"unpad", "--to", "f32[3,5]", npyIn, out}, exitError, "raw bytes"},
		{"unpad wrong size", []string{"unpad", "--to", "f32[3,5]", in, out}, exitError, "too short"},
		{"unpad bad --order", []string{"unpad", "--to", "f32[3,5]", "--order", "K", in, filepath.Join(dir, "o.npy")}, exitUsage, "want C or F"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, nil, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", r.code, r.stderr, tc.code, tc.msg)
			}
			if tc.code == exitError {
				checkOneLineError(t, r, exitError)
			}
			checkDir(t, dir, "in.bin", "in.npy")
		})
	}
}

// TestPadUnpadTypes pads f32 arrays as bf16 (and f16, s32 as s8) device
// tiles with pad --type, checks the result against relayout.UploadAs,
// and brings them back to the host type with unpad --type: the values
// the device type holds come back exact.
func TestPadUnpadTypes(t *testing.T) {
	tests := []struct {
		host, typ string
		flags     []string
	}{
		{"f32[9,300]", "bf16", nil},
		{"f32[1000,1000]", "bf16", []string{"--threads", "2"}},
		{"f32[20,30]{0,1}", "f16", []string{"--pad", "nan"}},
		{"s32[17,3]", "s8", []string{"--saturate"}},
	}
	for _, tc := range tests {
		t.Run(tc.host+"-"+tc.typ, func(t *testing.T) {
			host, err := relayout.ParseShape(tc.host)
			if err != nil {
				t.Fatal(err)
			}
			devType, err := relayout.ParseDType(tc.typ)
			if err != nil {
				t.Fatal(err)
			}
			// Host values the device type holds: converted there and back.
			raw, _ := randomInput(t, tc.host, 9)
			in := make([]byte, len(raw))
			opts := &relayout.Options{Saturate: true}
			for _, step := range [][2]relayout.Shape{{host, host.WithDType(devType)}, {host.WithDType(devType), host}} {
				p, err := relayout.Compile(step[0], step[1], opts)
				if err != nil {
					t.Fatal(err)
				}
				out := make([]byte, p.DestinationSize())
				if err := p.Run(out, raw); err != nil {
					t.Fatal(err)
				}
				raw = out
			}
			copy(in, raw)
			n, err := relayout.DeviceSizeAs(host, devType, relayout.PresetTPU)
			if err != nil {
				t.Fatal(err)
			}
			pad, err := parsePad("zero")
			if i := slices.Index(tc.flags, "--pad"); i >= 0 {
				pad, err = parsePad(tc.flags[i+1])
			}
			if err != nil {
				t.Fatal(err)
			}
			want := make([]byte, n)
			dev, err := relayout.UploadAs(want, in, host, devType, relayout.PresetTPU, &relayout.Options{Pad: pad, Saturate: true})
			if err != nil {
				t.Fatal(err)
			}
			inPath, devPath, back := padFiles(t, in)
			r := runCLI(t, nil, append([]string{"pad", "--from", tc.host, "--type", tc.typ, inPath, devPath}, tc.flags...)...)
			if r.code != 0 || r.stderr != "device shape: "+dev.String()+"\n" {
				t.Fatalf("pad: exit %d, stderr %q", r.code, r.stderr)
			}
			if got, _ := os.ReadFile(devPath); !bytes.Equal(got, want) {
				t.Fatalf("pad --type output differs from relayout.UploadAs")
			}
			r = runCLI(t, nil, "unpad", "--to", tc.host, "--type", tc.typ, devPath, back)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("unpad: exit %d, stderr %q", r.code, r.stderr)
			}
			if got, _ := os.ReadFile(back); !bytes.Equal(got, in) {
				t.Errorf("unpad --type does not give back the array")
			}
		})
	}
	r := runCLI(t, nil, "pad", "--from", "f32[3,5]", "--type", "s32", "in", "out")
	if r.code == 0 || !strings.Contains(r.stderr, "element types do not match") {
		t.Errorf("pad --type s32 of f32: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestConvertTypes converts between element types with convert --from
// --to, through mapped files and through pipes, against the oracle.
func TestConvertTypes(t *testing.T) {
	for _, tc := range [][2]string{
		{"f32[1000,1000]", "bf16[1000,1000]{1,0:T(8,128)(2,1)}"},
		{"bf16[700,300]{1,0:T(8,128)(2,1)}", "f32[700,300]{0,1}"},
		{"f64[30,40]", "f8e4m3fn[30,40]{0,1}"},
		{"s4[9,130]{1,0:E(4)}", "s32[9,130]{0,1}"},
	} {
		from, to := mustShape(t, tc[0]), mustShape(t, tc[1])
		in, _ := randomInput(t, tc[0], 3)
		n, err := to.ByteSize()
		if err != nil {
			t.Fatal(err)
		}
		want := make([]byte, n)
		if err := relayout.Reference(want, in, from, to, relayout.Padding{}); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		inPath, out := filepath.Join(dir, "in.bin"), filepath.Join(dir, "out.bin")
		if err := os.WriteFile(inPath, in, 0o644); err != nil {
			t.Fatal(err)
		}
		r := runCLI(t, nil, "convert", "--from", tc[0], "--to", tc[1], inPath, out)
		if r.code != 0 {
			t.Fatalf("%s -> %s: exit %d, stderr %q", tc[0], tc[1], r.code, r.stderr)
		}
		if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
			t.Errorf("%s -> %s: the mapped conversion differs from relayout.Reference", tc[0], tc[1])
		}
		r = runCLI(t, in, "convert", "--from", tc[0], "--to", tc[1], "-", "-")
		if r.code != 0 || r.stdout != string(want) {
			t.Errorf("%s -> %s through pipes: exit %d, stderr %q", tc[0], tc[1], r.code, r.stderr)
		}
	}
}

// padFiles writes in to a file in a new temporary directory and returns
// its path and those of the device and round-trip files beside it.
func padFiles(t *testing.T, in []byte) (inPath, devPath, back string) {
	t.Helper()
	dir := t.TempDir()
	inPath, devPath, back = filepath.Join(dir, "in.bin"), filepath.Join(dir, "dev.bin"), filepath.Join(dir, "back.bin")
	if err := os.WriteFile(inPath, in, 0o644); err != nil {
		t.Fatal(err)
	}
	return inPath, devPath, back
}

// mustShape parses shape text.
func mustShape(t *testing.T, s string) relayout.Shape {
	t.Helper()
	sh, err := relayout.ParseShape(s)
	if err != nil {
		t.Fatal(err)
	}
	return sh
}
