package hugepage

import "testing"

// TestAlloc checks that buffers of every size come back zeroed and whole,
// and writable throughout, advised either way or not at all.
func TestAlloc(t *testing.T) {
	for _, f := range []struct {
		name  string
		alloc func(int) []byte
	}{{"Alloc", Alloc}, {"AllocSmall", AllocSmall}} {
		for _, n := range []int{0, 1, Size - 1, Size, 3*Size + 4097} {
			b := f.alloc(n)
			if len(b) != n {
				t.Fatalf("%s(%d): %d bytes", f.name, n, len(b))
			}
			for i := 0; i < n; i += 4096 {
				if b[i] != 0 {
					t.Fatalf("%s(%d): byte %d is %d", f.name, n, i, b[i])
				}
				b[i] = 1
			}
		}
	}
}
