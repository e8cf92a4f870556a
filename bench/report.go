package bench

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FromTo writes a result's source and destination compactly: the element
// type and dims once when both sides share them, then the two layouts
// ("f32[8192,8192] {1,0}→{0,1}"), and any padded dims.
func (r Result) FromTo() string {
	fi, ti := strings.IndexByte(r.From, '{'), strings.IndexByte(r.To, '{')
	s := r.From + " → " + r.To
	if fi > 0 && ti > 0 && r.From[:fi] == r.To[:ti] {
		s = r.From[:fi] + " " + r.From[fi:] + "→" + r.To[ti:]
	}
	if r.PadTo != nil {
		s += " padded to [" + joinInts(r.PadTo) + "]"
	}
	return s
}

// WriteTable writes results as an aligned text table, one row per case
// and one more per peer, after a comment line that says where they were
// measured (env, a free-form description of the machine, may be "").
// The ratio is to the limit, the faster of copy() and tilecopy.Copy
// ("by" says which); the ratio to copy() alone stands beside it.
func WriteTable(w io.Writer, results []Result, env string) error {
	if env != "" {
		if _, err := fmt.Fprintf(w, "# %s\n", env); err != nil {
			return err
		}
	}
	rows := [][]string{{"case", "from → to", "size", "GB/s", "limit GB/s", "by", "ratio", "copy() GB/s", "÷ copy()", "spread", "ISA", "threads"}}
	right := []bool{false, false, true, true, true, false, true, true, true, true, false, true}
	for _, r := range results {
		rows = append(rows, []string{
			r.Name, r.FromTo(), humanBytes(r.SourceBytes),
			fmt.Sprintf("%.2f", r.GBps), fmt.Sprintf("%.2f", r.LimitGBps), r.Limit, fmt.Sprintf("%.3f", r.Ratio),
			fmt.Sprintf("%.2f", r.CopyGBps), fmt.Sprintf("%.3f", r.CopyRatio),
			spread(r.Timing), r.ISA, strconv.Itoa(r.Threads),
		})
		for _, p := range r.Peers {
			rows = append(rows, []string{
				"  " + p.Name, "", "", fmt.Sprintf("%.2f", p.GBps), "", "", fmt.Sprintf("%.3f", p.Ratio),
				"", "", spread(p.Timing), "", "",
			})
		}
	}
	return writeAligned(w, rows, right)
}

// WritePairs writes results as a table of ratios, one row per case, each
// with its source and destination as --from and --to text that measures
// it again, after a comment line as WriteTable's.
func WritePairs(w io.Writer, results []Result, env string) error {
	if env != "" {
		if _, err := fmt.Fprintf(w, "# %s\n", env); err != nil {
			return err
		}
	}
	rows := [][]string{{"case", "ratio", "GB/s", "limit GB/s", "by", "size", "pair"}}
	for _, r := range results {
		rows = append(rows, []string{
			r.Name, fmt.Sprintf("%.3f", r.Ratio), fmt.Sprintf("%.2f", r.GBps), fmt.Sprintf("%.2f", r.LimitGBps), r.Limit,
			humanBytes(r.SourceBytes), "--from '" + r.From + "' --to '" + r.To + "'",
		})
	}
	return writeAligned(w, rows, []bool{false, true, true, true, false, true, false})
}

// humanBytes writes n in the largest binary unit it reaches, with three
// significant digits: 256MiB, 3.8MiB, 16KiB.
func humanBytes(n int64) string {
	v, unit := float64(n), "B"
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	switch {
	case unit == "B" || v >= 100 || v == float64(int64(v)):
		return fmt.Sprintf("%.0f%s", v, unit)
	case v >= 10:
		return fmt.Sprintf("%.1f%s", v, unit)
	}
	return fmt.Sprintf("%.2f%s", v, unit)
}

// spread is (max-min)/median of a timing, as a percentage.
func spread(t Timing) string {
	if t.MedianNs == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(t.MaxNs-t.MinNs)/float64(t.MedianNs))
}

// writeAligned writes rows in columns two spaces apart, each column
// padded on the left where right is set and on the right otherwise.
func writeAligned(w io.Writer, rows [][]string, right []bool) error {
	width := make([]int, len(right))
	for _, row := range rows {
		for i, cell := range row {
			width[i] = max(width[i], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		var line strings.Builder
		for i, cell := range row {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(cell))
			if i > 0 {
				line.WriteString("  ")
			}
			if right[i] {
				line.WriteString(pad + cell)
			} else {
				line.WriteString(cell + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes results as an indented JSON array, one object per case.
func WriteJSON(w io.Writer, results []Result) error {
	if results == nil {
		results = []Result{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(results)
}

// CSVHeader returns the header row WriteCSV writes. The peer columns are
// empty where a peer was not measured.
func CSVHeader() []string {
	return []string{
		"name", "description", "from", "to", "pad_to", "source_bytes", "destination_bytes", "bytes",
		"gbps", "limit_gbps", "limit", "ratio", "copy_gbps", "copy_ratio", "stream_copy_gbps", "isa", "tilecopy_cpu", "threads", "runs", "repeats",
		"min_ns", "median_ns", "max_ns", "copy_min_ns", "copy_median_ns", "copy_max_ns",
		"naive_gbps", "naive_ratio", "gonum_gbps", "gonum_ratio",
	}
}

// WriteCSV writes results as CSV: the CSVHeader row, then one row per case.
func WriteCSV(w io.Writer, results []Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader()); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, r := range results {
		row := []string{
			r.Name, r.Desc, r.From, r.To, joinInts(r.PadTo), i(r.SourceBytes), i(r.DestinationBytes), i(r.Bytes),
			f(r.GBps), f(r.LimitGBps), r.Limit, f(r.Ratio), f(r.CopyGBps), f(r.CopyRatio), f(r.StreamGBps), r.ISA, r.CPUEnv, strconv.Itoa(r.Threads), strconv.Itoa(r.Runs), strconv.Itoa(r.Repeats),
			i(r.MinNs), i(r.MedianNs), i(r.MaxNs), i(r.Copy.MinNs), i(r.Copy.MedianNs), i(r.Copy.MaxNs),
		}
		for _, name := range []string{PeerNaive, PeerGonum} {
			g, q := "", ""
			for _, p := range r.Peers {
				if p.Name == name {
					g, q = f(p.GBps), f(p.Ratio)
				}
			}
			row = append(row, g, q)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
