// Package plot draws the results of package bench with gonum/plot: the
// plots of relayout bench --plot. It is apart from bench so that a
// program that imports bench (or relayout) pulls in no plotting library.
package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/tilecopy/tilecopy/bench"
)

// Plotter is the bench.Plotter that draws with this package: CheckPath
// and Write.
type Plotter struct{}

// CheckPlotPath is CheckPath.
func (Plotter) CheckPlotPath(path string) error { return CheckPath(path) }

// WritePlot is Write.
func (Plotter) WritePlot(path string, results []bench.Result, kind bench.PlotKind) error {
	return Write(path, results, kind)
}

// CheckPath reports whether Write can write path: its extension must be
// .svg, .png or .pdf.
func CheckPath(path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg", ".png", ".pdf":
		return nil
	}
	return fmt.Errorf("plot file %q: the name must end in .svg, .png or .pdf", path)
}

// Write draws results as kind says into the file at path, in the format
// its extension names (see CheckPath).
func Write(path string, results []bench.Result, kind bench.PlotKind) error {
	if err := CheckPath(path); err != nil {
		return err
	}
	if len(results) == 0 {
		return errors.New("nothing to plot")
	}
	var p *gplot.Plot
	var err error
	w, h := 7*vg.Inch, 4*vg.Inch
	switch kind {
	case bench.PlotSweep:
		p, err = sweepPlot(results)
	case bench.PlotSorted:
		p, err = sortedPlot(results)
	default:
		p, err = ratioPlot(results)
		w = max(w, vg.Length(len(results))*0.6*vg.Inch)
	}
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	if strings.EqualFold(filepath.Ext(path), ".png") {
		err = savePNG(p, w, h, path)
	} else {
		err = p.Save(w, h, path)
	}
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}

// savePNG writes p as a PNG at 150 dots per inch, sharper than Save's 96.
func savePNG(p *gplot.Plot, w, h vg.Length, path string) (err error) {
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(150))
	p.Draw(draw.New(c))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = vgimg.PngCanvas{Canvas: c}.WriteTo(f)
	return err
}

// seriesColor gives each series the same colour in every plot.
func seriesColor(name string) color.Color {
	switch name {
	case "tilecopy":
		return color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	case "copy limit":
		return color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	case "copy()":
		return color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}
	case bench.PeerNaive:
		return color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff}
	case bench.PeerGonum:
		return color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}
	}
	return color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
}

// title says what was measured and how.
func title(what string, r bench.Result) string {
	return fmt.Sprintf("%s (ISA %s, %s, median of %s)", what, r.ISA, counted(r.Threads, "thread"), counted(r.Runs, "run"))
}

// counted is n things: "1 run", "5 runs".
func counted(n int, thing string) string {
	if n != 1 {
		thing += "s"
	}
	return fmt.Sprintf("%d %s", n, thing)
}

// peerNames lists the peers measured on any result, in first-seen order.
func peerNames(results []bench.Result) []string {
	var names []string
	for _, r := range results {
		for _, p := range r.Peers {
			if !slices.Contains(names, p.Name) {
				names = append(names, p.Name)
			}
		}
	}
	return names
}

func peerRatio(r bench.Result, name string) (float64, bool) {
	for _, p := range r.Peers {
		if p.Name == name {
			return p.Ratio, true
		}
	}
	return 0, false
}

func ratioPlot(results []bench.Result) (*gplot.Plot, error) {
	p := gplot.New()
	p.Title.Text = title("relayout throughput as a fraction of the copy limit", results[0])
	p.Y.Label.Text = "GB/s ÷ copy limit GB/s"
	p.Y.Min = 0
	series := append([]string{"tilecopy"}, peerNames(results)...)
	barW := vg.Points(min(24, 36/float64(len(series))))
	top := 1.0
	for k, name := range series {
		vals := make(plotter.Values, len(results))
		for i, r := range results {
			vals[i] = r.Ratio
			if k > 0 {
				vals[i], _ = peerRatio(r, name)
			}
			top = max(top, vals[i])
		}
		bars, err := plotter.NewBarChart(vals, barW)
		if err != nil {
			return nil, err
		}
		bars.Color = seriesColor(name)
		bars.LineStyle.Width = 0
		bars.Offset = barW * vg.Length(float64(k)-float64(len(series)-1)/2)
		p.Add(bars)
		if len(series) > 1 {
			p.Legend.Add(name, bars)
		}
		if k == 0 {
			labels, err := barLabels(vals)
			if err != nil {
				return nil, err
			}
			labels.Offset = vg.Point{X: bars.Offset - barW/2, Y: 2}
			p.Add(labels)
		}
	}
	if err := addLimitLine(p, -0.5, float64(len(results))-0.5); err != nil {
		return nil, err
	}
	p.Legend.Top = true
	// Head room above the tallest bar and the limit's line for the legend.
	p.Y.Max = top * (1.1 + 0.07*float64(len(series)+1))
	names := make([]string, len(results))
	for i, r := range results {
		names[i] = r.Name
	}
	p.NominalX(names...)
	return p, nil
}

// barLabels writes each value above its bar.
func barLabels(vals plotter.Values) (*plotter.Labels, error) {
	xy := plotter.XYLabels{XYs: make(plotter.XYs, len(vals)), Labels: make([]string, len(vals))}
	for i, v := range vals {
		xy.XYs[i] = plotter.XY{X: float64(i), Y: v}
		xy.Labels[i] = fmt.Sprintf("%.2f", v)
	}
	l, err := plotter.NewLabels(xy)
	if err != nil {
		return nil, err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Size = vg.Points(7)
	}
	return l, nil
}

