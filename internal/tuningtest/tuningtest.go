// Package tuningtest pins the kernels' tuning for tests that check a
// plan's choices. The plans follow the tuning, and the default tuning
// follows the caches and the vendor of the CPU that runs the tests, so
// such tests put in use the tuning of the machine on which their cases
// were measured, and check the same choices on any machine.
package tuningtest

import (
	"testing"

	"github.com/klauspost/cpuid/v2"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

// Reference puts in use, until tb ends, the tuning derived for the
// machine on which the pinned plan choices were measured: a 2-core AMD
// EPYC VM with 32 KiB of L1d, 1 MiB of L2 and 32 MiB of L3.
func Reference(tb testing.TB) {
	tb.Helper()
	was, _ := kernel.CurrentTuning()
	if err := kernel.SetTuning(kernel.TuningFor(32<<10, 1<<20, 32<<20, cpuid.AMD)); err != nil {
		tb.Fatalf("the reference tuning: %v", err)
	}
	tb.Cleanup(func() {
		if err := kernel.SetTuning(was); err != nil {
			tb.Errorf("restoring the tuning: %v", err)
		}
	})
}
