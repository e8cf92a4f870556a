package checked

import "testing"

func TestMul(t *testing.T) {
	tests := []struct {
		a, b int64
		want int64
		ok   bool
	}{
		{0, 1 << 62, 0, true},
		{3, 5, 15, true},
		{1 << 31, 1 << 31, 1 << 62, true},
		{1 << 32, 1 << 31, 0, false},
		{1<<63 - 1, 1, 1<<63 - 1, true},
		{1<<62 + 1, 2, 0, false},
	}
	for _, tc := range tests {
		got, ok := Mul(tc.a, tc.b)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Mul(%d, %d) = %d, %v; want %d, %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
		}
	}
}
