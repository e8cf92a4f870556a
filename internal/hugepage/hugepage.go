// Package hugepage allocates the large buffers of the command and the
// benchmarks on huge pages where the system offers them on request.
//
// A transpose reads a little of every source row in each block, a row a
// page apart or more in a large array, and so misses the TLB at almost
// every row on 4 KiB pages; on 2 MiB pages one entry covers 512 of them.
// Linux backs anonymous memory with huge pages either always or, where
// transparent_hugepage is "madvise", only in ranges marked
// MADV_HUGEPAGE, which Go's runtime does not mark.
package hugepage

// Alloc returns a zeroed buffer of n bytes. Where the system backs memory
// with huge pages on request, the 2 MiB pages that lie whole inside the
// buffer are asked for before it is first touched.
func Alloc(n int) []byte { return alloc(n, true) }

// AllocSmall returns a zeroed buffer of n bytes on small pages where the
// system lets a program ask so (where transparent_hugepage is "always",
// for one): the pages most programs' buffers get, which a tuning must
// suit as well as huge ones.
func AllocSmall(n int) []byte { return alloc(n, false) }

// alloc returns a zeroed buffer of n bytes whose whole 2 MiB pages are
// asked for on huge pages, or on small ones, before they are touched.
func alloc(n int, huge bool) []byte {
	b := make([]byte, n)
	if n >= Size {
		advise(b, huge)
	}
	return b
}

// Size is the huge page size asked for: 2 MiB, the x86-64 and arm64
// (4 KiB granule) transparent huge page.
const Size = 2 << 20
