package guard

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// faults reports whether f faults (a fault becomes a panic here). f
// returns what it read, so that the read is not optimized away.
func faults(f func() byte) (faulted bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() { faulted = recover() != nil }()
	runtime.KeepAlive(f())
	return false
}

func TestFences(t *testing.T) {
	if !Fenced {
		t.Skip("no mmap here: buffers are not fenced")
	}
	for _, tc := range []struct {
		n     int
		atEnd bool
	}{{1, true}, {1, false}, {100, true}, {4096, false}, {5000, true}, {5000, false}} {
		b := Buffer(t, tc.n, tc.atEnd)
		if len(b) != tc.n {
			t.Fatalf("%d bytes (atEnd %v): got %d", tc.n, tc.atEnd, len(b))
		}
		b[0], b[tc.n-1] = 1, 2 // inside: no fault
		wide := b[:cap(b)]
		if tc.atEnd && !faults(func() byte { return *(*byte)(ptrAt(wide, tc.n)) }) {
			t.Errorf("%d bytes at the end: reading the byte past it did not fault", tc.n)
		}
		if !tc.atEnd && !faults(func() byte { return *(*byte)(ptrAt(wide, -1)) }) {
			t.Errorf("%d bytes at the start: reading the byte before it did not fault", tc.n)
		}
	}
}

func TestReadOnly(t *testing.T) {
	if !Fenced {
		t.Skip("no mmap here: buffers are not fenced")
	}
	b := Buffer(t, 3000, true)
	b[10] = 7
	if err := ReadOnly(b); err != nil {
		t.Fatal(err)
	}
	if b[10] != 7 {
		t.Fatalf("byte 10 is %d after ReadOnly, want 7", b[10])
	}
	if !faults(func() byte { b[20] = 1; return b[20] }) {
		t.Error("a write into a read-only buffer did not fault")
	}
}
