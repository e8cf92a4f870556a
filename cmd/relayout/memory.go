package main

import (
	"fmt"
	"math"

	"github.com/tilecopy/tilecopy/relayout"
)

// checkMemory fails when buffers of the given sizes cannot be allocated:
// larger than an int, or together larger than the machine's memory, so
// that an oversized shape gets an error instead of a crash of the runtime.
func checkMemory(sizes ...int64) error {
	need, err := addressSpace(sizes...)
	if err != nil {
		return err
	}
	if total := systemMemory(); total > 0 && need > total {
		return fmt.Errorf("needs %d bytes (%s) of memory for its buffers; this machine has %s of RAM and swap",
			need, humanBytes(int64(min(need, math.MaxInt64))), humanBytes(int64(min(total, math.MaxInt64))))
	}
	return nil
}

// addressSpace returns the sum of sizes, failing when one of them does
// not fit in an int (the length of a slice, or of a mapping).
func addressSpace(sizes ...int64) (uint64, error) {
	var need uint64
	for _, n := range sizes {
		if uint64(n) > math.MaxInt {
			return 0, fmt.Errorf("a buffer of %d bytes does not fit in this platform's address space", n)
		}
		need += uint64(n)
	}
	return need, nil
}

// checkPlanMemory fails when compiling a plan for arrays of shape s could
// need more memory than the machine has. When tiles do not nest, the
// planner keeps a table of 8 bytes per index of every dimension, and
// runtime out-of-memory is a crash, not an error; this check turns it into
// an error. It is a bound, not a measure: most plans need no tables.
func checkPlanMemory(s relayout.Shape) error {
	need := int64(0)
	for _, d := range s.Dims() {
		if d < 0 {
			continue
		}
		if d > (math.MaxInt64-need)/8 {
			need = math.MaxInt64
			break
		}
		need += 8 * d
	}
	if total := systemMemory(); total > 0 && uint64(need) > total {
		return fmt.Errorf("%s is too large to plan here: its planner tables may need %s; this machine has %s of RAM and swap",
			s, humanBytes(need), humanBytes(int64(min(total, math.MaxInt64))))
	}
	return nil
}
