package main

import (
	"bytes"
	"errors"
	"github.com/tilecopy/tilecopy/internal/golden"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tilecopy/tilecopy/relayout"
)

// result is what one in-process run of the CLI produced.
type result struct {
	code           int
	stdout, stderr string
}

// runCLI runs the CLI in-process with stdin as its input.
func runCLI(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, bytes.NewReader(stdin), &out, &errb)
	return result{code, out.String(), errb.String()}
}

// checkOneLineError checks that r failed with status code and exactly one
// "relayout: " line on stderr.
func checkOneLineError(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit status %d, want %d (stderr %q)", r.code, code, r.stderr)
	}
	if !strings.HasPrefix(r.stderr, "relayout: ") || strings.Count(r.stderr, "\n") != 1 || !strings.HasSuffix(r.stderr, "\n") {
		t.Errorf("stderr is not one \"relayout: \" line: %q", r.stderr)
	}
}

const mustShow = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)S(1)}"

func TestDescribe(t *testing.T) {
	tests := []struct {
		shape string
		want  []string // lines, after the first, that must appear
	}{
		{mustShow, []string{
			"element type:      bf16, 16 bits per element (not packed)",
			"logical dims:      [8,1,1280,16384] (167772160 elements)",
			"physical dims:     [1,8,160,128,4,128,2,1] (major to minor)",
			"physical elements: 167772160",
			"byte size:         335544320 (320.0 MiB)",
			"padding:           0.00% (0 of 167772160 physical elements)",
		}},
		{"f32[3,5]{1,0:T(2,4)}", []string{
			"physical dims:     [2,2,2,4] (major to minor)",
			"byte size:         128 (128 B)",
			"padding:           53.12% (17 of 32 physical elements)",
		}},
		{"s4[3,5]{1,0:E(4)}", []string{
			"element type:      s4, 4 bits per element (packed, 2 per byte)",
			"byte size:         8 (8 B)",
		}},
		{"s4[3,5]", []string{
			"element type:      s4, 8 bits per element (4-bit values, not packed: one per byte)",
			"byte size:         15 (15 B)",
		}},
		{"f32[]", []string{"logical dims:      [] (1 element)", "byte size:         4 (4 B)"}},
		{"f32[0,3]{1,0:T(2,2)}", []string{"padding:           0.00% (0 of 0 physical elements)"}},
	}
	for _, tc := range tests {
		t.Run(tc.shape, func(t *testing.T) {
			r := runCLI(t, nil, "describe", tc.shape)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
			if canon, _ := relayout.ParseShape(tc.shape); lines[0] != canon.String() {
				t.Errorf("line 1 is %q, want %q", lines[0], canon.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stdout, w+"\n") {
					t.Errorf("no line %q in\n%s", w, r.stdout)
				}
			}
		})
	}
	// The must-show prints its own text back unchanged.
	if r := runCLI(t, nil, "describe", mustShow); !strings.HasPrefix(r.stdout, mustShow+"\n") {
		t.Errorf("describe %s printed first %q", mustShow, r.stdout)
	}
}

// letterInput returns the row-major array of shape text whose logical
// element k holds k+1 in its first byte, and the element width.
func letterInput(t *testing.T, text string) ([]byte, int) {
	t.Helper()
	s, err := relayout.ParseShape(text)
	if err != nil {
		t.Fatal(err)
	}
	w := s.DType().ByteWidth()
	n, err := s.ElementCount()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, int(n)*w)
	for k := range int(n) {
		b[k*w] = byte(k + 1)
	}
	return b, w
}

// letters spells buf, of elements w bytes wide, as letters: 'a' for 1,
// '_' for 0.
func letters(buf []byte, w int) string {
	var out []string
	for i := 0; i+w <= len(buf); i += w {
		c := "_"
		if buf[i] != 0 {
			c = string(rune('a' + buf[i] - 1))
		}
		out = append(out, c)
	}
	return strings.Join(out, " ")
}

