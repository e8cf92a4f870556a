package hugepage

import "testing"

// TestAlloc checks that buffers of every size come back zeroed and whole,
// and writable throughout, advised or not.
func TestAlloc(t *testing.T) {
	for _, n := range []int{0, 1, Size - 1, Size, 3*Size + 4097} {
		b := Alloc(n)
		if len(b) != n {
			t.Fatalf("Alloc(%d): %d bytes", n, len(b))
		}
		for i := 0; i < n; i += 4096 {
			if b[i] != 0 {
				t.Fatalf("Alloc(%d): byte %d is %d", n, i, b[i])
			}
			b[i] = 1
		}
	}
}
