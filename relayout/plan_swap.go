package relayout

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
)

// unitSwap is a block of ke × kf elements of width bytes that both
// layouts hold together, as rows of kf in the source and of ke in the
// destination: the (2,1) tiles of bf16 on both sides of a transpose
// between tiled layouts keep a pair of rows' elements together, and the
// transpose turns each 2×2 block around. A walk moves such blocks whole,
// as elements of ke×kf×width bytes, at strides a block apart; the blocks
// land as the source held them and are then turned around in the
// destination while it is in the caches (swapped).
type unitSwap struct {
	ke, kf int64 // the block's rows in the destination (ke) and in the source (kf)
	width  int64 // bytes of one element
	// eDim and fDim are the planner dims of the block's two digits,
	// whose counts the walk keeps in blocks.
	eDim, fDim int
}

// bytes is the size of a block.
func (u *unitSwap) bytes() int64 { return u.ke * u.kf * u.width }

// swapUnitBytes bounds the destination bytes a Run writes before it
// turns their blocks around: small enough that they are still in the L2.
const swapUnitBytes = 256 << 10

// swapUnits finds, among the merged loops of a strided walk, a block of
// two digits that both sides hold whole but turned around: e, the
// destination's fastest digit, at a source stride of f's size, and f, the
// source's fastest, at a destination stride of e's size, each the whole
// lightest digit of its dim, which holds whole blocks. It rewrites the
// loops to move such blocks as elements and returns the block, or
// returns nil and leaves the walk as it was.
func (p *walkPlan) swapUnits() *unitSwap {
	if p.mode != modeStrided || !p.widens || len(p.loops) < 3 {
		return nil
	}
	ei := len(p.loops) - 1
	fi := slices.IndexFunc(p.loops, func(l ploop) bool { return l.src == 1 })
	if fi < 0 || fi == ei {
		return nil
	}
	e, f := p.loops[ei], p.loops[fi]
	ke, kf := e.size, f.size
	k := ke * kf
	if e.dst != 1 || e.w != 1 || f.w != 1 || e.scale != 1 || f.scale != 1 || e.dim == f.dim ||
		e.src != kf || f.dst != ke || k*p.width > maxUnitBytes {
		return nil
	}
	for _, l := range []ploop{e, f} {
		if dm := p.dims[l.dim]; dm.n%l.size != 0 || dm.e%l.size != 0 {
			return nil
		}
	}
	if p.tail[1] > p.tail[0] && (p.tail[0]%k != 0 || p.tail[1]%k != 0) {
		return nil
	}
	loops := make([]ploop, 0, len(p.loops)-2)
	for i, l := range p.loops {
		if i == ei || i == fi {
			continue
		}
		if l.dst%k != 0 || l.src%k != 0 {
			return nil
		}
		l.dst /= k
		l.src /= k
		for _, g := range []ploop{e, f} {
			if l.dim == g.dim {
				if l.w%g.size != 0 {
					return nil
				}
				l.w /= g.size
			}
		}
		loops = append(loops, l)
	}
	u := &unitSwap{ke: ke, kf: kf, width: p.width, eDim: e.dim, fDim: f.dim}
	p.loops = loops
	for _, g := range []ploop{e, f} {
		dm := &p.dims[g.dim]
		dm.n, dm.e = dm.n/g.size, dm.e/g.size
	}
	if p.tail[1] > p.tail[0] {
		p.tail = [2]int64{p.tail[0] / k, p.tail[1] / k}
	}
	p.width = k * p.width
	p.pat = bytes.Repeat(p.pat, int(k))
	p.merge()
	p.why = append(p.why, fmt.Sprintf("blocks: d%d×d%d blocks of %d×%d elements, held whole on both sides but turned around, move as %d-byte elements and are turned around in the destination while it is in the caches; the loops' weights count blocks",
		e.dim, f.dim, ke, kf, u.bytes()))
	return u
}

// swapChunks reports whether the walk's chunks each write a part of the
// destination that no other chunk writes into, so that a chunk's blocks
// can be turned around once it has run: its split loop is the outermost
// one, and one of its values reaches no further than the next.
func (p *walkPlan) swapChunks() bool {
	if p.splitOuter || len(p.loops) == 0 {
		return p.chunks() == 1
	}
	l := &p.loops[0]
	return p.heldReach(l, func(o *ploop) int64 { return o.dst }) <= l.dst
}

// swapped runs a walk that moves blocks as the source holds them (see
// unitSwap) and turns them around in the destination, a cache-sized
// group of the walk's chunks at a time.
type swapped struct {
	*walkPlan
	u *unitSwap
	// whole says that the walk's chunks write into each other's parts
	// of the destination (swapChunks): a Run walks the whole nest and
	// then turns the whole destination's blocks around, and the plan has
	// one chunk.
	whole bool
	// thresholds are the plan's streaming thresholds (streamMin,
	// transposeMin) before swapWalk lifted them for the blocks' turning
	// in the caches; a plan made blocked instead takes them back.
	thresholds [2]int64
}

