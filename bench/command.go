package bench

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/tilecopy/tilecopy/relayout"
)

// ErrUsage is wrapped by every error Command returns for bad arguments.
var ErrUsage = errors.New("bad arguments")

// Defaults of the command's flags.
const (
	DefaultRuns     = 5
	DefaultWarmup   = 1
	DefaultMaxBytes = 1 << 30
)

const usage = `usage: relayout bench [flags] [CASE ...]

Measures relayouts against the machine's copy limit, interleaved in one
process: throughput = (bytes read + bytes written) / median time, and the
limit is the faster of Go's copy() and tilecopy.Copy (a streaming copy over
several parts) of the same bytes in the same rounds. The ratio to the
limit is the headline; the ratio to copy() alone stands beside it. With no
CASE it runs the standard set:
%s.

flags:
  --runs N          timed rounds per case (default %d)
  --warmup N        untimed rounds first (default %d)
  --threads N       Options.Threads, 0 for GOMAXPROCS; the copies of the limit are split
                    over as many goroutines (default 1)
  --small           the cache-sized variants of the standard cases
  --from SHAPE --to SHAPE
                    measure this pair instead, e.g. --from 'f32[4096,4096]{1,0}' --to 'f32[4096,4096]{0,1}'
  --pad VALUE       padding value for --from/--to: zero, lowest, highest, nan or a number
  --pad-to D,D,...  pad the destination's dims to these widths (--from/--to only)
  --sweep           square 2-D arrays from 4KiB up in steps of 4x, for --from/--to
                    (dims ignored) or an f32 transpose
  --max-bytes SIZE  largest sweep array, e.g. 256MiB (default 1GiB, less if memory is short);
                    with --random, the largest side of a pair
  --random N        N realistic random layout pairs (element types, ranks 2-5, tiny, round
                    and odd dims, permutations, TPU and other tiles, packed 4-bit; 8-64 MiB),
                    each printed as --from/--to text, then the distribution of their ratios
  --seed S          the seed of --random's pairs: the same seed draws the same pairs
                    (default 1)
  --perms           every permutation of the dims of --from (default %s):
                    the row-major destinations of NumPy's transpose(perm), the identity first
  --peers           also time the naive Go loop and gonum where they apply
  --json | --csv    one record per case instead of the table
  --plot FILE       also draw FILE.svg, .png or .pdf: ratio bars, GB/s against size for a
                    sweep, or the sorted ratios of --random
  --list            list the standard cases and exit

TILECOPY_CPU is reported as set; the kernel level comes from the dispatcher.
`

// invocation is a parsed command line.
type invocation struct {
	cfg      Config
	names    []string
	small    bool
	from, to string
	pad      relayout.Padding
	padSet   bool
	sweep    bool
	perms    bool
	maxBytes int64
	maxSet   bool
	random   int
	seed     uint64
	seedSet  bool
	json     bool
	csv      bool
	plot     string
	list     bool
	help     bool
}

// parseArgs reads the command line; flags and case names may mix.
func parseArgs(args []string) (*invocation, error) {
	inv := &invocation{cfg: Config{Runs: DefaultRuns, Warmup: DefaultWarmup, Threads: 1}, maxBytes: DefaultMaxBytes, seed: 1}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&inv.cfg.Runs, "runs", inv.cfg.Runs, "")
	fs.IntVar(&inv.cfg.Warmup, "warmup", inv.cfg.Warmup, "")
	fs.IntVar(&inv.cfg.Threads, "threads", inv.cfg.Threads, "")
	fs.BoolVar(&inv.small, "small", false, "")
	fs.StringVar(&inv.from, "from", "", "")
	fs.StringVar(&inv.to, "to", "", "")
	fs.Func("pad", "", func(s string) error {
		inv.padSet = true
		return parsePadValue(s, &inv.pad)
	})
	fs.Func("pad-to", "", func(s string) error {
		inv.padSet = true
		return parseWidths(s, &inv.pad)
	})
	fs.BoolVar(&inv.sweep, "sweep", false, "")
	fs.BoolVar(&inv.perms, "perms", false, "")
	fs.Func("max-bytes", "", func(s string) error {
		n, err := ParseBytes(s)
		inv.maxBytes, inv.maxSet = n, true
		return err
	})
	fs.IntVar(&inv.random, "random", 0, "")
	fs.Func("seed", "", func(s string) error {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return fmt.Errorf("seed %q: want a non-negative integer", s)
		}
		inv.seed, inv.seedSet = n, true
		return nil
	})
	fs.BoolVar(&inv.cfg.Peers, "peers", false, "")
	fs.BoolVar(&inv.json, "json", false, "")
	fs.BoolVar(&inv.csv, "csv", false, "")
	fs.StringVar(&inv.plot, "plot", "", "")
	fs.BoolVar(&inv.list, "list", false, "")
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				inv.help = true
				return inv, nil
			}
			return nil, fmt.Errorf("%w: %w", ErrUsage, err)
		}
		left := fs.Args()
		if len(left) == 0 {
			break
		}
		if len(left) < len(rest) && rest[len(rest)-len(left)-1] == "--" {
			inv.names = append(inv.names, left...) // after "--", only names
			break
		}
		// The parser stopped at a name: take it and parse on.
		inv.names = append(inv.names, left[0])
		rest = left[1:]
	}
	if err := inv.check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return inv, nil
}