func TestConvertGolden(t *testing.T) {
	for _, tc := range golden.Cases() {
		in, w := letterInput(t, tc.From)
		t.Run(tc.To+"/files", func(t *testing.T) {
			dir := t.TempDir()
			inPath, outPath := filepath.Join(dir, "in.bin"), filepath.Join(dir, "out.bin")
			if err := os.WriteFile(inPath, in, 0o644); err != nil {
				t.Fatal(err)
			}
			r := runCLI(t, nil, "convert", "--from", tc.From, "--to", tc.To, inPath, outPath)
			if r.code != 0 || r.stderr != "" || r.stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			got, err := os.ReadFile(outPath)
			if err != nil {
				t.Fatal(err)
			}
			if s := letters(got, w); s != tc.Want {
				t.Errorf("got  %s\nwant %s", s, tc.Want)
			}
			checkDir(t, dir, "in.bin", "out.bin")
		})
		t.Run(tc.To+"/stdio", func(t *testing.T) {
			r := runCLI(t, in, "convert", "--from", tc.From, "--to", tc.To, "-", "-")
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			if s := letters([]byte(r.stdout), w); s != tc.Want {
				t.Errorf("got  %s\nwant %s", s, tc.Want)
			}
		})
	}
}

// checkDir checks that dir holds exactly the named files: no partial
// output, no temporary file.
func checkDir(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("directory holds %q, want %q", got, names)
	}
}

