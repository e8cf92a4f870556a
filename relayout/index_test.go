package relayout

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestOffsetGolden(t *testing.T) {
	tests := []struct {
		shape string
		index []int64
		off   int64
		byte  int64
		shift uint
	}{
		{"u16[8,8]{1,0:T(2,4)(2,1,1,1)}", []int64{6, 5}, 51, 102, 0},
		{"f32[3,5]{1,0:T(2,2)}", []int64{2, 3}, 17, 68, 0},
		{"f32[2,3,5]{2,1,0:T(2,4)}", []int64{1, 2, 3}, 51, 204, 0},
		{"f32[3,5]{1,0:T(2,4)}", []int64{1, 0}, 4, 16, 0},
		{"f32[3,5]{0,1}", []int64{2, 3}, 11, 44, 0},
		{"f32[]", []int64{}, 0, 0, 0},
		// combined to [112,110], tiled to [56,37,2,3]: (1,2,3,4,5) is row
		// 1*56+2*8+3 = 75, column 4*10+5 = 45.
		{"f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", []int64{1, 2, 3, 4, 5}, 37*37*6 + 15*6 + 3 + 0, (37*37*6 + 15*6 + 3) * 4, 0},
		// Packed two to a byte, the first in the high nibble.
		{"s4[3,5]{1,0:E(4)}", []int64{0, 0}, 0, 0, 4},
		{"s4[3,5]{1,0:E(4)}", []int64{1, 2}, 7, 3, 0},
		{"u2[4,4]{0,1:E(2)}", []int64{3, 1}, 7, 1, 0},
		{"u2[4,4]{0,1:E(2)}", []int64{1, 1}, 5, 1, 4},
		// Tail alignment adds places after the last element.
		{"f32[5]{0:T(2)L(4)}", []int64{4}, 4, 16, 0},
	}
	for _, tc := range tests {
		t.Run(tc.shape, func(t *testing.T) {
			s, err := ParseShape(tc.shape)
			if err != nil {
				t.Fatal(err)
			}
			off, err := s.Offset(tc.index)
			if err != nil || off != tc.off {
				t.Fatalf("Offset(%v) = %d, %v; want %d", tc.index, off, err, tc.off)
			}
			b, shift, err := s.BitOffset(off)
			if err != nil || b != tc.byte || shift != tc.shift {
				t.Errorf("BitOffset(%d) = %d, %d, %v; want byte %d, shift %d", off, b, shift, err, tc.byte, tc.shift)
			}
			idx, padding, err := s.Index(off)
			if err != nil || padding || !slices.Equal(idx, tc.index) {
				t.Errorf("Index(%d) = %v, %v, %v; want %v", off, idx, padding, err, tc.index)
			}
		})
	}
}

func TestIndexPadding(t *testing.T) {
	tests := []struct {
		shape   string
		off     int64
		padding bool
	}{
		// The buffer holds a b c d f g h i e _ _ _ j _ _ _ k l m n _ ...
		// (a is (0,0), f is (1,0)): two tiles of 2×4 across the rows.
		{"f32[3,5]{1,0:T(2,4)}", 4, false}, // f: (1,0)
		{"f32[3,5]{1,0:T(2,4)}", 8, false}, // e: (0,4)
		{"f32[3,5]{1,0:T(2,4)}", 9, true},  // (0,5): past the dim
		{"f32[3,5]{1,0:T(2,4)}", 20, true}, // (3,0): past the dim
		{"f32[3,5]{1,0:T(2,2)}", 9, true},
		{"f32[5]{0:T(2)L(4)}", 5, true},
		{"f32[5]{0:T(2)L(4)}", 7, true},
	}
	for _, tc := range tests {
		s, _ := ParseShape(tc.shape)
		idx, padding, err := s.Index(tc.off)
		if err != nil || padding != tc.padding || padding == (idx != nil) {
			t.Errorf("%s: Index(%d) = %v, %v, %v; want padding %v", tc.shape, tc.off, idx, padding, err, tc.padding)
		}
	}
}

