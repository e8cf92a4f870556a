//go:build cgo

package ccopy

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

// BenchmarkCopy times, on buffers of 8, 64 and 256 MiB split over one or
// two goroutines, four copies interleaved in each of b.N rounds, in a
// random order each round: C's memcpy, the C streaming copy over 8
// parts, Go's copy() and kernel.Copy. It reports each one's median GB/s
// (bytes read + written) and kernel.Copy's ratio to the best of the two
// C copies.
func BenchmarkCopy(b *testing.B) {
	for _, mib := range []int{8, 64, 256} {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%dMiB/threads=%d", mib, threads), func(b *testing.B) {
				n := mib << 20
				src, dst := make([]byte, n), make([]byte, n)
				for i := range src {
					src[i] = byte(i)
				}
				copy(dst, src)
				ops := []struct {
					name string
					f    func(dst, src []byte)
				}{
					{"memcpy", Memcpy},
					{"cstream8", func(dst, src []byte) { Stream(dst, src, 8) }},
					{"copy", func(dst, src []byte) { copy(dst, src) }},
					{"Copy", func(dst, src []byte) { kernel.Copy(dst, src) }},
				}
				times := make([][]time.Duration, len(ops))
				b.ResetTimer()
				// Each copy is timed after two untimed calls of its own,
				// so that it finds the caches as it leaves them when it
				// runs again and again (a copy that streams leaves the
				// destination out of the caches, one that does not leaves
				// it in). The copies run in a new random order each round:
				// in a fixed one, the copy after a streaming one ran up to
				// a tenth slower even so (docs/perf).
				rng := rand.New(rand.NewPCG(uint64(mib), uint64(threads)))
				order := make([]int, len(ops))
				for i := range order {
					order[i] = i
				}
				for range b.N {
					rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
					for _, k := range order {
						split(dst, src, threads, ops[k].f)
						split(dst, src, threads, ops[k].f)
						t0 := time.Now()
						split(dst, src, threads, ops[k].f)
						times[k] = append(times[k], time.Since(t0))
					}
				}
				gbps := make([]float64, len(ops))
				for k, op := range ops {
					slices.Sort(times[k])
					gbps[k] = float64(2*n) / float64(times[k][len(times[k])/2].Nanoseconds())
					b.ReportMetric(gbps[k], op.name+"_GB/s")
				}
				b.ReportMetric(gbps[3]/max(gbps[0], gbps[1]), "Copy/bestC")
			})
		}
	}
}

// split runs f over threads equal parts of dst and src at once.
func split(dst, src []byte, threads int, f func(dst, src []byte)) {
	if threads == 1 {
		f(dst, src)
		return
	}
	part := (len(dst)/threads + 4095) &^ 4095
	var wg sync.WaitGroup
	for a := 0; a < len(dst); a += part {
		e := min(a+part, len(dst))
		wg.Go(func() { f(dst[a:e], src[a:e]) })
	}
	wg.Wait()
}
