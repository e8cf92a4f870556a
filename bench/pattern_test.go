package bench

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/tilecopy/tilecopy/internal/hugepage"
)

// BenchmarkReadPattern times one goroutine reading 256 MiB on huge pages,
// a word of each 64-byte line (so that the time is the memory's, not the
// loads'), in the patterns a relayout reads in: sequentially, or a chunk
// from each of several places in turn, the places far apart (the source
// rows of a transpose's tile, read a line or a few at a time; a walk over
// tiles of 4 or 16 KiB). It reports each pattern's GB/s read (b.SetBytes): how far the
// machine lets a relayout that cannot read sequentially go past the
// caches, against the sequential read of a copy (docs/perf).
//
//	go test -run '^$' -bench ReadPattern -benchtime 5x ./bench
func BenchmarkReadPattern(b *testing.B) {
	const size = 256 << 20
	src := hugepage.Alloc(size)
	for i := range src {
		src[i] = byte(i)
	}
	var sink uint64
	for _, c := range []struct{ places, chunk int }{
		{1, 64 << 10}, {2, 4 << 10}, {16, 1 << 10}, {16, 4 << 10}, {16, 16 << 10}, {128, 1 << 10}, {128, 4 << 10},
	} {
		b.Run(fmt.Sprintf("places=%d/chunk=%d", c.places, c.chunk), func(b *testing.B) {
			span := size / c.places // the bytes read at each place
			b.SetBytes(size)
			for range b.N {
				for off := 0; off < span; off += c.chunk {
					for p := range c.places {
						sink += touchLines(src[p*span+off:][:c.chunk])
					}
				}
			}
		})
	}
	_ = sink
}

// touchLines reads a word of each 64-byte line of b, four lines a step.
func touchLines(b []byte) uint64 {
	var s0, s1, s2, s3 uint64
	for i := 0; i+256 <= len(b); i += 256 {
		s0 += binary.LittleEndian.Uint64(b[i:])
		s1 += binary.LittleEndian.Uint64(b[i+64:])
		s2 += binary.LittleEndian.Uint64(b[i+128:])
		s3 += binary.LittleEndian.Uint64(b[i+192:])
	}
	return s0 + s1 + s2 + s3
}
