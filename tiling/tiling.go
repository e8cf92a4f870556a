// Package tiling is the index math of XLA tiled layouts: it expands
// (dimensions, minor_to_major, tiles) into physical dimensions and strides,
// maps a logical index to an element offset and back, and counts the
// physical elements and bytes, with int64 overflow detected.
//
// The expansion follows XLA's definition. List the physical dimensions major
// to minor. For each tile of rank k, in order: prepend size-1 dimensions
// while fewer than k remain; combine every dimension whose tile entry is
// Combine with the next more-minor one; then replace each of the last k
// dimensions P by ceil(P/t) (index i/t) and append t (index i%t), keeping
// their order. The offset is row-major over the final list; the element
// count is its product, rounded up to a multiple of the tail alignment.
package tiling

import (
	"errors"
	"fmt"
	"github.com/tilecopy/tilecopy/internal/checked"
	"slices"
)

// Combine in a tile means "combine this dimension with the next more-minor
// one" (written "*" in shape text).
const Combine int64 = -1

// Errors wrapped by New.
var (
	ErrInvalid  = errors.New("invalid layout")
	ErrOverflow = errors.New("size overflows int64")
)

// Spec describes one array layout.
type Spec struct {
	Dims         []int64   // logical dimension sizes, each ≥ 0
	MinorToMajor []int     // a permutation of 0..len(Dims)-1, fastest first
	Tiles        [][]int64 // tiling levels in order; entries > 0 or Combine
	ElementBits  int64     // storage bits per element (> 0)
	TailAlign    int64     // element count rounded up to a multiple; ≤ 1 means none
}

type nodeKind uint8

const (
	leafNode    nodeKind = iota // a logical dimension
	zeroNode                    // a prepended size-1 dimension
	divNode                     // parent / t
	modNode                     // parent % t
	combineNode                 // row-major combination of several nodes
)

// node is one dimension of the expansion, as a function of the logical index.
type node struct {
	kind   nodeKind
	size   int64
	dim    int   // leafNode: the logical dimension
	parent int   // divNode, modNode: the node split
	t      int64 // divNode, modNode: the tile size
	parts  []int // combineNode: the combined nodes, major to minor
}

// Digit is one physical dimension of a layout whose dimensions are not
// combined: it holds the part of logical dimension Dim of weight Weight, so
// that every logical index i of Dim is the sum of value×Weight over Dim's
// digits.
type Digit struct {
	Dim    int   // logical dimension; -1-k for the k-th prepended size-1 dimension
	Weight int64 // what one step of this digit adds to the logical index
	Size   int64 // number of values
	Stride int64 // element stride in the buffer
}

// Map is the expansion of a Spec. It is immutable.
type Map struct {
	spec     Spec
	nodes    []node
	ops      []int   // indexes of split/combine results in creation order (for the inverse)
	phys     []int   // node of each physical dimension, major to minor
	sizes    []int64 // physical dimension sizes
	strides  []int64 // element strides of the physical dimensions
	count    int64   // product of sizes
	total    int64   // count rounded up to the tail alignment
	bytes    int64
	exact    bool // every node is a mixed-radix number of logical digits (see segs)
	numZeros int
	// segs holds each node's digits while exact: its value in mixed radix
	// over them, major to minor, each a part of one logical dimension.
	// tops says whether a node's most-major digit is the top digit of its
	// dimension, bounded by the dimension's end alone.
	segs [][]seg
	tops []bool
}

// seg is a digit of a node: size values of logical dimension dim, each
// adding weight to its index.
type seg struct {
	dim          int
	weight, size int64
}

