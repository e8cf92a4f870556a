package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"

	"github.com/tilecopy/tilecopy/relayout"
)

// command is the flag set of one verb with its synopsis and description,
// used for "-h" and for usage errors.
type command struct {
	fs       *flag.FlagSet
	synopsis string // what follows "relayout " in the usage line
	about    string // one paragraph for "-h"
}

// newCommand returns a command whose flag set reports errors to its caller
// instead of printing them.
func newCommand(name, synopsis, about string) *command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &command{fs: fs, synopsis: synopsis, about: about}
}

// usage returns the usage line and the flag defaults.
func (c *command) usage() string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: relayout %s\n", c.synopsis)
	hasFlags := false
	c.fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		b.WriteString("flags:\n")
		c.fs.SetOutput(&b)
		c.fs.PrintDefaults()
		c.fs.SetOutput(io.Discard)
	}
	return b.String()
}

// shortUsage is what a usage error prints after its message.
func (c *command) shortUsage() string {
	return fmt.Sprintf("usage: relayout %s\nrun \"relayout %s -h\" for the flags\n", c.synopsis, c.fs.Name())
}

// usageErr returns a usage error carrying the command's short usage.
func (c *command) usageErr(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), usage: c.shortUsage()}
}

// parse parses args, accepting flags before and after positional
// arguments ("--" ends the flags), and checks that exactly nargs
// positional arguments remain, which it returns. On -h it prints the help
// to stdout and returns flag.ErrHelp.
func (c *command) parse(args []string, nargs int, stdout io.Writer) ([]string, error) {
	return c.parseRange(args, nargs, nargs, stdout)
}

// parseRange is parse for a verb that takes lo to hi positional
// arguments.
func (c *command) parseRange(args []string, lo, hi int, stdout io.Writer) ([]string, error) {
	var pos []string
	for {
		err := c.fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "%s\n\n%s", c.about, c.usage())
			return nil, flag.ErrHelp
		}
		if err != nil {
			return nil, &usageError{msg: err.Error(), usage: c.shortUsage()}
		}
		rest := c.fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		pos = append(pos, rest[0]) // the flag package stops here; go on after it
		args = rest[1:]
	}
	switch {
	case len(pos) >= lo && len(pos) <= hi:
		return pos, nil
	case lo == hi:
		return nil, c.usageErr("want %d argument(s), got %d", lo, len(pos))
	default:
		return nil, c.usageErr("want %d to %d arguments, got %d", lo, hi, len(pos))
	}
}

// parseShape parses and validates shape text given for what (a flag or
// argument name).
func parseShape(what, text string) (relayout.Shape, error) {
	s, err := relayout.ParseShape(text)
	if err != nil {
		return relayout.Shape{}, fmt.Errorf("%s %q: %w", what, text, err)
	}
	if err := s.Validate(); err != nil {
		return relayout.Shape{}, fmt.Errorf("%s %q: %w", what, text, err)
	}
	return s, nil
}

// optionFlags are the flags that become relayout.Options: what padding
// holds, padded widths and threads.
type optionFlags struct {
	pad      string
	padTo    string
	threads  int
	saturate bool
}

// register adds the flags to fs; --pad-to only when widths is set.
func (o *optionFlags) register(fs *flag.FlagSet, widths bool) {
	fs.StringVar(&o.pad, "pad", "zero", "what the destination's padding holds: `VALUE` is zero, lowest, highest, nan or a number")
	if widths {
		fs.StringVar(&o.padTo, "pad-to", "", "pad the destination's logical dims to `WIDTHS`, comma-separated, one per dim")
	}
	registerThreads(fs, &o.threads)
	fs.BoolVar(&o.saturate, "saturate", false, "where the element types differ, narrowing integers clamp to the destination's range instead of wrapping")
}

// registerThreads adds the --threads flag to fs. A negative count is a
// usage error, reported when the flags are parsed.
func registerThreads(fs *flag.FlagSet, n *int) {
	*n = 0
	fs.Func("threads", "goroutines a run may use, `N` ≥ 0 (0: GOMAXPROCS, the default)", func(s string) error {
		v, err := strconv.Atoi(s)
		switch {
		case err != nil:
			return errors.New("not an integer")
		case v < 0:
			return errors.New("want 0 (GOMAXPROCS) or more")
		}
		*n = v
		return nil
	})
}

