package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/tilecopy/tilecopy/relayout"
)

// padCmd pads and tiles an array for a device: relayout.ForDevice's
// layout, in one pass (what relayout.Upload does).
func padCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var (
		from, preset, progress, typ string
		opt                         optionFlags
		printOnly                   bool
	)
	c := newCommand("pad", "pad [--preset tpu] [--from SHAPE] [--type TYPE] [--pad VALUE] [--saturate] [--threads N] [--progress WHEN] IN OUT\n"+
		"       relayout pad --print [--preset tpu] [--type TYPE] (--from SHAPE | IN)",
		"pad lays the array in IN (laid out as --from; a .npy file says its own shape)\n"+
			"out as the device preset wants it, padding and tiling in one pass, and writes it\n"+
			"to OUT; it prints the device shape on stderr. For --preset tpu that is T(8,128)\n"+
			"tiles of the two most-minor dims for 32- and 64-bit types, T(8,128)(2,1) for\n"+
			"16-bit, T(8,128)(4,1) for 8-bit and T(8,128)(8,1) packed with E(4) for 4-bit\n"+
			"types (see relayout.ForDevice). With --type the device holds elements of that\n"+
			"type, converted as they move (f32 data as bf16 tiles: --type bf16; floats\n"+
			"round to nearest even). With --print it prints the device shape on stdout and\n"+
			"converts nothing. \"relayout unpad\" undoes it.")
	c.fs.StringVar(&preset, "preset", relayout.PresetTPU, "the device layout `PRESET` (tpu)")
	c.fs.StringVar(&from, "from", "", "the source `SHAPE`, in XLA shape text (optional when IN is a .npy file)")
	c.fs.BoolVar(&printOnly, "print", false, "print the device shape on stdout; convert nothing")
	c.fs.StringVar(&typ, "type", "", "the device's element `TYPE` (default: the source's), e.g. bf16")
	opt.register(c.fs, false)
	registerProgress(c.fs, &progress)
	pos, err := c.parseRange(args, 0, 2, stdout)
	if err != nil {
		return err
	}
	switch {
	case printOnly && len(pos) == 0 && from == "":
		return c.usageErr("--print needs --from or a .npy IN")
	case printOnly && len(pos) > 1:
		return c.usageErr("--print takes at most IN, no OUT")
	case !printOnly && len(pos) != 2:
		return c.usageErr("want 2 argument(s), got %d", len(pos))
	}
	in := bufio.NewReader(stdin)
	var src source
	if len(pos) == 0 {
		s, err := parseShape("--from", from)
		if err != nil {
			return err
		}
		src = source{shape: s}
	} else if src, err = resolveSource(c, from, pos[0], "", in); err != nil { // a void .npy IN takes its type from --from
		return err
	}
	devType, err := parseType("--type", typ, src.shape.DType())
	if err != nil {
		return err
	}
	dev, err := relayout.ForDevice(src.shape.WithDType(devType), preset)
	if err != nil {
		return fmt.Errorf("preset %s for %s: %w", preset, src.shape, err)
	}
	if printOnly {
		_, err := fmt.Fprintln(stdout, dev)
		return err
	}
	if isNpy(pos[1]) {
		return fmt.Errorf("output %s: a .npy file cannot hold the tiled layout %s; name OUT otherwise", pos[1], dev)
	}
	prog, err := parseProgress(progress)
	if err != nil {
		return err
	}
	opts, err := opt.options()
	if err != nil {
		return err
	}
	p, err := compilePlan(src.shape, dev, opts)
	if err != nil {
		return err
	}
	j := &job{verb: "pad", plan: p, src: src, dst: destination{name: pos[1], shape: dev}, threads: opts.Threads, progress: prog}
	if err := j.runWithSignals(in, stdout, stderr); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stderr, "device shape: %s\n", dev)
	return err
}

// unpadCmd undoes pad: it untiles a device buffer and drops the padding.
func unpadCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var (
		to, preset, order, progress, typ string
		threads                          int
		saturate                         bool
	)
	c := newCommand("unpad", "unpad [--preset tpu] --to SHAPE [--type TYPE] [--order C|F] [--saturate] [--threads N] [--progress WHEN] IN OUT",
		"unpad reads IN, an array laid out as \"relayout pad\" lays out --to for the device\n"+
			"preset, and writes OUT, the array laid out as --to (a .npy OUT gets C or Fortran\n"+
			"order from --order or the layout of --to), dropping the padding in one pass (what\n"+
			"relayout.Download does). --to gives the element type and dims; --type the\n"+
			"device's element type where it differs (what \"relayout pad --type\" wrote), which\n"+
			"converts to --to's as it moves.")
	c.fs.StringVar(&preset, "preset", relayout.PresetTPU, "the device layout `PRESET` (tpu)")
	c.fs.StringVar(&to, "to", "", "the host `SHAPE`, in XLA shape text (required)")
	c.fs.StringVar(&order, "order", "", "`C` (row-major) or F (column-major): the order of a .npy OUT (default C)")
	c.fs.StringVar(&typ, "type", "", "the device's element `TYPE` (default: that of --to), e.g. bf16")
	registerThreads(c.fs, &threads)
	c.fs.BoolVar(&saturate, "saturate", false, "where the element types differ, narrowing integers clamp to the destination's range instead of wrapping")
	registerProgress(c.fs, &progress)
	pos, err := c.parse(args, 2, stdout)
	if err != nil {
		return err
	}
	if to == "" {
		return c.usageErr("--to is required")
	}
	prog, err := parseProgress(progress)
	if err != nil {
		return err
	}
	if isNpy(pos[0]) {
		return fmt.Errorf("input %s: a device buffer is raw bytes, not a .npy file", pos[0])
	}
	host, err := parseShape("--to", to)
	if err != nil {
		return err
	}
	dst, err := resolveDestination(c, to, pos[1], order, host, nil)
	if err != nil {
		return err
	}
	devType, err := parseType("--type", typ, dst.shape.DType())
	if err != nil {
		return err
	}
	dev, err := relayout.ForDevice(dst.shape.WithDType(devType), preset)
	if err != nil {
		return fmt.Errorf("preset %s for %s: %w", preset, dst.shape, err)
	}
	opts, err := (&optionFlags{pad: "zero", threads: threads, saturate: saturate}).options()
	if err != nil {
		return err
	}
	p, err := compilePlan(dev, dst.shape, opts)
	if err != nil {
		return err
	}
	j := &job{verb: "unpad", plan: p, src: source{name: pos[0], shape: dev}, dst: dst, threads: opts.Threads, progress: prog}
	return j.runWithSignals(stdin, stdout, stderr)
}
