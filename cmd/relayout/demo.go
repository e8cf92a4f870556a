package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/tilecopy/tilecopy/relayout"
)

// demoCmd relayouts a built-in array three ways, checks every result
// against relayout.Reference and prints what it did.
func demoCmd(args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newCommand("demo", "demo [--size N] [--threads N]",
		"demo builds an f32[N,N] row-major array whose element k holds the value k,\n"+
			"relayouts it to column-major, to T(8,128) tiles with padding and back, checks\n"+
			"every result against the slow reference relayout (relayout.Reference) and\n"+
			"prints each plan and how long one run of it took. It fails if a check fails.")
	size := c.fs.Int("size", 1000, "the array is f32[`N`,N]")
	var threads int
	registerThreads(c.fs, &threads)
	if _, err := c.parse(args, 0, stdout); err != nil {
		return err
	}
	if *size < 0 || *size > 1<<14 {
		return c.usageErr("--size %d: want 0 to %d", *size, 1<<14)
	}
	opts := relayout.Options{Threads: threads}
	if opts.Threads == 0 {
		opts.Threads = runtime.GOMAXPROCS(0)
	}
	return demo(stdout, *size, opts)
}

// demo runs the demonstration on an f32[n,n] array.
func demo(w io.Writer, n int, opts relayout.Options) error {
	dims := []int64{int64(n), int64(n)}
	rowMajor := relayout.NewShape(relayout.F32, dims, nil)
	colMajor := relayout.NewShape(relayout.F32, dims, &relayout.Layout{MinorToMajor: relayout.ColumnMajor(2)})
	tiled := relayout.NewShape(relayout.F32, dims, &relayout.Layout{
		MinorToMajor: relayout.RowMajor(2),
		Tiles:        []relayout.Tile{{8, 128}},
	})
	src := make([]byte, 4*n*n)
	for k := range n * n {
		binary.LittleEndian.PutUint32(src[4*k:], math.Float32bits(float32(k)))
	}
	fmt.Fprintf(w, "demo: %s, row-major, element k holds the value k (%d bytes); %d thread(s)\n",
		rowMajor, len(src), opts.Threads)

	if _, err := demoStep(w, "1. row-major to column-major", rowMajor, colMajor, src, opts); err != nil {
		return err
	}
	tiledOut, err := demoStep(w, "2. row-major to T(8,128) tiles for device upload, padding zero", rowMajor, tiled, src, opts)
	if err != nil {
		return err
	}
	back, err := demoStep(w, "3. T(8,128) tiles back to row-major, as after a download", tiled, rowMajor, tiledOut, opts)
	if err != nil {
		return err
	}
	if !bytes.Equal(back, src) {
		return fmt.Errorf("step 3: the round trip through T(8,128) does not give back the original array")
	}
	fmt.Fprintf(w, "   the round trip gives back the original array\n\nok: 3 relayouts checked against relayout.Reference\n")
	return nil
}

// demoStep compiles and runs one relayout of src, checks the result
// against relayout.Reference, prints the plan and the time, and returns
// the result.
func demoStep(w io.Writer, title string, from, to relayout.Shape, src []byte, opts relayout.Options) ([]byte, error) {
	fmt.Fprintf(w, "\n%s: %s -> %s\n", title, from, to)
	start := time.Now()
	p, err := relayout.Compile(from, to, &opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", title, err)
	}
	compiled := time.Since(start)
	dst := make([]byte, p.DestinationSize())
	start = time.Now()
	if err := p.Run(dst, src); err != nil {
		return nil, fmt.Errorf("%s: %w", title, err)
	}
	ran := time.Since(start)
	ref := make([]byte, p.DestinationSize())
	if err := relayout.Reference(ref, src, from, to, opts.Pad); err != nil {
		return nil, fmt.Errorf("%s: reference: %w", title, err)
	}
	if i := firstDiff(dst, ref); i >= 0 {
		return nil, fmt.Errorf("%s: the result differs from relayout.Reference at byte %d of %d", title, i, len(dst))
	}
	fmt.Fprintf(w, "   %d bytes -> %d bytes; compile %v, one run %v; matches relayout.Reference\n",
		p.SourceSize(), p.DestinationSize(), compiled.Round(time.Microsecond), ran.Round(time.Microsecond))
	fmt.Fprintf(w, "   plan:\n")
	for line := range strings.Lines(p.String()) {
		fmt.Fprintf(w, "     %s", line)
	}
	return dst, nil
}

// firstDiff returns the first index where a and b differ, -1 if none.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
