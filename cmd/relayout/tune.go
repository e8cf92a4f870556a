package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/tilecopy/tilecopy/bench"
)

// cmdTune measures this machine's bulk copy and its plans' crossovers
// (bench.Tune) and prints the measurements and the tuning they favour; -o writes that tuning as JSON
// for TILECOPY_TUNING to load.
func cmdTune(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	c := newCommand("tune", "tune [flags]",
		"tune measures how this machine copies memory fastest: tilecopy.Copy over\n"+
			"1, 2, 4, 8 and 16 parts at once, with software prefetches 0 to 8 KiB ahead,\n"+
			"against copy(), on buffers well past the caches, each scored by the slowest\n"+
			"of four placements of them (two on huge pages, two on small ones, each\n"+
			"shifted by its own number of pages); then, from 256 KiB up,\n"+
			"the size from which streaming is as fast as a copy through the caches;\n"+
			"then, up to --bytes, where the plans' choices cross over: the size from\n"+
			"which streamed run copies (runs of 512 bytes) and streamed f32 transposes\n"+
			"are as fast as ordinary ones, and the destination from which a transpose\n"+
			"plan runs 3% faster on two goroutines than on one.\n"+
			"It prints what it measured and the tuning it favours (the simplest choice\n"+
			"within 3% of the best). With -o it writes that tuning as JSON;\n"+
			"TILECOPY_TUNING=FILE makes every later run of the library use it.")
	bytes := c.fs.String("bytes", bench.FormatBytes(bench.DefaultTuneBytes), "size of the buffers for the part count and prefetch distance")
	runs := c.fs.Int("runs", bench.DefaultRuns, "timed rounds of each measurement")
	out := c.fs.String("o", "", "write the tuning as JSON to `file`")
	asJSON := c.fs.Bool("json", false, "print the measurements and the tuning as JSON")
	if _, err := c.parse(args, 0, stdout); err != nil {
		return err
	}
	n, err := bench.ParseBytes(*bytes)
	if err != nil {
		return c.usageErr("--bytes: %v", err)
	}
	if n < 1<<20 {
		return c.usageErr("--bytes %s: want 1MiB or more", *bytes)
	}
	if *runs < 1 {
		return c.usageErr("--runs %d: at least 1 is needed", *runs)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg := bench.TuneConfig{Bytes: n, Runs: *runs}
	if isTerminal(stderr) {
		cfg.Progress = stderr
	}
	rep, err := bench.Tune(ctx, cfg)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = bench.WriteTune(stdout, rep)
	}
	if err != nil || *out == "" {
		return err
	}
	b, err := json.MarshalIndent(rep.Tuning, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the tuning: %w", err)
	}
	return nil
}
