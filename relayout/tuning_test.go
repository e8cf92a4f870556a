package relayout_test

import (
	"strings"
	"testing"

	"github.com/tilecopy/tilecopy"
	"github.com/tilecopy/tilecopy/internal/kernel"
	"github.com/tilecopy/tilecopy/relayout"
)

// TestTuningChangesPlans loads a made-up tuning, as TILECOPY_TUNING or a
// program's tilecopy.SetTuning would, and checks that plans compiled
// after it follow it: each case's plan says before what it says with the
// defaults, and after what it says with the tuning changed.
func TestTuningChangesPlans(t *testing.T) {
	defaults, _ := tilecopy.CurrentTuning()
	t.Cleanup(func() {
		if err := tilecopy.SetTuning(defaults); err != nil {
			t.Errorf("restoring the tuning: %v", err)
		}
	})
	for _, c := range []struct {
		name, from, to string
		change         func(*tilecopy.Tuning)
		before, after  string
		streams        bool // the change needs a level whose run copies stream
	}{
		{"run copies stream from a tiny threshold", "f32[16,64,256]{2,1,0}", "f32[16,64,256]{2,0,1}",
			func(t *tilecopy.Tuning) { t.RunStreamBytes = 64 << 10 },
			"kernel: run copy, the innermost loop's steps in each call (kernel.CopyRunsGrid)", "kernel: run copy streamed", true},
		{"transposes stream from a tiny threshold", "f32[128,128]{1,0}", "f32[128,128]{0,1}",
			func(t *tilecopy.Tuning) { t.TransposeStreamBytes = 16 << 10 },
			"", "past the caches for a transpose", false},
		{"a second thread from a tiny size", "f32[16,64,256]{2,1,0}", "f32[16,64,256]{2,0,1}",
			func(t *tilecopy.Tuning) { t.ParallelMinBytes = 64 << 10 },
			"a Run uses the calling goroutine", "a Run uses 2 goroutines", false},
		{"a second thread from a huge size", "f32[2048,1024]{1,0}", "f32[2048,1024]{0,1}",
			func(t *tilecopy.Tuning) { t.ParallelMinBytes = 1 << 40 },
			"a Run uses 2 goroutines", "a Run uses the calling goroutine", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.streams && !kernel.Streaming() {
				t.Skipf("run copies do not stream at level %s", tilecopy.Level())
			}
			plan := func() string {
				from, err := relayout.ParseShape(c.from)
				if err != nil {
					t.Fatal(err)
				}
				to, err := relayout.ParseShape(c.to)
				if err != nil {
					t.Fatal(err)
				}
				p, err := relayout.Compile(from, to, &relayout.Options{Threads: 2})
				if err != nil {
					t.Fatal(err)
				}
				return p.String()
			}
			if err := tilecopy.SetTuning(defaults); err != nil {
				t.Fatal(err)
			}
			was := plan()
			if !strings.Contains(was, c.before) || strings.Contains(was, c.after) {
				t.Fatalf("with the default tuning the plan lacks %q or has %q already:\n%s", c.before, c.after, was)
			}
			tu := defaults
			c.change(&tu)
			if err := tilecopy.SetTuning(tu); err != nil {
				t.Fatal(err)
			}
			if now := plan(); !strings.Contains(now, c.after) {
				t.Errorf("with the tuning changed the plan lacks %q:\n%s", c.after, now)
			}
		})
	}
}
