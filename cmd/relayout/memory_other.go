//go:build !linux

package main

// systemMemory returns 0: the machine's memory is not known here.
func systemMemory() uint64 { return 0 }