// New expands s, or returns an error wrapping ErrInvalid or ErrOverflow.
func New(s Spec) (*Map, error) {
	rank := len(s.Dims)
	if len(s.MinorToMajor) != rank {
		return nil, fmt.Errorf("%w: minor_to_major has %d entries for rank %d", ErrInvalid, len(s.MinorToMajor), rank)
	}
	seen := make([]bool, rank)
	for _, d := range s.MinorToMajor {
		if d < 0 || d >= rank {
			return nil, fmt.Errorf("%w: minor_to_major entry %d out of range for rank %d", ErrInvalid, d, rank)
		}
		if seen[d] {
			return nil, fmt.Errorf("%w: minor_to_major repeats dimension %d", ErrInvalid, d)
		}
		seen[d] = true
	}
	for d, n := range s.Dims {
		if n < 0 {
			return nil, fmt.Errorf("%w: dimension %d has size %d", ErrInvalid, d, n)
		}
	}
	if b := s.ElementBits; b <= 0 || (b < 8 && 8%b != 0) || (b > 8 && b%8 != 0) {
		return nil, fmt.Errorf("%w: element size of %d bits (want 1, 2, 4 or a multiple of 8)", ErrInvalid, b)
	}
	m := &Map{spec: Spec{
		Dims:         slices.Clone(s.Dims),
		MinorToMajor: slices.Clone(s.MinorToMajor),
		ElementBits:  s.ElementBits,
		TailAlign:    max(s.TailAlign, 1),
	}, exact: true}
	for _, t := range s.Tiles {
		m.spec.Tiles = append(m.spec.Tiles, slices.Clone(t))
	}
	capNodes := rank
	for _, t := range s.Tiles {
		capNodes += 3 * len(t)
	}
	m.nodes = make([]node, 0, capNodes)
	// Physical dims major to minor.
	cur := make([]int, rank)
	for i := range rank {
		d := s.MinorToMajor[rank-1-i]
		cur[i] = m.add(node{kind: leafNode, size: s.Dims[d], dim: d}, []seg{{dim: d, weight: 1, size: s.Dims[d]}}, true)
	}
	for level, t := range s.Tiles {
		var err error
		if cur, err = m.applyTile(cur, t); err != nil {
			return nil, fmt.Errorf("tile %d: %w", level, err)
		}
	}
	m.phys = cur
	m.sizes = make([]int64, len(cur))
	m.strides = make([]int64, len(cur))
	m.count = 1
	for i := len(cur) - 1; i >= 0; i-- {
		m.sizes[i] = m.nodes[cur[i]].size
		m.strides[i] = m.count
		var ok bool
		if m.count, ok = checked.Mul(m.count, m.sizes[i]); !ok {
			return nil, fmt.Errorf("%w: physical element count", ErrOverflow)
		}
	}
	if m.count == 0 { // a zero dimension makes strides meaningless but harmless
		m.total = 0
	} else {
		m.total = roundUp(m.count, m.spec.TailAlign)
		if m.total < 0 {
			return nil, fmt.Errorf("%w: tail padding", ErrOverflow)
		}
	}
	bits, ok := checked.Mul(m.total, s.ElementBits)
	if !ok || bits > (1<<63-1)-7 {
		return nil, fmt.Errorf("%w: byte size", ErrOverflow)
	}
	m.bytes = (bits + 7) / 8
	return m, nil
}

// add appends node n with its digits and their top flag (see segs).
func (m *Map) add(n node, segs []seg, top bool) int {
	m.nodes = append(m.nodes, n)
	m.segs = append(m.segs, segs)
	m.tops = append(m.tops, top)
	return len(m.nodes) - 1
}

// splitSegs splits the digits l of a node (major to minor) at a tile of
// t: inner the digits of the node's value mod t, outer those of its value
// div t. A digit is cut where t falls inside it, which needs the cut to
// divide it, unless it is the node's most-major digit and top (its values
// end at its dimension's end): the places past that end are padding.
// ok is false where t cannot be so formed: the tile splits inside a
// digit, leaving places inside the tile that hold no element.
func splitSegs(l []seg, t int64, top bool) (outer, inner []seg, ok bool) {
	for _, g := range l {
		if g.size == 0 { // an empty node: no element anywhere
			return []seg{{dim: g.dim, weight: g.weight * t, size: 0}}, []seg{{dim: g.dim, weight: g.weight, size: t}}, true
		}
	}
	p := int64(1) // the product of the digits that go inside whole
	k := len(l) - 1
	for k >= 0 && p*l[k].size <= t && t%(p*l[k].size) == 0 {
		p *= l[k].size
		k--
	}
	switch {
	case p == t:
		return slices.Clone(l[:k+1]), slices.Clone(l[k+1:]), true
	case k < 0:
		// The whole node fits in the tile, with room to spare: padding
		// past its most-major digit, if that ends at its dimension's end.
		if !top || len(l) == 0 {
			return nil, nil, false
		}
		inner = slices.Clone(l)
		inner[0].size *= t / p
		return []seg{{dim: l[0].dim, weight: l[0].weight * inner[0].size, size: 1}}, inner, true
	case t%p != 0:
		return nil, nil, false
	}
	q, d := t/p, l[k]
	if d.size%q != 0 && (k != 0 || !top) {
		return nil, nil, false
	}
	inner = append([]seg{{dim: d.dim, weight: d.weight, size: q}}, l[k+1:]...)
	outer = append(slices.Clone(l[:k]), seg{dim: d.dim, weight: d.weight * q, size: ceilDiv(d.size, q)})
	return outer, inner, true
}

