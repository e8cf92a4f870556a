package kernel

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestMaskCopy checks Mask.Copy against a byte-at-a-time model at every
// level, streamed and through the caches: periods that the kernels take
// (their loop a multiple of 256 up to maxMaskLoop) and one past it,
// odd lengths, every alignment of either side within a line, buffers
// flush against guard pages, one part and several.
func TestMaskCopy(t *testing.T) {
	periods := []int{1, 3, 4, 64, 100, 512, 11264, maxMaskLoop/256*256 - 256, maxMaskLoop + 4}
	lengths := []int{0, 1, 255, 256, 257, 4096 + 3*64 + 17, 3*256*5 + 1, 300000 + 7}
	rng := rand.New(rand.NewPCG(3, 4))
	forEachLevel(t, func(t *testing.T) {
		for _, p := range periods {
			keep, pat := make([]byte, p), make([]byte, p)
			for i := range keep {
				keep[i], pat[i] = byte(rng.Uint32()), byte(rng.Uint32())
			}
			m, err := NewMask(keep, pat)
			if err != nil {
				t.Fatal(err)
			}
			if want := p <= maxMaskLoop && p/gcd(p, 256)*256 <= maxMaskLoop; (m.kernelLen > 0) != want {
				t.Errorf("period %d: kernelLen %d", p, m.kernelLen)
			}
			for _, n := range lengths {
				for k, off := range []int{0, 1, 17, 63} {
					for _, c := range []struct {
						phase  int
						stream bool
						parts  int
					}{{0, false, 1}, {5, false, 1}, {0, true, 1}, {p - 1, true, 3}, {3*p + 70, true, 8}} {
						name := fmt.Sprintf("period=%d/n=%d/off=%d/%+v", p, n, off, c)
						src := guarded(t, n+off, k%2 == 1)[off:]
						for i := range src {
							src[i] = byte(rng.Uint32())
						}
						dOff := (off * 7) % 64
						dst := guarded(t, n+dOff, k%2 == 0)[dOff:]
						if got := m.copyIn(dst, src, c.phase, c.stream, c.parts); got != n {
							t.Fatalf("%s: Copy returned %d", name, got)
						}
						for i := range dst {
							if j := (i + c.phase) % p; dst[i] != src[i]&keep[j]|pat[j]&^keep[j] {
								t.Fatalf("%s: byte %d is %#x, want %#x", name, i, dst[i], src[i]&keep[j]|pat[j]&^keep[j])
							}
						}
					}
				}
			}
		}
	})
}

// TestMaskCopyOverlap checks that a masked copy between overlapping
// slices is the copy() of them, masked.
func TestMaskCopyOverlap(t *testing.T) {
	m, err := NewMask([]byte{0xf0, 0xff, 0}, []byte{0x0a, 0, 0x55})
	if err != nil {
		t.Fatal(err)
	}
	for _, shift := range []int{-65, -1, 1, 300} {
		buf := make([]byte, 5000)
		for i := range buf {
			buf[i] = byte(i * 13)
		}
		want := bytes.Clone(buf)
		a, b := 1000, 1000+shift
		copy(want[a:a+3000], want[b:b+3000])
		for i := a; i < a+3000; i++ {
			k, p := []byte{0xf0, 0xff, 0}[(i-a)%3], []byte{0x0a, 0, 0x55}[(i-a)%3]
			want[i] = want[i]&k | p
		}
		m.Copy(buf[a:a+3000], buf[b:b+3000], 0, true)
		if !bytes.Equal(buf, want) {
			t.Errorf("shift %d: the masked copy differs", shift)
		}
	}
}

// TestNewMask checks NewMask's errors.
func TestNewMask(t *testing.T) {
	for _, c := range []struct{ keep, pat int }{{0, 0}, {3, 4}} {
		if _, err := NewMask(make([]byte, c.keep), make([]byte, c.pat)); err == nil {
			t.Errorf("mask %d, pattern %d: no error", c.keep, c.pat)
		}
	}
}
