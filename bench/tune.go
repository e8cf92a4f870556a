package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/tilecopy/tilecopy/internal/hugepage"
	"github.com/tilecopy/tilecopy/internal/kernel"
	"github.com/tilecopy/tilecopy/relayout"
)

// TuneConfig says how Tune measures.
type TuneConfig struct {
	// Bytes is the size of the buffers the copies' parts and prefetch
	// distances are chosen on: well past the last-level cache. 0 means
	// DefaultTuneBytes.
	Bytes int64
	// Runs is the number of timed rounds; each times every candidate once.
	// 0 means DefaultRuns.
	Runs int
	// Progress, when not nil, receives a status line per step.
	Progress io.Writer
}

// DefaultTuneBytes is the default of TuneConfig.Bytes.
const DefaultTuneBytes = 256 << 20

// The candidates Tune measures.
var (
	tuneParts = []int{1, 2, 4, 8, 16}
	tuneAhead = []int{0, 512, 1024, 2048, 8192}
	// tuneSizes are the sizes at which Tune compares the streaming copy
	// with copy(), to find where streaming starts to pay.
	tuneSizes = []int64{256 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20, 32 << 20, 64 << 20}
	// tuneRunSizes are the sizes of source and destination together at
	// which Tune compares streamed run copies with ordinary ones.
	tuneRunSizes = []int64{4 << 20, 8 << 20, 16 << 20, 32 << 20, 64 << 20, 128 << 20}
	// tuneTransposeSizes are the destination sizes at which Tune compares
	// streamed transposes with ordinary ones.
	tuneTransposeSizes = []int64{1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20, 32 << 20, 64 << 20}
	// tuneThreadSizes are the destination sizes at which Tune compares a
	// plan run on two goroutines with one on one.
	tuneThreadSizes = []int64{256 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20}
)

// tunePlacements is how many placements of the buffers Tune times each
// part count and prefetch distance on: the first half on huge pages, the
// second on small ones, each shifted by its own number of pages. The
// page size, which pages a buffer gets and where its parts fall against
// the other's moved part counts from the front to the back on some
// placements and not on others (docs/perf): a choice must hold on all of
// them, since a caller's buffers may lie anywhere.
const tunePlacements = 4

// tuneShift is how far Tune shifts a buffer at most to place it anew: a
// huge page.
const tuneShift = 2 << 20

// placed returns n bytes of room (which holds n+tuneShift) starting a
// number of pages in that differs by placement pl and by side, 0 or 1:
// placement 0 starts both sides at the start.
func placed(room []byte, n int64, pl, side int) []byte {
	const pages = tuneShift / 4096
	off := (pl * (131 + 186*side)) % pages * 4096
	return room[off : int64(off)+n]
}

// tuneMoved is about how many bytes each timed call of a crossover moves:
// a call at a smaller size repeats its operation, so that every size is
// timed over about as long.
const tuneMoved = 64 << 20

// tuneRun is the length of the runs whose copies Tune times, and twice it
// their source stride: runs of whole lines, as the plans stream.
const tuneRun = 512

// tuneTie is how close two medians must be for Tune to prefer the
// simpler candidate (fewer parts, no prefetch, a larger threshold): within
// 3%, closer than these machines' noise between rounds.
const tuneTie = 0.97

// TuneRow is one candidate's measurement.
type TuneRow struct {
	What string  `json:"what"`
	GBps float64 `json:"gbps"`
}

// TuneReport is what Tune measured: the candidates for the parts and
// prefetch distance at Bytes (and copy() beside them), each at its
// slowest placement of the buffers, and a copy through the caches
// against the chosen streaming copy at each size; then the crossovers of the plans:
// ordinary against streamed run copies and transposes, and one goroutine
// against two, at each size.
type TuneReport struct {
	Bytes      int64         `json:"bytes"`
	Copy       TuneRow       `json:"copy"`
	Streams    []TuneRow     `json:"streams"`
	Sizes      []TuneRow     `json:"sizes"`
	Runs       []TuneRow     `json:"runs"`
	Transposes []TuneRow     `json:"transposes"`
	Threads    []TuneRow     `json:"threads"`
	Tuning     kernel.Tuning `json:"tuning"`
}

