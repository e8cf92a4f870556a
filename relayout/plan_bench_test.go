package relayout_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tilecopy/tilecopy/relayout"
)

// benchCase is a case of the standard set (package bench), with the dims
// of its small (cache-resident) and large (DRAM) variants. The list
// mirrors bench.Standard, which relayout's tests do not import: the bench
// package sits above this one.
type benchCase struct {
	name         string
	dtype        string
	small, large []int64
	from, to     string  // layouts, between the braces
	padSmall     []int64 // Options.Pad.Widths, or nil
	padLarge     []int64
}

var benchCases = []benchCase{
	{"C1", "u8", []int64{512, 512}, []int64{16384, 16384}, "1,0", "0,1", nil, nil},
	{"C2", "u16", []int64{256, 512}, []int64{8192, 16384}, "1,0", "0,1", nil, nil},
	{"C3", "f32", []int64{256, 256}, []int64{8192, 8192}, "1,0", "0,1", nil, nil},
	{"C4", "f64", []int64{128, 256}, []int64{4096, 8192}, "1,0", "0,1", nil, nil},
	{"C5", "f32", []int64{4, 16, 32, 32}, []int64{64, 128, 256, 32}, "3,2,1,0", "3,1,2,0", nil, nil},
	{"C6", "f32", []int64{4, 16, 32, 32}, []int64{64, 128, 256, 32}, "3,2,1,0", "0,1,2,3", nil, nil},
	{"C7", "f32", []int64{4, 32, 16, 32}, []int64{64, 256, 128, 32}, "3,2,1,0", "2,1,3,0", nil, nil},
	{"C8", "f32", []int64{64, 64}, []int64{512, 512}, "1,0", "0,1", nil, nil},
	{"C9", "f32", []int64{100, 100}, []int64{1000, 1000}, "1,0", "1,0", []int64{104, 128}, []int64{1008, 1024}},
	{"T1", "f32", []int64{256, 256}, []int64{8192, 8192}, "1,0", "1,0:T(8,128)", nil, nil},
	{"T2", "bf16", []int64{256, 512}, []int64{8192, 16384}, "1,0", "1,0:T(8,128)(2,1)", nil, nil},
	{"T3", "s8", []int64{512, 512}, []int64{16384, 16384}, "1,0", "1,0:T(8,128)(4,1)", nil, nil},
	{"T4", "f32", []int64{256, 256}, []int64{8192, 8192}, "1,0:T(8,128)", "1,0", nil, nil},
	{"T5", "bf16", []int64{256, 512}, []int64{8192, 16384}, "1,0:T(8,128)(2,1)", "1,0", nil, nil},
	{"T6", "s8", []int64{512, 512}, []int64{16384, 16384}, "1,0:T(8,128)(4,1)", "1,0", nil, nil},
	{"S1", "s4", []int64{512, 512}, []int64{8192, 8192}, "1,0:E(4)", "0,1:E(4)", nil, nil},
}

func dimsName(dims []int64) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = strconv.FormatInt(d, 10)
	}
	return strings.Join(s, "x")
}

// shapes parses the case's shapes at dims and returns its options.
func (c benchCase) shapes(b *testing.B, large bool) (from, to relayout.Shape, opts relayout.Options) {
	dims, pad := c.small, c.padSmall
	if large {
		dims, pad = c.large, c.padLarge
	}
	text := func(layout string) string {
		return fmt.Sprintf("%s[%s]{%s}", c.dtype, strings.ReplaceAll(dimsName(dims), "x", ","), layout)
	}
	from, err := relayout.ParseShape(text(c.from))
	if err != nil {
		b.Fatal(err)
	}
	to, err = relayout.ParseShape(text(c.to))
	if err != nil {
		b.Fatal(err)
	}
	opts.Pad.Widths = pad
	return from, to, opts
}

// benchBuffer returns n bytes with every page written.
func benchBuffer(n int64) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + 1)
	}
	return b
}

// benchStandard runs each standard case, small (in cache) and large (from
// DRAM), as sub-benchmarks C3/256x256, C3/8192x8192, …, with throughput
// counting the bytes read plus the bytes written. With compile set, every
// iteration compiles the plan before running it.
func benchStandard(b *testing.B, compile bool) {
	for _, c := range benchCases {
		for _, large := range []bool{false, true} {
			dims := c.small
			if large {
				dims = c.large
			}
			b.Run(c.name+"/"+dimsName(dims), func(b *testing.B) {
				from, to, opts := c.shapes(b, large)
				p, err := relayout.Compile(from, to, &opts)
				if err != nil {
					b.Fatal(err)
				}
				src, dst := benchBuffer(p.SourceSize()), benchBuffer(p.DestinationSize())
				b.SetBytes(p.SourceSize() + p.DestinationSize())
				for b.Loop() {
					if compile {
						if p, err = relayout.Compile(from, to, &opts); err != nil {
							b.Fatal(err)
						}
					}
					if err := p.Run(dst, src); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkRun runs a compiled plan of each standard case, small and
// large. Compare with BenchmarkCopy of the same size.
func BenchmarkRun(b *testing.B) { benchStandard(b, false) }

// BenchmarkCompileRun compiles and runs each standard case, small and
// large: what a one-off relayout costs.
func BenchmarkCompileRun(b *testing.B) { benchStandard(b, true) }

// BenchmarkCopy is copy() of the bytes per side of the small and large
// standard cases: the limit BenchmarkCompileRun is measured against.
func BenchmarkCopy(b *testing.B) {
	for _, n := range []int64{256 << 10, 256 << 20} {
		name := fmt.Sprintf("%dKiB", n>>10)
		if n >= 1<<20 {
			name = fmt.Sprintf("%dMiB", n>>20)
		}
		b.Run(name, func(b *testing.B) {
			src, dst := benchBuffer(n), benchBuffer(n)
			b.SetBytes(2 * n)
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}

// BenchmarkCompile plans a rank-6 pair: a row-major bf16 array into a
// permuted, two-level tiled layout. It moves no data.
func BenchmarkCompile(b *testing.B) {
	for _, pair := range [][2]string{
		{"bf16[2,3,8,16,32,128]{5,4,3,2,1,0}", "bf16[2,3,8,16,32,128]{1,3,5,0,2,4:T(8,128)(2,1)}"},
		{"f32[3,5,7,11,13,17]{5,4,3,2,1,0}", "f32[3,5,7,11,13,17]{0,2,4,1,3,5:T(4,8)}"},
	} {
		from, err := relayout.ParseShape(pair[0])
		if err != nil {
			b.Fatal(err)
		}
		to, err := relayout.ParseShape(pair[1])
		if err != nil {
			b.Fatal(err)
		}
		b.Run(dimsName(slices.Clone(from.Dims())), func(b *testing.B) {
			for b.Loop() {
				if _, err := relayout.Compile(from, to, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
