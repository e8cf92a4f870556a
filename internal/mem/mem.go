// Package mem has the facts about byte slices that the kernels and the
// planner both check: whether two of them share memory.
package mem

import "unsafe"

// Overlap reports whether a and b share a byte.
func Overlap(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa := uintptr(unsafe.Pointer(unsafe.SliceData(a)))
	pb := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}
