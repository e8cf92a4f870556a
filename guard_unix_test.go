//go:build linux || darwin || freebsd || netbsd || openbsd

package tilecopy

import (
	"syscall"
	"testing"
)

// guarded returns a slice of n bytes inside an anonymous mapping fenced by
// PROT_NONE pages on both sides, so that any access past either end of
// the slice faults. With atEnd the slice ends flush against the following
// guard page (so the first byte past its end faults); otherwise it starts
// flush after the preceding one (page-aligned, the first byte before it
// faults). The mapping is released when the test ends.
func guarded(t testing.TB, n int, atEnd bool) []byte {
	t.Helper()
	page := syscall.Getpagesize()
	body := (n + page - 1) / page * page
	if body == 0 {
		body = page
	}
	m, err := syscall.Mmap(-1, 0, body+2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap %d bytes: %v", body+2*page, err)
	}
	t.Cleanup(func() {
		if err := syscall.Munmap(m); err != nil {
			t.Errorf("munmap: %v", err)
		}
	})
	if err := syscall.Mprotect(m[:page], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	if err := syscall.Mprotect(m[page+body:], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	if atEnd {
		return m[page+body-n : page+body : page+body]
	}
	return m[page : page+n : page+n]
}