// Tune measures this machine's bulk copy and the crossovers of its plans
// and returns the tuning it favours, starting from kernel.DefaultTuning:
// the part count and prefetch distance whose slowest median over four
// placements of buffers of cfg.Bytes, on huge pages and on small ones,
// is the fastest (the fewest parts and the shortest distance among those
// within 3% of it); the size past which Copy streams: half the smallest
// size from which the streaming copy is as fast as a copy through the
// caches at that size and every larger one measured (the sizes double);
// for run copies (CopyRunsStreaming against CopyRuns, runs of 512
// bytes) and f32 transposes (TransposeStreaming against Transpose), the
// smallest size from which the streaming kernel is as fast, likewise;
// and the smallest destination from which a transpose plan
// runs at least 3% faster on two goroutines than on one, at that size and
// every larger one. Sizes run up to cfg.Bytes. While it measures it puts
// tunings of its own in use (kernel.SetTuning), and the one in use
// before when it returns.
func Tune(ctx context.Context, cfg TuneConfig) (TuneReport, error) {
	if cfg.Bytes <= 0 {
		cfg.Bytes = DefaultTuneBytes
	}
	if cfg.Runs <= 0 {
		cfg.Runs = DefaultRuns
	}
	rep := TuneReport{Bytes: cfg.Bytes, Tuning: kernel.DefaultTuning()}
	// The buffers have room to shift each side by up to 2 MiB, a huge
	// page, for the placements below; they are on huge pages, as the
	// bench's are.
	srcRoom, dstRoom := touched(cfg.Bytes+tuneShift, 0x5a), touched(cfg.Bytes+tuneShift, 0xff)
	src, dst := srcRoom[:cfg.Bytes], dstRoom[:cfg.Bytes]
	status := func(s string) {
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "\r\x1b[Ktune: %s", s)
		}
	}

	// The parts and the prefetch distance, past the caches, each scored
	// by its slowest placement.
	status("parts and prefetch distance")
	var cands []kernel.Tuning
	for _, p := range tuneParts {
		for _, a := range tuneAhead {
			cands = append(cands, kernel.Tuning{CopyStreamBytes: 0, CopyParts: p, CopyAhead: a})
		}
	}
	worst := make([]float64, len(cands)+1) // copy() first
	for i := range worst {
		worst[i] = math.Inf(1)
	}
	var smallSrc, smallDst []byte // the second half of the placements, on small pages
	for pl := range tunePlacements {
		sr, dr := srcRoom, dstRoom
		if pl >= tunePlacements/2 {
			if smallSrc == nil {
				smallSrc = filled(hugepage.AllocSmall(len(srcRoom)), 0x5a)
				smallDst = filled(hugepage.AllocSmall(len(dstRoom)), 0xff)
			}
			sr, dr = smallSrc, smallDst
		}
		s, d := placed(sr, cfg.Bytes, pl, 0), placed(dr, cfg.Bytes, pl, 1)
		fns := []func(){func() { copy(d, s) }}
		for _, t := range cands {
			fns = append(fns, func() { t.Copy(d, s) })
		}
		gb, err := timeRounds(ctx, fns, 2*cfg.Bytes, cfg.Runs)
		if err != nil {
			return rep, err
		}
		for i, g := range gb {
			worst[i] = min(worst[i], g)
		}
	}
	rep.Copy = TuneRow{"copy()", worst[0]}
	best := 0
	for i, t := range cands {
		rep.Streams = append(rep.Streams, TuneRow{fmt.Sprintf("%s, prefetch %d", count(t.CopyParts, "part"), t.CopyAhead), worst[i+1]})
		if worst[i+1] > worst[best+1] {
			best = i
		}
	}
	for i := range cands { // the first candidate near the best: fewest parts, then least prefetch
		if worst[i+1] >= tuneTie*worst[best+1] {
			best = i
			break
		}
	}
	rep.Tuning.CopyParts, rep.Tuning.CopyAhead = cands[best].CopyParts, cands[best].CopyAhead

	// Where streaming starts to pay: a streaming copy of each size
	// against a copy of the same size through the caches.
	status("copy threshold")
	stream, cached := rep.Tuning, rep.Tuning
	stream.CopyStreamBytes, cached.CopyStreamBytes = 0, math.MaxInt
	rows, from, err := crossover(ctx, upTo(tuneSizes, cfg.Bytes), [2]string{"cached", "streamed"}, tuneTie, cfg.Runs,
		func(n int64) (plain, other func(), moved int64) {
			d, s := dst[:n], src[:n]
			return func() { cached.Copy(d, s) }, func() { stream.Copy(d, s) }, 2 * n
		})
	if err != nil {
		return rep, err
	}
	rep.Sizes = rows
	rep.Tuning.CopyStreamBytes = int(from) / 2 // the size before it, where the cached copy still won
	if from < 0 {
		rep.Tuning.CopyStreamBytes = int(cfg.Bytes) // streaming never paid below it
	}
	if err := tunePlans(ctx, cfg, &rep, dst, src, status); err != nil {
		return rep, err
	}
	status("done")
	if cfg.Progress != nil {
		fmt.Fprint(cfg.Progress, "\r\x1b[K")
	}
	return rep, nil
}

