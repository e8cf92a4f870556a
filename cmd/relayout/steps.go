package main

import (
	"math"

	"github.com/tilecopy/tilecopy/relayout"
)

// stepBudget is about how many bytes of source and destination pages one
// step of a mapped run may keep resident (see planSteps).
const stepBudget = 256 << 20

// steps is how a mapped run divides a plan's chunks (Plan.Chunks) into
// steps: after each step it drops the pages the step touched, so the
// resident set stays near one step's pages.
type steps struct {
	chunks  int64 // the plan's chunks
	perStep int64 // chunks per step, ≥ 1
	// scattered is set when a step reads a little of every row of the
	// source: a transpose, whose chunks are ranges of the destination's
	// slowest dim and so of a fast dim of the source.
	scattered bool
	// For a scattered step over a source without tiles: the source rows,
	// the bytes from one row to the next, and the bytes of a row that
	// one chunk reads (so that a step can ask for them ahead).
	rows, rowStride int64
	perRow          float64
}

// planSteps chooses steps of p's chunks that touch about budget bytes of
// pages of size page. Chunks are ranges of the destination's slowest
// dim, so the destination side of a step is one range. When that dim is
// also the source's slowest, so is the source side, and a step is budget
// bytes of the two. Otherwise a step reads a stretch of each source row
// (the source dims slower than the split dim make the rows), and each
// stretch costs at least a page: the step then takes as many chunks as
// keep rows × (stretch rounded up to pages) plus its destination range
// within budget. A plan whose rows alone exceed the budget (a very tall
// transpose) goes one chunk per step and exceeds it.
func planSteps(p *relayout.Plan, budget, page int64) steps {
	n := p.Chunks()
	st := steps{chunks: n, perStep: 1}
	if n <= 1 {
		return st
	}
	src, dst := p.SourceSize(), p.DestinationSize()
	perChunk := max(1, (src+dst)/n)
	from, to := p.From(), p.To()
	split := slowestDim(to)
	if split < 0 || split == slowestDim(from) {
		st.perStep = max(1, budget/perChunk)
		return st
	}
	st.scattered = true
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
	if stride := run * dims[split]; len(l.Tiles) == 0 && stride%8 == 0 {
		st.rows, st.rowStride, st.perRow = rows, stride/8, perRow
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
