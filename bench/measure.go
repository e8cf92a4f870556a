package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/tilecopy/tilecopy/internal/hugepage"
	"github.com/tilecopy/tilecopy/internal/kernel"
	"github.com/tilecopy/tilecopy/relayout"
)

// Config says how to measure.
type Config struct {
	// Runs is the number of timed rounds per case; each round times the
	// case, then copy(), then kernel.Copy, then each peer. The figures
	// are the medians.
	Runs int
	// Warmup is the number of untimed rounds before the timed ones. A
	// first untimed call of each operation, which also sets how many
	// calls a sample takes, is always made.
	Warmup int
	// Threads is Options.Threads for the plan, and the number of
	// goroutines the copies of the limit split their bytes over. 0
	// means 1.
	Threads int
	// Peers adds the peers that apply to each case (PeerNaive, PeerGonum).
	Peers bool
	// MinSample is the shortest a timed sample may be: an operation
	// faster than this is repeated within a sample and its time divided.
	// 0 means DefaultMinSample.
	MinSample time.Duration
	// ISA names the kernel level reported; "" asks the root package.
	ISA string
	// CPUEnv is TILECOPY_CPU as set in the environment, reported as is.
	CPUEnv string
	// Progress, when not nil, receives a status line per case ("\r"
	// rewritten, for a terminal).
	Progress io.Writer
}

// DefaultMinSample is the default of Config.MinSample.
const DefaultMinSample = 5 * time.Millisecond

// Timing sums up the timed samples of one operation, in nanoseconds per
// call.
type Timing struct {
	MinNs    int64 `json:"min_ns"`
	MedianNs int64 `json:"median_ns"`
	MaxNs    int64 `json:"max_ns"`
}

// Result is the measurement of one case.
type Result struct {
	Name string `json:"name"`
	Desc string `json:"description"`
	From string `json:"from"`
	To   string `json:"to"`
	// PadTo is the destination's padded dims (Options.Pad.Widths), if any.
	PadTo []int64 `json:"pad_to,omitempty"`
	// SourceBytes and DestinationBytes are the buffer sizes; Bytes, their
	// sum, is what one run reads and writes.
	SourceBytes      int64 `json:"source_bytes"`
	DestinationBytes int64 `json:"destination_bytes"`
	Bytes            int64 `json:"bytes"`
	// GBps is Bytes over the median time, in 10⁹ bytes per second.
	GBps float64 `json:"gbps"`
	// LimitGBps is the machine's copy limit for the case, measured in the
	// same rounds: the faster of Go's copy() and kernel.Copy of
	// CopyBytes/2 bytes, each split over Threads goroutines; Limit names
	// the one ("copy" or "Copy"). Ratio is GBps / LimitGBps: the headline.
	LimitGBps float64 `json:"limit_gbps"`
	Limit     string  `json:"limit"`
	Ratio     float64 `json:"ratio"`
	// CopyGBps is Go's copy() alone, kept for reference, and CopyRatio
	// GBps / CopyGBps; StreamGBps is kernel.Copy alone.
	CopyGBps   float64 `json:"copy_gbps"`
	CopyRatio  float64 `json:"copy_ratio"`
	StreamGBps float64 `json:"stream_copy_gbps"`
	CopyBytes  int64   `json:"copy_bytes"`
	ISA        string  `json:"isa"`
	CPUEnv     string  `json:"tilecopy_cpu"`
	Threads    int     `json:"threads"`
	Runs       int     `json:"runs"`
	// Repeats is the number of calls each timed sample made.
	Repeats int `json:"repeats"`
	Timing
	Copy       Timing       `json:"copy"`
	StreamCopy Timing       `json:"stream_copy"`
	Peers      []PeerResult `json:"peers,omitempty"`
}

// Limit names for Result.Limit: which copy set the limit.
const (
	LimitGoCopy = "copy"
	LimitCopy   = "Copy"
)

