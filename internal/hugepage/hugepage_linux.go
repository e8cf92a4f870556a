package hugepage

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// advise marks the whole huge pages inside b MADV_HUGEPAGE. A kernel
// without transparent huge pages refuses, and b stays on small pages.
func advise(b []byte) {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start + Size - 1) &^ (Size - 1)
	hi := (start + uintptr(len(b))) &^ (Size - 1)
	if hi <= lo {
		return
	}
	_ = unix.Madvise(b[lo-start:hi-start], unix.MADV_HUGEPAGE) // advice only
}
