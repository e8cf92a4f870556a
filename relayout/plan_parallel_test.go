package relayout

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestChunkBand checks, over random pairs and random chunk ranges, that
// RunRange reads no source element outside the band ChunkBand reports:
// with every other element's bytes changed, the run writes the same
// bytes.
func TestChunkBand(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 600
	}
	banded := 0
	for seed := range uint64(n) {
		from, to, opts := randomPair(seed)
		opts.Threads = 1
		p, err := Compile(from, to, &opts)
		if err != nil {
			continue
		}
		chunks := p.Chunks()
		if _, _, _, ok := p.ChunkBand(0, chunks); !ok {
			continue
		}
		r := rand.New(rand.NewPCG(seed, 3))
		lo := r.Int64N(chunks)
		hi := lo + 1 + r.Int64N(chunks-lo)
		dim, a, b, ok := p.ChunkBand(lo, hi)
		if !ok || a > b || b > from.dims[dim] {
			t.Fatalf("seed %d: %s -> %s: ChunkBand(%d, %d) = d%d [%d, %d) %v", seed, from, to, lo, hi, dim, a, b, ok)
		}
		banded++
		src := fillRandom(p.SourceSize(), seed)
		poisoned := bytes.Clone(src)
		width := int64(from.dtype.ByteWidth())
		idx := make([]int64, len(from.dims))
		for {
			if idx[dim] < a || idx[dim] >= b {
				off := p.fm.Offset(idx) * width
				for i := range width {
					poisoned[off+i] ^= 0xff
				}
			}
			if !nextIndex(idx, from.dims) {
				break
			}
		}
		got := bytes.Repeat([]byte{0x5a}, int(p.DestinationSize()))
		want := bytes.Clone(got)
		if err := p.RunRange(want, src, lo, hi); err != nil {
			t.Fatal(err)
		}
		if err := p.RunRange(got, poisoned, lo, hi); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("seed %d: %s -> %s: chunks [%d,%d) read outside d%d [%d, %d)\n%s", seed, from, to, lo, hi, dim, a, b, p)
		}
	}
	t.Logf("%d of %d cases have bands", banded, n)
	if banded < n/10 {
		t.Errorf("only %d of %d cases have bands", banded, n)
	}
}

// nextIndex advances idx over dims in row-major order and reports
// whether it did not wrap around (false also for an empty array).
func nextIndex(idx, dims []int64) bool {
	for i := len(idx) - 1; i >= 0; i-- {
		if idx[i]++; idx[i] < dims[i] {
			return true
		}
		idx[i] = 0
	}
	return false
}
