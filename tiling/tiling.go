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
	exact    bool // no combined dims and every in-tile split divides its parent
	numZeros int
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
		cur[i] = m.add(node{kind: leafNode, size: s.Dims[d], dim: d})
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

func (m *Map) add(n node) int {
	m.nodes = append(m.nodes, n)
	return len(m.nodes) - 1
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
		cur = append([]int{m.add(node{kind: zeroNode, size: 1, dim: -1 - m.numZeros})}, cur...)
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
			id = m.add(node{kind: combineNode, size: size, parts: group})
			m.ops = append(m.ops, id)
			m.exact = false
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
		if !m.onTop(id) && p.size%ts != 0 {
			m.exact = false // positions inside a tile that hold no element
		}
		outer[i] = m.add(node{kind: divNode, size: ceilDiv(p.size, ts), parent: id, t: ts})
		inner[i] = m.add(node{kind: modNode, size: ts, parent: id, t: ts})
		m.ops = append(m.ops, outer[i])
	}
	return append(append(head, outer...), inner...), nil
}

// onTop reports whether node id is a logical (or prepended) dimension or
// reached from one through divisions only: its index is bounded by the
// dimension's size alone, so a split that does not divide it leaves
// padding only beyond the dimension's end.
func (m *Map) onTop(id int) bool {
	for {
		n := m.nodes[id]
		switch n.kind {
		case leafNode, zeroNode:
			return true
		case divNode:
			id = n.parent
		default:
			return false
		}
	}
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

// Exact reports whether the layout has no combined dimensions and no
// positions inside a tile that hold no element other than those beyond a
// dimension's end; Digits is defined only then.
func (m *Map) Exact() bool { return m.exact }

// Digits describes each physical dimension as a digit of one logical
// dimension, major to minor; ok is false when Exact is false.
func (m *Map) Digits() (digits []Digit, ok bool) {
	if !m.exact {
		return nil, false
	}
	digits = make([]Digit, len(m.phys))
	for i, id := range m.phys {
		dim, w := m.origin(id)
		digits[i] = Digit{Dim: dim, Weight: w, Size: m.sizes[i], Stride: m.strides[i]}
	}
	return digits, true
}

// origin returns the logical (or prepended) dimension a node derives from
// and its weight, for maps without combined dimensions.
func (m *Map) origin(id int) (dim int, weight int64) {
	n := m.nodes[id]
	switch n.kind {
	case leafNode, zeroNode:
		return n.dim, 1
	case divNode:
		d, w := m.origin(n.parent)
		return d, w * n.t
	case modNode:
		return m.origin(n.parent)
	}
	panic("tiling: origin of a combined dimension")
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

// DimOffsets splits Offset by logical dimension where no dimension is
// combined: tables[d][v] is the offset of the index whose dim d is v and
// whose other dims are 0, and Offset(idx) is the sum over d of
// tables[d][idx[d]], since each physical dimension then derives from one
// logical dimension alone and is 0 at index 0. ok is false, with no
// tables, where a dimension is combined. Unlike Digits it holds for
// tiles that split inside a tile.
func (m *Map) DimOffsets() (tables [][]int64, ok bool) {
	for _, n := range m.nodes {
		if n.kind == combineNode {
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
