package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/tilecopy/tilecopy/internal/hugepage"
	"github.com/tilecopy/tilecopy/relayout"
)

// convertCmd relayouts an array file from --from to --to.
func convertCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var f planFlags
	var order, progress string
	c := newCommand("convert", "convert [--from SHAPE] [--type TYPE] [--to SHAPE] [--order C|F] [--pad VALUE] [--pad-to WIDTHS] [--threads N] [--progress WHEN] IN OUT",
		"convert reads IN, the raw little-endian bytes of an array laid out as --from,\n"+
			"and writes OUT, the same array laid out as --to, padding included. IN must be\n"+
			"exactly as large as --from says; \"-\" means stdin (IN) or stdout (OUT).\n"+
			"A file named *.npy is a NumPy array file: as IN, its header gives the shape\n"+
			"(--from, if given, must agree); as OUT, it gets a header and C or Fortran order\n"+
			"(--order, or the plain row- or column-major layout of --to). IN \"-\" without\n"+
			"--from is a .npy stream. The types NumPy lacks (bf16, f8e4m3fn, f8e5m2, s4...)\n"+
			"are void dtypes in .npy files, as ml_dtypes saves them (\"|V2\", \"|V1\"):\n"+
			"--type (or --from) names the type of a void IN; a 2-byte one is read as bf16.\n"+
			"Regular files are mapped into memory and converted chunk by chunk, so files\n"+
			"larger than the machine's memory convert in bounded memory.\n"+
			"OUT is written to a temporary file beside it and renamed into place only when\n"+
			"the conversion succeeded, so a failed or interrupted run leaves no partial OUT.")
	f.registerNpy(c.fs)
	c.fs.StringVar(&order, "order", "", "`C` (row-major) or F (column-major): the order of a .npy OUT (default C)")
	registerProgress(c.fs, &progress)
	pos, err := c.parse(args, 2, stdout)
	if err != nil {
		return err
	}
	prog, err := parseProgress(progress)
	if err != nil {
		return err
	}
	in := bufio.NewReader(stdin)
	src, err := resolveSource(c, f.from, pos[0], f.typ, in)
	if err != nil {
		return err
	}
	opts, err := f.options()
	if err != nil {
		return err
	}
	dst, err := resolveDestination(c, f.to, pos[1], order, src.shape, opts.Pad.Widths)
	if err != nil {
		return err
	}
	p, err := compilePlan(src.shape, dst.shape, opts)
	if err != nil {
		return err
	}
	j := &job{verb: "convert", plan: p, src: src, dst: dst, threads: opts.Threads, progress: prog}
	return j.runWithSignals(in, stdout, stderr)
}

// source is what a conversion reads: a file or stdin, holding the array
// of shape after offset bytes (a .npy header).
type source struct {
	name   string
	shape  relayout.Shape
	offset int64
}

// destination is what a conversion writes: a file or stdout, receiving
// header (a .npy header) and then the array of shape.
type destination struct {
	name   string
	shape  relayout.Shape
	header []byte
}

// hasLayout reports whether shape text spells out a layout ("{...}")
// rather than leaving the default.
func hasLayout(text string) bool { return strings.Contains(text, "{") }

