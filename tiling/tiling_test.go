package tiling

import (
	"cmp"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// picture lists the buffer of m as letters: logical element k (row-major)
// is the k-th letter, padding is "_".
func picture(t *testing.T, m *Map) string {
	t.Helper()
	dims := m.Dims()
	idx := make([]int64, len(dims))
	out := make([]string, m.Elements())
	for off := range m.Elements() {
		if !m.Index(off, idx) {
			out[off] = "_"
			continue
		}
		k := int64(0)
		for d, n := range dims {
			k = k*n + idx[d]
		}
		out[off] = string(rune('a' + k))
	}
	return strings.Join(out, " ")
}

func TestGoldenVectors(t *testing.T) {
	tests := []struct {
		name  string
		spec  Spec
		want  string  // buffer picture, if given
		at    []int64 // a logical index ...
		off   int64   // ... and its offset
		count int64   // element count, if given
	}{
		{name: "f32[2,3]{0,1}", spec: Spec{Dims: []int64{2, 3}, MinorToMajor: []int{0, 1}, ElementBits: 32},
			want: "a d b e c f"},
		{name: "f32[3,5]{1,0:T(2,2)}", spec: Spec{Dims: []int64{3, 5}, MinorToMajor: []int{1, 0}, Tiles: [][]int64{{2, 2}}, ElementBits: 32},
			want: "a b f g c d h i e _ j _ k l _ _ m n _ _ o _ _ _", at: []int64{2, 3}, off: 17},
		{name: "f32[3,5]{1,0:T(2,4)}", spec: Spec{Dims: []int64{3, 5}, MinorToMajor: []int{1, 0}, Tiles: [][]int64{{2, 4}}, ElementBits: 32},
			want: "a b c d f g h i e _ _ _ j _ _ _ k l m n _ _ _ _ o _ _ _ _ _ _ _"},
		{name: "bf16[3,3]{1,0:T(2,2)(2,1)}", spec: Spec{Dims: []int64{3, 3}, MinorToMajor: []int{1, 0}, Tiles: [][]int64{{2, 2}, {2, 1}}, ElementBits: 16},
			want: "a d b e c f _ _ g _ h _ i _ _ _"},
		{name: "f32[5]{0:T(2,4)}", spec: Spec{Dims: []int64{5}, MinorToMajor: []int{0}, Tiles: [][]int64{{2, 4}}, ElementBits: 32},
			want: "a b c d _ _ _ _ e _ _ _ _ _ _ _"},
		{name: "f32[3,5]{0,1:T(2,2)}", spec: Spec{Dims: []int64{3, 5}, MinorToMajor: []int{0, 1}, Tiles: [][]int64{{2, 2}}, ElementBits: 32},
			want: "a f b g k _ l _ c h d i m _ n _ e j _ _ o _ _ _"},
		{name: "s8[4,4]{1,0:T(4,4)(4,1)}", spec: Spec{Dims: []int64{4, 4}, MinorToMajor: []int{1, 0}, Tiles: [][]int64{{4, 4}, {4, 1}}, ElementBits: 8},
			want: "a e i m b f j n c g k o d h l p"},
		{name: "u16[8,8]{1,0:T(2,4)(2,1,1,1)}", spec: Spec{Dims: []int64{8, 8}, MinorToMajor: []int{1, 0}, Tiles: [][]int64{{2, 4}, {2, 1, 1, 1}}, ElementBits: 16},
			at: []int64{6, 5}, off: 51},
		{name: "f32[2,3,5]{2,1,0:T(2,4)}", spec: Spec{Dims: []int64{2, 3, 5}, MinorToMajor: []int{2, 1, 0}, Tiles: [][]int64{{2, 4}}, ElementBits: 32},
			at: []int64{1, 2, 3}, off: 51, count: 64},
		{name: "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", spec: Spec{Dims: []int64{2, 7, 8, 11, 10}, MinorToMajor: []int{4, 3, 2, 1, 0}, Tiles: [][]int64{{Combine, Combine, 2, Combine, 3}}, ElementBits: 32},
			// combined to [112,110], tiled to [56,37,2,3]: (1,2,3,4,5) is row 1*56+2*8+3=75, col 4*10+5=45
			at: []int64{1, 2, 3, 4, 5}, off: (75/2)*37*6 + (45/3)*6 + (75%2)*3 + 45%3, count: 56 * 37 * 6},
		{name: "f32[5]{0:T(2)L(4)}", spec: Spec{Dims: []int64{5}, MinorToMajor: []int{0}, Tiles: [][]int64{{2}}, ElementBits: 32, TailAlign: 4},
			want: "a b c d e _ _ _", count: 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != "" {
				if got := picture(t, m); got != tc.want {
					t.Errorf("buffer\n got %s\nwant %s", got, tc.want)
				}
			}
			if tc.at != nil {
				if got := m.Offset(tc.at); got != tc.off {
					t.Errorf("Offset(%v) = %d, want %d", tc.at, got, tc.off)
				}
			}
			if tc.count != 0 && m.Elements() != tc.count {
				t.Errorf("Elements = %d, want %d", m.Elements(), tc.count)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want error
	}{
		{"m2m short", Spec{Dims: []int64{2, 3}, MinorToMajor: []int{0}, ElementBits: 8}, ErrInvalid},
		{"m2m repeat", Spec{Dims: []int64{2, 3}, MinorToMajor: []int{0, 0}, ElementBits: 8}, ErrInvalid},
		{"m2m range", Spec{Dims: []int64{2, 3}, MinorToMajor: []int{2, 0}, ElementBits: 8}, ErrInvalid},
		{"empty tile", Spec{Dims: []int64{2}, MinorToMajor: []int{0}, Tiles: [][]int64{{}}, ElementBits: 8}, ErrInvalid},
		{"zero tile", Spec{Dims: []int64{2}, MinorToMajor: []int{0}, Tiles: [][]int64{{0}}, ElementBits: 8}, ErrInvalid},
		{"minor combine", Spec{Dims: []int64{2, 2}, MinorToMajor: []int{1, 0}, Tiles: [][]int64{{2, Combine}}, ElementBits: 8}, ErrInvalid},
		{"bits", Spec{Dims: []int64{2}, MinorToMajor: []int{0}, ElementBits: 3}, ErrInvalid},
		{"overflow", Spec{Dims: []int64{1 << 40, 1 << 40}, MinorToMajor: []int{1, 0}, ElementBits: 64}, ErrOverflow},
		{"byte overflow", Spec{Dims: []int64{1 << 60}, MinorToMajor: []int{0}, ElementBits: 64}, ErrOverflow},
		{"tail overflow", Spec{Dims: []int64{1<<62 + 1}, MinorToMajor: []int{0}, ElementBits: 1, TailAlign: 1 << 62}, ErrOverflow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.spec)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// RandomSpec draws a random layout: rank 0-4, small dims, 0-3 tile levels.
func randomSpec(r *rand.Rand) Spec {
	rank := r.IntN(5)
	s := Spec{Dims: make([]int64, rank), MinorToMajor: r.Perm(rank), ElementBits: []int64{1, 2, 4, 8, 16, 32}[r.IntN(6)]}
	for i := range s.Dims {
		s.Dims[i] = int64(r.IntN(7))
	}
	for range r.IntN(4) {
		k := 1 + r.IntN(rank+2)
		tile := make([]int64, k)
		for j := range tile {
			tile[j] = int64(1 + r.IntN(5))
			if j < k-1 && r.IntN(8) == 0 {
				tile[j] = Combine
			}
		}
		s.Tiles = append(s.Tiles, tile)
	}
	if r.IntN(4) == 0 {
		s.TailAlign = int64(1 + r.IntN(9))
	}
	return s
}

// TestProperties checks on random layouts that Offset is injective, stays
// inside the buffer, agrees with Index, that every other offset is padding,
// and that Digits (when defined) reproduce Offset.
func TestProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 500
	}
	for trial := range n {
		s := randomSpec(r)
		m, err := New(s)
		if err != nil {
			t.Fatalf("trial %d %+v: %v", trial, s, err)
		}
		if m.Elements() > 1<<16 {
			continue
		}
		owner := make([]int64, m.Elements())
		for i := range owner {
			owner[i] = -1
		}
		idx := make([]int64, len(s.Dims))
		back := make([]int64, len(s.Dims))
		digits, exact := m.Digits()
		tables, separable := m.DimOffsets()
		if exact && !separable {
			t.Fatalf("trial %d %+v: exact but no DimOffsets", trial, s)
		}
		for k := range m.LogicalCount() {
			rem := k
			for d := len(s.Dims) - 1; d >= 0; d-- {
				idx[d] = rem % s.Dims[d]
				rem /= s.Dims[d]
			}
			off := m.Offset(idx)
			if off < 0 || off >= m.Elements() {
				t.Fatalf("trial %d %+v: offset %d of %v outside [0,%d)", trial, s, off, idx, m.Elements())
			}
			if owner[off] >= 0 {
				t.Fatalf("trial %d %+v: %v and element %d share offset %d", trial, s, idx, owner[off], off)
			}
			owner[off] = k
			if !m.Index(off, back) || !equal(back, idx) {
				t.Fatalf("trial %d %+v: Index(%d) = %v, want %v", trial, s, off, back, idx)
			}
			if separable {
				sum := int64(0)
				for d, v := range idx {
					sum += tables[d][v]
				}
				if sum != off {
					t.Fatalf("trial %d %+v: DimOffsets sum %d for %v, want %d", trial, s, sum, idx, off)
				}
			}
			if exact {
				if got := digitOffset(digits, idx); got != off {
					t.Fatalf("trial %d %+v: digit offset %d, want %d", trial, s, got, off)
				}
			}
		}
		for off, k := range owner {
			if k < 0 && m.Index(int64(off), back) {
				t.Fatalf("trial %d %+v: padding offset %d maps to %v", trial, s, off, back)
			}
		}
		bits := m.Elements() * s.ElementBits
		if m.Bytes() != (bits+7)/8 {
			t.Fatalf("trial %d: Bytes %d for %d bits", trial, m.Bytes(), bits)
		}
	}
}

// digitOffset computes an offset from the digit description alone.
func digitOffset(digits []Digit, idx []int64) int64 {
	rem := make(map[int]int64)
	for d, v := range idx {
		rem[d] = v
	}
	// Within one dimension, take the digits from the heaviest down (physical
	// order need not be monotonic: T(2,4)(2,1,1,1) interleaves them).
	order := make([]int, len(digits))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(digits[b].Weight, digits[a].Weight) })
	off := int64(0)
	for _, i := range order {
		dg := digits[i]
		if dg.Dim < 0 || dg.Size == 1 { // a size-1 digit is always 0
			continue
		}
		v := rem[dg.Dim] / dg.Weight
		rem[dg.Dim] -= v * dg.Weight
		off += v * dg.Stride
	}
	return off
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBitOffset(t *testing.T) {
	m, err := New(Spec{Dims: []int64{5}, MinorToMajor: []int{0}, ElementBits: 4})
	if err != nil {
		t.Fatal(err)
	}
	if m.Bytes() != 3 {
		t.Errorf("Bytes = %d, want 3", m.Bytes())
	}
	for _, c := range []struct {
		off   int64
		b     int64
		shift uint
	}{{0, 0, 4}, {1, 0, 0}, {2, 1, 4}, {4, 2, 4}} {
		b, sh := m.BitOffset(c.off)
		if b != c.b || sh != c.shift {
			t.Errorf("BitOffset(%d) = %d,%d want %d,%d", c.off, b, sh, c.b, c.shift)
		}
	}
}

// TestCombinedDigits checks which combined (*) tiles are exact, and that
// the digits of those reproduce every offset.
func TestCombinedDigits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		spec   Spec
		exact  bool
		digits int // digits of more than one value
	}{
		// The combined dims' minor 64 takes the 8 whole: rows of 64
		// padded to 128, the rest one row index.
		{"f32[4,6,64,64]{3,2,1,0:T(*,8,128)}", Spec{Dims: []int64{4, 6, 64, 64}, MinorToMajor: []int{3, 2, 1, 0}, Tiles: [][]int64{{Combine, 8, 128}}, ElementBits: 32}, true, 5},
		// 8 does not divide the minor 60: a tile holds parts of two rows.
		{"f32[4,6,60,64]{3,2,1,0:T(*,8,128)}", Spec{Dims: []int64{4, 6, 60, 64}, MinorToMajor: []int{3, 2, 1, 0}, Tiles: [][]int64{{Combine, 8, 128}}, ElementBits: 32}, false, 0},
		// The tile takes the minor dim whole and 2 of the next.
		{"u8[5,6,4]{2,1,0:T(*,8)}", Spec{Dims: []int64{5, 6, 4}, MinorToMajor: []int{2, 1, 0}, Tiles: [][]int64{{Combine, 8}}, ElementBits: 8}, true, 4},
		// ... which needs the 2 to divide the next dim, or that dim to
		// be the combination's top one: 5 rows, the last tile half
		// padding past the end of the 5.
		{"u8[3,5,4]{2,1,0:T(*,8)}", Spec{Dims: []int64{3, 5, 4}, MinorToMajor: []int{2, 1, 0}, Tiles: [][]int64{{Combine, 8}}, ElementBits: 8}, true, 4},
		// Not in the middle of three: a tile would hold parts of rows
		// of two values of the top dim.
		{"u8[5,3,4]{2,1,0:T(*,*,8)}", Spec{Dims: []int64{5, 3, 4}, MinorToMajor: []int{2, 1, 0}, Tiles: [][]int64{{Combine, Combine, 8}}, ElementBits: 8}, false, 0},
		// Three dims combined, then a second tile inside the first.
		{"f32[3,4,8,16]{3,2,1,0:T(*,*,16)(4)}", Spec{Dims: []int64{3, 4, 8, 16}, MinorToMajor: []int{3, 2, 1, 0}, Tiles: [][]int64{{Combine, Combine, 16}, {4}}, ElementBits: 32}, true, 5},
		// The combination's major part has one value and no digit, so
		// its top digit is the 5 of the row tile, which the last tile
		// of 8 rows leaves 2 places short, not at the dim's end: the
		// 2 of the second tile cuts it where it does not divide
		// (found by FuzzCompile).
		{"f64[8,2]{1,0:T(5,2)(*,2,2)}", Spec{Dims: []int64{8, 2}, MinorToMajor: []int{1, 0}, Tiles: [][]int64{{5, 2}, {Combine, 2, 2}}, ElementBits: 64}, false, 0},
	} {
		m, err := New(tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		digits, ok := m.Digits()
		if ok != tc.exact || m.Exact() != tc.exact {
			t.Errorf("%s: exact %v, want %v", tc.name, ok, tc.exact)
			continue
		}
		if !ok {
			continue
		}
		n := 0
		for _, d := range digits {
			if d.Size > 1 {
				n++
			}
		}
		if n != tc.digits {
			t.Errorf("%s: %d digits of more than one value, want %d: %+v", tc.name, n, tc.digits, digits)
		}
		idx := make([]int64, len(tc.spec.Dims))
		for k := range m.LogicalCount() {
			rem := k
			for d := len(idx) - 1; d >= 0; d-- {
				idx[d] = rem % tc.spec.Dims[d]
				rem /= tc.spec.Dims[d]
			}
			if got, want := digitOffset(digits, idx), m.Offset(idx); got != want {
				t.Fatalf("%s: %v: digit offset %d, want %d", tc.name, idx, got, want)
			}
		}
	}
}