func TestErrors(t *testing.T) {
	badShapes := []string{
		"f32[2,3]{0,0}",
		"f32[2,3]{1,0:T(0,2)}",
		"f33[2]",
		"f32[2,",
		"f64[1099511627776,1099511627776]",
		"token[]",
		"(f32[2], s8[3])",
		"f32[?]",
	}
	type errCase struct {
		name  string
		args  []string // IN is "$IN" (a 24-byte file), OUT "$OUT"
		in    []byte   // contents of $IN
		stdin []byte
	}
	six := make([]byte, 24)
	var tests []errCase
	for _, s := range badShapes {
		tests = append(tests,
			errCase{"describe " + s, []string{"describe", s}, six, nil},
			errCase{"convert --from " + s, []string{"convert", "--from", s, "--to", "f32[2,3]", "$IN", "$OUT"}, six, nil},
			errCase{"convert --to " + s, []string{"convert", "--from", "f32[2,3]", "--to", s, "$IN", "$OUT"}, six, nil},
			errCase{"plan --from " + s, []string{"plan", "--from", s, "--to", "f32[2,3]"}, six, nil},
		)
	}
	tests = append(tests, []errCase{
		{"input one byte short", []string{"convert", "--from", "f32[2,3]", "--to", "f32[2,3]{0,1}", "$IN", "$OUT"}, six[:23], nil},
		{"input one byte long", []string{"convert", "--from", "f32[2,3]", "--to", "f32[2,3]{0,1}", "$IN", "$OUT"}, append(six, 0), nil},
		{"stdin one byte short", []string{"convert", "--from", "f32[2,3]", "--to", "f32[2,3]{0,1}", "-", "$OUT"}, six, six[:23]},
		{"stdin one byte long", []string{"convert", "--from", "f32[2,3]", "--to", "f32[2,3]{0,1}", "-", "$OUT"}, six, append(six, 0)},
		{"dims differ", []string{"convert", "--from", "f32[2,3]", "--to", "f32[3,2]", "$IN", "$OUT"}, six, nil},
		{"types differ", []string{"convert", "--from", "f32[2,3]", "--to", "s32[2,3]", "$IN", "$OUT"}, six, nil},
		{"input missing", []string{"convert", "--from", "f32[2,3]", "--to", "f32[2,3]", "$DIR/nothing", "$OUT"}, six, nil},
		{"input is a directory", []string{"convert", "--from", "f32[2,3]", "--to", "f32[2,3]", "$DIR", "$OUT"}, six, nil},
		{"output is a directory", []string{"convert", "--from", "f32[2,3]", "--to", "f32[2,3]", "$IN", "$DIR"}, six, nil},
		{"output directory missing", []string{"convert", "--from", "f32[2,3]", "--to", "f32[2,3]", "$IN", "$DIR/no/out"}, six, nil},
		{"bad pad", []string{"convert", "--from", "f32[2,3]", "--to", "f32[2,3]", "--pad", "blue", "$IN", "$OUT"}, six, nil},
		{"pad out of range", []string{"convert", "--from", "s8[2,3]", "--to", "s8[2,3]{0,1:T(4,4)}", "--pad", "300", "$IN", "$OUT"}, six[:6], nil},
		{"float pad out of range", []string{"convert", "--from", "f32[2,3]", "--to", "f32[2,3]{0,1:T(4,4)}", "--pad", "1e40", "$IN", "$OUT"}, six, nil},
		{"bf16 pad out of range", []string{"convert", "--from", "bf16[2,3]", "--to", "bf16[2,3]{0,1:T(4,4)}", "--pad", "-1e39", "$IN", "$OUT"}, six[:12], nil},
		{"pad-to narrower", []string{"convert", "--from", "f32[2,3]", "--to", "f32[2,3]", "--pad-to", "1,3", "$IN", "$OUT"}, six, nil},
		{"pad-to wrong rank", []string{"convert", "--from", "f32[2,3]", "--to", "f32[2,3]", "--pad-to", "4", "$IN", "$OUT"}, six, nil},
		{"pad-to not a number", []string{"convert", "--from", "f32[2,3]", "--to", "f32[2,3]", "--pad-to", "4,x", "$IN", "$OUT"}, six, nil},
	}...)
	if runtime.GOOS == "linux" { // where the machine's memory is known
		tests = append(tests, []errCase{
			{"buffers larger than the machine", []string{"convert", "--from", "u8[4611686018427387904]", "--to", "u8[4611686018427387904]", "-", "$OUT"}, six, nil},
			{"planner tables larger than the machine", []string{"plan", "--from", "f32[100000000000000000,3]{1,0:T(2,2)}", "--to", "f32[100000000000000000,3]{1,0:T(3,3)}"}, six, nil},
		}...)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.bin")
			if err := os.WriteFile(in, tc.in, 0o644); err != nil {
				t.Fatal(err)
			}
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				a = strings.ReplaceAll(a, "$IN", in)
				a = strings.ReplaceAll(a, "$OUT", filepath.Join(dir, "out.bin"))
				args[i] = strings.ReplaceAll(a, "$DIR", dir)
			}
			r := runCLI(t, tc.stdin, args...)
			checkOneLineError(t, r, exitError)
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
			checkDir(t, dir, "in.bin")
		})
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		out  string // in stdout, when code is 0
	}{
		{"no verb", nil, exitUsage, ""},
		{"unknown verb", []string{"frob"}, exitUsage, ""},
		{"help", []string{"help"}, exitOK, "describe"},
		{"-h", []string{"-h"}, exitOK, "convert"},
		{"--help", []string{"--help"}, exitOK, "demo"},
		{"help convert", []string{"help", "convert"}, exitOK, "-pad-to WIDTHS"},
		{"help help", []string{"help", "help"}, exitOK, "verbs:"},
		{"help -h", []string{"help", "-h"}, exitOK, "verbs:"},
		{"-h -h", []string{"-h", "-h"}, exitOK, "verbs:"},
		{"--help help", []string{"--help", "help"}, exitOK, "verbs:"},
		{"-help --help", []string{"-help", "--help"}, exitOK, "verbs:"},
		{"help help convert", []string{"help", "help", "convert"}, exitOK, "verbs:"},
		{"convert -h", []string{"convert", "-h"}, exitOK, "usage: relayout convert"},
		{"describe no shape", []string{"describe"}, exitUsage, ""},
		{"describe two shapes", []string{"describe", "f32[2]", "f32[3]"}, exitUsage, ""},
		{"convert no flags", []string{"convert", "a", "b"}, exitUsage, ""},
		{"convert one path", []string{"convert", "--from", "f32[2]", "--to", "f32[2]", "a"}, exitUsage, ""},
		{"unknown flag", []string{"convert", "--frm", "f32[2]", "a", "b"}, exitUsage, ""},
		{"flag without value", []string{"plan", "--from"}, exitUsage, ""},
		{"plan extra argument", []string{"plan", "--from", "f32[2]", "--to", "f32[2]", "x"}, exitUsage, ""},
		{"demo bad size", []string{"demo", "--size", "-1"}, exitUsage, ""},
		{"plan negative threads", []string{"plan", "--from", "f32[2]", "--to", "f32[2]", "--threads", "-1"}, exitUsage, ""},
		{"convert negative threads", []string{"convert", "--from", "f32[2]", "--to", "f32[2]", "--threads=-1", "a", "b"}, exitUsage, ""},
		{"demo negative threads", []string{"demo", "--threads", "-2"}, exitUsage, ""},
		{"pad negative threads", []string{"pad", "--from", "f32[2]", "--threads", "-1", "a", "b"}, exitUsage, ""},
		{"unpad negative threads", []string{"unpad", "--to", "f32[2]", "--threads", "-1", "a", "b"}, exitUsage, ""},
		{"threads not a number", []string{"plan", "--from", "f32[2]", "--to", "f32[2]", "--threads", "two"}, exitUsage, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, nil, tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", r.code, tc.code, r.stderr)
			}
			if tc.code == exitOK {
				if !strings.Contains(r.stdout, tc.out) || r.stderr != "" {
					t.Errorf("stdout %q lacks %q, or stderr %q is not empty", r.stdout, tc.out, r.stderr)
				}
				return
			}
			if !strings.HasPrefix(r.stderr, "relayout: ") && !strings.HasPrefix(r.stderr, "relayout moves") {
				t.Errorf("stderr %q does not start with the program's name", r.stderr)
			}
			if !strings.Contains(r.stderr, "usage: relayout") && !strings.Contains(r.stderr, "relayout help") {
				t.Errorf("stderr %q shows no usage", r.stderr)
			}
		})
	}
	// help lists every verb of the table.
	r := runCLI(t, nil, "help")
	for _, v := range verbs() {
		if !strings.Contains(r.stdout, "  "+v.name+" ") {
			t.Errorf("help does not list %s:\n%s", v.name, r.stdout)
		}
	}
}

