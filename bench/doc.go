// Package bench measures relayout throughput against the memory-copy limit
// of the machine: each case runs interleaved with Go's copy() and
// tilecopy.Copy of the same bytes in the same process, the faster of the
// two is the limit, and the headline is the ratio of the case's
// throughput, (bytes read + bytes written) / median time, to the limit's.
//
// It holds the standard case set (Standard, Select: C1…C9 transposes,
// permutations and padding, T1…T6 device tiling and untiling, S1 packed
// s4), user pairs (Pair) and size sweeps (Sweep); the measurement (Run);
// in-process peers a Go user would otherwise reach for (the naive loop,
// gonum); and the reports: an aligned table, JSON and CSV. Command is
// `relayout bench`; its plots (--plot) are drawn by the Plotter it is
// given, package bench/plot's in the command, so that this package
// imports no plotting library.
package bench
