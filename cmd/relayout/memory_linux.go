package main

import "syscall"

// systemMemory returns the machine's RAM plus swap in bytes, 0 if unknown.
func systemMemory() uint64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return (uint64(si.Totalram) + uint64(si.Totalswap)) * uint64(si.Unit)
}
