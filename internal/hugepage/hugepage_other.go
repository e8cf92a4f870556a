//go:build !linux

package hugepage

// advise does nothing where no huge pages are offered on request.
func advise([]byte, bool) {}
