package main

import (
	"fmt"
	"math"
)

// checkMemory fails when buffers of the given sizes cannot be allocated:
// larger than an int, or together larger than the machine's memory, so
// that an oversized shape gets an error instead of a crash of the runtime.
func checkMemory(sizes ...int64) error {
	var need uint64
	for _, n := range sizes {
		if uint64(n) > math.MaxInt {
			return fmt.Errorf("a buffer of %d bytes does not fit in this platform's address space", n)
		}
		need += uint64(n)
	}
	if total := systemMemory(); total > 0 && need > total {
		return fmt.Errorf("needs %d bytes (%s) of memory for its buffers; this machine has %s of RAM and swap",
			need, humanBytes(int64(min(need, math.MaxInt64))), humanBytes(int64(min(total, math.MaxInt64))))
	}
	return nil
}
