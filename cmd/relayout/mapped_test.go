package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tilecopy/tilecopy/relayout"
)

// randomInput returns the row-major bytes of an array of shape text,
// random, and the parsed shape.
func randomInput(t *testing.T, text string, seed uint64) ([]byte, relayout.Shape) {
	t.Helper()
	s, err := relayout.ParseShape(text)
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.ByteSize()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, n)
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := 0; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], rng.Uint64())
	}
	for i := len(b) / 8 * 8; i < len(b); i++ {
		b[i] = byte(rng.Uint32())
	}
	return b, s
}

// reference relayouts src with relayout.Reference, the element-by-element
// oracle.
func reference(t *testing.T, src []byte, from, to relayout.Shape, pad relayout.Padding) []byte {
	t.Helper()
	p, err := relayout.Compile(from, to, &relayout.Options{Pad: pad})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, p.DestinationSize())
	if err := relayout.Reference(want, src, from, to, pad); err != nil {
		t.Fatal(err)
	}
	return want
}

// TestConvertThreads converts arrays big enough for plans to split among
// goroutines (over 4 MiB) with several --threads, through files (mapped)
// and stdin/stdout (buffers).
func TestConvertThreads(t *testing.T) {
	cases := []struct{ from, to string }{
		{"f32[1100,1000]", "f32[1100,1000]{0,1}"},
		{"f32[1100,1000]", "f32[1100,1000]{1,0:T(8,128)}"},
		{"bf16[40,50,1100]", "bf16[40,50,1100]{1,2,0:T(8,128)(2,1)}"},
	}
	for _, tc := range cases {
		in, from := randomInput(t, tc.from, 1)
		to, _ := relayout.ParseShape(tc.to)
		want := reference(t, in, from, to, relayout.Padding{})
		dir := t.TempDir()
		inPath := filepath.Join(dir, "in.bin")
		if err := os.WriteFile(inPath, in, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, threads := range []string{"0", "1", "2", "3"} {
			t.Run(tc.to+"/threads="+threads, func(t *testing.T) {
				out := filepath.Join(dir, "out.bin")
				r := runCLI(t, nil, "convert", "--threads", threads, "--from", tc.from, "--to", tc.to, inPath, out)
				if r.code != 0 || r.stderr != "" {
					t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
				}
				if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
					t.Errorf("file output differs from relayout.Reference")
				}
				r = runCLI(t, in, "convert", "--threads", threads, "--from", tc.from, "--to", tc.to, "-", "-")
				if r.code != 0 || !bytes.Equal([]byte(r.stdout), want) {
					t.Errorf("stdio: exit %d, stderr %q, output equal %v", r.code, r.stderr, bytes.Equal([]byte(r.stdout), want))
				}
			})
		}
	}
}

// TestMappedSteps runs mapped conversions in steps of very few chunks,
// so that every step boundary, the release of pages between steps and
// the tail padding of the last step are exercised, against the oracle.
func TestMappedSteps(t *testing.T) {
	if !canMap {
		t.Skip("no mapped conversions on this system")
	}
	cases := []struct {
		from, to string
		pad      relayout.Padding
		widths   string
	}{
		{"f32[70,50]", "f32[70,50]{0,1}", relayout.Padding{}, ""},
		{"f32[50,70]{0,1}", "f32[50,70]", relayout.Padding{}, ""},
		{"f32[37,300]", "f32[37,300]{1,0:T(8,128)}", relayout.Padding{Kind: relayout.PadNaN}, ""},
		{"bf16[37,300]", "bf16[37,300]{1,0:T(8,128)(2,1)}", relayout.PadWith(-1), ""},
		{"s8[33,260]", "s8[33,260]{1,0:T(8,128)(4,1)}", relayout.Padding{}, ""},
		{"f64[5,7,11]", "f64[5,7,11]{0,2,1}", relayout.Padding{}, ""},
		{"u16[9,10,11,12]", "u16[9,10,11,12]{1,3,2,0}", relayout.Padding{}, ""},
		{"f32[30,20]", "f32[30,20]{0,1}", relayout.Padding{Kind: relayout.PadHighest, Widths: []int64{32, 24}}, "32,24"},
		{"s4[30,20]", "s4[30,20]{0,1:E(4)}", relayout.Padding{}, ""},
		// Packed and large enough for the stages to run in slabs: the tpu
		// preset's 4-bit layout, both ways.
		{"s4[1100,2000]", "s4[1100,2000]{1,0:T(8,128)(8,1)E(4)}", relayout.PadWith(-1), ""},
		{"u2[1100,2000]{1,0:T(8,128)(8,1)E(4)}", "u2[1100,2000]", relayout.Padding{}, ""},
		{"f32[0,5]", "f32[0,5]{1,0:T(8,128)}", relayout.Padding{}, ""},
		{"f32[1000]", "f32[1000]{0:T(1024)}", relayout.Padding{}, ""},
		// Transposes whose steps read bands (an untiled source, with
		// units widened or not) or map a tiled source cold.
		{"bf16[33,70]{0,1}", "bf16[33,70]", relayout.Padding{}, ""},
		{"u8[30,7,12]", "u8[30,7,12]{0,2,1}", relayout.Padding{}, ""},
		{"f32[40,300]{1,0:T(8,128)}", "f32[40,300]{0,1}", relayout.Padding{}, ""},
	}
	modes := map[sourceMode]int{}
	for _, tc := range cases {
		t.Run(tc.from+"->"+tc.to, func(t *testing.T) {
			in, from := randomInput(t, tc.from, 2)
			to, _ := relayout.ParseShape(tc.to)
			want := reference(t, in, from, to, tc.pad)
			dir := t.TempDir()
			inPath := filepath.Join(dir, "in.bin")
			if err := os.WriteFile(inPath, in, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, budget := range []int64{1, 5000, 20000, 1 << 20} {
				// A page of 8 bytes makes small files take the steps of
				// large ones: bands read, or a source mapped cold.
				for _, page := range []int64{0, 8} {
					for _, threads := range []int{1, 2} {
						p, err := relayout.Compile(from, to, &relayout.Options{Pad: tc.pad, Threads: threads})
						if err != nil {
							t.Fatal(err)
						}
						st := planSteps(p, budget, cmp.Or(page, int64(os.Getpagesize())))
						modes[st.source]++
						out := filepath.Join(dir, "out.bin")
						j := &job{verb: "convert", plan: p, src: source{name: inPath, shape: from},
							dst: destination{name: out, shape: to}, threads: threads, progress: progressNever,
							stepBudget: budget, stepPage: page}
						if !j.mappable() {
							t.Fatal("regular files are not mappable")
						}
						if err := j.run(context.Background(), func() {}, nil, io.Discard, io.Discard); err != nil {
							t.Fatalf("budget %d, page %d, threads %d: %v", budget, page, threads, err)
						}
						if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
							t.Fatalf("budget %d, page %d, threads %d (source %v, %d of %d chunks a step): output differs from relayout.Reference",
								budget, page, threads, st.source, st.perStep, st.chunks)
						}
						checkDir(t, dir, "in.bin", "out.bin")
					}
				}
			}
		})
	}
	t.Logf("steps by source mode: %v", modes)
	for _, m := range []sourceMode{sourceMapped, sourceRead, sourceCold, sourceWhole} {
		if modes[m] == 0 {
			t.Errorf("no case ran with the source %v", m)
		}
	}
}