func TestOffsetErrors(t *testing.T) {
	s, _ := ParseShape("f32[3,5]{1,0:T(2,4)}")
	tuple, _ := ParseShape("(f32[2], s8[3])")
	dynamic, _ := ParseShape("f32[<=4]")
	for _, tc := range []struct {
		name  string
		index []int64
		want  error
	}{
		{"rank", []int64{1}, ErrShapeMismatch},
		{"too many", []int64{1, 2, 3}, ErrShapeMismatch},
		{"past the dim", []int64{3, 0}, ErrOutOfRange},
		{"negative", []int64{0, -1}, ErrOutOfRange},
	} {
		if _, err := s.Offset(tc.index); !errors.Is(err, tc.want) {
			t.Errorf("%s: Offset(%v) error %v, want %v", tc.name, tc.index, err, tc.want)
		}
	}
	for _, off := range []int64{-1, 32, 1 << 40} {
		if _, _, err := s.Index(off); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("Index(%d) error %v, want ErrOutOfRange", off, err)
		}
		if _, _, err := s.BitOffset(off); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("BitOffset(%d) error %v, want ErrOutOfRange", off, err)
		}
	}
	if _, err := tuple.Offset([]int64{0}); !errors.Is(err, ErrNotArray) {
		t.Errorf("tuple: %v, want ErrNotArray", err)
	}
	if _, _, err := dynamic.Index(0); !errors.Is(err, ErrDynamic) {
		t.Errorf("dynamic: %v, want ErrDynamic", err)
	}
}

// TestOffsetProperties checks Offset, Index and BitOffset over random
// shapes against Reference, the element-by-element oracle: relayout a
// row-major array whose element k holds k into the shape, and the
// element at Offset(index), read where BitOffset says, holds index's k;
// Index inverts Offset, and the places no index maps to are padding.
func TestOffsetProperties(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 400
	}
	checked := 0
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 0x1d))
		_, s, _ := drawPair(r)
		m, err := s.denseMap()
		if err != nil || m.Elements() > 1<<14 {
			continue
		}
		checked++
		rowMajor := NewShape(s.dtype, s.dims, nil)
		width := int64(s.dtype.ByteWidth())
		count := m.LogicalCount()
		src := make([]byte, count*width)
		for k := range count {
			for i := range width {
				src[k*width+i] = byte(k >> (8 * i))
			}
		}
		dst := make([]byte, m.Bytes())
		if err := Reference(dst, src, rowMajor, s, Padding{}); err != nil {
			t.Fatalf("seed %d: %s: %v", seed, s, err)
		}
		bits := m.ElementBits()
		owner := make([]int64, m.Elements())
		for i := range owner {
			owner[i] = -1
		}
		idx := make([]int64, len(s.dims))
		for k := range count {
			rem := k
			for d := len(idx) - 1; d >= 0; d-- {
				idx[d] = rem % s.dims[d]
				rem /= s.dims[d]
			}
			off, err := s.Offset(idx)
			if err != nil {
				t.Fatalf("seed %d: %s: Offset(%v): %v", seed, s, idx, err)
			}
			owner[off] = k
			b, shift, err := s.BitOffset(off)
			if err != nil {
				t.Fatalf("seed %d: %s: BitOffset(%d): %v", seed, s, off, err)
			}
			if bits < 8 {
				mask := byte(1)<<bits - 1
				if got := dst[b] >> shift & mask; got != byte(k)&mask {
					t.Fatalf("seed %d: %s: element %v at byte %d bit %d holds %#x, want %#x", seed, s, idx, b, shift, got, byte(k)&mask)
				}
				continue
			}
			for i := range width {
				if got := dst[b+i]; got != byte(k>>(8*i)) {
					t.Fatalf("seed %d: %s: element %v at offset %d (byte %d) is not the oracle's", seed, s, idx, off, b)
				}
			}
			back, padding, err := s.Index(off)
			if err != nil || padding || !slices.Equal(back, idx) {
				t.Fatalf("seed %d: %s: Index(%d) = %v, %v, %v; want %v", seed, s, off, back, padding, err, idx)
			}
		}
		for off, k := range owner {
			back, padding, err := s.Index(int64(off))
			if err != nil || padding != (k < 0) {
				t.Fatalf("seed %d: %s: Index(%d) = %v, padding %v, %v; want padding %v", seed, s, off, back, padding, err, k < 0)
			}
		}
	}
	if checked < n/4 {
		t.Errorf("only %d of %d random shapes checked", checked, n)
	}
}
