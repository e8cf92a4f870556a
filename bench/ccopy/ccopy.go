//go:build cgo

package ccopy

// #cgo CFLAGS: -O2
// #cgo amd64 CFLAGS: -mavx2
// #include "ccopy.h"
import "C"
import "unsafe"

// Memcpy is C's memcpy(dst, src, min(len(dst), len(src))).
func Memcpy(dst, src []byte) {
	if n := min(len(dst), len(src)); n > 0 {
		C.ccopy_memcpy(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), C.size_t(n))
	}
}

// Stream is the C streaming copy over parts parts of min(len(dst),
// len(src)) bytes.
func Stream(dst, src []byte, parts int) {
	if n := min(len(dst), len(src)); n > 0 {
		C.ccopy_stream(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), C.size_t(n), C.int(parts))
	}
}
