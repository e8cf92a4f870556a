package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/tilecopy/tilecopy"
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
	tuneAhead = []int{0, 512, 2048, 8192}
	// tuneSizes are the sizes at which Tune compares the streaming copy
	// with copy(), to find where streaming starts to pay.
	tuneSizes = []int64{256 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20, 32 << 20, 64 << 20}
)

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
// prefetch distance at Bytes, and a copy through the caches against the
// chosen streaming copy at each size.
type TuneReport struct {
	Bytes   int64           `json:"bytes"`
	Copy    TuneRow         `json:"copy"`
	Streams []TuneRow       `json:"streams"`
	Sizes   []TuneRow       `json:"sizes"`
	Tuning  tilecopy.Tuning `json:"tuning"`
}

// Tune measures this machine's bulk copy and returns the tuning it
// favours, starting from tilecopy.DefaultTuning: the part count and
// prefetch distance with the best median on buffers of cfg.Bytes (the
// fewest parts and the shortest distance among those within 3% of it),
// and the smallest size from which the streaming copy is as fast as a
// copy through the caches at that size and every larger one measured.
func Tune(ctx context.Context, cfg TuneConfig) (TuneReport, error) {
	if cfg.Bytes <= 0 {
		cfg.Bytes = DefaultTuneBytes
	}
	if cfg.Runs <= 0 {
		cfg.Runs = DefaultRuns
	}
	rep := TuneReport{Bytes: cfg.Bytes, Tuning: tilecopy.DefaultTuning()}
	src, dst := touched(cfg.Bytes, 0x5a), touched(cfg.Bytes, 0xff)
	status := func(s string) {
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "\r\x1b[Ktune: %s", s)
		}
	}

	// The parts and the prefetch distance, past the caches.
	status("parts and prefetch distance")
	fns := []func(){func() { copy(dst, src) }}
	var cands []tilecopy.Tuning
	for _, p := range tuneParts {
		for _, a := range tuneAhead {
			t := tilecopy.Tuning{CopyStreamBytes: 0, CopyParts: p, CopyAhead: a}
			cands = append(cands, t)
			fns = append(fns, func() { t.Copy(dst, src) })
		}
	}
	gb, err := timeRounds(ctx, fns, 2*cfg.Bytes, cfg.Runs)
	if err != nil {
		return rep, err
	}
	rep.Copy = TuneRow{"copy()", gb[0]}
	best := 0
	for i, t := range cands {
		rep.Streams = append(rep.Streams, TuneRow{fmt.Sprintf("%s, prefetch %d", count(t.CopyParts, "part"), t.CopyAhead), gb[i+1]})
		if gb[i+1] > gb[best+1] {
			best = i
		}
	}
	for i := range cands { // the first candidate near the best: fewest parts, then least prefetch
		if gb[i+1] >= tuneTie*gb[best+1] {
			best = i
			break
		}
	}
	rep.Tuning.CopyParts, rep.Tuning.CopyAhead = cands[best].CopyParts, cands[best].CopyAhead

	// Where streaming starts to pay: a streaming copy of each size
	// against a copy of the same size through the caches.
	status("threshold")
	stream, cached := rep.Tuning, rep.Tuning
	stream.CopyStreamBytes, cached.CopyStreamBytes = 0, math.MaxInt
	from := int64(-1)
	for _, n := range tuneSizesUpTo(cfg.Bytes) {
		d, s := dst[:n], src[:n]
		repeats := int(max(1, cfg.Bytes/n/4))
		gb, err := timeRounds(ctx, []func(){
			func() {
				for range repeats {
					cached.Copy(d, s)
				}
			},
			func() {
				for range repeats {
					stream.Copy(d, s)
				}
			},
		}, 2*n*int64(repeats), cfg.Runs)
		if err != nil {
			return rep, err
		}
		rep.Sizes = append(rep.Sizes,
			TuneRow{FormatBytes(n) + " cached", gb[0]},
			TuneRow{FormatBytes(n) + " streamed", gb[1]})
		switch {
		case gb[1] >= tuneTie*gb[0] && from < 0:
			from = n
		case gb[1] < tuneTie*gb[0]:
			from = -1
		}
	}
	if from >= 0 {
		rep.Tuning.CopyStreamBytes = int(from)
	} else {
		rep.Tuning.CopyStreamBytes = int(cfg.Bytes) // streaming never paid below it
	}
	status("done")
	if cfg.Progress != nil {
		fmt.Fprint(cfg.Progress, "\r\x1b[K")
	}
	return rep, nil
}

// timeRounds times each of fns once per round, for runs rounds after one
// untimed round, and returns each one's median throughput for bytes
// moved per call, in GB/s.
func timeRounds(ctx context.Context, fns []func(), bytes int64, runs int) ([]float64, error) {
	samples := make([][]time.Duration, len(fns))
	for round := range runs + 1 {
		for i, f := range fns {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			t0 := time.Now()
			f()
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
	for _, r := range rep.Sizes {
		rows = append(rows, []string{r.What, fmt.Sprintf("%.2f", r.GBps)})
	}
	if err := writeAligned(w, rows, []bool{false, true}); err != nil {
		return err
	}
	t := rep.Tuning
	_, err := fmt.Fprintf(w, "\ntuning: copy_stream_bytes %s, copy_parts %d, copy_ahead %d\n",
		strconv.Itoa(t.CopyStreamBytes), t.CopyParts, t.CopyAhead)
	return err
}

// tuneSizesUpTo lists the sizes Tune compares up to n bytes.
func tuneSizesUpTo(n int64) []int64 {
	i := slices.IndexFunc(tuneSizes, func(s int64) bool { return s > n })
	if i < 0 {
		return tuneSizes
	}
	return tuneSizes[:i]
}