// TestMappedInterrupted cancels a mapped conversion: no OUT, no
// temporary file, and an existing OUT is left as it was.
func TestMappedInterrupted(t *testing.T) {
	in, from := randomInput(t, "f32[64,64]", 3)
	to, _ := relayout.ParseShape("f32[64,64]{0,1}")
	p, err := relayout.Compile(from, to, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	inPath := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(inPath, in, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	released := false
	for _, existing := range []bool{false, true} {
		out := filepath.Join(dir, "out.bin")
		if existing {
			if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		j := &job{verb: "convert", plan: p, src: source{name: inPath, shape: from},
			dst: destination{name: out, shape: to}, threads: 1, progress: progressNever}
		err := j.run(ctx, func() { released = true }, nil, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "interrupted") {
			t.Errorf("existing OUT %v: %v, want an interruption", existing, err)
		}
		if !released {
			t.Errorf("the signal handler was not released")
		}
		if existing {
			if got, _ := os.ReadFile(out); string(got) != "old" {
				t.Errorf("an interrupted run changed OUT to %q", got)
			}
			checkDir(t, dir, "in.bin", "out.bin")
		} else {
			checkDir(t, dir, "in.bin")
		}
	}
}

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	if pr := newProgress(progressAuto, &b, "convert", 4<<30); pr != nil {
		t.Errorf("auto draws a bar on a buffer")
	}
	if pr := newProgress(progressNever, &b, "convert", 4<<30); pr != nil {
		t.Errorf("never draws a bar")
	}
	pr := newProgress(progressAlways, &b, "convert", 4<<30)
	if pr == nil {
		t.Fatal("always draws no bar")
	}
	clock := pr.start
	pr.now = func() time.Time { return clock }
	pr.update(1 << 30) // first update: drawn
	clock = clock.Add(progressEvery / 2)
	pr.update(2 << 30) // too soon: not drawn
	clock = clock.Add(progressEvery)
	pr.update(3 << 30)
	clock = clock.Add(progressEvery)
	pr.update(4 << 30)
	pr.finish()
	lines := strings.Split(b.String(), "\r")
	if len(lines) != 5 || lines[0] != "" { // "", 25%, 75%, 100%, final 100%
		t.Fatalf("bar drawn %d times: %q", len(lines)-1, b.String())
	}
	for i, want := range []string{"25%", "75%", "100%", "100%"} {
		if !strings.Contains(lines[i+1], want) || !strings.HasPrefix(lines[i+1], "relayout convert: [") {
			t.Errorf("draw %d is %q, want %s", i, lines[i+1], want)
		}
	}
	if !strings.HasSuffix(b.String(), "\n") || strings.Count(b.String(), "\n") != 1 {
		t.Errorf("the bar does not end with one newline: %q", b.String())
	}
	if got := lines[2]; !strings.Contains(got, "3.0 GiB of 4.0 GiB") || !strings.Contains(got, "GiB/s") {
		t.Errorf("draw 2 is %q", got)
	}
	for _, bad := range []string{"", "yes", "Always"} {
		if _, err := parseProgress(bad); err == nil {
			t.Errorf("--progress %q accepted", bad)
		}
	}

	// Through the command: a bar on request, on stderr.
	if !canMap {
		return
	}
	in, _ := letterInput(t, "f32[2,3]")
	dir := t.TempDir()
	inPath := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(inPath, in, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, "convert", "--progress", "always", "--from", "f32[2,3]", "--to", "f32[2,3]{0,1}", inPath, filepath.Join(dir, "out.bin"))
	if r.code != 0 || !strings.Contains(r.stderr, "relayout convert: [") || !strings.Contains(r.stderr, "100%") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	// The total is the input's 24 bytes, counted once.
	if !strings.Contains(r.stderr, " 24 B of 24 B") {
		t.Errorf("the bar's total is not the input's 24 bytes: %q", r.stderr)
	}
}
