//go:build !linux

package main

import (
	"context"
	"errors"
	"io"
)

// canMap is false here: conversions read and write through buffers.
const canMap = false

// runMapped is not used where canMap is false.
func (j *job) runMapped(context.Context, func(), io.Writer) error {
	return errors.New("mapped conversion is not supported on this system")
}
