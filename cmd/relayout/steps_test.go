package main

import (
	"slices"
	"testing"

	"github.com/tilecopy/tilecopy/internal/tuningtest"
	"github.com/tilecopy/tilecopy/relayout"
)

func TestPlanSteps(t *testing.T) {
	tuningtest.Reference(t) // the chunks follow the tuning
	tests := []struct {
		from, to string
		source   sourceMode
		perStep  int64 // 0: only check perStep*bytes per chunk ≤ budget; -1: all chunks
	}{
		// A chunk is one destination row of 128 KiB reading 4 bytes of
		// each of 32768 source rows: 1024 chunks read one page per row.
		{"f32[32768,24576]", "f32[32768,24576]{0,1}", sourceRead, 1024},
		{"f32[32768,24576]{0,1}", "f32[32768,24576]", sourceRead, 0},
		{"f32[32768,24576]", "f32[32768,24576]{1,0:T(8,128)}", sourceMapped, 0},
		{"f32[64,128,256,32]", "f32[64,128,256,32]{3,1,2,0}", sourceMapped, 0},
		{"f32[1,300]", "f32[1,300]{0,1}", sourceMapped, -1},
		// Within the budget, source and destination together: one step,
		// the source mapped and left in the page cache.
		{"f32[65536,256]", "f32[65536,256]{0,1}", sourceMapped, -1},
		{"f32[64,64,64,64]", "f32[64,64,64,64]{0,1,2,3}", sourceMapped, -1},
		// Taller: 3 GiB whose rows of 1 KiB share pages, so that every
		// step reads every source page: the source stays resident, read
		// once, and a step is 256 MiB of destination (21 rows of 12 MiB).
		{"f32[3145728,256]", "f32[3145728,256]{0,1}", sourceWhole, 21},
		// A tiled source has no simple bands: mapped cold.
		{"f32[32768,24576]{1,0:T(8,128)}", "f32[32768,24576]{0,1}", sourceCold, 0},
		// Packed two to a byte: 32768 source rows of 32 KiB, read in 128
		// chunks (bands of the field plan) of 256 bytes of each row and
		// 8 MiB of destination: 16 of them read one page of each row
		// and write 128 MiB.
		{"s4[32768,65536]{1,0:E(4)}", "s4[32768,65536]{0,1:E(4)}", sourceCold, 16},
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
			t.Logf("%d chunks, %d per step, source %v", st.chunks, st.perStep, st.source)
			if st.source != tc.source {
				t.Errorf("source %v, want %v", st.source, tc.source)
			}
			if st.perStep < 1 || st.perStep > max(st.chunks, 1) {
				t.Errorf("%d chunks per step of %d", st.perStep, st.chunks)
			}
			switch {
			case tc.perStep == -1 && st.perStep != st.chunks:
				t.Errorf("%d chunks per step, want all %d", st.perStep, st.chunks)
			case tc.perStep > 0 && st.perStep != tc.perStep:
				t.Errorf("%d chunks per step, want %d", st.perStep, tc.perStep)
			}
			if st.rows > 0 && st.rows*st.rowStride != p.SourceSize() {
				t.Errorf("%d source rows of %d bytes, want %d bytes in all", st.rows, st.rowStride, p.SourceSize())
			}
			if st.source == sourceMapped && st.chunks > 1 && tc.perStep == 0 {
				if per := (p.SourceSize() + p.DestinationSize()) / st.chunks; st.perStep > 1 && st.perStep*per > stepBudget {
					t.Errorf("a step of %d chunks covers %d bytes, over %d", st.perStep, st.perStep*per, stepBudget)
				}
			}
		})
	}
}

func TestUncachedRuns(t *testing.T) {
	tests := []struct {
		cached []byte
		size   int64
		want   [][2]int64
	}{
		{nil, 10000, [][2]int64{{0, 10000}}},
		{nil, 0, nil},
		{[]byte{1, 1, 1}, 10000, nil},
		{[]byte{0, 0, 0}, 10000, [][2]int64{{0, 10000}}},
		{[]byte{1, 0, 0, 1, 0}, 4*4096 + 5, [][2]int64{{4096, 3 * 4096}, {4 * 4096, 4*4096 + 5}}},
		{[]byte{0, 3, 2}, 3 * 4096, [][2]int64{{0, 4096}, {2 * 4096, 3 * 4096}}}, // bit 0 only
	}
	for _, tc := range tests {
		if got := uncachedRuns(tc.cached, tc.size, 4096); !slices.Equal(got, tc.want) {
			t.Errorf("uncachedRuns(%v, %d) = %v, want %v", tc.cached, tc.size, got, tc.want)
		}
	}
}
