package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"

	"github.com/tilecopy/tilecopy/bench"
	"github.com/tilecopy/tilecopy/bench/plot"
)

// cmdBench measures relayouts against the machine's copy limit: the
// standard case set, named cases, a --from/--to pair or a --sweep (see
// "relayout bench -h"). Bad arguments (bench.ErrUsage) are usage errors,
// which exit with status 2 as those of the other verbs do. Ctrl-C stops
// it between timed rounds. --plot draws with package bench/plot, which
// only the command imports.
func cmdBench(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := bench.Command(ctx, args, stdout, stderr, plot.Plotter{})
	if errors.Is(err, bench.ErrUsage) {
		return &usageError{msg: err.Error(), usage: "run \"relayout bench -h\" for the flags\n"}
	}
	return err
}
