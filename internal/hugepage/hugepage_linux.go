package hugepage

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// advise marks the whole huge pages inside b MADV_HUGEPAGE, or
// MADV_NOHUGEPAGE where huge is false. A kernel without transparent huge
// pages refuses, and b stays on small pages.
func advise(b []byte, huge bool) {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start + Size - 1) &^ (Size - 1)
	hi := (start + uintptr(len(b))) &^ (Size - 1)
	if hi <= lo {
		return
	}
	advice := unix.MADV_HUGEPAGE
	if !huge {
		advice = unix.MADV_NOHUGEPAGE
	}
	_ = unix.Madvise(b[lo-start:hi-start], advice) // advice only
}