// chunks is the walk's, or 1 where a Run is whole.
func (s *swapped) chunks() int64 {
	if s.whole {
		return 1
	}
	return s.walkPlan.chunks()
}

// run runs the walk in groups of chunks of about swapUnitBytes of
// destination, shared among the plan's goroutines, turning each group's
// blocks around after it; or where the plan is whole, the whole walk and
// then the whole destination's blocks, in parts shared among the
// goroutines.
func (s *swapped) run(dst, src []byte) error {
	n := s.chunks()
	if n <= 1 {
		if err := s.walkPlan.run(dst, src); err != nil {
			return err
		}
		ub := s.u.bytes()
		blocks := int64(len(dst)) / ub
		per := max(1, swapUnitBytes/ub)
		// On one goroutine without shareOut, whose function, a closure
		// over the buffers, would cost an allocation every Run.
		if g := min(s.goroutines(), ceilDiv(blocks, per)); g <= 1 {
			s.u.swap(dst[:blocks*ub])
		} else {
			shareOut(ceilDiv(blocks, per), g, func(lo, hi int64) {
				s.u.swap(dst[lo*per*ub : min(hi*per, blocks)*ub])
			})
		}
		return nil
	}
	per := max(1, swapUnitBytes/max(1, s.dstBytes/n))
	groups := ceilDiv(n, per)
	if g := min(s.goroutines(), groups); g <= 1 {
		s.runGroups(dst, src, per, 0, groups)
	} else {
		shareOut(groups, g, func(lo, hi int64) { s.runGroups(dst, src, per, lo, hi) })
	}
	return nil
}

// runGroups runs groups [lo, hi) of per chunks each.
func (s *swapped) runGroups(dst, src []byte, per, lo, hi int64) {
	n := s.chunks()
	for g := lo; g < hi; g++ {
		s.runChunks(dst, src, g*per, min((g+1)*per, n))
	}
}

// runChunks runs chunks [lo, hi) of the walk and turns their blocks
// around.
func (s *swapped) runChunks(dst, src []byte, lo, hi int64) {
	s.walkPlan.runChunks(dst, src, lo, hi)
	from, to := s.walkPlan.chunkRange(lo, hi)
	if hi == s.walkPlan.chunks() {
		to = int64(len(dst)) // the tail padding, which is blocks of the pattern
	}
	s.u.swap(dst[from:to])
}

// explain says how the blocks turn, then explains the walk.
func (s *swapped) explain(b *strings.Builder) {
	s.walkPlan.explain(b)
	when := fmt.Sprintf("after each group of chunks of about %d bytes", int64(swapUnitBytes))
	if s.whole {
		when = "after the whole walk, whose chunks write into each other's parts of it"
	}
	fmt.Fprintf(b, "  blocks: each %d-byte element is %d×%d elements of the source, turned around in the destination %s\n",
		s.u.bytes(), s.u.ke, s.u.kf, when)
}

// swap turns around every block in b, which holds whole blocks as the
// source holds them: element (i, j) of a block, at i*kf + j, goes to
// j*ke + i.
func (u *unitSwap) swap(b []byte) {
	n := int64(len(b)) / u.bytes()
	if u.ke == 2 && u.kf == 2 && u.width == 2 {
		// Four 16-bit elements a block, a b c d: the middle two trade
		// places.
		for i := range n {
			x := binary.LittleEndian.Uint64(b[8*i:])
			x = x&0xffff00000000ffff | x&0x00000000ffff0000<<16 | x>>16&0x00000000ffff0000
			binary.LittleEndian.PutUint64(b[8*i:], x)
		}
		return
	}
	// Otherwise byte by byte: byte k of a turned block is byte from[k]
	// of the block as the source holds it.
	var tmp [maxUnitBytes]byte
	var from [maxUnitBytes]int64
	ub, w := u.bytes(), u.width
	for i := range u.ke {
		for j := range u.kf {
			for c := range w {
				from[(j*u.ke+i)*w+c] = (i*u.kf+j)*w + c
			}
		}
	}
	for k := range n {
		blk := b[k*ub : (k+1)*ub]
		copy(tmp[:ub], blk)
		for c, f := range from[:ub] {
			blk[c] = tmp[f]
		}
	}
}

// swapWalk compiles p's walk again for blocks turned around (build found
// them): without streaming, since the blocks are turned around in the
// destination after the walk writes it and should find it in the caches.
// The rest is the defence of a build that finds no blocks the second
// time: the walk without them, under the plan's thresholds.
func (p *Plan) swapWalk(pat []byte, widens bool) executor {
	keep := [2]int64{p.streamMin, p.transposeMin}
	p.streamMin, p.transposeMin = math.MaxInt64, math.MaxInt64
	w := newWalkPlan(p, pat, widens)
	w.build()
	if w.swap != nil {
		return &swapped{walkPlan: w, u: w.swap, whole: !w.swapChunks(), thresholds: keep}
	}
	p.streamMin, p.transposeMin = keep[0], keep[1]
	w = newWalkPlan(p, pat, widens)
	w.noSwap = true
	w.build()
	if w.placesAlike() {
		return &copyAll{executor: w, parallelism: &p.parallelism}
	}
	return w
}
