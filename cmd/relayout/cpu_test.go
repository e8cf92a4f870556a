package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

func TestCPUReport(t *testing.T) {
	r := cpuReport("")
	for _, want := range []string{"cpu:", "caches:", "blocks:    band ", "streams:   transposes from ", "features:", "levels:", "in use:    " + kernel.Level(), "4-byte: " + strings.Split(kernel.Kernel(4), "; ")[0]} {
		if !strings.Contains(r, want) {
			t.Errorf("report lacks %q:\n%s", want, r)
		}
	}
	if r := cpuReport("bogus"); !strings.Contains(r, "TILECOPY_CPU=bogus names no level here: generic") {
		t.Errorf("unrecognised override not reported:\n%s", r)
	}
	for _, line := range strings.Split(r, "\n") {
		if len(line) > 80 {
			t.Errorf("line longer than 80 columns: %q", line)
		}
	}
}

func TestCPUVerb(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"cpu"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("relayout cpu: exit %d, stderr %q", code, errb.String())
	}
	if !strings.Contains(out.String(), "transpose kernels:") || !strings.Contains(out.String(), "packed 1-, 2- and 4-bit fields") {
		t.Errorf("relayout cpu printed %q", out.String())
	}
	if code := run([]string{"cpu", "extra"}, nil, &out, &errb); code != exitUsage {
		t.Errorf("relayout cpu extra: exit %d, want %d", code, exitUsage)
	}
}