func sweepPlot(results []bench.Result) (*gplot.Plot, error) {
	p := gplot.New()
	// The pair without its dims, which change along the sweep.
	pair := results[0].FromTo()
	if i, j := strings.IndexByte(pair, '['), strings.IndexByte(pair, ']'); 0 <= i && i < j {
		pair = pair[:i] + pair[j+1:]
	}
	p.Title.Text = title(fmt.Sprintf("relayout %s against array size", pair), results[0])
	p.X.Label.Text = "source array size"
	p.Y.Label.Text = "GB/s (bytes read + written)"
	p.X.Scale = gplot.LogScale{}
	p.X.Tick.Marker = bytesTicks{}
	// GB/s spans two orders of magnitude from L1 to DRAM: a log axis
	// keeps the DRAM end readable.
	p.Y.Scale = gplot.LogScale{}
	p.Y.Tick.Marker = gbpsTicks{}
	p.Legend.Top = true
	type line struct {
		name string
		y    func(bench.Result) (float64, bool)
	}
	lines := []line{
		{"tilecopy", func(r bench.Result) (float64, bool) { return r.GBps, true }},
		{"copy limit", func(r bench.Result) (float64, bool) { return r.LimitGBps, true }},
		{"copy()", func(r bench.Result) (float64, bool) { return r.CopyGBps, true }},
	}
	for _, name := range peerNames(results) {
		lines = append(lines, line{name, func(r bench.Result) (float64, bool) {
			for _, q := range r.Peers {
				if q.Name == name {
					return q.GBps, true
				}
			}
			return 0, false
		}})
	}
	for _, l := range lines {
		var xy plotter.XYs
		for _, r := range results {
			if y, ok := l.y(r); ok && r.SourceBytes > 0 && y > 0 {
				xy = append(xy, plotter.XY{X: float64(r.SourceBytes), Y: y})
			}
		}
		if len(xy) == 0 {
			continue
		}
		ln, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		ln.Color = seriesColor(l.name)
		pts.Color = seriesColor(l.name)
		pts.Shape = draw.CircleGlyph{}
		if l.name == "copy limit" || l.name == "copy()" {
			ln.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(ln, pts)
		p.Legend.Add(l.name, ln, pts)
	}
	return p, nil
}

// bytesTicks marks powers of 4 bytes on a log axis, labelled 4KiB, 16KiB, ….
type bytesTicks struct{}

// Ticks returns the ticks between min and max.
func (bytesTicks) Ticks(lo, hi float64) []gplot.Tick {
	var ticks []gplot.Tick
	for e := 0; e < 62; e += 2 {
		v := math.Ldexp(1, e)
		if v < lo/1.01 || v > hi*1.01 {
			continue
		}
		ticks = append(ticks, gplot.Tick{Value: v, Label: bench.FormatBytes(int64(v))})
	}
	return ticks
}

// gbpsTicks marks 1, 2 and 5 times the powers of ten on a log axis.
type gbpsTicks struct{}

// Ticks returns the ticks between min and max, labelled 1, 2, 5, 10, ….
func (gbpsTicks) Ticks(lo, hi float64) []gplot.Tick {
	var ticks []gplot.Tick
	for e := -3; e <= 6; e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow10(e)
			if v < lo/1.01 || v > hi*1.01 {
				continue
			}
			ticks = append(ticks, gplot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
		}
	}
	return ticks
}

// sortedPlot draws the ratios of results to the limit, sorted from the
// lowest, with a line at 1.0 for the limit and the median marked.
func sortedPlot(results []bench.Result) (*gplot.Plot, error) {
	p := gplot.New()
	p.Title.Text = title(fmt.Sprintf("%d random pairs: fraction of the copy limit", len(results)), results[0])
	p.X.Label.Text = "pairs, from the slowest"
	p.Y.Label.Text = "GB/s ÷ copy limit GB/s"
	p.Y.Min = 0
	ratios := make([]float64, len(results))
	for i, r := range results {
		ratios[i] = r.Ratio
	}
	slices.Sort(ratios)
	xy := make(plotter.XYs, len(ratios))
	for i, v := range ratios {
		xy[i] = plotter.XY{X: float64(i + 1), Y: v}
	}
	pts, err := plotter.NewScatter(xy)
	if err != nil {
		return nil, err
	}
	pts.Color = seriesColor("tilecopy")
	pts.Shape = draw.CircleGlyph{}
	p.Add(pts)
	p.Legend.Add("tilecopy", pts)
	if err := addLimitLine(p, 0, float64(len(ratios)+1)); err != nil {
		return nil, err
	}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Y.Max = max(1.2, ratios[len(ratios)-1]*1.1)
	return p, nil
}

// addLimitLine draws the copy limit, a dashed line at ratio 1.0 from x0
// to x1, into p and its legend.
func addLimitLine(p *gplot.Plot, x0, x1 float64) error {
	one, err := plotter.NewLine(plotter.XYs{{X: x0, Y: 1}, {X: x1, Y: 1}})
	if err != nil {
		return err
	}
	one.Color = seriesColor("copy limit")
	one.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(one)
	p.Legend.Add("copy limit = 1.0", one)
	return nil
}
