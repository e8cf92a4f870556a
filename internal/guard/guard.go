// Package guard gives tests buffers fenced by inaccessible pages, so that
// a kernel or a plan that reads or writes a byte past either end of its
// buffer faults at once instead of corrupting memory that nothing checks.
// Where the system has no mmap the buffers are ordinary memory: the tests
// still compare every byte they own, which catches stray writes into the
// buffers but not reads or writes past them.
package guard

import "testing"

// Buffer returns a slice of n bytes fenced by inaccessible pages on both
// sides (see Alloc), released when the test ends. It suits tests that
// make a few buffers; a test that makes thousands should Alloc and
// release each, as the system limits the mappings a process holds.
func Buffer(t testing.TB, n int, atEnd bool) []byte {
	t.Helper()
	b, release, err := Alloc(n, atEnd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := release(); err != nil {
			t.Error(err)
		}
	})
	return b
}