// applyTile expands the physical dimension list cur by one tile.
func (m *Map) applyTile(cur []int, t []int64) ([]int, error) {
	k := len(t)
	if k == 0 {
		return nil, fmt.Errorf("%w: empty", ErrInvalid)
	}
	for i, v := range t {
		if v == Combine {
			if i == k-1 {
				return nil, fmt.Errorf("%w: the most-minor dimension cannot be combined", ErrInvalid)
			}
			continue
		}
		if v <= 0 {
			return nil, fmt.Errorf("%w: dimension %d", ErrInvalid, v)
		}
	}
	for len(cur) < k {
		z := -1 - m.numZeros
		cur = append([]int{m.add(node{kind: zeroNode, size: 1, dim: z}, []seg{{dim: z, weight: 1, size: 1}}, true)}, cur...)
		m.numZeros++
	}
	head := slices.Clone(cur[:len(cur)-k])
	tail := cur[len(cur)-k:]
	// Combine marked dims with the next more-minor one.
	var dims []int
	var sizes []int64
	var group []int
	for i, v := range t {
		group = append(group, tail[i])
		if v == Combine {
			continue
		}
		id := group[0]
		if len(group) > 1 {
			size := int64(1)
			for _, g := range group {
				var ok bool
				if size, ok = checked.Mul(size, m.nodes[g].size); !ok {
					return nil, fmt.Errorf("%w: combined dimension", ErrOverflow)
				}
			}
			// The combined node's most-major digit is that of its first
			// part with digits (a part of size 1 has none), and so is
			// its top flag.
			var segs []seg
			top := false
			for _, g := range group {
				if len(segs) == 0 {
					top = m.tops[g]
				}
				segs = append(segs, m.segs[g]...)
			}
			id = m.add(node{kind: combineNode, size: size, parts: group}, segs, top)
			m.ops = append(m.ops, id)
		}
		dims = append(dims, id)
		sizes = append(sizes, v)
		group = nil
	}
	outer := make([]int, len(dims))
	inner := make([]int, len(dims))
	for i, id := range dims {
		p := m.nodes[id]
		ts := sizes[i]
		var os, is []seg
		if m.exact {
			var ok bool
			if os, is, ok = splitSegs(m.segs[id], ts, m.tops[id]); !ok {
				m.exact = false // positions inside a tile that hold no element
			}
		}
		outer[i] = m.add(node{kind: divNode, size: ceilDiv(p.size, ts), parent: id, t: ts}, os, m.tops[id])
		inner[i] = m.add(node{kind: modNode, size: ts, parent: id, t: ts}, is, false)
		m.ops = append(m.ops, outer[i])
	}
	return append(append(head, outer...), inner...), nil
}

// Rank is the number of logical dimensions.
func (m *Map) Rank() int { return len(m.spec.Dims) }

// Dims returns the logical dimension sizes.
func (m *Map) Dims() []int64 { return slices.Clone(m.spec.Dims) }

// PhysicalDims returns the physical dimension sizes, major to minor.
func (m *Map) PhysicalDims() []int64 { return slices.Clone(m.sizes) }

// Strides returns the element strides of the physical dimensions.
func (m *Map) Strides() []int64 { return slices.Clone(m.strides) }

// Elements is the number of physical elements: the product of the
// physical dimensions rounded up to the tail alignment.
func (m *Map) Elements() int64 { return m.total }

// ElementBits is the storage width of one element in bits.
func (m *Map) ElementBits() int64 { return m.spec.ElementBits }

// Bytes is the buffer size in bytes: ceil(Elements × ElementBits / 8).
func (m *Map) Bytes() int64 { return m.bytes }

// LogicalCount is the number of logical elements (the product of Dims).
// It cannot overflow when New succeeded, since every logical element has a
// distinct physical place.
func (m *Map) LogicalCount() int64 {
	n := int64(1)
	for _, d := range m.spec.Dims {
		n *= d
	}
	return n
}

// Exact reports whether every physical dimension is a mixed-radix
// number of digits of logical dimensions: no position inside a tile holds
// no element, other than those beyond a dimension's end. Combined (*)
// dimensions are exact where each tile splits them between or inside
// digits that it divides (T(*,8,128) over [64,64,64]: the 8 divides the
// combined dims' minor 64). Digits is defined only then.
func (m *Map) Exact() bool { return m.exact }

// Digits lists the digits of the physical dimensions, major to minor:
// each physical dimension is one digit of one logical dimension, or where
// dimensions are combined, several, each with its own stride. The
// offset of an index is the sum over the digits of its value times the
// digit's stride. ok is false when Exact is false.
func (m *Map) Digits() (digits []Digit, ok bool) {
	if !m.exact {
		return nil, false
	}
	for i, id := range m.phys {
		segs := m.segs[id]
		stride := m.strides[i]
		first := len(digits)
		for k := len(segs) - 1; k >= 0; k-- {
			g := segs[k]
			digits = append(digits, Digit{Dim: g.dim, Weight: g.weight, Size: g.size, Stride: stride})
			stride *= g.size
		}
		slices.Reverse(digits[first:])
	}
	return digits, true
}