func TestFlagPlacement(t *testing.T) {
	in, w := letterInput(t, "f32[2,3]")
	dir := t.TempDir()
	inPath := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(inPath, in, 0o644); err != nil {
		t.Fatal(err)
	}
	dashIn := filepath.Join(dir, "-in.bin") // a name that looks like a flag
	if err := os.WriteFile(dashIn, in, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.bin")
	tests := [][]string{
		{"--from", "f32[2,3]", "--to", "f32[2,3]{0,1}", inPath, out},
		{inPath, out, "--from", "f32[2,3]", "--to", "f32[2,3]{0,1}"},
		{"--from=f32[2,3]", inPath, "-to", "f32[2,3]{0,1}", out},
		{"--from", "f32[2,3]", "--to", "f32[2,3]{0,1}", "--", dashIn, out},
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			os.Remove(out)
			if r := runCLI(t, nil, append([]string{"convert"}, args...)...); r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if s := letters(got, w); s != "a d b e c f" {
				t.Errorf("got %s", s)
			}
		})
	}
}

func TestPlan(t *testing.T) {
	tests := []struct {
		from, to string
		flags    []string
		opts     relayout.Options
	}{
		{"f32[2,3]", "f32[2,3]{0,1}", nil, relayout.Options{}},
		{"f32[1000,1000]", "f32[1000,1000]{1,0:T(8,128)}", []string{"--pad", "nan"}, relayout.Options{Pad: relayout.Padding{Kind: relayout.PadNaN}}},
		{"f32[1000,1000]", "f32[1000,1000]{1,0:T(8,128)}", []string{"--pad-to", "1008,1024", "--pad", "-1.5"},
			relayout.Options{Pad: relayout.Padding{Kind: relayout.PadValue, Value: -1.5, Widths: []int64{1008, 1024}}}},
	}
	for _, tc := range tests {
		t.Run(tc.to, func(t *testing.T) {
			args := append([]string{"plan", "--threads", "1", "--from", tc.from, "--to", tc.to}, tc.flags...)
			r := runCLI(t, nil, args...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			from, _ := relayout.ParseShape(tc.from)
			to, _ := relayout.ParseShape(tc.to)
			tc.opts.Threads = 1
			p, err := relayout.Compile(from, to, &tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if r.stdout != p.String() {
				t.Errorf("plan printed\n%s\nwant\n%s", r.stdout, p.String())
			}
		})
	}
}

// TestConvertPadding checks --pad and --pad-to against relayout.Reference.
func TestConvertPadding(t *testing.T) {
	tests := []struct {
		from, to string
		flags    []string
		pad      relayout.Padding
	}{
		{"f32[3,5]", "f32[3,5]{1,0:T(2,4)}", []string{"--pad", "nan"}, relayout.Padding{Kind: relayout.PadNaN}},
		{"bf16[3,5]", "bf16[3,5]{1,0:T(2,4)(2,1)}", []string{"--pad", "lowest"}, relayout.Padding{Kind: relayout.PadLowest}},
		{"s8[3,5]", "s8[3,5]{0,1}", []string{"--pad", "highest", "--pad-to", "4,8"}, relayout.Padding{Kind: relayout.PadHighest, Widths: []int64{4, 8}}},
		{"f64[3,5]", "f64[3,5]{1,0:T(2,2)}", []string{"--pad=-2.5"}, relayout.PadWith(-2.5)},
		{"u8[2,2]", "u8[2,2]{0,1}", []string{"--pad", "7", "--pad-to", "3,3"}, relayout.Padding{Kind: relayout.PadValue, Value: 7, Widths: []int64{3, 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.to+" "+strings.Join(tc.flags, " "), func(t *testing.T) {
			in, _ := letterInput(t, tc.from)
			r := runCLI(t, in, append([]string{"convert", "--from", tc.from, "--to", tc.to, "-", "-"}, tc.flags...)...)
			if r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			from, _ := relayout.ParseShape(tc.from)
			to, _ := relayout.ParseShape(tc.to)
			p, err := relayout.Compile(from, to, &relayout.Options{Pad: tc.pad})
			if err != nil {
				t.Fatal(err)
			}
			want := make([]byte, p.DestinationSize())
			if err := relayout.Reference(want, in, from, to, tc.pad); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal([]byte(r.stdout), want) {
				t.Errorf("got  % x\nwant % x", r.stdout, want)
			}
		})
	}
}

func TestConvertReplacesOutput(t *testing.T) {
	in, w := letterInput(t, "f32[2,3]")
	dir := t.TempDir()
	inPath, out := filepath.Join(dir, "in.bin"), filepath.Join(dir, "out.bin")
	if err := os.WriteFile(inPath, in, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, []byte("an older, longer output file"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, nil, "convert", "--from", "f32[2,3]", "--to", "f32[2,3]{0,1}", inPath, out); r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if s := letters(got, w); s != "a d b e c f" {
		t.Errorf("got %s", s)
	}
	if fi, err := os.Stat(out); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Errorf("output mode %v (%v), want the replaced file's 0600", fi.Mode(), err)
	}
	checkDir(t, dir, "in.bin", "out.bin")

	// A failed conversion leaves the existing output as it was.
	if r := runCLI(t, nil, "convert", "--from", "f32[2,2]", "--to", "f32[2,2]{0,1}", inPath, out); r.code != exitError {
		t.Fatalf("exit %d, want %d", r.code, exitError)
	}
	if again, _ := os.ReadFile(out); !bytes.Equal(again, got) {
		t.Errorf("a failed run changed the output file")
	}
	checkDir(t, dir, "in.bin", "out.bin")
}

func TestDemo(t *testing.T) {
	r := runCLI(t, nil, "demo", "--size", "130", "--threads", "2")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, w := range []string{"f32[130,130]", "{0,1}", "T(8,128)", "matches relayout.Reference", "original array", "ok: "} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("demo output lacks %q:\n%s", w, r.stdout)
		}
	}
}

func TestPanicIsOneLine(t *testing.T) {
	table := []verb{{"boom", "panics", func([]string, io.Reader, io.Writer, io.Writer) error { panic("kaboom\nsecond line") }}}
	var out, errb bytes.Buffer
	code := dispatch(table, []string{"boom"}, nil, &out, &errb)
	checkOneLineError(t, result{code, out.String(), errb.String()}, exitError)
}

// TestBinary builds the command and runs it as a process: errors are one
// line with no trace of a panic, and an interrupted convert leaves neither
// its output nor its temporary file.
func TestBinary(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "relayout")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if out, err := exec.Command(goTool, "build", "-buildvcs=false", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	t.Run("errors", func(t *testing.T) {
		tests := [][]string{
			{"describe", "f64[1099511627776,1099511627776]"},
			{"describe", "f32[2,"},
			{"convert", "--from", "f32[2,3]", "--to", "f32[3,2]", "-", filepath.Join(dir, "out.bin")},
			{"convert", "--from", "f32[2,3]", "--to", "f32[2,3]{0,1}", "-", filepath.Join(dir, "out.bin")},
		}
		for _, args := range tests {
			cmd := exec.Command(bin, args...)
			cmd.Stdin = strings.NewReader("short")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Errorf("%v: %v, want exit status 1", args, err)
				if ee == nil {
					continue // it did not run
				}
			}
			s := stderr.String()
			if strings.Contains(s, "goroutine") || strings.Contains(s, "panic") {
				t.Errorf("%v: stderr shows a panic:\n%s", args, s)
			}
			checkOneLineError(t, result{ee.ExitCode(), "", s}, exitError)
		}
	})

	t.Run("interrupt", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("no SIGINT to a process on windows")
		}
		outDir := t.TempDir()
		cmd := exec.Command(bin, "convert", "--from", "f32[2,3]", "--to", "f32[2,3]{0,1}", "-", filepath.Join(outDir, "out.bin"))
		stdin, err := cmd.StdinPipe() // held open: convert waits for input
		if err != nil {
			t.Fatal(err)
		}
		defer stdin.Close()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the temporary file: by then the signal handler is set.
		deadline := time.Now().Add(30 * time.Second)
		for {
			ents, _ := os.ReadDir(outDir)
			if len(ents) > 0 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("convert created no temporary file within 30s")
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("interrupted convert: %v, want exit status 1", err)
		}
		checkOneLineError(t, result{1, "", stderr.String()}, exitError)
		checkDir(t, outDir)
	})
}

