//go:build linux

package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"sync"
	"unsafe"

	"github.com/tilecopy/tilecopy/relayout"
	"golang.org/x/sys/unix"
)

// canMap reports whether conversions between regular files map them
// into memory (runMapped) rather than read them into buffers.
const canMap = true

// parallelStepBytes is the step size below which a mapped run stays on
// one goroutine (the planner's own threshold for Run).
const parallelStepBytes = 4 << 20

// runMapped converts between regular files through shared memory maps:
// the destination created beside OUT at its final size, mapped
// read-write and renamed into place at the end, and the source mapped
// read-only or read into memory band by band (see sourceMode). The plan
// runs in steps of consecutive chunks (Plan.RunRange, see planSteps), in
// order; after each step the destination range it wrote is synced to the
// file and dropped from the resident set (MADV_DONTNEED: the destination
// is a shared mapping whose pages are in the file by then), and so are
// the source's pages. So memory stays bounded however large the files;
// a job that fits in one step's budget runs in one step.
//
// A transposing step reads a little of every source row, and the kernel
// maps up to 64 KiB around each page fault of a file whose pages are
// cached ("fault-around"), which would make every step map most of a
// large source. Such steps read the bands they need with pread instead
// (sourceRead); for a tiled source, whose bands are not simple stretches,
// the source is mapped and read page by page, and the pages the run
// brought into the page cache are dropped after each step (sourceCold).
// Either way pages that were in the page cache before the run stay there.
func (j *job) runMapped(ctx context.Context, release func(), stderr io.Writer) error {
	p := j.plan
	srcSize, dstSize := p.SourceSize(), p.DestinationSize()
	hdr := int64(len(j.dst.header))
	if _, err := addressSpace(j.src.offset+srcSize, hdr+dstSize); err != nil {
		return err
	}
	in, err := os.Open(j.src.name)
	if err != nil {
		return fmt.Errorf("input: %w", err)
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return fmt.Errorf("input: %w", err)
	}
	if got := fi.Size() - j.src.offset; got != srcSize {
		return sizeError(j.src.name, got, srcSize, p.From())
	}
	o, err := openOutput(j.dst.name, nil)
	if err != nil {
		return err
	}
	m, err := mapFiles(in, j.src.offset+srcSize, o, hdr+dstSize)
	if err != nil {
		o.abort()
		return err
	}
	st := planSteps(p, cmp.Or(j.stepBudget, stepBudget), cmp.Or(j.stepPage, int64(os.Getpagesize())))
	m.onDrop = j.onDrop
	if err := m.prepare(st.source, j.src.offset, srcSize); err != nil {
		m.unmap()
		o.abort()
		return err
	}
	copy(m.out, j.dst.header)
	prog := newProgress(j.progress, stderr, j.verb, srcSize)
	done := make(chan error, 1)
	go func() {
		done <- m.relayout(ctx, p, st, j.src.offset, hdr, j.threads, prog)
	}()
	interrupted := false
	select {
	case err = <-done:
	case <-ctx.Done():
		interrupted = true
		o.abort() // no partial OUT, even if a second signal ends the process
		release()
		<-done // the work stops at its next step; the maps must outlive it
	}
	prog.finish()
	if uerr := m.unmap(); err == nil {
		err = uerr
	}
	switch {
	case interrupted || ctx.Err() != nil:
		o.abort()
		if !interrupted { // the work ended as the signal came: select took done
			release()
		}
		return fmt.Errorf("interrupted by a signal; %s not written", o.name)
	case err != nil:
		o.abort()
		return err
	}
	return o.commit()
}

// mapping is a source file mapped read-only (or, for sourceRead, memory
// its steps read it into) and a destination file mapped read-write;
// either is nil when its file is empty.
type mapping struct {
	in, out []byte
	inFile  *os.File
	name    string // the destination, for errors
	source  sourceMode
	// read is the anonymous memory a sourceRead run reads the source's
	// bands into, nil otherwise.
	read []byte
	// cached records, for a sourceCold run, which source pages were in
	// the page cache when it began (mincore's vector, one byte a page).
	cached []byte
	// onDrop, when set, is told of every range of the source dropped
	// from the page cache (tests count them).
	onDrop func(off, n int64)
}

