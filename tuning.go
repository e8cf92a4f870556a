package tilecopy

import (
	"encoding/json"
	"fmt"
	"os"
)

// Tuning is the choices of the kernels that depend on the machine's
// memory rather than on its instruction set: what cannot be read off
// cpuid but can be measured. DefaultTuning derives them; the command
// `relayout tune` measures this machine's and writes them as JSON, which
// the environment variable TILECOPY_TUNING, naming such a file, loads at
// start-up in place of the defaults (fields the file leaves out keep
// theirs).
type Tuning struct {
	// CopyStreamBytes is the size from which Copy streams over parts
	// with non-temporal stores; below it Copy is copy().
	CopyStreamBytes int `json:"copy_stream_bytes"`
	// CopyParts is how many parts of the buffer Copy walks at once.
	CopyParts int `json:"copy_parts"`
	// CopyAhead is how far ahead, in bytes, each of Copy's parts
	// prefetches its source; 0 leaves it to the hardware prefetchers.
	CopyAhead int `json:"copy_ahead"`
}

// DefaultTuning returns the tuning used when TILECOPY_TUNING names no
// file:
//
//   - CopyStreamBytes: a quarter of StreamThreshold, the size of source
//     and destination together from which a plan's run copies stream: a
//     copy streams once its source and destination together pass half
//     of that. A copy runs among other traffic (the bench's limit
//     alternates with the case it measures) and a copy of the whole
//     last-level cache keeps little of it; the crossover that relayout
//     tune measures sits there on the machines measured (docs/perf).
//   - CopyParts: 4. One walk keeps too few misses in flight to reach the
//     memory's bandwidth on some machines; on the machines measured
//     (docs/perf) four parts came within a few percent of the best count,
//     and more parts lose where the prefetchers track fewer streams.
//   - CopyAhead: 0. The hardware prefetchers follow four sequential
//     walks; software prefetches measured no better.
func DefaultTuning() Tuning {
	return Tuning{CopyStreamBytes: runStreamBytes / 4, CopyParts: 4, CopyAhead: 0}
}

// CurrentTuning returns the tuning in use, and the error that kept the
// file named by TILECOPY_TUNING from loading, if there was one (the
// defaults are then in use).
func CurrentTuning() (Tuning, error) { return tuning, tuningErr }

// Check reports the first field of t that no kernel can use.
func (t Tuning) Check() error {
	switch {
	case t.CopyStreamBytes < 0:
		return fmt.Errorf("tuning: copy_stream_bytes %d is negative", t.CopyStreamBytes)
	case t.CopyParts < 1 || t.CopyParts > 64:
		return fmt.Errorf("tuning: copy_parts %d is not between 1 and 64", t.CopyParts)
	case t.CopyAhead < 0 || t.CopyAhead > 1<<20:
		return fmt.Errorf("tuning: copy_ahead %d is not between 0 and 1 MiB", t.CopyAhead)
	}
	return nil
}

// LoadTuning reads a tuning written by `relayout tune` (JSON) from path,
// over the defaults: a field the file leaves out keeps its default.
func LoadTuning(path string) (Tuning, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Tuning{}, fmt.Errorf("tuning: %w", err)
	}
	t := DefaultTuning()
	if err := json.Unmarshal(b, &t); err != nil {
		return Tuning{}, fmt.Errorf("tuning: %s: %w", path, err)
	}
	if err := t.Check(); err != nil {
		return Tuning{}, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// tuning is the tuning in use, set once at start-up (tuningFromEnv);
// tuningErr is why TILECOPY_TUNING did not load, or nil.
var tuning, tuningErr = tuningFromEnv(os.Getenv("TILECOPY_TUNING"))

// tuningFromEnv returns the tuning TILECOPY_TUNING's value path asks
// for: the defaults when it is empty or when the file does not load, with
// the error.
func tuningFromEnv(path string) (Tuning, error) {
	if path == "" {
		return DefaultTuning(), nil
	}
	t, err := LoadTuning(path)
	if err != nil {
		return DefaultTuning(), err
	}
	return t, nil
}
