package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

// cmdCPU prints what the kernels see of this machine: the CPU, its caches,
// the block sizes and streaming thresholds derived from them, its
// features, the kernel levels this build has and which one is in use
// (TILECOPY_CPU caps it), and the transpose kernel chosen for each element
// width.
func cmdCPU(args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newCommand("cpu", "cpu",
		"cpu prints the CPU's name, caches and features as cpuid reports them, the\n"+
			"block sizes the transposes derive from those caches (a band of source row\n"+
			"for L1; a tile of arrays larger than the LLC, source row × destination row\n"+
			"bytes, for L2), the sizes from which transposes and run copies write\n"+
			"with non-temporal stores, and the rest of the tuning in use (the defaults\n"+
			"or TILECOPY_TUNING's file), the kernel levels of this build (avx512, avx2, neon,\n"+
			"generic) and whether the CPU runs each, the level in use, and the transpose\n"+
			"kernel for each element width.\n"+
			"TILECOPY_CPU=generic|avx2|avx512|neon caps the level; a value naming no level\n"+
			"of this architecture selects generic.")
	if _, err := c.parse(args, 0, stdout); err != nil {
		return err
	}
	_, err := io.WriteString(stdout, cpuReport(os.Getenv("TILECOPY_CPU")))
	return err
}

// cpuReport returns the text cmdCPU prints; override is TILECOPY_CPU.
func cpuReport(override string) string {
	var b strings.Builder
	name := kernel.CPUName()
	if name == "" {
		name = "(unknown)"
	}
	fmt.Fprintf(&b, "cpu:       %s\n", name)
	fmt.Fprintf(&b, "arch:      %s/%s\n", runtime.GOOS, runtime.GOARCH)
	l1, l2, l3 := kernel.CacheSizes()
	fmt.Fprintf(&b, "caches:    L1d %s, L2 %s, L3 %s\n", cacheSize(l1), cacheSize(l2), cacheSize(l3))
	t, terr := kernel.CurrentTuning()
	fmt.Fprintf(&b, "blocks:    band %d B (L1); tile %d × %d B, groups %s (L2)\n",
		t.Band, t.StageRow, t.StageCol, cacheSize(t.GridGroup))
	if t.TileRows > 0 {
		fmt.Fprintf(&b, "           tiles of at most %d source rows a page apart, not prefetched\n", t.TileRows)
	}
	fmt.Fprintf(&b, "streams:   transposes from %s (rows on lines from %s)\n           run copies from %s\n",
		cacheSize(t.TransposeStreamBytes), cacheSize(t.LineStreamBytes), cacheSize(t.RunStreamBytes))
	from := func(n int) string {
		if n > 0 {
			return "from " + cacheSize(n)
		}
		return "never"
	}
	copied := "slabs"
	if t.CopyRowsFirst {
		copied = fmt.Sprintf("copied, tiles of %d × %d B", t.CopiedRow, t.CopiedCol)
	}
	fmt.Fprintf(&b, "staging:   1-byte rows off lines: %s, 2-byte: %s\n           crowded 1-, 2-byte sources: %s\n", from(t.StagedOffLinesBytes), from(t.StagedOffLinesWordsBytes), copied)
	fmt.Fprintf(&b, "threads:   a plan splits from %s of destination\n", cacheSize(t.ParallelMinBytes))
	cached := "REP MOVSB (with ERMS)"
	if t.CopyRepBytes > 0 {
		cached = fmt.Sprintf("REP MOVSB (with ERMS) up to %s, vector moves past", cacheSize(t.CopyRepBytes))
	}
	fmt.Fprintf(&b, "copy:      streams past %s over %d parts, prefetching %d B ahead\n           cached: %s\n", cacheSize(t.CopyStreamBytes), t.CopyParts, t.CopyAhead, cached)
	b.WriteString("tuning:    ")
	switch path := os.Getenv("TILECOPY_TUNING"); {
	case terr != nil:
		fmt.Fprintf(&b, "the defaults (TILECOPY_TUNING: %v)", terr)
	case path != "":
		fmt.Fprintf(&b, "TILECOPY_TUNING=%s", path)
	default:
		b.WriteString("the defaults, derived from the caches")
	}
	b.WriteByte('\n')
	writeWrapped(&b, "features:  ", kernel.Features())
	var levels []string
	for _, l := range kernel.Levels() {
		mark := "yes"
		if !l.Supported {
			mark = "no"
		}
		levels = append(levels, fmt.Sprintf("%s (%s)", l.Name, mark))
	}
	fmt.Fprintf(&b, "levels:    %s\n", strings.Join(levels, ", "))
	fmt.Fprintf(&b, "in use:    %s", kernel.Level())
	if override != "" {
		known := false
		for _, l := range kernel.Levels() {
			known = known || strings.EqualFold(strings.TrimSpace(override), l.Name)
		}
		if known {
			fmt.Fprintf(&b, " (TILECOPY_CPU=%s)", override)
		} else {
			fmt.Fprintf(&b, " (TILECOPY_CPU=%s names no level here: generic)", override)
		}
	}
	b.WriteString("\ntranspose kernels:\n")
	// The powers of two, then the records (elements of other widths, an
	// RGB pixel of 3 bytes, say), which move whole.
	for _, w := range []int{1, 2, 4, 8, 16, 3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15} {
		// Kernel separates the micro-kernel from the staged and
		// interleave variants with "; ": one line each.
		parts := strings.Split(kernel.Kernel(w), "; ")
		fmt.Fprintf(&b, "  %2d-byte: %s\n", w, parts[0])
		for _, p := range parts[1:] {
			fmt.Fprintf(&b, "           %s\n", p)
		}
	}
	// Packed fields (kernel.TransposePacked) past the caches: one pass
	// where the level has it, through the 1-byte staged kernel.
	if kernel.PackedOnePass() {
		b.WriteString("  packed 1-, 2- and 4-bit fields, larger than the LLC: one pass\n")
		b.WriteString("           (staged 1-byte kernel, then each row split into 8/bits rows)\n")
	} else {
		b.WriteString("  packed 1-, 2- and 4-bit fields: two passes\n")
		b.WriteString("           (field swaps, then a byte transpose)\n")
	}
	return b.String()
}

// cacheSize prints a cache size cpuid reported, or "unknown" for -1.
func cacheSize(n int) string {
	if n <= 0 {
		return "unknown"
	}
	return humanBytes(int64(n))
}

// writeWrapped writes words after label, wrapped at 80 columns with the
// continuation lines indented under the first word.
func writeWrapped(b *strings.Builder, label string, words []string) {
	indent := strings.Repeat(" ", len(label))
	line := label
	for i, w := range words {
		if i > 0 && len(line)+1+len(w) > 80 {
			b.WriteString(line + "\n")
			line = indent
		} else if i > 0 {
			line += " "
		}
		line += w
	}
	b.WriteString(line + "\n")
}