// check rejects values and combinations that make no sense.
func (inv *invocation) check() error {
	switch {
	case inv.cfg.Runs < 1:
		return fmt.Errorf("--runs %d: at least 1 timed run is needed", inv.cfg.Runs)
	case inv.cfg.Warmup < 0:
		return fmt.Errorf("--warmup %d: must not be negative", inv.cfg.Warmup)
	case inv.cfg.Threads < 0:
		return fmt.Errorf("--threads %d: must be 1 or more, or 0 for GOMAXPROCS", inv.cfg.Threads)
	case !inv.perms && (inv.from == "") != (inv.to == ""):
		return errors.New("--from and --to go together")
	case inv.json && inv.csv:
		return errors.New("--json and --csv exclude each other")
	case inv.from != "" && len(inv.names) > 0:
		return fmt.Errorf("case names (%s) and --from/--to exclude each other", strings.Join(inv.names, " "))
	case inv.sweep && len(inv.names) > 0:
		return fmt.Errorf("case names (%s) and --sweep exclude each other", strings.Join(inv.names, " "))
	case inv.perms && (len(inv.names) > 0 || inv.sweep || inv.to != "" || inv.small):
		return errors.New("--perms takes a --from shape only: no case names, --to, --sweep or --small")
	case inv.perms && inv.pad.Widths != nil:
		return errors.New("--pad-to does not apply to --perms")
	case inv.padSet && inv.from == "" && !inv.sweep && !inv.perms:
		return errors.New("--pad and --pad-to apply to a --from/--to pair or a --sweep; the standard cases carry their own")
	case inv.random < 0:
		return fmt.Errorf("--random %d: want a number of pairs, 1 or more", inv.random)
	case inv.random > 0 && (len(inv.names) > 0 || inv.sweep || inv.perms || inv.from != "" || inv.small || inv.padSet):
		return errors.New("--random takes no case names, --from/--to, --sweep, --perms, --small, --pad or --pad-to")
	case inv.seedSet && inv.random == 0:
		return errors.New("--seed applies to --random only")
	case inv.maxSet && !inv.sweep && inv.random == 0:
		return errors.New("--max-bytes applies to --sweep and --random only")
	case inv.small && (inv.from != "" || inv.sweep):
		return errors.New("--small applies to the standard cases only")
	}
	if inv.cfg.Threads == 0 {
		inv.cfg.Threads = runtime.GOMAXPROCS(0)
	}
	return nil
}

// parsePadValue reads a padding value: a kind name or a number.
func parsePadValue(s string, p *relayout.Padding) error {
	for _, k := range []relayout.PadKind{relayout.PadZero, relayout.PadLowest, relayout.PadHighest, relayout.PadNaN} {
		if strings.EqualFold(s, k.String()) {
			p.Kind = k
			return nil
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("padding %q: want zero, lowest, highest, nan or a number", s)
	}
	*p = relayout.Padding{Kind: relayout.PadValue, Value: v, Widths: p.Widths}
	return nil
}

// parseWidths reads padded dims "1008,1024" (brackets allowed).
func parseWidths(s string, p *relayout.Padding) error {
	t := strings.Trim(strings.TrimSpace(s), "[]")
	var w []int64
	for f := range strings.SplitSeq(t, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("padded dims %q: want sizes like 1008,1024", s)
		}
		w = append(w, n)
	}
	p.Widths = w
	return nil
}

