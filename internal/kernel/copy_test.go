package kernel

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestCopy checks Copy against copy() at every level, with the tuning
// lowered so that small buffers stream or run the cached copy's loop: odd lengths, every alignment of
// either side within a line, buffers flush against guard pages at either
// end, and part counts and prefetch distances of every kind.
func TestCopy(t *testing.T) {
	lengths := []int{0, 1, 63, 64, 255, 256, 257, 1000, 4096, 4096 + 3*64 + 17, 3*256*5 + 1, 65536 + 4093, 2*cachedPiece + 4093}
	tunings := []Tuning{
		DefaultTuning(),
		{CopyStreamBytes: 0, CopyParts: 1},
		{CopyStreamBytes: 0, CopyParts: 3, CopyAhead: 512},
		{CopyStreamBytes: 256, CopyParts: 8, CopyAhead: 4096},
		{CopyStreamBytes: 0, CopyParts: 64},
		{CopyStreamBytes: 1 << 40, CopyParts: 4},                    // through the caches, in pieces
		{CopyStreamBytes: 1 << 40, CopyParts: 4, CopyRepBytes: 1},   // through the caches, a loop of vector moves
		{CopyStreamBytes: 1 << 40, CopyParts: 4, CopyRepBytes: 300}, // REP MOVSB up to 300 bytes, the loop past them
	}
	rng := rand.New(rand.NewPCG(1, 2))
	forEachLevel(t, func(t *testing.T) {
		for _, tu := range tunings {
			for _, n := range lengths {
				for k, off := range []int{0, 1, 17, 63} {
					name := fmt.Sprintf("%+v/n=%d/off=%d", tu, n, off)
					src := guarded(t, n+off, k%2 == 1)[off:]
					for i := range src {
						src[i] = byte(rng.Uint32())
					}
					dOff := (off * 7) % 64
					dst := guarded(t, n+dOff, k%2 == 0)[dOff:]
					if got := tu.Copy(dst, src); got != n {
						t.Fatalf("%s: Copy returned %d", name, got)
					}
					if !bytes.Equal(dst, src) {
						t.Fatalf("%s: the destination differs from the source", name)
					}
				}
			}
		}
	})
}

// TestCopyLengths checks that Copy moves as many bytes as the shorter
// slice holds and leaves the rest of the destination alone.
func TestCopyLengths(t *testing.T) {
	tu := Tuning{CopyStreamBytes: 0, CopyParts: 2}
	for _, c := range []struct{ dst, src int }{{0, 10}, {10, 0}, {1000, 5000}, {5000, 1000}} {
		src := bytes.Repeat([]byte{7}, c.src)
		dst := make([]byte, c.dst)
		n := tu.Copy(dst, src)
		want := min(c.dst, c.src)
		if n != want || bytes.Count(dst, []byte{7}) != want {
			t.Errorf("dst %d, src %d: Copy returned %d and wrote %d bytes, want %d", c.dst, c.src, n, bytes.Count(dst, []byte{7}), want)
		}
	}
}

// TestCopyOverlap checks that overlapping slices are copied as copy()
// copies them, forwards and backwards.
func TestCopyOverlap(t *testing.T) {
	tu := Tuning{CopyStreamBytes: 0, CopyParts: 4}
	forEachLevel(t, func(t *testing.T) {
		for _, shift := range []int{-4097, -64, -1, 1, 64, 4097} {
			buf := make([]byte, 20000)
			for i := range buf {
				buf[i] = byte(i * 13)
			}
			want := bytes.Clone(buf)
			a, b := 5000, 5000+shift
			copy(want[a:a+10000], want[b:b+10000])
			tu.Copy(buf[a:a+10000], buf[b:b+10000])
			if !bytes.Equal(buf, want) {
				t.Errorf("shift %d: Copy differs from copy()", shift)
			}
		}
	})
}
