package kernel

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/cpuid/v2"
)

// setTuning changes the tuning in use with change until tb ends, when it
// is restored: the one way tests swap the tuning.
func setTuning(tb testing.TB, change func(*Tuning)) {
	tb.Helper()
	saved := tuning
	next := tuning
	change(&next)
	tuning = next
	tb.Cleanup(func() { tuning = saved })
}

// TestTuningFor checks the tuning derived from a CPU's caches and
// vendor: each case changes the fields it names from those of an AMD
// core with 48 KiB L1d, 1 MiB L2 and 32 MiB L3.
func TestTuningFor(t *testing.T) {
	base := Tuning{
		CopyStreamBytes: 8 << 20, CopyParts: 4, CopyAhead: 1024,
		RunStreamBytes: 16 << 20, TransposeStreamBytes: 16 << 20, LineStreamBytes: 2 << 20,
		Band: 1024, StageRow: 1024, StageCol: 512, GridGroup: 128 << 10,
		CopiedRow: 512, CopiedCol: 128, ParallelMinBytes: 4 << 20,
		PackedOnePassBytes: 1 << 20, FieldBandBytes: 8 << 20, UnpackRunBytes: 128 << 20,
		CopyRepBytes: 1 << 20,
	}
	for _, c := range []struct {
		name   string
		m      machine
		change func(*Tuning)
	}{
		{"amd", machine{48 << 10, 1 << 20, 32 << 20, cpuid.AMD}, func(*Tuning) {}},
		{"unknown caches", machine{-1, -1, -1, cpuid.AMD}, func(t *Tuning) { t.CopyRepBytes = 0 }},
		{"no L3 reported", machine{48 << 10, 1 << 20, 0, cpuid.AMD}, func(*Tuning) {}},
		{"large L3", machine{48 << 10, 1 << 20, 300 << 20, cpuid.AMD}, func(t *Tuning) {
			t.RunStreamBytes, t.TransposeStreamBytes, t.CopyStreamBytes = 150<<20, 150<<20, 75<<20
			t.FieldBandBytes, t.UnpackRunBytes = 64<<20, 1200<<20
		}},
		{"intel socket", machine{48 << 10, 2 << 20, 300 << 20, cpuid.Intel}, func(t *Tuning) {
			t.RunStreamBytes, t.CopyStreamBytes = 48<<20, 24<<20
			t.TransposeStreamBytes, t.StagedOffLinesBytes, t.StagedOffLinesWordsBytes = 2<<20, 24<<20, 8<<20
			t.StageRow, t.GridGroup, t.CopyRowsFirst = 4096, 256<<10, true
			t.PackedOnePassBytes, t.FieldBandBytes, t.UnpackRunBytes = 2<<20, 64<<20, 1200<<20
			t.CopyRepBytes, t.CopyAhead, t.TileRows = 0, 0, 32
		}},
		{"intel, small L3", machine{48 << 10, 8 << 20, 4 << 20, cpuid.Intel}, func(t *Tuning) {
			// The L2 is the largest cache reported: the last level.
			t.RunStreamBytes, t.TransposeStreamBytes, t.CopyStreamBytes = 4<<20, 4<<20, 2<<20
			t.StagedOffLinesBytes, t.StagedOffLinesWordsBytes, t.CopyRowsFirst = 24<<20, 32<<20, true
			t.StageRow, t.GridGroup = 4096, 256<<10
			t.PackedOnePassBytes, t.FieldBandBytes, t.UnpackRunBytes = 4<<20, 2<<20, 32<<20
			t.CopyRepBytes, t.CopyAhead, t.TileRows = 0, 0, 32
		}},
		{"intel, unknown L2", machine{0, 0, 32 << 20, cpuid.Intel}, func(t *Tuning) {
			t.StagedOffLinesBytes, t.StagedOffLinesWordsBytes, t.CopyRowsFirst = 24<<20, 24<<20, true
			t.CopyRepBytes, t.CopyAhead, t.TileRows = 0, 0, 32
		}},
		{"small caches", machine{16 << 10, 64 << 10, 0, cpuid.AMD}, func(t *Tuning) {
			t.Band, t.StageRow, t.GridGroup = 512, 256, 32<<10
			t.PackedOnePassBytes, t.CopyRepBytes = 256<<10, 64<<10
		}},
		{"l2 512 KiB", machine{32 << 10, 512 << 10, 0, cpuid.AMD}, func(t *Tuning) {
			t.StageRow, t.GridGroup, t.PackedOnePassBytes = 512, 64<<10, 512<<10
			t.CopyRepBytes = 512 << 10
		}},
		{"l2 512 KiB intel", machine{32 << 10, 512 << 10, 0, cpuid.Intel}, func(t *Tuning) {
			t.GridGroup, t.TransposeStreamBytes, t.StagedOffLinesBytes, t.CopyRowsFirst = 64<<10, 512<<10, 24<<20, true
			t.StagedOffLinesWordsBytes = 2 << 20
			t.PackedOnePassBytes, t.CopyRepBytes, t.CopyAhead, t.TileRows = 512<<10, 0, 0, 32
		}},
		{"odd sizes", machine{80 << 10, 1280 << 10, 0, cpuid.AMD}, func(t *Tuning) { t.Band, t.CopyRepBytes = 2048, 1280<<10 }},
		{"other vendor", machine{48 << 10, 1 << 20, 32 << 20, cpuid.VendorUnknown}, func(t *Tuning) { t.CopyRepBytes = 0 }},
		{"huge caches", machine{1 << 20, 64 << 20, 0, cpuid.AMD}, func(t *Tuning) {
			t.Band, t.StageRow, t.GridGroup = 2048, 4096, 256<<10
			t.RunStreamBytes, t.TransposeStreamBytes, t.CopyStreamBytes = 32<<20, 32<<20, 16<<20
			t.PackedOnePassBytes, t.FieldBandBytes, t.UnpackRunBytes = 4<<20, 16<<20, 256<<20
			t.CopyRepBytes = 64 << 20
		}},
	} {
		want := base
		c.change(&want)
		if got := tuningFor(c.m); got != want {
			t.Errorf("%s: tuningFor(%+v) =\n%+v, want\n%+v", c.name, c.m, got, want)
		}
		if err := want.Check(); err != nil {
			t.Errorf("%s: the derived tuning fails its check: %v", c.name, err)
		}
	}
	// For every L2, a staged f32 tile leaves room in L2 for its copy and
	// the next tile, and a grid's group a quarter of it.
	for _, vendor := range []cpuid.Vendor{cpuid.AMD, cpuid.Intel} {
		for l2 := 256 << 10; l2 <= 8<<20; l2 += 128 << 10 {
			tu := tuningFor(machine{48 << 10, l2, 0, vendor})
			if tile := tu.StageRow * tu.StageCol / 4; 4*tile > l2 {
				t.Errorf("L2 of %d KiB (%v): an f32 tile of %d KiB leaves no room for its copy and the next", l2>>10, vendor, tile>>10)
			}
			if tu.GridGroup > l2/4 {
				t.Errorf("L2 of %d KiB: groups of %d KiB", l2>>10, tu.GridGroup>>10)
			}
			if tu.TransposeStreamBytes > tu.RunStreamBytes {
				t.Errorf("L2 of %d KiB: transposes stream from %d, past the run copies' %d", l2>>10, tu.TransposeStreamBytes, tu.RunStreamBytes)
			}
		}
	}
	if got, want := DefaultTuning(), tuningFor(thisMachine()); got != want {
		t.Errorf("DefaultTuning() = %+v, want this CPU's %+v", got, want)
	}
}