// options returns the relayout options the flags describe.
func (o *optionFlags) options() (*relayout.Options, error) {
	opts := &relayout.Options{Threads: o.threads, Saturate: o.saturate}
	if o.threads == 0 {
		opts.Threads = runtime.GOMAXPROCS(0)
	}
	var err error
	if opts.Pad, err = parsePad(o.pad); err != nil {
		return nil, err
	}
	if opts.Pad.Widths, err = parseWidths(o.padTo); err != nil {
		return nil, err
	}
	return opts, nil
}

// planFlags are the flags that describe a relayout: the two shapes and the
// options. plan and convert share them.
type planFlags struct {
	from, to string
	typ      string // --type, the element type of a void .npy IN (registerNpy)
	optionFlags
}

// register adds the flags to fs, both shapes required.
func (f *planFlags) register(fs *flag.FlagSet) {
	f.registerShapes(fs,
		"the source `SHAPE`, in XLA shape text (required)",
		"the destination `SHAPE`, in XLA shape text (required)")
}

// registerNpy adds the flags to fs for a verb where .npy files may give
// the shapes.
func (f *planFlags) registerNpy(fs *flag.FlagSet) {
	f.registerShapes(fs,
		"the source `SHAPE`, in XLA shape text (optional when IN is a .npy file, which says its shape)",
		"the destination `SHAPE`, in XLA shape text (optional when OUT is a .npy file)")
	registerType(fs, &f.typ)
}

// registerType adds the --type flag to fs.
func registerType(fs *flag.FlagSet, typ *string) {
	fs.StringVar(typ, "type", "", "the element `TYPE` of a .npy IN whose dtype is void, as ml_dtypes saves bf16, f8e4m3fn, f8e5m2, s4...")
}

func (f *planFlags) registerShapes(fs *flag.FlagSet, fromUsage, toUsage string) {
	fs.StringVar(&f.from, "from", "", fromUsage)
	fs.StringVar(&f.to, "to", "", toUsage)
	f.optionFlags.register(fs, true)
}

// compile parses the flags and compiles the plan they describe.
func (f *planFlags) compile(c *command) (*relayout.Plan, error) {
	if f.from == "" || f.to == "" {
		return nil, c.usageErr("--from and --to are required")
	}
	from, err := parseShape("--from", f.from)
	if err != nil {
		return nil, err
	}
	to, err := parseShape("--to", f.to)
	if err != nil {
		return nil, err
	}
	opts, err := f.options()
	if err != nil {
		return nil, err
	}
	return compilePlan(from, to, opts)
}

// compilePlan compiles the relayout of from into to, first checking that
// planning cannot exhaust the machine's memory.
func compilePlan(from, to relayout.Shape, opts *relayout.Options) (*relayout.Plan, error) {
	for _, s := range []relayout.Shape{from, to} {
		if _, err := s.ByteSize(); err != nil {
			break // Compile fails before it plans, with a better message
		}
		if err := checkPlanMemory(s); err != nil {
			return nil, err
		}
	}
	p, err := relayout.Compile(from, to, opts)
	if err != nil {
		return nil, fmt.Errorf("cannot relayout %s to %s: %w", from, to, err)
	}
	return p, nil
}

// parseType reads an element type flag; "" means def.
func parseType(flag, s string, def relayout.DType) (relayout.DType, error) {
	if s == "" {
		return def, nil
	}
	t, err := relayout.ParseDType(s)
	if err != nil {
		return 0, fmt.Errorf("%s %q: %w", flag, s, err)
	}
	return t, nil
}

// parsePad reads a --pad value.
func parsePad(s string) (relayout.Padding, error) {
	for _, k := range []relayout.PadKind{relayout.PadZero, relayout.PadLowest, relayout.PadHighest, relayout.PadNaN} {
		if s == k.String() {
			return relayout.Padding{Kind: k}, nil
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil:
		return relayout.Padding{}, fmt.Errorf("--pad %q: want zero, lowest, highest, nan or a number", s)
	case math.IsNaN(v): // "NaN" spelled otherwise
		return relayout.Padding{Kind: relayout.PadNaN}, nil
	}
	return relayout.PadWith(v), nil
}

// parseWidths reads a --pad-to list; "" means no widening (nil).
func parseWidths(s string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	w := make([]int64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("--pad-to %q: width %d (%q) is not a non-negative integer", s, i, p)
		}
		w[i] = v
	}
	return w, nil
}
