package main

import (
	"math"

	"github.com/tilecopy/tilecopy/relayout"
)

// stepBudget is about how many bytes of source and destination pages one
// step of a mapped run may keep resident (see planSteps).
const stepBudget = 256 << 20

// sourceMode is how a mapped run holds the source during its steps.
type sourceMode uint8

const (
	// sourceMapped: the source file is mapped; after each step its pages
	// leave the process's resident set (MADV_DONTNEED) but stay in the
	// page cache, where the kernel keeps or evicts them as for any read.
	sourceMapped sourceMode = iota
	// sourceRead: the source is not mapped. Each step reads the band of
	// every source row it needs (ChunkBand) with pread into anonymous
	// memory of the source's size, which is freed after the step. Nothing
	// faults around, the page cache is left as it is, and a source page
	// is read from the file by the steps whose bands cover it: once, or
	// twice where two bands share it.
	sourceRead
	// sourceCold: the source is mapped, read a page per fault
	// (MADV_RANDOM), and after each step the source pages that were not
	// in the page cache when the run began are dropped from it
	// (POSIX_FADV_DONTNEED), so that later faults map no pages around
	// them; pages cached before stay cached.
	sourceCold
	// sourceWhole: the source is mapped and stays in the resident set
	// from step to step. Every step of a very tall transpose reads most
	// source pages, so that unmapping them after each step would only
	// fault them all in again at the next; the steps bound the
	// destination alone.
	sourceWhole
)

// String names the mode, for tests' logs.
func (m sourceMode) String() string {
	return [...]string{"mapped", "read", "cold", "whole"}[m]
}

// steps is how a mapped run divides a plan's chunks (Plan.Chunks) into
// steps, and how it holds the source meanwhile.
type steps struct {
	chunks  int64 // the plan's chunks
	perStep int64 // chunks per step, ≥ 1
	source  sourceMode
	// For a source without tiles read by scattered steps: the source
	// rows, the bytes from one row to the next, the bytes of a row that
	// one chunk reads on average (for prefetching), and the bytes one
	// index of the split dim spans within a row (for reading bands).
	rows, rowStride int64
	perRow          float64
	indexBytes      int64
}

// planSteps chooses steps of p's chunks that touch about budget bytes of
// pages of size page. A job whose source and destination together fit in
// budget runs as one step, from a mapped source: as fast as from memory.
//
// Otherwise chunks are ranges of the destination's slowest dim, so the
// destination side of a step is one range. When that dim is also the
// source's slowest, so is the source side, and a step is budget bytes of
// the two. Otherwise a step reads a stretch of each source row (the
// source dims slower than the split dim make the rows), and each stretch
// costs at least a page: the step then takes as many chunks as keep rows
// × (stretch rounded up to pages) plus its destination range within
// budget, and the source is read band by band (sourceRead) or, where the
// bands cannot be named (a tiled source), mapped cold (sourceCold). A
// plan whose rows alone exceed the budget (a very tall transpose, whose
// rows share pages) has every step touch most source pages, and exceeds
// the budget by the source's size: the source stays mapped and resident
// for the whole run (sourceWhole), read from the file once, and the steps
// take budget bytes of destination each.
func planSteps(p *relayout.Plan, budget, page int64) steps {
	n := p.Chunks()
	st := steps{chunks: n, perStep: 1}
	if n <= 1 {
		return st
	}
	src, dst := p.SourceSize(), p.DestinationSize()
	if src+dst <= budget {
		st.perStep = n
		return st
	}
	perChunk := max(1, (src+dst)/n)
	from, to := p.From(), p.To()
	split := slowestDim(to)
	if split < 0 || split == slowestDim(from) {
		st.perStep = max(1, budget/perChunk)
		return st
	}
	l, _ := from.Layout()
	dims := from.Dims()
	// run is in bits: a packed source (E(4), E(2), E(1)) holds several
	// elements to a byte.
	rows, run := int64(1), 8*int64(from.DType().ByteWidth())
	if l.ElementSizeInBits > 0 {
		run = l.ElementSizeInBits
	}
	slower := false // walking minor to major: past the split dim yet?
	for _, d := range l.MinorToMajor {
		switch {
		case d == split:
			slower = true
		case slower:
			rows *= dims[d]
		default:
			run *= dims[d]
		}
	}
	// Bytes of each source row that one chunk reads.
	perRow := float64(run) * float64(dims[split]) / float64(8*n)
	dstPerChunk := float64(dst) / float64(n)
	cost := func(k int64) float64 {
		stretch := (int64(math.Ceil(float64(k)*perRow)) + page - 1) / page * page
		return float64(rows)*float64(stretch) + float64(k)*dstPerChunk
	}
	lo, hi := int64(1), n // the largest k in [lo, hi] with cost(k) ≤ budget
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if cost(mid) <= float64(budget) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	st.perStep = lo
	if cost(lo) > float64(budget) { // every step reads most source pages
		st.source, st.perStep = sourceWhole, max(1, min(n, int64(float64(budget)/dstPerChunk)))
		return st
	}
	st.source = sourceCold
	if stride := run * dims[split]; len(l.Tiles) == 0 && stride%8 == 0 {
		st.rows, st.rowStride, st.perRow = rows, stride/8, perRow
		if d, _, _, ok := p.ChunkBand(0, 1); ok && d == split && run%8 == 0 {
			st.source, st.indexBytes = sourceRead, run/8
		}
	}
	return st
}

// slowestDim returns the logical dim of s that varies slowest among those
// of size greater than 1, or -1 if there is none.
func slowestDim(s relayout.Shape) int {
	l, ok := s.Layout()
	if !ok {
		return -1
	}
	dims := s.Dims()
	for i := len(l.MinorToMajor) - 1; i >= 0; i-- {
		if d := l.MinorToMajor[i]; d >= 0 && d < len(dims) && dims[d] > 1 {
			return d
		}
	}
	return -1
}

// uncachedRuns returns the byte ranges [from, to) of a file of size bytes
// covered by pages of size page whose entry in cached (mincore's vector)
// has bit 0 clear: the pages that were not in the page cache. A nil
// cached means not known: the whole file is one range.
func uncachedRuns(cached []byte, size, page int64) [][2]int64 {
	if cached == nil {
		if size == 0 {
			return nil
		}
		return [][2]int64{{0, size}}
	}
	var runs [][2]int64
	for i := int64(0); i < int64(len(cached)); {
		if cached[i]&1 != 0 {
			i++
			continue
		}
		j := i
		for j < int64(len(cached)) && cached[j]&1 == 0 {
			j++
		}
		runs = append(runs, [2]int64{i * page, min(j*page, size)})
		i = j
	}
	return runs
}
