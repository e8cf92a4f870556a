package bench

// PlotKind is what a Plotter draws.
type PlotKind int

const (
	// PlotBars draws one bar per case of the ratio to the copy limit,
	// peers beside it, and a line at 1.0 for the limit.
	PlotBars PlotKind = iota
	// PlotSweep draws GB/s against array size, with the lines of the
	// copy limit and of copy().
	PlotSweep
	// PlotSorted draws the ratios to the copy limit sorted from the
	// lowest, one point a case: the distribution of random pairs.
	PlotSorted
)

// Plotter draws the results of a Command into a file (--plot). Package
// bench draws nothing itself, so that importing it pulls in no plotting
// library: the relayout command passes the Plotter of package
// bench/plot.
type Plotter interface {
	// CheckPlotPath reports whether WritePlot can write path (its
	// format), before anything is measured.
	CheckPlotPath(path string) error
	// WritePlot draws results as kind says into the file at path.
	WritePlot(path string, results []Result, kind PlotKind) error
}
