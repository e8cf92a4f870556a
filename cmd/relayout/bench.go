package main

import (
	"context"
	"io"
	"os"
	"os/signal"

	"github.com/tilecopy/tilecopy/bench"
)

// cmdBench measures relayouts against the machine's copy limit: the
// standard case set, named cases, a --from/--to pair or a --sweep (see
// "relayout bench -h"). Bad arguments return a plain one-line error, so
// they exit with status 1. Ctrl-C stops it between timed rounds.
func cmdBench(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return bench.Command(ctx, args, stdout, stderr)
}
