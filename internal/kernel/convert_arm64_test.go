//go:build arm64 && gc && !purego && !noasm

package kernel

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestFPCRDefault checks the assumption under which the f16 kernels
// match the generic code: a Go program runs with FPCR's rounding, flush,
// default-NaN and alternative half-precision bits clear.
func TestFPCRDefault(t *testing.T) {
	if got := fpcr(); got&fpcrModes != 0 {
		t.Fatalf("FPCR is %#x: modes %#x set", got, got&fpcrModes)
	}
}

// TestConvertFPCRModes checks that convertAsm leaves f16 to the generic
// code while FPCR has a mode FCVTN and FCVTL would obey (faked: Go
// cannot set FPCR), and keeps bf16, which is integer arithmetic.
func TestConvertFPCRModes(t *testing.T) {
	level, saved := Level(), readFPCR
	t.Cleanup(func() { readFPCR = saved; setLevel(level) })
	if !setLevel(levelNEON) {
		t.Skip("no NEON")
	}
	r := rand.New(rand.NewPCG(42, 9))
	for _, mode := range []uint64{1 << 26, 1 << 25, 1 << 24, 1 << 22, 3 << 22, 1 << 1, 1} {
		readFPCR = func() uint64 { return mode }
		for k := range numConvKinds {
			want := 0
			if k == convF32ToBF16 || k == convBF16ToF32 {
				want = 32
			}
			src := convertInputs(r, k, 40)
			dst := make([]byte, 4*40)
			if got := convertAsm(k, dst, src, 40, false); got != want {
				t.Errorf("FPCR %#x, kind %d: the kernels converted %d of 40 elements, want %d", mode, k, got, want)
			}
			gen := make([]byte, 4*40)
			convertGeneric(k, gen, src, 40)
			convert(k, dst, src, 40, nil)
			if !bytes.Equal(dst, gen) {
				t.Errorf("FPCR %#x, kind %d: the conversion differs from the generic one", mode, k)
			}
		}
	}
}
