package kernel

import (
	"testing"

	"github.com/tilecopy/tilecopy/internal/guard"
)

// guarded returns a slice of n bytes fenced by inaccessible pages on both
// sides (guard.Buffer): with atEnd it ends flush against the following
// fence, otherwise it starts flush after the preceding one. It is
// released when the test ends.
func guarded(t testing.TB, n int, atEnd bool) []byte {
	t.Helper()
	return guard.Buffer(t, n, atEnd)
}
