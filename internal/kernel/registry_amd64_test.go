//go:build gc && !purego && !noasm

package kernel

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// TestRegistry checks the generated table against the functions it
// names: each entry's function is the one of its name, at the level its
// name ends with (if any), and the kernels of one kind and stream flag share one
// type (the one the dispatch asserts, for the transposes strip runs).
func TestRegistry(t *testing.T) {
	transposeType := reflect.TypeOf((func(dst *byte, dstStride int, src *byte, srcStride int, n int))(nil))
	types := map[asmKind]reflect.Type{
		asmTranspose: transposeType, asmTransposeRows: transposeType,
		asmTransposeTo: transposeType, asmTransposeFrom: transposeType,
	}
	typeOf := map[[2]int]reflect.Type{}
	names := map[string]bool{}
	for id, e := range asmKernels {
		if names[e.name] {
			t.Errorf("%s: twice in the table", e.name)
		}
		names[e.name] = true
		fn := reflect.ValueOf(e.fn)
		if fn.Kind() != reflect.Func || fn.IsNil() {
			t.Errorf("%s: fn is %T, not a function", e.name, e.fn)
			continue
		}
		if got := runtime.FuncForPC(fn.Pointer()).Name(); !strings.HasSuffix(got, "."+e.name) {
			t.Errorf("%s: fn is %s", e.name, got)
		}
		// A name ends with its level; a kernel whose name has none may
		// still need one.
		for suffix, level := range map[string]string{"AVX512": levelAVX512, "AVX2": levelAVX2} {
			if strings.HasSuffix(e.name, suffix) && e.level != level {
				t.Errorf("%s: level %q", e.name, e.level)
			}
		}
		key := [2]int{int(e.kind), int(e.flags & asmStream)}
		if want, ok := typeOf[key]; ok && fn.Type() != want {
			t.Errorf("%s: type %v, its kind's is %v", e.name, fn.Type(), want)
		}
		typeOf[key] = fn.Type()
		if want, ok := types[e.kind]; ok && fn.Type() != want {
			t.Errorf("%s: type %v, want %v", e.name, fn.Type(), want)
		}
		if k := 1 + kernelID(id); types[e.kind] != nil && stripKernels[k] == nil {
			t.Errorf("%s: strip cannot run it", e.name)
		}
	}
}

// TestTransposeKernel checks which kernel the registry's plain
// transposes give each element width at each level.
func TestTransposeKernel(t *testing.T) {
	saved := [3]bool{useAVX2, useAVX512, useVBMI}
	t.Cleanup(func() { useAVX2, useAVX512, useVBMI = saved[0], saved[1], saved[2] })
	const avx2, avx512, vbmi = 1, 2, 4
	tests := []struct {
		levels int
		width  int
		want   string // the kernel's name; "" for none
	}{
		{avx2 | avx512 | vbmi, 1, "transpose1AVX512"},
		{avx2 | avx512, 1, "transpose1AVX2"},
		{avx2 | avx512, 2, "transpose2AVX512"},
		{avx2 | avx512 | vbmi, 3, "transpose3AVX512"},
		{avx2 | avx512, 3, "transpose3AVX2"},
		{avx2 | avx512, 5, ""},
		{avx2 | avx512 | vbmi, 5, "transpose5AVX512"},
		{avx2, 4, "transpose4AVX2"},
		{avx2, 12, "transpose12AVX2"},
		{avx2, 7, ""},
		{avx2 | avx512, 16, "transpose16AVX512"},
		{avx2 | avx512 | vbmi, 32, ""},
		{0, 4, ""},
	}
	for _, tt := range tests {
		useAVX2, useAVX512, useVBMI = tt.levels&avx2 != 0, tt.levels&avx512 != 0, tt.levels&vbmi != 0
		got := ""
		if k := transposeKernel(tt.width); k != kNone {
			got = asmKernels[k-1].name
		}
		if got != tt.want {
			t.Errorf("levels %b, width %d: kernel %q, want %q", tt.levels, tt.width, got, tt.want)
		}
	}
}
