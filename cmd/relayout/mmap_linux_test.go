package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tilecopy/tilecopy/relayout"
	"golang.org/x/sys/unix"
)

// residency returns mincore's vector for the file at path, one byte a
// page, bit 0 set where the page is in the page cache.
func residency(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(b)
	page := os.Getpagesize()
	vec := make([]byte, (len(b)+page-1)/page)
	if err := mincore(b, vec); err != nil {
		t.Fatal(err)
	}
	return vec
}

// evict writes the file at path back and drops it from the page cache.
func evict(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
}

// TestMappedPageCache counts the source ranges mapped runs drop from the
// page cache: none for a job within one step's budget or for a source
// read band by band, and for a source mapped cold none of the pages that
// were cached before the run, but those it brought in.
func TestMappedPageCache(t *testing.T) {
	cases := []struct {
		name         string
		from, to     string
		budget, page int64 // 0: the defaults
		source       sourceMode
	}{
		{"within the budget", "f32[256,512]", "f32[256,512]{0,1}", 0, 0, sourceMapped},
		{"bands", "f32[256,512]", "f32[256,512]{0,1}", 200 << 10, 64, sourceRead},
		{"tiled source", "f32[64,1024]{1,0:T(8,128)}", "f32[64,1024]{0,1}", 200 << 10, 64, sourceCold},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in, from := randomInput(t, tc.from, 4)
			to, _ := relayout.ParseShape(tc.to)
			want := reference(t, in, from, to, relayout.Padding{})
			p, err := relayout.Compile(from, to, nil)
			if err != nil {
				t.Fatal(err)
			}
			budget, page := tc.budget, tc.page
			if budget == 0 {
				budget = stepBudget
			}
			if page == 0 {
				page = int64(os.Getpagesize())
			}
			st := planSteps(p, budget, page)
			t.Logf("%d chunks, %d a step, source %v", st.chunks, st.perStep, st.source)
			if st.source != tc.source {
				t.Fatalf("source %v, want %v", st.source, tc.source)
			}
			if tc.budget == 0 && st.perStep != st.chunks {
				t.Errorf("%d of %d chunks a step, want one step", st.perStep, st.chunks)
			}
			dir := t.TempDir()
			inPath, out := filepath.Join(dir, "in.bin"), filepath.Join(dir, "out.bin")
			if err := os.WriteFile(inPath, in, 0o644); err != nil {
				t.Fatal(err)
			}
			convert := func() (drops [][2]int64) {
				j := &job{verb: "convert", plan: p, src: source{name: inPath, shape: from},
					dst: destination{name: out, shape: to}, threads: 1, progress: progressNever,
					stepBudget: tc.budget, stepPage: tc.page,
					onDrop: func(off, n int64) { drops = append(drops, [2]int64{off, off + n}) }}
				if err := j.run(context.Background(), func() {}, nil, io.Discard, io.Discard); err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
					t.Fatal("output differs from relayout.Reference")
				}
				return drops
			}
			// A source in the page cache stays there: nothing of it is
			// dropped.
			before := residency(t, inPath)
			drops := convert()
			sys := int64(os.Getpagesize())
			for _, d := range drops {
				for pg := d[0] / sys; pg*sys < d[1] && pg < int64(len(before)); pg++ {
					if before[pg]&1 != 0 {
						t.Fatalf("dropped [%d, %d), which holds page %d, cached before the run", d[0], d[1], pg)
					}
				}
			}
			if st.source != sourceCold && len(drops) != 0 {
				t.Errorf("%v source: dropped %v from the page cache, want nothing", st.source, drops)
			}
			// A source out of the page cache: a cold run drops what it
			// brought in; the others still drop nothing.
			evict(t, inPath)
			if r := residency(t, inPath); bytes.IndexByte(r, 1) >= 0 {
				t.Skip("the page cache kept the source; cannot test a cold one")
			}
			drops = convert()
			switch {
			case st.source == sourceCold && len(drops) == 0:
				t.Errorf("cold source: dropped nothing it brought into the page cache")
			case st.source != sourceCold && len(drops) != 0:
				t.Errorf("%v source: dropped %v from the page cache, want nothing", st.source, drops)
			}
		})
	}
}
