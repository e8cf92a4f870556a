//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package tilecopy

import "testing"

// guarded returns n bytes of ordinary memory where the system has no
// mmap: the tests still compare every byte of the surrounding buffers
// against the generic kernel, which catches stray writes but not reads.
func guarded(t testing.TB, n int, atEnd bool) []byte {
	return make([]byte, n)
}
