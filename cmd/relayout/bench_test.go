package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runBench runs "relayout bench args..." and returns the exit status,
// stdout and stderr.
func runBench(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"bench"}, args...), strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// Bad arguments print one "relayout: bench: " line, then where to find
// the flags, and exit with status 2, as the other verbs' usage errors do.
func TestBenchArgErrors(t *testing.T) {
	tests := [][]string{
		{"C99"},
		{"--runs", "0"},
		{"--threads", "-1"},
		{"--from", "f32[4,", "--to", "f32[4]"},
		{"--from", "f32[4]", "--to", "f32[5]"},
		{"--nonsense"},
	}
	for _, args := range tests {
		code, stdout, stderr := runBench(args...)
		if code != exitUsage || stdout != "" {
			t.Errorf("%q: status %d, stdout %q; want status %d and no output", args, code, stdout, exitUsage)
		}
		first, rest, _ := strings.Cut(stderr, "\n")
		if !strings.HasPrefix(first, "relayout: bench: ") || rest != "run \"relayout bench -h\" for the flags\n" {
			t.Errorf("%q: stderr is not one \"relayout: bench: \" line and the pointer to -h: %q", args, stderr)
		}
	}
}

func TestBenchRuns(t *testing.T) {
	code, stdout, stderr := runBench("--small", "--runs", "1", "--warmup", "0", "--json", "C3", "T1")
	if code != exitOK {
		t.Fatalf("status %d: %s", code, stderr)
	}
	var records []struct {
		Name      string  `json:"name"`
		GBps      float64 `json:"gbps"`
		LimitGBps float64 `json:"limit_gbps"`
		Limit     string  `json:"limit"`
		Ratio     float64 `json:"ratio"`
		CopyGBps  float64 `json:"copy_gbps"`
		CopyRatio float64 `json:"copy_ratio"`
	}
	if err := json.Unmarshal([]byte(stdout), &records); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, stdout)
	}
	if len(records) != 2 || records[0].Name != "C3" || records[1].Name != "T1" {
		t.Errorf("records %+v", records)
	}
	// The ratio is to the limit, the faster of the two copies; the
	// ratio to copy() is kept beside it.
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(math.Abs(a), math.Abs(b)) }
	for _, r := range records {
		if r.GBps <= 0 || r.LimitGBps < r.CopyGBps || (r.Limit != "copy" && r.Limit != "Copy") ||
			!near(r.Ratio, r.GBps/r.LimitGBps) || !near(r.CopyRatio, r.GBps/r.CopyGBps) ||
			r.Limit == "copy" && r.LimitGBps != r.CopyGBps {
			t.Errorf("record %+v: the limit or the ratios do not add up", r)
		}
	}
	if stderr != "" {
		t.Errorf("stderr is not a terminal, yet got %q", stderr)
	}
	code, stdout, _ = runBench("-h")
	if code != exitOK || !strings.Contains(stdout, "usage: relayout bench") {
		t.Errorf("-h: status %d, stdout %q", code, stdout)
	}
}

// The command draws --plot (with package bench/plot): a plot file of the
// format its name asks for.
func TestBenchPlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bars.svg")
	code, _, stderr := runBench("--small", "--runs", "1", "--warmup", "0", "--json", "--plot", path, "C8")
	if code != exitOK {
		t.Fatalf("status %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.HasPrefix(b, []byte("<?xml")) {
		t.Errorf("%s: %d bytes, %v", path, len(b), err)
	}
}