// cases returns what the invocation measures, and a note for stderr when
// a sweep was cut short by the memory this machine has.
func (inv *invocation) cases() ([]Case, string, error) {
	switch {
	case inv.random > 0:
		maxBytes := int64(0)
		if inv.maxSet {
			maxBytes = inv.maxBytes
		}
		cs, err := Random(inv.random, inv.seed, maxBytes)
		return cs, "", err
	case inv.sweep:
		from, to := inv.from, inv.to
		if from == "" {
			from, to = DefaultSweepFrom, DefaultSweepTo
		}
		f, err := relayout.ParseShape(from)
		if err != nil {
			return nil, "", fmt.Errorf("--from: %w", err)
		}
		t, err := relayout.ParseShape(to)
		if err != nil {
			return nil, "", fmt.Errorf("--to: %w", err)
		}
		limit, note := inv.maxBytes, ""
		// The largest point's source and destination must fit in half
		// of the available memory.
		if avail, ok := memAvailable(); ok && 4*limit > avail {
			fit := int64(SweepStart)
			for fit*SweepStep*4 <= avail {
				fit *= SweepStep
			}
			if fit < limit {
				limit = fit
				note = fmt.Sprintf("sweep stops at %s: %s of memory is available", FormatBytes(fit), FormatBytes(avail>>20<<20))
			}
		}
		cs, err := Sweep(f, t, inv.pad, limit)
		return cs, note, err
	case inv.perms:
		from := inv.from
		if from == "" {
			from = DefaultPermsFrom
		}
		f, err := relayout.ParseShape(from)
		if err != nil {
			return nil, "", fmt.Errorf("--from: %w", err)
		}
		cs, err := Perms(f, inv.pad)
		return cs, "", err
	case inv.from != "":
		c, err := Pair(inv.from, inv.to, inv.pad)
		if err != nil {
			return nil, "", err
		}
		return []Case{c}, "", nil
	}
	size := Full
	if inv.small {
		size = Small
	}
	cs, err := Select(inv.names, size)
	return cs, "", err
}

// memAvailable reads MemAvailable from /proc/meminfo, in bytes.
func memAvailable() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Environment describes the machine and settings of a run in one line.
func Environment(cfg Config) string {
	cfg = cfg.withDefaults()
	cpu := cfg.CPUEnv
	if cpu == "" {
		cpu = "unset"
	}
	return fmt.Sprintf("ISA %s (TILECOPY_CPU %s), %s, median of %s after %d warm-up; %s/%s, %s, %s",
		cfg.ISA, cpu, count(cfg.Threads, "thread"), count(cfg.Runs, "run"), cfg.Warmup,
		runtime.GOOS, runtime.GOARCH, count(runtime.NumCPU(), "CPU"), runtime.Version())
}

// count writes n things, in the plural unless n is 1.
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// Command runs `relayout bench` with args (the words after "bench"),
// writing the report to stdout and progress, when stderr is a terminal,
// to stderr, and with --plot a plot drawn by plotter (with a nil
// plotter, --plot is refused). Bad arguments return an error wrapping
// ErrUsage, in one line.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer, plotter Plotter) error {
	inv, err := parseArgs(args)
	if err != nil {
		return err
	}
	if inv.help {
		_, err := fmt.Fprintf(stdout, usage, strings.Join(Names(), " "), DefaultRuns, DefaultWarmup, DefaultPermsFrom)
		return err
	}
	if inv.plot != "" {
		if plotter == nil {
			return fmt.Errorf("%w: --plot: this program draws no plots", ErrUsage)
		}
		if err := plotter.CheckPlotPath(inv.plot); err != nil {
			return fmt.Errorf("%w: --plot: %w", ErrUsage, err)
		}
	}
	if inv.list {
		return listCases(stdout, inv.small)
	}
	cases, note, err := inv.cases()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if note != "" {
		fmt.Fprintln(stderr, "bench:", note)
	}
	cfg := inv.cfg
	cfg.ISA = isaLevel()
	cfg.CPUEnv = os.Getenv("TILECOPY_CPU")
	if isTerminal(stderr) {
		cfg.Progress = stderr
	}
	results, err := Run(ctx, cases, cfg)
	if err != nil {
		return err
	}
	switch {
	case inv.json:
		err = WriteJSON(stdout, results)
	case inv.csv:
		err = WriteCSV(stdout, results)
	case inv.random > 0:
		err = WritePairs(stdout, results, Environment(cfg))
		if err == nil {
			err = WriteDistribution(stdout, Distribute(results))
		}
	default:
		err = WriteTable(stdout, results, Environment(cfg))
	}
	if err != nil {
		return err
	}
	if inv.plot != "" {
		kind := PlotBars
		switch {
		case inv.sweep:
			kind = PlotSweep
		case inv.random > 0:
			kind = PlotSorted
		}
		return plotter.WritePlot(inv.plot, results, kind)
	}
	return nil
}

// listCases writes the standard set, one case a line.
func listCases(w io.Writer, small bool) error {
	size := Full
	if small {
		size = Small
	}
	rows := [][]string{{"case", "description", "from → to"}}
	for _, c := range Standard(size) {
		r := Result{From: c.From.String(), To: c.To.String(), PadTo: c.Pad.Widths}
		rows = append(rows, []string{c.Name, c.Desc, r.FromTo()})
	}
	return writeAligned(w, rows, []bool{false, false, false})
}