// tunePlans measures the plans' crossovers into rep (see Tune), with
// buffers dst and src of cfg.Bytes, each past what it measures.
func tunePlans(ctx context.Context, cfg TuneConfig, rep *TuneReport, dst, src []byte, status func(string)) (err error) {
	saved, _ := kernel.CurrentTuning()
	defer func() {
		if serr := kernel.SetTuning(saved); serr != nil && err == nil {
			err = fmt.Errorf("restoring the tuning: %w", serr)
		}
	}()
	// A threshold that never paid lies past every size measured.
	past := func(sizes []int64, from int64) int {
		if from < 0 {
			return int(2 * sizes[len(sizes)-1])
		}
		return int(from)
	}

	// Run copies: source and destination together n bytes, runs of
	// tuneRun bytes, each a line pair apart in the source.
	status("run copies")
	sizes := upTo(tuneRunSizes, cfg.Bytes)
	if len(sizes) > 0 {
		var from int64
		rep.Runs, from, err = crossover(ctx, sizes, [2]string{"run copies", "run copies streamed"}, tuneTie, cfg.Runs,
			func(n int64) (plain, other func(), moved int64) {
				rows := int(n / 3 / tuneRun)
				d, s := dst[:rows*tuneRun], src[:2*rows*tuneRun]
				return func() { kernel.CopyRuns(d, tuneRun, s, 2*tuneRun, tuneRun, rows) },
					func() { kernel.CopyRunsStreaming(d, tuneRun, 0, s, 2*tuneRun, 0, tuneRun, rows, 1) },
					2 * int64(rows*tuneRun)
			})
		if err != nil {
			return err
		}
		rep.Tuning.RunStreamBytes = past(sizes, from)
	}

	// Transposes of f32 squares whose destination is n bytes: Transpose
	// with its thresholds out of reach, so that it never streams,
	// against TransposeStreaming.
	status("transposes")
	plain := saved
	plain.TransposeStreamBytes, plain.LineStreamBytes = math.MaxInt, math.MaxInt
	if err := kernel.SetTuning(plain); err != nil {
		return err
	}
	sizes = upTo(tuneTransposeSizes, cfg.Bytes)
	if len(sizes) > 0 {
		var from int64
		rep.Transposes, from, err = crossover(ctx, sizes, [2]string{"f32 transposes", "f32 transposes streamed"}, tuneTie, cfg.Runs,
			func(n int64) (plain, other func(), moved int64) {
				side := tuneSide(n / 4)
				d, s := dst[:side*side*4], src[:side*side*4]
				return func() { kernel.Transpose(4, d, 4*side, s, 4*side, side, side) },
					func() { kernel.TransposeStreaming(4, d, 4*side, s, 4*side, side, side) },
					int64(8 * side * side)
			})
		if err != nil {
			return err
		}
		rep.Tuning.TransposeStreamBytes = past(sizes, from)
	}

	// A second goroutine: a transpose plan of f32 squares on one and on
	// two, split from any size.
	status("threads")
	split := saved
	split.ParallelMinBytes = 0
	if err := kernel.SetTuning(split); err != nil {
		return err
	}
	sizes = upTo(tuneThreadSizes, cfg.Bytes)
	if len(sizes) == 0 || runtime.GOMAXPROCS(0) < 2 {
		return nil // one thread: the default stays
	}
	var from int64
	var planErr error // the first plan that did not compile or run
	rep.Threads, from, err = crossover(ctx, sizes, [2]string{"plan, 1 thread", "plan, 2 threads"}, 1/tuneTie, cfg.Runs,
		func(n int64) (one, two func(), moved int64) {
			side := tuneSide(n / 4)
			d, s := dst[:side*side*4], src[:side*side*4]
			run := func(threads int) func() {
				p, err := transposePlan(side, threads)
				return func() {
					if err == nil {
						err = p.Run(d, s)
					}
					if err != nil && planErr == nil {
						planErr = err
					}
				}
			}
			return run(1), run(2), int64(8 * side * side)
		})
	if err != nil {
		return err
	}
	if planErr != nil {
		return planErr
	}
	rep.Tuning.ParallelMinBytes = past(sizes, from)
	return nil
}

// tuneSide is the side of a square of about elems elements that Tune
// transposes: a multiple of 16, and no power of two, whose rows would
// crowd the same cache sets.
func tuneSide(elems int64) int {
	side := int(math.Sqrt(float64(elems))) / 16 * 16
	if side&(side-1) == 0 {
		side += 16
	}
	return max(side, 16)
}