// PeerResult is the measurement of one peer on a case; Ratio is to the
// case's limit.
type PeerResult struct {
	Name  string  `json:"name"`
	GBps  float64 `json:"gbps"`
	Ratio float64 `json:"ratio"`
	Timing
}

// op is one timed operation of a round.
type op struct {
	name    string
	run     func() error
	bytes   int64
	repeats int
	samples []time.Duration
}

// Run measures each case in turn and returns a result per case. It stops
// early with ctx's error when ctx is done.
//
// The cases share one source and one destination buffer, as large as the
// largest case needs, allocated and touched once: a page's first touch
// can cost more than moving it (a page fault in a VM can take far longer
// than the copy of the page), and a fresh pair of buffers per case would
// pay that again every time.
func Run(ctx context.Context, cases []Case, cfg Config) ([]Result, error) {
	cfg = cfg.withDefaults()
	if cfg.Runs < 1 {
		return nil, fmt.Errorf("%d runs: at least one is needed", cfg.Runs)
	}
	plans := make([]*relayout.Plan, len(cases))
	var srcMax, dstMax int64
	for i, c := range cases {
		p, err := relayout.Compile(c.From, c.To, &relayout.Options{Pad: c.Pad, Threads: cfg.Threads})
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.Name, err)
		}
		plans[i] = p
		srcMax, dstMax = max(srcMax, p.SourceSize()), max(dstMax, p.DestinationSize())
	}
	src, dst := touched(srcMax, 0x5a), touched(dstMax, 0xff)
	out := make([]Result, 0, len(cases))
	start := time.Now()
	for i, c := range cases {
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "\r\x1b[K[%d/%d %s] %s: %s", i+1, len(cases), time.Since(start).Round(time.Second), c.Name, c.Desc)
		}
		p := plans[i]
		r, err := measure(ctx, c, p, dst[:p.DestinationSize()], src[:p.SourceSize()], cfg)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	if cfg.Progress != nil {
		fmt.Fprint(cfg.Progress, "\r\x1b[K")
	}
	return out, nil
}

func (cfg Config) withDefaults() Config {
	cfg.Threads = max(cfg.Threads, 1)
	if cfg.MinSample <= 0 {
		cfg.MinSample = DefaultMinSample
	}
	if cfg.ISA == "" {
		cfg.ISA = isaLevel()
	}
	return cfg
}

