package relayout

import (
	"slices"
	"sync"
)

// parallelMinBytes is the destination size below which a Run stays on the
// calling goroutine whatever Options.Threads says: starting goroutines and
// sharing caches costs more than it gains on a smaller array.
const parallelMinBytes = 4 << 20

// chunks returns how many goroutines a Run uses.
func (p *Plan) chunks() int {
	if p.threads <= 1 || p.dstBytes < p.parallelMin ||
		(p.mode != modeStrided && p.mode != modeGather) {
		return 1
	}
	l := p.splitLoop()
	if l == nil {
		return 1
	}
	return int(min(int64(p.threads), l.size/l.scale))
}

// splitLoop is the loop whose values are shared out among goroutines: the
// outermost one, or the kernel's rows when the kernel is the whole nest.
// Either is the heaviest loop of its dim, so a range of its values is a
// range of the dim and a disjoint part of the destination.
func (p *Plan) splitLoop() *ploop {
	if len(p.loops) > 0 {
		return &p.loops[0]
	}
	return p.outer
}

// runParallel runs the nest in n chunks of the split loop, one goroutine
// each.
func (p *Plan) runParallel(dst, src []byte, n int) {
	l := p.splitLoop()
	units := l.size / l.scale
	var wg sync.WaitGroup
	for c := range int64(n) {
		lo, hi := units*c/int64(n)*l.scale, units*(c+1)/int64(n)*l.scale
		wg.Go(func() {
			if w, dOff, sOff, ok := p.chunkWalker(dst, src, lo, hi); ok {
				w.walk(0, dOff, sOff, false)
			}
		})
	}
	wg.Wait()
}

// chunkWalker returns a walker for values [lo, hi) of the split loop and
// the offsets at which it starts; ok is false when the chunk holds no
// destination place.
func (p *Plan) chunkWalker(dst, src []byte, lo, hi int64) (w *walker, dOff, sOff int64, ok bool) {
	w = p.newWalker(dst, src)
	var l *ploop
	if len(p.loops) > 0 {
		w.loops = slices.Clone(p.loops)
		l = &w.loops[0]
	} else {
		o := *p.outer
		w.outer = &o
		l = w.outer
	}
	dOff, sOff = lo*l.dst, lo*l.src
	l.size = hi - lo
	step := lo / l.scale * l.w // logical index where the chunk starts
	w.b[l.dim] = max(w.b[l.dim]-step, 0)
	w.e[l.dim] -= step
	if w.idx != nil {
		w.idx[l.dim] = step
	}
	return w, dOff, sOff, w.e[l.dim] > 0 && l.size > 0
}