// FuzzShapeText feeds arbitrary shape text to describe, plan and convert:
// every outcome is success or one error line, never a caught panic.
func FuzzShapeText(f *testing.F) {
	for _, s := range []string{
		mustShow, "f32[2,3]{0,1}", "s4[3,5]{1,0:E(4)}", "u2[7]{0:T(4)E(2)}", "f32[3,5]{0,1:T(2,*,2)L(8)}",
		"f32[2,3]{0,0}", "f32[2,3]{1,0:T(0,2)}", "f33[2]", "f32[2,", "f64[1099511627776,1099511627776]",
		"f32[0,3]{1,0:T(2,2)}", "pred[]", "token[]", "(f32[2], s8[3])", "f32[<=4]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, args := range [][]string{
			{"describe", text},
			{"describe", "--", text},
			{"plan", "--from", text, "--to", text},
			{"plan", "--from", "f32[2,3]", "--to", text, "--pad", "highest"},
			{"convert", "--from", text, "--to", text, "-", "-"},
		} {
			var out, errb bytes.Buffer
			code := run(args, bytes.NewReader(make([]byte, 64)), &out, &errb)
			if strings.Contains(errb.String(), "internal error") {
				t.Fatalf("%q: %s", args, errb.String())
			}
			switch code {
			case exitOK:
			case exitUsage: // "" for a required flag, text that looks like a flag
				if !strings.HasPrefix(errb.String(), "relayout: ") {
					t.Fatalf("%q: usage error %q", args, errb.String())
				}
			default:
				checkOneLineError(t, result{code, out.String(), errb.String()}, exitError)
			}
		}
	})
}

