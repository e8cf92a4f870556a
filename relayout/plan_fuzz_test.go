package relayout

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// FuzzCompile turns arbitrary bytes into a (from, to, padding) case, as
// the differential test draws them, and checks that Compile and Run never
// panic and give the oracle's bytes.
func FuzzCompile(f *testing.F) {
	fuzzSeeds(f, []uint64{1, 26, 1158, 1819, 4242}, randomPair)
}

// fuzzSeeds fuzzes the cases that draw makes of seeds: the first 8
// bytes of each input, little-endian.
func fuzzSeeds(f *testing.F, seeds []uint64, draw func(uint64) (Shape, Shape, Options)) {
	for _, seed := range seeds {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], seed)
		f.Add(b[:])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var b [8]byte
		copy(b[:], data)
		seed := binary.LittleEndian.Uint64(b[:])
		from, to, opts := draw(seed)
		checkPair(t, seed, from, to, opts)
	})
}

// FuzzCompileText compiles fuzzer-chosen shape text pairs: whatever parses
// must either be refused with an error or run and match the oracle.
func FuzzCompileText(f *testing.F) {
	f.Add("f32[3,5]", "f32[3,5]{0,1:T(2,2)}")
	f.Add("bf16[3,3]", "bf16[3,3]{1,0:T(2,2)(2,1)}")
	f.Add("s4[5,3]{1,0:E(4)}", "s4[5,3]{0,1:T(2,4)}")
	f.Add("f32[3,130]", "bf16[3,130]{1,0:T(8,128)(2,1)}")
	f.Add("s4[5,3]{1,0:E(4)}", "s32[5,3]{0,1:T(2,4)}")
	f.Add("u16[8,8]", "u16[8,8]{1,0:T(2,4)(2,1,1,1)}")
	f.Add("f32[2,7,8,11,10]", "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}")
	f.Fuzz(func(t *testing.T, a, b string) {
		from, err := ParseShape(a)
		if err != nil {
			return
		}
		to, err := ParseShape(b)
		if err != nil {
			return
		}
		n, err := from.ByteSize()
		if err != nil || n > 1<<16 {
			return
		}
		if m, err := to.ByteSize(); err != nil || m > 1<<16 {
			return
		}
		checkPair(t, 7, from, to, Options{})
	})
}

// FuzzCompileConvert is FuzzCompile for pairs of different element types
// (convertPair).
func FuzzCompileConvert(f *testing.F) {
	fuzzSeeds(f, []uint64{1, 112, 4242}, convertPair)
}

// FuzzBlocked is FuzzCompile with a blocked plan forced on every pair
// whose walk can take one (newBlocked), not only on those of tiny
// kernel blocks.
func FuzzBlocked(f *testing.F) {
	fuzzSeeds(f, []uint64{1, 49, 1180, 4242}, func(seed uint64) (Shape, Shape, Options) {
		from, to, opts := randomPair(seed)
		opts.forceBlocked = true
		return from, to, opts
	})
}

// FuzzMixed is FuzzCompile for pairs of 4-bit layouts whose bytes pair
// different dims (randomMixedPair), a mixed plan forced on every pair
// that can take one.
func FuzzMixed(f *testing.F) {
	fuzzSeeds(f, []uint64{1, 123, 134, 2707}, func(seed uint64) (Shape, Shape, Options) {
		return randomMixedPair(rand.New(rand.NewPCG(seed, 0x313ed)))
	})
}