// value computes a node's index from the logical index.
func (m *Map) value(id int, idx []int64) int64 {
	n := m.nodes[id]
	switch n.kind {
	case leafNode:
		return idx[n.dim]
	case zeroNode:
		return 0
	case divNode:
		return m.value(n.parent, idx) / n.t
	case modNode:
		return m.value(n.parent, idx) % n.t
	default: // combineNode
		v := int64(0)
		for _, p := range n.parts {
			v = v*m.nodes[p].size + m.value(p, idx)
		}
		return v
	}
}

// Offset returns the element offset of the logical index idx, which must
// be in range (each idx[d] in [0, Dims[d])).
func (m *Map) Offset(idx []int64) int64 {
	off := int64(0)
	for i, id := range m.phys {
		off += m.value(id, idx) * m.strides[i]
	}
	return off
}

// DimOffsets splits Offset by logical dimension: tables[d][v] is the
// offset of the index whose dim d is v and whose other dims are 0, and
// Offset(idx) is the sum over d of tables[d][idx[d]], since each physical
// dimension then derives from one logical dimension alone, or is a
// mixed-radix number of digits of several (Exact), and is 0 at index 0.
// ok is false, with no tables, where a dimension is combined and the map
// is not exact. Unlike Digits it holds for tiles that split inside a
// tile where no dimension is combined.
func (m *Map) DimOffsets() (tables [][]int64, ok bool) {
	for _, n := range m.nodes {
		if n.kind == combineNode && !m.exact {
			return nil, false
		}
	}
	dims := m.spec.Dims
	idx := make([]int64, len(dims))
	tables = make([][]int64, len(dims))
	for d, n := range dims {
		tables[d] = make([]int64, n)
		for v := range n {
			idx[d] = v
			tables[d][v] = m.Offset(idx)
		}
		idx[d] = 0
	}
	return tables, true
}

// Index is the inverse of Offset: it fills idx (of length Rank) with the
// logical index stored at element offset off and returns true, or returns
// false when off is padding or outside [0, Elements).
func (m *Map) Index(off int64, idx []int64) bool {
	if off < 0 || off >= m.count {
		return false
	}
	var valBuf [64]int64
	var knownBuf [64]bool
	var vals []int64
	var known []bool
	if len(m.nodes) > len(valBuf) {
		vals, known = make([]int64, len(m.nodes)), make([]bool, len(m.nodes))
	} else {
		vals, known = valBuf[:len(m.nodes)], knownBuf[:len(m.nodes)]
	}
	for i, id := range m.phys {
		vals[id] = off / m.strides[i] % m.sizes[i]
		known[id] = true
	}
	// Undo the operations, newest first.
	for k := len(m.ops) - 1; k >= 0; k-- {
		id := m.ops[k]
		n := m.nodes[id]
		if n.kind == combineNode {
			if !known[id] {
				continue
			}
			v := vals[id]
			for j := len(n.parts) - 1; j >= 0; j-- {
				p := n.parts[j]
				vals[p] = v % m.nodes[p].size
				known[p] = true
				v /= m.nodes[p].size
			}
			continue
		}
		// id is the div node of a split; the mod node follows it.
		p := n.parent
		mod := id + 1
		if !known[id] || !known[mod] {
			continue
		}
		v := vals[id]*n.t + vals[mod]
		if v >= m.nodes[p].size {
			return false
		}
		vals[p] = v
		known[p] = true
	}
	for id, n := range m.nodes {
		switch n.kind {
		case zeroNode:
			if vals[id] != 0 {
				return false
			}
		case leafNode:
			if vals[id] >= n.size {
				return false
			}
			idx[n.dim] = vals[id]
		}
	}
	return true
}

// BitOffset returns where element offset off starts, as a byte offset and
// a left shift: a packed element (ElementBits < 8) sits at bits
// [shift, shift+ElementBits) of its byte, the first element of a byte in
// the most significant bits. For byte-sized elements shift is 0.
func (m *Map) BitOffset(off int64) (byteOff int64, shift uint) {
	b := m.spec.ElementBits
	if b >= 8 {
		return off * (b / 8), 0
	}
	bit := off * b
	return bit / 8, uint(8 - b - bit%8)
}

func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

func roundUp(a, b int64) int64 {
	if r := a % b; r != 0 {
		return a + b - r
	}
	return a
}