// fullWriter fails every write as a full /dev/stdout does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
}

// TestWriteErrorNamesOutputOnce checks that a failed write names the
// output once, as the user spelled it, and keeps the cause.
func TestWriteErrorNamesOutputOnce(t *testing.T) {
	in, _ := letterInput(t, "f32[2,3]")
	inPath := filepath.Join(t.TempDir(), "in.bin")
	if err := os.WriteFile(inPath, in, 0o644); err != nil {
		t.Fatal(err)
	}
	type writeCase struct {
		name   string
		out    string
		stdout io.Writer
		want   string // the whole stderr
	}
	tests := []writeCase{
		{"stdout", "-", fullWriter{}, "relayout: convert: write stdout: no space left on device\n"},
	}
	if fi, err := os.Stat("/dev/full"); err == nil && fi.Mode()&fs.ModeCharDevice != 0 {
		tests = append(tests, writeCase{"/dev/full", "/dev/full", io.Discard, "relayout: convert: write /dev/full: no space left on device\n"})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			code := run([]string{"convert", "--from", "f32[2,3]", "--to", "f32[2,3]{0,1}", inPath, tc.out}, strings.NewReader(""), tc.stdout, &stderr)
			if code != exitError || stderr.String() != tc.want {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr.String(), exitError, tc.want)
			}
		})
	}
}