// measure times plan, the plan of case c, against copy() and
// kernel.Copy from src to dst (as many bytes as the smaller holds) and
// against c's peers.
func measure(ctx context.Context, c Case, plan *relayout.Plan, dst, src []byte, cfg Config) (Result, error) {
	n := int64(min(len(src), len(dst)))
	ops := []*op{
		{name: c.Name, bytes: int64(len(src) + len(dst)), run: func() error { return plan.Run(dst, src) }},
		{name: LimitGoCopy, bytes: 2 * n, run: func() error { parallelCopy(dst, src, cfg.Threads, goCopy); return nil }},
		{name: LimitCopy, bytes: 2 * n, run: func() error { parallelCopy(dst, src, cfg.Threads, kernel.Copy); return nil }},
	}
	if cfg.Peers {
		for _, p := range peersFor(c, dst, src) {
			ops = append(ops, &op{name: p.name, bytes: ops[0].bytes, run: func() error { p.run(); return nil }})
		}
	}
	// The first call of each checks for errors; the second, warm (the
	// first may fault in pages and fill the plan's pools, which for a
	// small case costs a hundred times a Run), sets its repeats.
	for _, o := range ops {
		var t time.Duration
		for range 2 {
			t0 := time.Now()
			if err := o.run(); err != nil {
				return Result{}, fmt.Errorf("case %s: %s: %w", c.Name, o.name, err)
			}
			t = max(time.Since(t0), time.Nanosecond)
		}
		o.repeats = int(min(cfg.MinSample/t+1, 1<<20))
	}
	// The ops run in a new random order each round (the same orders for
	// every run of the bench): in a fixed order, each op always follows
	// the same other op and inherits its traffic, which the copies'
	// figures showed (docs/perf).
	rng := rand.New(rand.NewPCG(1, uint64(len(ops))))
	order := slices.Clone(ops)
	for round := range cfg.Warmup + cfg.Runs {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, o := range order {
			t0 := time.Now()
			for range o.repeats {
				if err := o.run(); err != nil {
					return Result{}, fmt.Errorf("case %s: %s: %w", c.Name, o.name, err)
				}
			}
			if round >= cfg.Warmup {
				o.samples = append(o.samples, time.Since(t0)/time.Duration(o.repeats))
			}
		}
	}
	r := Result{
		Name: c.Name, Desc: c.Desc, From: c.From.String(), To: c.To.String(),
		PadTo:       c.Pad.Widths,
		SourceBytes: plan.SourceSize(), DestinationBytes: plan.DestinationSize(), Bytes: ops[0].bytes,
		CopyBytes: ops[1].bytes,
		ISA:       cfg.ISA, CPUEnv: cfg.CPUEnv, Threads: cfg.Threads, Runs: cfg.Runs,
		Repeats: ops[0].repeats,
		Timing:  timing(ops[0].samples),
		Copy:    timing(ops[1].samples),
	}
	r.StreamCopy = timing(ops[2].samples)
	r.GBps = gbps(r.Bytes, r.MedianNs)
	r.CopyGBps = gbps(r.CopyBytes, r.Copy.MedianNs)
	r.StreamGBps = gbps(r.CopyBytes, r.StreamCopy.MedianNs)
	r.LimitGBps, r.Limit = r.CopyGBps, LimitGoCopy
	if r.StreamGBps > r.CopyGBps {
		r.LimitGBps, r.Limit = r.StreamGBps, LimitCopy
	}
	r.Ratio = ratio(r.GBps, r.LimitGBps)
	r.CopyRatio = ratio(r.GBps, r.CopyGBps)
	for _, o := range ops[3:] {
		p := PeerResult{Name: o.name, Timing: timing(o.samples)}
		p.GBps = gbps(o.bytes, p.MedianNs)
		p.Ratio = ratio(p.GBps, r.LimitGBps)
		r.Peers = append(r.Peers, p)
	}
	return r, nil
}

// touched returns a buffer of n bytes, every page written, holding a
// pattern that starts with b, on huge pages where the system gives them
// (hugepage.Alloc): the throughput of large transposes depends on the
// page size, and a program that cares allocates so.
func touched(n int64, b byte) []byte { return filled(hugepage.Alloc(int(n)), b) }

// filled fills buf with touched's pattern, starting with b, and returns
// it.
func filled(buf []byte, b byte) []byte {
	n := int64(len(buf))
	for i := range min(n, 4096) {
		buf[i] = b + byte(i*7)
	}
	for k := min(n, 4096); k < n; k *= 2 {
		copy(buf[k:], buf[:k])
	}
	return buf
}

// parallelCopy is copyFn(dst, src) split over threads goroutines, in
// shares of whole pages, for buffers of a MiB or more.
func parallelCopy(dst, src []byte, threads int, copyFn func(dst, src []byte) int) {
	n := min(len(dst), len(src))
	if threads <= 1 || n < 1<<20 {
		copyFn(dst, src)
		return
	}
	chunk := (n/threads + 4095) &^ 4095
	var wg sync.WaitGroup
	for a := 0; a < n; a += chunk {
		b := min(a+chunk, n)
		wg.Go(func() { copyFn(dst[a:b], src[a:b]) })
	}
	wg.Wait()
}

// goCopy is Go's copy() as a function.
func goCopy(dst, src []byte) int { return copy(dst, src) }

// timing sums up samples.
func timing(samples []time.Duration) Timing {
	if len(samples) == 0 {
		return Timing{}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Timing{MinNs: s[0].Nanoseconds(), MedianNs: med.Nanoseconds(), MaxNs: s[len(s)-1].Nanoseconds()}
}

func gbps(bytes, ns int64) float64 {
	if ns <= 0 {
		return 0
	}
	return float64(bytes) / float64(ns)
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
