//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package guard

// Fenced reports whether Alloc's buffers are fenced by inaccessible
// pages here.
const Fenced = false

// Alloc returns n bytes of ordinary memory where the system has no mmap,
// and a release that does nothing.
func Alloc(n int, atEnd bool) (b []byte, release func() error, err error) {
	return make([]byte, n), func() error { return nil }, nil
}

// ReadOnly does nothing where the system has no mmap.
func ReadOnly(b []byte) error { return nil }
