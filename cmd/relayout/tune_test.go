package main

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

// TestTune runs relayout tune on small buffers: it prints what it
// measured, and -o writes a tuning that TILECOPY_TUNING loads.
func TestTune(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tuning.json")
	r := runCLI(t, nil, "tune", "--bytes", "2MiB", "--runs", "1", "-o", path)
	if r.code != exitOK {
		t.Fatalf("status %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"copy()", "16 parts, prefetch 8192", "1MiB cached", "1MiB streamed",
		"2MiB f32 transposes streamed", "tuning: copy_stream_bytes", "parallel_min_bytes"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, r.stdout)
		}
	}
	if threads := strings.Contains(r.stdout, "2MiB plan, 2 threads"); threads != (runtime.GOMAXPROCS(0) > 1) {
		t.Errorf("the report measures two threads: %v, with GOMAXPROCS %d:\n%s", threads, runtime.GOMAXPROCS(0), r.stdout)
	}
	got, err := kernel.LoadTuning(path)
	if err != nil {
		t.Fatalf("the written tuning does not load: %v", err)
	}
	if !strings.Contains(r.stdout, "copy_parts "+strconv.Itoa(got.CopyParts)) ||
		!strings.Contains(r.stdout, "transpose_stream_bytes "+strconv.Itoa(got.TransposeStreamBytes)) {
		t.Errorf("the file's tuning %+v is not the one printed:\n%s", got, r.stdout)
	}
	r = runCLI(t, nil, "tune", "--bytes", "2MiB", "--runs", "1", "--json")
	var rep struct {
		Streams []json.RawMessage `json:"streams"`
		Tuning  kernel.Tuning     `json:"tuning"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || len(rep.Streams) != 25 || rep.Tuning.Check() != nil {
		t.Errorf("--json: %v, %d candidates, tuning %+v\n%s", err, len(rep.Streams), rep.Tuning, r.stdout)
	}
}

func TestTuneArgErrors(t *testing.T) {
	for _, args := range [][]string{
		{"tune", "--bytes", "lots"},
		{"tune", "--bytes", "64KiB"},
		{"tune", "--runs", "0"},
		{"tune", "extra"},
	} {
		r := runCLI(t, nil, args...)
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, "relayout: tune: ") || !strings.Contains(r.stderr, "usage: relayout tune") {
			t.Errorf("%q: status %d, stderr %q; want a usage error", args, r.code, r.stderr)
		}
	}
}
