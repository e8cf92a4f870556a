package plot_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilecopy/tilecopy/bench"
	"github.com/tilecopy/tilecopy/bench/plot"
)

// run runs bench.Command with args and this package's Plotter.
func run(t *testing.T, args ...string) error {
	t.Helper()
	var stdout, stderr bytes.Buffer
	return bench.Command(context.Background(), args, &stdout, &stderr, plot.Plotter{})
}

func TestPlotFormat(t *testing.T) {
	err := run(t, "--plot", "out.gif")
	if !errors.Is(err, bench.ErrUsage) || !strings.Contains(err.Error(), ".svg, .png or .pdf") {
		t.Errorf("--plot out.gif: err = %v, want a usage error naming the formats", err)
	}
}

func TestPlots(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		file  string
		args  []string
		magic string
	}{
		{"bars.png", []string{"--small", "C3", "C4", "--peers"}, "\x89PNG"},
		{"bars.svg", []string{"--small", "C8"}, "<?xml"},
		{"sweep.png", []string{"--sweep", "--max-bytes", "64KiB"}, "\x89PNG"},
		{"random.svg", []string{"--random", "2", "--max-bytes", "16MiB"}, "<?xml"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.file)
		args := append([]string{"--runs", "1", "--warmup", "0", "--plot", path, "--json"}, tt.args...)
		if err := run(t, args...); err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte(tt.magic)) || len(b) < 1000 {
			t.Errorf("%s: %d bytes starting %q", tt.file, len(b), b[:min(len(b), 8)])
		}
	}
}
