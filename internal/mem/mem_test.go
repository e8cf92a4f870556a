package mem

import "testing"

func TestOverlap(t *testing.T) {
	buf := make([]byte, 100)
	for _, c := range []struct {
		name string
		a, b []byte
		want bool
	}{
		{"same", buf[10:20], buf[10:20], true},
		{"inside", buf[10:90], buf[40:50], true},
		{"one shared byte", buf[10:21], buf[20:30], true},
		{"touching", buf[10:20], buf[20:30], false},
		{"touching the other way", buf[20:30], buf[10:20], false},
		{"empty", buf[10:10], buf[0:100], false},
		{"apart", buf[0:10], make([]byte, 10), false},
	} {
		if got := Overlap(c.a, c.b); got != c.want {
			t.Errorf("%s: Overlap = %v, want %v", c.name, got, c.want)
		}
	}
}
