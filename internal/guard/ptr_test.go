package guard

import "unsafe"

// ptrAt is the address i bytes from the start of b, which may lie
// outside it.
func ptrAt(b []byte, i int) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i)
}
