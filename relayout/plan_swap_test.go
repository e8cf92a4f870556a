package relayout

import (
	"encoding/binary"
	"testing"
)

// TestSwapUnits runs transposes between tiled layouts whose (k,1) tiles
// hold blocks of elements together on both sides but turned around
// (swapped) against the reference, streamed and not, on one and two
// threads, whole and by chunk ranges, and checks which plans move such
// blocks.
func TestSwapUnits(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		swaps    bool
	}{
		{"bf16[16,256]{1,0:T(8,128)(2,1)}", "bf16[16,256]{0,1:T(8,128)(2,1)}", true},
		// Padded tiles: 24 rows of 260 held as 384.
		{"bf16[24,260]{1,0:T(8,128)(2,1)}", "bf16[24,260]{0,1:T(8,128)(2,1)}", true},
		{"s8[32,256]{1,0:T(8,128)(4,1)}", "s8[32,256]{0,1:T(8,128)(4,1)}", true},
		// A batch of such transposes, and one between its outer dims.
		{"bf16[3,16,256]{2,1,0:T(8,128)(2,1)}", "bf16[3,16,256]{1,2,0:T(8,128)(2,1)}", true},
		{"f16[16,3,256]{2,0,1:T(8,128)(2,1)}", "f16[16,3,256]{0,2,1:T(8,128)(2,1)}", true},
		{"s8[3,32,136]{2,1,0:T(8,128)(4,1)}", "s8[3,32,136]{1,2,0:T(8,128)(4,1)}", true},
		// An odd dim ends in half a block: not moved so.
		{"bf16[15,256]{1,0:T(8,128)(2,1)}", "bf16[15,256]{0,1:T(8,128)(2,1)}", false},
		// Pairs on one side only.
		{"bf16[16,256]{1,0:T(8,128)(2,1)}", "bf16[16,256]{0,1}", false},
	} {
		runVariants(t, 11, tc.from, tc.to, PadWith(7), func(p *Plan) {
			if _, ok := p.exec.(*swapped); ok != tc.swaps {
				t.Errorf("%s -> %s: blocks turned around %v, want %v\n%s", tc.from, tc.to, ok, tc.swaps, p)
			}
		})
	}
}

// TestUnitSwapTurns checks unitSwap.swap against its definition, element
// (i, j) of a block at i*kf+j to j*ke+i, for the 2×2 blocks of 16-bit
// elements (its fast path) and others.
func TestUnitSwapTurns(t *testing.T) {
	for _, u := range []unitSwap{{ke: 2, kf: 2, width: 2}, {ke: 4, kf: 4, width: 1}, {ke: 2, kf: 4, width: 2}, {ke: 4, kf: 2, width: 1}, {ke: 2, kf: 2, width: 4}} {
		b := fillRandom(3*u.bytes(), 9)
		got := append([]byte(nil), b...)
		u.swap(got)
		w := u.width
		for k := int64(0); k < 3; k++ {
			blk, out := b[k*u.bytes():], got[k*u.bytes():]
			for i := range u.ke {
				for j := range u.kf {
					for c := range w {
						if out[(j*u.ke+i)*w+c] != blk[(i*u.kf+j)*w+c] {
							t.Fatalf("%+v: block %d element (%d,%d) byte %d differs", u, k, i, j, c)
						}
					}
				}
			}
		}
	}
	// The fast path on a known block: a b c d becomes a c b d.
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], 0x4444333322221111)
	(&unitSwap{ke: 2, kf: 2, width: 2}).swap(b[:])
	if got := binary.LittleEndian.Uint64(b[:]); got != 0x4444222233331111 {
		t.Errorf("2×2 of 16 bits: %#x, want 0x4444222233331111", got)
	}
}
