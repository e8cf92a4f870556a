package relayout

import (
	"fmt"
	"testing"
)

// BenchmarkSplit runs plans of growing size on one goroutine and split in
// two with no lower bound (parallelMin 0), to find where splitting starts
// to pay: the size parallelMinBytes is set from. Compare threads=1 and
// threads=2 at each size with benchstat.
func BenchmarkSplit(b *testing.B) {
	for _, c := range []struct {
		name     string
		from, to string // %d is the size of the dim that grows
		kib      int    // KiB of destination per value of that dim
	}{
		{"transpose", "f32[%d,512]{1,0}", "f32[%d,512]{0,1}", 2},
		{"permute", "f32[%d,16,8,32]{3,2,1,0}", "f32[%d,16,8,32]{3,1,2,0}", 16},
		{"tile", "bf16[%d,512]{1,0}", "bf16[%d,512]{1,0:T(8,128)(2,1)}", 1},
	} {
		for kib := 256; kib <= 32<<10; kib *= 2 {
			for _, threads := range []int{1, 2} {
				from, err := ParseShape(fmt.Sprintf(c.from, kib/c.kib))
				if err != nil {
					b.Fatal(err)
				}
				to, err := ParseShape(fmt.Sprintf(c.to, kib/c.kib))
				if err != nil {
					b.Fatal(err)
				}
				p, err := Compile(from, to, &Options{Threads: threads})
				if err != nil {
					b.Fatal(err)
				}
				p.parallelMin = 0
				name := fmt.Sprintf("%s/%dKiB/threads=%d", c.name, p.DestinationSize()>>10, threads)
				b.Run(name, func(b *testing.B) {
					src, dst := make([]byte, p.SourceSize()), make([]byte, p.DestinationSize())
					b.SetBytes(p.SourceSize() + p.DestinationSize())
					for b.Loop() {
						if err := p.Run(dst, src); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
