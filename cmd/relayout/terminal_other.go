//go:build !linux

package main

import "io"

// isTerminal reports false: progress bars are drawn only on request here.
func isTerminal(io.Writer) bool { return false }