// resolveSource returns the source of a conversion from the file in and
// the text of the --from flag, which may be empty for a .npy file or a
// .npy stream on stdin (in "-" without --from: read from stdin up to the
// array's first byte). For .npy input, a given --from must have the header's element
// type and dims, and a layout only if it is the file's order; a void
// dtype (as NumPy saves ml_dtypes' types) takes the type of --type, else
// of --from (typeText and text), else is guessed where it can be.
func resolveSource(c *command, text, in, typeText string, stdin *bufio.Reader) (source, error) {
	// Stdin is read as a .npy stream only without --from, which raw
	// input needs: so raw input is never taken for one, and a raw
	// conversion does not wait for its input before it starts.
	npyIn := isNpy(in) || in == "-" && text == "" && stdin != nil && isNpyStream(stdin)
	if !npyIn {
		switch {
		case typeText != "":
			return source{}, c.usageErr("--type applies to a .npy IN")
		case text == "":
			return source{}, c.usageErr("--from is required unless IN is a .npy file or stream")
		}
		s, err := parseShape("--from", text)
		return source{name: in, shape: s}, err
	}
	var from relayout.Shape
	voidType := relayout.InvalidType
	if text != "" {
		var err error
		if from, err = parseShape("--from", text); err != nil {
			return source{}, err
		}
		voidType = from.DType()
	}
	if typeText != "" {
		t, err := relayout.ParseDType(typeText)
		if err != nil || !t.IsArray() {
			return source{}, c.usageErr("--type %q: not an element type (bf16, f8e4m3fn, s4, ...)", typeText)
		}
		voidType = t
	}
	var info npyInfo
	var err error
	if in == "-" {
		info, err = readNpyStream(stdin, voidType)
	} else {
		info, err = readNpyHeader(in, voidType)
	}
	if err != nil {
		return source{}, err
	}
	if typeText != "" && info.shape.DType() != voidType {
		return source{}, fmt.Errorf("--type %s: the header of %s says %s; --type names the type of a void (V) dtype", typeText, in, info.shape.DType())
	}
	if text != "" {
		s := from
		if s.DType() != info.shape.DType() || !slices.Equal(s.Dims(), info.shape.Dims()) {
			return source{}, fmt.Errorf("--from %q does not match %s, whose header says %s",
				text, in, info.shape)
		}
		fl, _ := s.Layout()
		il, _ := info.shape.Layout()
		if hasLayout(text) && !fl.Equal(il) {
			return source{}, fmt.Errorf("--from %q: %s is a %s-order .npy file, laid out %s; leave the layout out or give that one",
				text, in, info.order(), info.shape)
		}
	}
	return source{name: in, shape: info.shape, offset: info.offset}, nil
}

// resolveDestination returns the destination of a conversion into the
// file out, from the text of --to and --order. For a .npy OUT the layout
// is row-major (C order) or column-major (Fortran order): --order picks
// it, or else the layout --to spells; --to may be left out, and the
// source's element type and dims (widened to widths, if set) are used.
func resolveDestination(c *command, text, out, order string, from relayout.Shape, widths []int64) (destination, error) {
	fortran := false
	switch strings.ToUpper(order) {
	case "":
	case "C":
	case "F":
		fortran = true
	default:
		return destination{}, c.usageErr("--order %q: want C or F", order)
	}
	if !isNpy(out) {
		if order != "" {
			return destination{}, c.usageErr("--order applies only when OUT is a .npy file")
		}
		if text == "" {
			return destination{}, c.usageErr("--to is required unless OUT is a .npy file")
		}
		s, err := parseShape("--to", text)
		return destination{name: out, shape: s}, err
	}
	s := from
	if text != "" {
		var err error
		if s, err = parseShape("--to", text); err != nil {
			return destination{}, err
		}
	}
	if text != "" && hasLayout(text) {
		l, _ := s.Layout()
		row, col := l.Equal(npyLayout(s.Rank(), false)), l.Equal(npyLayout(s.Rank(), true))
		switch {
		case !row && !col:
			return destination{}, fmt.Errorf("--to %q: a .npy file holds C (row-major) or Fortran (column-major) order", text)
		case order == "":
			fortran = col && !row
		case !l.Equal(npyLayout(s.Rank(), fortran)):
			return destination{}, fmt.Errorf("--to %q is not --order %s", text, strings.ToUpper(order))
		}
	}
	s = s.WithLayout(npyLayout(s.Rank(), fortran))
	dims := s.Dims()
	if widths != nil {
		dims = widths
	}
	h, err := npyHeader(s.DType(), dims, fortran)
	if err != nil {
		return destination{}, fmt.Errorf("output %s: %w", out, err)
	}
	return destination{name: out, shape: s, header: h}, nil
}

