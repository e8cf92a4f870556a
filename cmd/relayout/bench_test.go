package main

import (
	"bytes"
	"encoding/json"
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
		Name  string  `json:"name"`
		Ratio float64 `json:"ratio"`
	}
	if err := json.Unmarshal([]byte(stdout), &records); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, stdout)
	}
	if len(records) != 2 || records[0].Name != "C3" || records[1].Name != "T1" {
		t.Errorf("records %+v", records)
	}
	if stderr != "" {
		t.Errorf("stderr is not a terminal, yet got %q", stderr)
	}
	code, stdout, _ = runBench("-h")
	if code != exitOK || !strings.Contains(stdout, "usage: relayout bench") {
		t.Errorf("-h: status %d, stdout %q", code, stdout)
	}
}