func TestDescribeIndexOffset(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string // all of stdout (code 0) or a part of stderr
	}{
		{[]string{"describe", "u16[8,8]{1,0:T(2,4)(2,1,1,1)}", "--index", "6,5"}, exitOK, "index (6,5): element offset 51, byte 102\n"},
		{[]string{"describe", "--offset", "17", "f32[3,5]{1,0:T(2,2)}"}, exitOK, "element offset 17 (byte 68): index (2,3)\n"},
		{[]string{"describe", "f32[2,3,5]{2,1,0:T(2,4)}", "--index", "(1, 2, 3)"}, exitOK, "index (1,2,3): element offset 51, byte 204\n"},
		{[]string{"describe", "f32[3,5]{1,0:T(2,4)}", "--offset", "9"}, exitOK, "element offset 9 (byte 36) is padding: no element is stored there\n"},
		{[]string{"describe", "f32[3,5]{1,0:T(2,4)}", "--offset", "4"}, exitOK, "element offset 4 (byte 16): index (1,0)\n"},
		{[]string{"describe", "s4[3,5]{1,0:E(4)}", "--index", "1,2"}, exitOK, "index (1,2): element offset 7, byte 3, bits 0-3\n"},
		{[]string{"describe", "s4[3,5]{1,0:E(4)}", "--offset", "0"}, exitOK, "element offset 0 (byte 0, bits 4-7): index (0,0)\n"},
		{[]string{"describe", "f32[]", "--index", ""}, exitOK, ""}, // no --index: the description
		{[]string{"describe", "f32[3,5]", "--index", "3,0"}, exitError, "out of range: index (3,0)"},
		{[]string{"describe", "f32[3,5]", "--index", "1"}, exitError, "an index of rank 1"},
		{[]string{"describe", "f32[3,5]", "--offset", "15"}, exitError, "offset 15 is outside the 15 places"},
		{[]string{"describe", "f32[3,5]", "--offset", "-1"}, exitError, "offset -1 is outside"},
		{[]string{"describe", "f32[3,5]", "--index", "1,x"}, exitUsage, "is not an integer"},
		{[]string{"describe", "f32[3,5]", "--offset", "two"}, exitUsage, "want an integer"},
		{[]string{"describe", "f32[3,5]", "--offset", "1", "--index", "0,0"}, exitUsage, "exclude each other"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			r := runCLI(t, nil, tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", r.code, tc.code, r.stderr)
			}
			switch {
			case tc.code == exitOK && tc.want == "":
				if !strings.Contains(r.stdout, "byte size:") {
					t.Errorf("stdout %q, want the description", r.stdout)
				}
			case tc.code == exitOK:
				if r.stdout != tc.want || r.stderr != "" {
					t.Errorf("stdout %q, stderr %q; want %q", r.stdout, r.stderr, tc.want)
				}
			case !strings.Contains(r.stderr, tc.want):
				t.Errorf("stderr %q lacks %q", r.stderr, tc.want)
			}
		})
	}
}