// mapFiles maps inSize bytes of in, and o's temporary file after giving
// it outSize bytes. The disk space is reserved (fallocate) where the file
// system can: a write to a mapped page the disk has no room for would be
// a fault, not an error.
func mapFiles(in *os.File, inSize int64, o *output, outSize int64) (*mapping, error) {
	m := &mapping{name: o.name, inFile: in}
	var err error
	if inSize > 0 {
		if m.in, err = unix.Mmap(int(in.Fd()), 0, int(inSize), unix.PROT_READ, unix.MAP_SHARED); err != nil {
			return nil, fmt.Errorf("map %s: %w", in.Name(), err)
		}
	}
	fd := int(o.f.Fd())
	if outSize > 0 {
		err = unix.Fallocate(fd, 0, 0, outSize)
		if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
			err = nil // the file system cannot reserve; Ftruncate alone
		}
	}
	if err == nil {
		err = unix.Ftruncate(fd, outSize)
	}
	if err != nil {
		m.unmap()
		return nil, fmt.Errorf("output %s: %w", o.name, err)
	}
	if outSize > 0 {
		if m.out, err = unix.Mmap(fd, 0, int(outSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED); err != nil {
			m.unmap()
			return nil, fmt.Errorf("map %s: %w", o.name, err)
		}
	}
	return m, nil
}

// prepare sets up the source for steps that hold it in mode: for
// sourceRead, anonymous memory for the size bytes of the array after
// offset; for sourceCold, page-by-page reads, with the pages that are not
// already cached dropped so that no fault maps more than its own page.
func (m *mapping) prepare(mode sourceMode, offset, size int64) error {
	if m.in == nil {
		return nil
	}
	m.source = mode
	switch mode {
	case sourceRead:
		var err error
		if m.read, err = unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE); err != nil {
			return fmt.Errorf("memory for %s: %w", m.inFile.Name(), err)
		}
		return nil
	case sourceCold:
		if err := unix.Madvise(m.in, unix.MADV_RANDOM); err != nil {
			return fmt.Errorf("madvise %s: %w", m.inFile.Name(), err)
		}
		page := os.Getpagesize()
		m.cached = make([]byte, (len(m.in)+page-1)/page)
		if err := mincore(m.in, m.cached); err != nil {
			m.cached = nil // unknown: every page counts as brought in
		}
		return m.dropSourceCache()
	}
	return nil
}

// dropSourceCache asks the kernel to drop from the page cache the clean
// source pages that were not there when the run began (all of them, if
// that is not known), so that no later fault maps more than its own page.
func (m *mapping) dropSourceCache() error {
	page := int64(os.Getpagesize())
	for _, r := range uncachedRuns(m.cached, int64(len(m.in)), page) {
		if m.onDrop != nil {
			m.onDrop(r[0], r[1]-r[0])
		}
		if err := unix.Fadvise(int(m.inFile.Fd()), r[0], r[1]-r[0], unix.FADV_DONTNEED); err != nil {
			return fmt.Errorf("fadvise %s: %w", m.inFile.Name(), err)
		}
	}
	return nil
}

// mincore fills vec, one byte per page of the mapping b, with whether
// the page is resident (bit 0). For a file the process can write or owns,
// resident means in the page cache; for others Linux reports only the
// pages this process maps, so that every page then counts as brought in.
func mincore(b, vec []byte) error {
	if len(b) == 0 {
		return nil
	}
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		return errno
	}
	return nil
}

// relayout runs p from the source mapping (its array after srcOff bytes)
// into the destination mapping (after dstOff bytes) in the steps st, each
// on up to threads goroutines. It stops between steps when ctx is
// cancelled.
func (m *mapping) relayout(ctx context.Context, p *relayout.Plan, st steps, srcOff, dstOff int64, threads int, prog *progress) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer recoverFault(&err)
	var src, dst []byte
	switch {
	case m.read != nil:
		src = m.read
	case m.in != nil:
		src = m.in[srcOff:]
	}
	if m.out != nil {
		dst = m.out[dstOff:]
	}
	n := st.chunks
	perChunk := max(1, (p.SourceSize()+p.DestinationSize())/n)
	for lo := int64(0); lo < n; lo += st.perStep {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+st.perStep, n)
		from, to := p.DestinationRange(lo, hi)
		if m.read != nil {
			if err := m.readBands(p, st, srcOff, lo, hi); err != nil {
				return err
			}
		} else {
			m.prefetch(st, srcOff, lo, hi)
		}
		k := 1
		if (hi-lo)*perChunk >= parallelStepBytes {
			k = int(min(int64(threads), hi-lo))
		}
		if err := runRange(p, dst, src, lo, hi, k); err != nil {
			return fmt.Errorf("run: %w", err)
		}
		if err := m.release(dstOff+from, dstOff+to); err != nil {
			return err
		}
		prog.update(int64(float64(p.SourceSize()) * float64(hi) / float64(n)))
	}
	if m.out != nil { // the header, and anything the steps' ranges missed
		if err := unix.Msync(m.out, unix.MS_SYNC); err != nil {
			return fmt.Errorf("write %s: %w", m.name, err)
		}
	}
	return nil
}