func TestLoadTuning(t *testing.T) {
	dir := t.TempDir()
	def := DefaultTuning()
	with := func(change func(*Tuning)) Tuning {
		t := def
		change(&t)
		return t
	}
	for _, c := range []struct {
		name, text string
		want       Tuning
		err        bool
	}{
		{"copy", `{"copy_stream_bytes": 4096, "copy_parts": 8, "copy_ahead": 1024}`,
			with(func(t *Tuning) { t.CopyStreamBytes, t.CopyParts, t.CopyAhead = 4096, 8, 1024 }), false},
		{"some", `{"copy_parts": 2}`, with(func(t *Tuning) { t.CopyParts = 2 }), false},
		{"thresholds", `{"run_stream_bytes": 65536, "transpose_stream_bytes": 0, "parallel_min_bytes": 1048576}`,
			with(func(t *Tuning) { t.RunStreamBytes, t.TransposeStreamBytes, t.ParallelMinBytes = 64<<10, 0, 1<<20 }), false},
		{"blocks", `{"band": 2048, "stage_row": 4096, "stage_col": 256, "grid_group": 65536, "copy_rows_first": true}`,
			with(func(t *Tuning) {
				t.Band, t.StageRow, t.StageCol, t.GridGroup, t.CopyRowsFirst = 2048, 4096, 256, 64<<10, true
			}), false},
		{"zero parts", `{"copy_parts": 0}`, Tuning{}, true},
		{"negative", `{"copy_stream_bytes": -1}`, Tuning{}, true},
		{"tiny band", `{"band": 8}`, Tuning{}, true},
		{"negative threads", `{"parallel_min_bytes": -1}`, Tuning{}, true},
		{"malformed", `{"copy_parts": 2`, Tuning{}, true},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := LoadTuning(path)
		if (err != nil) != c.err || !c.err && got != c.want {
			t.Errorf("%s: LoadTuning = %+v, %v; want %+v, error %v", c.name, got, err, c.want, c.err)
		}
		env, envErr := tuningFromEnv(path)
		if c.err && (envErr == nil || env != def) {
			t.Errorf("%s: tuningFromEnv = %+v, %v; want the defaults and an error", c.name, env, envErr)
		}
	}
	if _, err := LoadTuning(filepath.Join(dir, "absent")); err == nil {
		t.Error("LoadTuning of a missing file: no error")
	}
}

// TestSetTuning checks that SetTuning puts a tuning in use that its
// check accepts, and refuses, changing nothing, one that it does not.
func TestSetTuning(t *testing.T) {
	setTuning(t, func(*Tuning) {}) // restores the tuning at the end
	before, _ := CurrentTuning()
	bad := before
	bad.CopyParts = 0
	if err := SetTuning(bad); err == nil {
		t.Error("SetTuning accepted 0 parts")
	}
	if now, _ := CurrentTuning(); now != before {
		t.Errorf("a refused SetTuning changed the tuning to %+v", now)
	}
	good := before
	good.RunStreamBytes = 1 << 20
	if err := SetTuning(good); err != nil {
		t.Fatalf("SetTuning: %v", err)
	}
	if now, err := CurrentTuning(); now != good || err != nil {
		t.Errorf("CurrentTuning() = %+v, %v after SetTuning(%+v)", now, err, good)
	}
}