// job is one conversion: a plan, what it reads and what it writes.
type job struct {
	verb     string // the verb running it, for the progress line
	plan     *relayout.Plan
	src      source
	dst      destination
	threads  int // goroutines a chunked run may use
	progress progressMode
	// stepBudget overrides the bytes one step of a mapped run may touch
	// (0: stepBudget); tests make steps small.
	stepBudget int64
	// stepPage overrides the page size planSteps counts a row's stretch
	// in (0: the system's); tests shrink it so that small files take the
	// steps of large ones.
	stepPage int64
	// onDrop, when set, is told of every range of the source that a
	// mapped run drops from the page cache (tests count them).
	onDrop func(off, n int64)
}

// runWithSignals runs the job, stopping it on SIGINT or SIGTERM.
func (j *job) runWithSignals(stdin io.Reader, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return j.run(ctx, stop, stdin, stdout, stderr)
}

// run converts j.src into j.dst. Regular files are mapped into memory and
// converted chunk by chunk (see runMapped); stdin, stdout, pipes and
// devices go through buffers as large as the arrays. When ctx is
// cancelled first, run removes what it wrote, calls release (so that a
// second signal ends the process) and returns an error.
func (j *job) run(ctx context.Context, release func(), stdin io.Reader, stdout, stderr io.Writer) error {
	if j.mappable() {
		return j.runMapped(ctx, release, stderr)
	}
	if err := checkMemory(j.plan.SourceSize(), j.plan.DestinationSize()); err != nil {
		return err
	}
	o, err := openOutput(j.dst.name, stdout)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- j.relayoutStreams(stdin, o) }()
	select {
	case err = <-done:
	case <-ctx.Done():
	}
	if ctx.Err() != nil { // even when the work finished: the user asked to stop
		// The conversion goroutine may still run; the process is about
		// to exit, so it is not waited for.
		o.abort()
		release()
		return fmt.Errorf("interrupted by a signal; %s not written", o.name)
	}
	if err != nil {
		o.abort()
		return err
	}
	return o.commit()
}

// mappable reports whether the job converts between regular files, which
// it can map into memory.
func (j *job) mappable() bool {
	if !canMap || j.src.name == "-" || j.dst.name == "-" {
		return false
	}
	if fi, err := os.Stat(j.src.name); err != nil || !fi.Mode().IsRegular() {
		return false // errors are reported when the input is read
	}
	fi, err := os.Stat(j.dst.name)
	return err != nil || fi.Mode().IsRegular() // not yet there, or a file to replace
}

// relayoutStreams reads the source array, relayouts it and writes it to o.
func (j *job) relayoutStreams(stdin io.Reader, o *output) error {
	src, err := readInput(j.src.name, j.src.offset, j.plan.SourceSize(), j.plan.From(), stdin)
	if err != nil {
		return err
	}
	dst := hugepage.Alloc(int(j.plan.DestinationSize()))
	if err := j.plan.Run(dst, src); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if _, err := o.w.Write(j.dst.header); err != nil {
		return writeError(o.name, err)
	}
	if _, err := o.w.Write(dst); err != nil {
		return writeError(o.name, err)
	}
	return nil
}

// readInput reads exactly size bytes from the file name ("-": stdin),
// after offset bytes of header that the caller has already checked. A
// regular file of another size is rejected before reading; other inputs
// are read up to size+1 bytes to tell short and long ones, into a buffer
// that grows with what arrives.
func readInput(name string, offset, size int64, shape relayout.Shape, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		return readStream(stdin, "stdin", size, shape)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	switch {
	case fi.IsDir():
		return nil, fmt.Errorf("input %s is a directory", name)
	case !fi.Mode().IsRegular():
		return readStream(f, name, size, shape)
	case fi.Size()-offset != size:
		return nil, sizeError(name, fi.Size()-offset, size, shape)
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	buf := hugepage.Alloc(int(size))
	if n, err := io.ReadFull(f, buf); err != nil { // the file shrank, or a read error
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, sizeError(name, int64(n), size, shape)
		}
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	var extra [1]byte
	switch n, err := f.Read(extra[:]); {
	case n > 0: // the file grew
		return nil, fmt.Errorf("input %s is longer than the %d bytes %s needs", name, size, shape)
	case err != nil && !errors.Is(err, io.EOF):
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return buf, nil
}

// readStream reads r to its end, but no more than size+1 bytes, and
// checks that it held exactly size bytes.
func readStream(r io.Reader, label string, size int64, shape relayout.Shape) ([]byte, error) {
	limit := size + 1
	buf := make([]byte, 0, min(limit, 1<<20))
	for int64(len(buf)) < limit {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(int64(cap(buf)), limit-int64(cap(buf)))))
		}
		n, err := r.Read(buf[len(buf):min(int64(cap(buf)), limit)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", label, err)
		}
	}
	switch got := int64(len(buf)); {
	case got < size:
		return nil, sizeError(label, got, size, shape)
	case got > size:
		return nil, fmt.Errorf("input %s is longer than the %d bytes %s needs", label, size, shape)
	}
	return buf, nil
}

