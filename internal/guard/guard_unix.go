//go:build linux || darwin || freebsd || netbsd || openbsd

package guard

import (
	"fmt"
	"syscall"
	"unsafe"
)

// Fenced reports whether Alloc's buffers are fenced by inaccessible
// pages here.
const Fenced = true

// Alloc returns a slice of n bytes inside an anonymous mapping fenced by
// PROT_NONE pages on both sides, and the function that unmaps it. With
// atEnd the slice ends flush against the following guard page (the first
// byte past its end faults); otherwise it starts flush after the
// preceding one (page-aligned, the byte before it faults).
func Alloc(n int, atEnd bool) (b []byte, release func() error, err error) {
	page := syscall.Getpagesize()
	body := max((n+page-1)/page*page, page)
	m, err := syscall.Mmap(-1, 0, body+2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, fmt.Errorf("guard: mmap %d bytes: %w", body+2*page, err)
	}
	release = func() error {
		if err := syscall.Munmap(m); err != nil {
			return fmt.Errorf("guard: munmap: %w", err)
		}
		return nil
	}
	for _, fence := range [][]byte{m[:page], m[page+body:]} {
		if err := syscall.Mprotect(fence, syscall.PROT_NONE); err != nil {
			release()
			return nil, nil, fmt.Errorf("guard: mprotect: %w", err)
		}
	}
	if atEnd {
		return m[page+body-n : page+body : page+body], release, nil
	}
	return m[page : page+n : page+n], release, nil
}

// ReadOnly makes the pages that hold b, a slice from Alloc, read-only,
// so that a write into it faults.
func ReadOnly(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	page := uintptr(syscall.Getpagesize())
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo, hi := p&^(page-1), (p+uintptr(len(b))+page-1)&^(page-1)
	if err := syscall.Mprotect(unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), -int(p-lo))), hi-lo), syscall.PROT_READ); err != nil {
		return fmt.Errorf("guard: mprotect: %w", err)
	}
	return nil
}
