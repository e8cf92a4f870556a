package main

import (
	"testing"

	"github.com/tilecopy/tilecopy/relayout"
)

func TestPlanSteps(t *testing.T) {
	tests := []struct {
		from, to  string
		scattered bool
		perStep   int64 // 0: only check perStep*bytes per chunk ≤ budget
	}{
		// A chunk is one destination row of 128 KiB reading 4 bytes of
		// each of 32768 source rows: 1024 chunks read one page per row.
		{"f32[32768,24576]", "f32[32768,24576]{0,1}", true, 1024},
		{"f32[32768,24576]{0,1}", "f32[32768,24576]", true, 0},
		{"f32[32768,24576]", "f32[32768,24576]{1,0:T(8,128)}", false, 0},
		{"f32[64,128,256,32]", "f32[64,128,256,32]{3,1,2,0}", false, 0},
		{"f32[1,300]", "f32[1,300]{0,1}", false, 0},
		// Packed two to a byte: 32768 source rows of 32 KiB, read in 128
		// chunks (bands of the field plan) of 256 bytes of each row and
		// 8 MiB of destination: 16 of them read one page of each row
		// and write 128 MiB.
		{"s4[32768,65536]{1,0:E(4)}", "s4[32768,65536]{0,1:E(4)}", true, 16},
	}
	for _, tc := range tests {
		t.Run(tc.from+"->"+tc.to, func(t *testing.T) {
			from, _ := relayout.ParseShape(tc.from)
			to, _ := relayout.ParseShape(tc.to)
			p, err := relayout.Compile(from, to, nil)
			if err != nil {
				t.Fatal(err)
			}
			st := planSteps(p, stepBudget, 4096)
			t.Logf("%d chunks, %d per step, scattered %v", st.chunks, st.perStep, st.scattered)
			if st.scattered != tc.scattered {
				t.Errorf("scattered = %v, want %v", st.scattered, tc.scattered)
			}
			if st.perStep < 1 || st.perStep > max(st.chunks, 1) {
				t.Errorf("%d chunks per step of %d", st.perStep, st.chunks)
			}
			if tc.perStep != 0 && st.perStep != tc.perStep {
				t.Errorf("%d chunks per step, want %d", st.perStep, tc.perStep)
			}
			if st.rows > 0 && st.rows*st.rowStride != p.SourceSize() {
				t.Errorf("%d source rows of %d bytes, want %d bytes in all", st.rows, st.rowStride, p.SourceSize())
			}
			if !st.scattered && st.chunks > 1 {
				if per := (p.SourceSize() + p.DestinationSize()) / st.chunks; st.perStep > 1 && st.perStep*per > stepBudget {
					t.Errorf("a step of %d chunks covers %d bytes, over %d", st.perStep, st.perStep*per, stepBudget)
				}
			}
		})
	}
}
