package bench

import (
	"testing"
	"unsafe"
)

// TestPlaced checks the placements Tune times the copies on: each lies
// whole inside its room and starts on a page, placement 0 at the start of
// both sides, and every other one apart from the rest, on both sides.
func TestPlaced(t *testing.T) {
	const n = 3 << 20
	room := make([]byte, n+tuneShift)
	base := uintptr(unsafe.Pointer(&room[0]))
	seen := map[[2]uintptr]int{}
	for pl := range tunePlacements {
		var at [2]uintptr
		for side := range 2 {
			b := placed(room, n, pl, side)
			off := uintptr(unsafe.Pointer(&b[0])) - base
			if len(b) != n || off%4096 != 0 || off+n > uintptr(len(room)) {
				t.Errorf("placement %d side %d: %d bytes at %d of %d", pl, side, len(b), off, len(room))
			}
			at[side] = off
		}
		if pl == 0 && at != [2]uintptr{} {
			t.Errorf("placement 0 starts at %v, want both at 0", at)
		}
		if pl > 0 && at[0] == at[1] {
			t.Errorf("placement %d: both sides at %d", pl, at[0])
		}
		if prev, ok := seen[at]; ok {
			t.Errorf("placements %d and %d alike: %v", prev, pl, at)
		}
		seen[at] = pl
	}
}
