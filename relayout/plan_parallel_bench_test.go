package relayout

import (
	"fmt"
	"testing"
)

// BenchmarkSplit runs plans of growing size on one goroutine and split in
// two with no lower bound (parallelMin 0), to find where splitting starts
// to pay: the size tilecopy.Tuning.ParallelMinBytes is set from. Compare threads=1 and
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

// BenchmarkRunRange times a plan run whole (Run) and as a mapped
// conversion runs it (RunRange over 16 steps of consecutive chunks, one
// goroutine), beside copy() of as many bytes: 4-bit values held a byte,
// whose chunk ranges run slab by slab where a Run packs the whole array
// first, each way between column-major and the tpu preset, and s8, whose
// plan is one transpose either way. Compare each sub-benchmark's MB/s
// with its copy's.
func BenchmarkRunRange(b *testing.B) {
	for _, c := range []struct{ name, from, to string }{
		{"s4-colmajor-to-tpu", "s4[8192,8192]{0,1}", "s4[8192,8192]{1,0:T(8,128)(8,1)E(4)}"},
		{"s4-tpu-to-colmajor", "s4[8192,8192]{1,0:T(8,128)(8,1)E(4)}", "s4[8192,8192]{0,1}"},
		{"s8-colmajor-to-tpu", "s8[8192,8192]{0,1}", "s8[8192,8192]{1,0:T(8,128)(4,1)}"},
	} {
		from, err := ParseShape(c.from)
		if err != nil {
			b.Fatal(err)
		}
		to, err := ParseShape(c.to)
		if err != nil {
			b.Fatal(err)
		}
		p, err := Compile(from, to, &Options{Threads: 1})
		if err != nil {
			b.Fatal(err)
		}
		src, dst := make([]byte, p.SourceSize()), make([]byte, p.DestinationSize())
		b.Run(c.name+"/copy", func(b *testing.B) {
			// As many bytes read and written as the plan moves.
			n := (p.SourceSize() + p.DestinationSize()) / 2
			x, y := make([]byte, n), make([]byte, n)
			copy(y, x) // fault the pages in
			b.SetBytes(2 * n)
			for b.Loop() {
				copy(y, x)
			}
		})
		b.Run(c.name+"/Run", func(b *testing.B) {
			b.SetBytes(p.SourceSize() + p.DestinationSize())
			for b.Loop() {
				if err := p.Run(dst, src); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/RunRange", func(b *testing.B) {
			b.SetBytes(p.SourceSize() + p.DestinationSize())
			n := p.Chunks()
			step := max(n/16, 1)
			for b.Loop() {
				for lo := int64(0); lo < n; lo += step {
					if err := p.RunRange(dst, src, lo, min(lo+step, n)); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
