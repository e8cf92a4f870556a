package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// progressMode says when a mapped conversion draws a progress bar.
type progressMode uint8

const (
	progressAuto   progressMode = iota // on a terminal, for inputs over progressMinBytes
	progressAlways                     // always, whatever stderr is
	progressNever
)

// progressMinBytes is the input size from which progressAuto draws a bar.
const progressMinBytes = 1 << 30

// progressEvery is the least time between two redraws.
const progressEvery = 200 * time.Millisecond

// registerProgress adds the --progress flag to fs.
func registerProgress(fs *flag.FlagSet, mode *string) {
	fs.StringVar(mode, "progress", "auto", "`WHEN` to draw a progress bar on stderr: auto (on a terminal, for inputs over 1 GiB), always or never")
}

// parseProgress reads a --progress value.
func parseProgress(s string) (progressMode, error) {
	switch s {
	case "auto":
		return progressAuto, nil
	case "always":
		return progressAlways, nil
	case "never":
		return progressNever, nil
	}
	return 0, fmt.Errorf("--progress %q: want auto, always or never", s)
}

// progress draws a one-line progress bar, redrawn in place with "\r": the
// bytes of the input converted so far, of total (the input's size, counted
// once: not the input and output together). A nil *progress draws nothing.
type progress struct {
	w     io.Writer
	label string
	total int64
	start time.Time
	last  time.Time
	done  int64
	drawn bool
	now   func() time.Time // the clock (tests replace it)
}

// newProgress returns the progress bar of a job whose input is total
// bytes for mode, or nil when there is none to draw.
func newProgress(mode progressMode, w io.Writer, label string, total int64) *progress {
	switch mode {
	case progressNever:
		return nil
	case progressAuto:
		if total <= progressMinBytes || !isTerminal(w) {
			return nil
		}
	}
	return &progress{w: w, label: label, total: total, start: time.Now(), now: time.Now}
}

// update records that done bytes of the input are converted and redraws the bar
// if it was last drawn long enough ago.
func (pr *progress) update(done int64) {
	if pr == nil {
		return
	}
	pr.done = done
	if t := pr.now(); !pr.drawn || t.Sub(pr.last) >= progressEvery {
		pr.last = t
		pr.draw()
	}
}

// finish draws the bar a last time and ends its line.
func (pr *progress) finish() {
	if pr == nil {
		return
	}
	pr.draw()
	fmt.Fprintln(pr.w)
}

// draw writes the bar.
func (pr *progress) draw() {
	pr.drawn = true
	fmt.Fprint(pr.w, "\r"+pr.line(pr.now().Sub(pr.start)))
}

// line is the text of the bar after elapsed time.
func (pr *progress) line(elapsed time.Duration) string {
	const width = 30
	frac := 1.0
	if pr.total > 0 {
		frac = min(max(float64(pr.done)/float64(pr.total), 0), 1)
	}
	fill := int(frac * width)
	bar := strings.Repeat("=", fill) + strings.Repeat(" ", width-fill)
	rate := ""
	if s := elapsed.Seconds(); s > 0 {
		rate = fmt.Sprintf("  %s/s", humanBytes(int64(float64(pr.done)/s)))
	}
	return fmt.Sprintf("relayout %s: [%s] %3d%%  %s of %s%s   ", pr.label, bar, int(frac*100),
		humanBytes(pr.done), humanBytes(pr.total), rate)
}
