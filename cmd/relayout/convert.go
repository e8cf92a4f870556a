package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/tilecopy/tilecopy/relayout"
)

// convertCmd relayouts a raw array file from --from to --to.
func convertCmd(args []string, stdin io.Reader, stdout, _ io.Writer) error {
	var f planFlags
	c := newCommand("convert", "convert --from SHAPE --to SHAPE [--pad VALUE] [--pad-to WIDTHS] [--threads N] IN OUT",
		"convert reads IN, the raw little-endian bytes of an array laid out as --from,\n"+
			"and writes OUT, the same array laid out as --to, padding included. IN must be\n"+
			"exactly as large as --from says; \"-\" means stdin (IN) or stdout (OUT).\n"+
			"OUT is written to a temporary file beside it and renamed into place only when\n"+
			"the conversion succeeded, so a failed or interrupted run leaves no partial OUT.")
	f.register(c.fs)
	pos, err := c.parse(args, 2, stdout)
	if err != nil {
		return err
	}
	p, err := f.compile(c)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return convert(ctx, p, pos[0], pos[1], stdin, stdout)
}

// convert runs p on the contents of the file in and writes the result to
// out. When ctx is cancelled first it removes what it wrote and returns an
// error without waiting for the conversion to stop: the caller is about
// to exit.
func convert(ctx context.Context, p *relayout.Plan, in, out string, stdin io.Reader, stdout io.Writer) error {
	if err := checkMemory(p.SourceSize(), p.DestinationSize()); err != nil {
		return err
	}
	o, err := openOutput(out, stdout)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- relayoutFile(p, in, stdin, o) }()
	select {
	case err = <-done:
	case <-ctx.Done():
	}
	if ctx.Err() != nil { // even when the work finished: the user asked to stop
		o.abort()
		return fmt.Errorf("interrupted by a signal; %s not written", o.name)
	}
	if err != nil {
		o.abort()
		return err
	}
	return o.commit()
}

// relayoutFile reads the source array from in, relayouts it with p and
// writes it to o.
func relayoutFile(p *relayout.Plan, in string, stdin io.Reader, o *output) error {
	src, err := readInput(in, p.SourceSize(), p.From(), stdin)
	if err != nil {
		return err
	}
	dst := make([]byte, p.DestinationSize())
	if err := p.Run(dst, src); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if _, err := o.w.Write(dst); err != nil {
		return fmt.Errorf("write %s: %w", o.name, err)
	}
	return nil
}

// readInput reads exactly size bytes from the file name ("-": stdin). A
// regular file of another size is rejected before reading; other inputs
// are read up to size+1 bytes to tell short and long ones, into a buffer
// that grows with what arrives.
func readInput(name string, size int64, shape relayout.Shape, stdin io.Reader) ([]byte, error) {
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
	case fi.Size() != size:
		return nil, sizeError(name, fi.Size(), size, shape)
	}
	buf := make([]byte, size)
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
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
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

// commit closes the output and moves the temporary file into place.
func (o *output) commit() error {
	if o.f == nil {
		return nil
	}
	if err := o.f.Close(); err != nil {
		o.removeTemp()
		return fmt.Errorf("write %s: %w", o.name, err)
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