// transposePlan compiles the transpose of an f32 square of side side to
// run on threads goroutines.
func transposePlan(side, threads int) (*relayout.Plan, error) {
	from, err := relayout.ParseShape(fmt.Sprintf("f32[%d,%d]{1,0}", side, side))
	if err != nil {
		return nil, err
	}
	to, err := relayout.ParseShape(fmt.Sprintf("f32[%d,%d]{0,1}", side, side))
	if err != nil {
		return nil, err
	}
	p, err := relayout.Compile(from, to, &relayout.Options{Threads: threads})
	if err != nil {
		return nil, fmt.Errorf("tune: the transpose plan: %w", err)
	}
	return p, nil
}

// crossover times, at each of sizes, the two operations that pair
// returns for it (which move moved bytes a call, repeated to about
// tuneMoved a timed call) and returns a row for each, named by names, and
// the smallest size from which the second's median throughput is at
// least need times the first's, at that size and every larger one, or
// -1 where there is none.
func crossover(ctx context.Context, sizes []int64, names [2]string, need float64, runs int,
	pair func(n int64) (a, b func(), moved int64)) ([]TuneRow, int64, error) {
	var rows []TuneRow
	from := int64(-1)
	for _, n := range sizes {
		a, b, moved := pair(n)
		repeats := int(max(1, tuneMoved/moved))
		repeat := func(f func()) func() {
			return func() {
				for range repeats {
					f()
				}
			}
		}
		gb, err := timeRounds(ctx, []func(){repeat(a), repeat(b)}, moved*int64(repeats), runs)
		if err != nil {
			return rows, -1, err
		}
		rows = append(rows, TuneRow{FormatBytes(n) + " " + names[0], gb[0]}, TuneRow{FormatBytes(n) + " " + names[1], gb[1]})
		switch {
		case gb[1] < need*gb[0]:
			from = -1
		case from < 0:
			from = n
		}
	}
	return rows, from, nil
}

// timeRounds times each of fns once per round, in a random order, for
// runs rounds after one untimed round, and returns each one's median
// throughput for bytes moved per call, in GB/s.
func timeRounds(ctx context.Context, fns []func(), bytes int64, runs int) ([]float64, error) {
	samples := make([][]time.Duration, len(fns))
	order := make([]int, len(fns))
	for i := range order {
		order[i] = i
	}
	// A new random order each round, the same for every run of Tune: in
	// a fixed order each function inherits the traffic of the one before.
	rng := rand.New(rand.NewPCG(1, uint64(len(fns))))
	for round := range runs + 1 {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			t0 := time.Now()
			fns[i]()
			if round > 0 {
				samples[i] = append(samples[i], time.Since(t0))
			}
		}
	}
	out := make([]float64, len(fns))
	for i, s := range samples {
		out[i] = gbps(bytes, timing(s).MedianNs)
	}
	return out, nil
}

// WriteTune writes what Tune measured as a table, then the tuning.
func WriteTune(w io.Writer, rep TuneReport) error {
	rows := [][]string{{"measured", "GB/s"}}
	rows = append(rows, []string{FormatBytes(rep.Bytes) + " " + rep.Copy.What, fmt.Sprintf("%.2f", rep.Copy.GBps)})
	for _, r := range rep.Streams {
		rows = append(rows, []string{FormatBytes(rep.Bytes) + " " + r.What, fmt.Sprintf("%.2f", r.GBps)})
	}
	for _, rs := range [][]TuneRow{rep.Sizes, rep.Runs, rep.Transposes, rep.Threads} {
		for _, r := range rs {
			rows = append(rows, []string{r.What, fmt.Sprintf("%.2f", r.GBps)})
		}
	}
	if err := writeAligned(w, rows, []bool{false, true}); err != nil {
		return err
	}
	t := rep.Tuning
	_, err := fmt.Fprintf(w, "\ntuning: copy_stream_bytes %s, copy_parts %d, copy_ahead %d,\n"+
		"        run_stream_bytes %s, transpose_stream_bytes %s,\n"+
		"        parallel_min_bytes %s\n",
		strconv.Itoa(t.CopyStreamBytes), t.CopyParts, t.CopyAhead,
		strconv.Itoa(t.RunStreamBytes), strconv.Itoa(t.TransposeStreamBytes), strconv.Itoa(t.ParallelMinBytes))
	return err
}

// upTo lists the sizes of sizes (ascending) up to n bytes.
func upTo(sizes []int64, n int64) []int64 {
	i := slices.IndexFunc(sizes, func(s int64) bool { return s > n })
	if i < 0 {
		return sizes
	}
	return sizes[:i]
}