// readBands reads into m.read the band of every source row that chunks
// [lo, hi) read (Plan.ChunkBand). It first asks the kernel to start
// reading them all (POSIX_FADV_WILLNEED), so that the reads from disk are
// many at once rather than one per row.
func (m *mapping) readBands(p *relayout.Plan, st steps, srcOff, lo, hi int64) error {
	_, a, b, ok := p.ChunkBand(lo, hi)
	if !ok { // planSteps chose sourceRead because the plan has bands
		return fmt.Errorf("read %s: chunks [%d,%d) of %d are not a band", m.inFile.Name(), lo, hi, st.chunks)
	}
	off, n := a*st.indexBytes, (b-a)*st.indexBytes
	if n == 0 {
		return nil
	}
	fd := int(m.inFile.Fd())
	for r := range st.rows {
		unix.Fadvise(fd, srcOff+r*st.rowStride+off, n, unix.FADV_WILLNEED) // a hint: errors are harmless
	}
	for r := range st.rows {
		at := r*st.rowStride + off
		if _, err := m.inFile.ReadAt(m.read[at:at+n], srcOff+at); err != nil {
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("read %s: the file shrank during the conversion", m.inFile.Name())
			}
			return fmt.Errorf("read %s: %w", m.inFile.Name(), err)
		}
	}
	return nil
}

// prefetch asks the kernel to start reading the source stretches that
// chunks [lo, hi) of a cold step read (POSIX_FADV_WILLNEED), so that
// the reads are many at once rather than one per page fault.
func (m *mapping) prefetch(st steps, srcOff, lo, hi int64) {
	if m.source != sourceCold || st.rows == 0 {
		return
	}
	fd := int(m.inFile.Fd())
	off := srcOff + int64(float64(lo)*st.perRow)
	n := int64(math.Ceil(float64(hi-lo) * st.perRow))
	for r := range st.rows {
		unix.Fadvise(fd, off+r*st.rowStride, n, unix.FADV_WILLNEED) // a hint: errors are harmless
	}
}

// release writes the destination's bytes [from, to) back to its file and
// drops them and the whole source from the process's resident set (and,
// for sourceCold, the source pages the run brought into the page cache).
func (m *mapping) release(from, to int64) error {
	if m.out != nil && to > from {
		page := int64(os.Getpagesize())
		from = from / page * page
		r := m.out[from:to]
		if err := unix.Msync(r, unix.MS_SYNC); err != nil {
			return fmt.Errorf("write %s: %w", m.name, err)
		}
		if err := unix.Madvise(r, unix.MADV_DONTNEED); err != nil {
			return fmt.Errorf("madvise %s: %w", m.name, err)
		}
	}
	switch {
	case m.read != nil:
		if err := unix.Madvise(m.read, unix.MADV_DONTNEED); err != nil {
			return fmt.Errorf("madvise (memory for %s): %w", m.inFile.Name(), err)
		}
	case m.in != nil && m.source != sourceWhole:
		if err := unix.Madvise(m.in, unix.MADV_DONTNEED); err != nil {
			return fmt.Errorf("madvise %s: %w", m.inFile.Name(), err)
		}
		if m.source == sourceCold {
			return m.dropSourceCache()
		}
	}
	return nil
}

// unmap removes the mappings.
func (m *mapping) unmap() error {
	var errs []error
	if m.in != nil {
		errs = append(errs, unix.Munmap(m.in))
		m.in = nil
	}
	if m.out != nil {
		errs = append(errs, unix.Munmap(m.out))
		m.out = nil
	}
	if m.read != nil {
		errs = append(errs, unix.Munmap(m.read))
		m.read = nil
	}
	return errors.Join(errs...)
}

// runRange runs chunks [lo, hi) of p on k goroutines, each a consecutive
// part of the range (Plan.RunRange allows concurrent disjoint ranges).
func runRange(p *relayout.Plan, dst, src []byte, lo, hi int64, k int) error {
	if k <= 1 {
		return p.RunRange(dst, src, lo, hi)
	}
	errs := make([]error, k)
	var wg sync.WaitGroup
	for i := range k {
		a, b := lo+(hi-lo)*int64(i)/int64(k), lo+(hi-lo)*int64(i+1)/int64(k)
		wg.Go(func() {
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			defer recoverFault(&errs[i])
			errs[i] = p.RunRange(dst, src, a, b)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// recoverFault, deferred after debug.SetPanicOnFault(true), makes a
// memory fault on a mapped file (it shrank, or the disk filled) an error
// in *err instead of a crash.
func recoverFault(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("memory fault on a mapped file (did a file shrink, or the disk fill?): %v", r)
	}
}