// sizeError reports an input of the wrong size.
func sizeError(label string, got, want int64, shape relayout.Shape) error {
	what := "short"
	if got > want {
		what = "long"
	}
	return fmt.Errorf("input %s is too %s: %d bytes, %s needs %d", label, what, got, shape, want)
}

// output is where convert writes: stdout, a temporary file renamed over
// the destination on commit, or, for a destination that exists and is not
// a regular file (a device, a pipe), that file itself.
type output struct {
	name string // the destination as the user named it
	w    io.Writer
	f    *os.File // nil for stdout
	tmp  string   // the temporary file; "" when writing in place
}

// openOutput prepares the destination out ("-": stdout).
func openOutput(out string, stdout io.Writer) (*output, error) {
	if out == "-" {
		return &output{name: "stdout", w: stdout}, nil
	}
	fi, err := os.Stat(out)
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("output %s is a directory", out)
	case err == nil && !fi.Mode().IsRegular():
		f, err := os.OpenFile(out, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return nil, fmt.Errorf("output: %w", err)
		}
		return &output{name: out, w: f, f: f}, nil
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("output: %w", err)
	}
	f, err := createTemp(out)
	if err != nil {
		return nil, err
	}
	if fi != nil { // replacing a file: keep its permissions
		if err := f.Chmod(fi.Mode().Perm()); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, fmt.Errorf("output: %w", err)
		}
	}
	return &output{name: out, w: f, f: f, tmp: f.Name()}, nil
}

// createTemp creates a new file beside out, with the permissions a new
// out would get (0666 less the umask).
func createTemp(out string) (*os.File, error) {
	dir, base := filepath.Split(out)
	var rnd [6]byte
	for range 100 {
		if _, err := rand.Read(rnd[:]); err != nil {
			return nil, fmt.Errorf("output: %w", err)
		}
		name := filepath.Join(dir, "."+base+".relayout-"+hex.EncodeToString(rnd[:])+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666) // read too: it may be mapped
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, fmt.Errorf("output %s: cannot create a file in %s: %w", out, filepath.Clean(dir), err)
		}
		return f, nil
	}
	return nil, fmt.Errorf("output: cannot create a temporary file beside %s", out)
}

// writeError reports err, from writing the output the user named name.
// An *os.File's errors name their file already (the temporary file, or
// /dev/stdout for "-"): only the cause is kept, so that the message names
// the output once, as the user spelled it. errors.Is still sees the cause
// (syscall.ENOSPC, say).
func writeError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("write %s: %w", name, err)
}

// commit closes the output and moves the temporary file into place.
func (o *output) commit() error {
	if o.f == nil {
		return nil
	}
	if err := o.f.Close(); err != nil {
		o.removeTemp()
		return writeError(o.name, err)
	}
	if o.tmp == "" {
		return nil
	}
	if err := os.Rename(o.tmp, o.name); err != nil {
		o.removeTemp()
		return fmt.Errorf("output: %w", err)
	}
	return nil
}

// abort closes the output and removes the temporary file. Another
// goroutine may still be writing to it; its writes then fail or go to
// the removed file.
func (o *output) abort() {
	if o.f != nil {
		o.f.Close()
	}
	o.removeTemp()
}

func (o *output) removeTemp() {
	if o.tmp != "" {
		os.Remove(o.tmp)
	}
}
