package bench

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

// run calls Command and returns its stdout.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := Command(context.Background(), args, &stdout, &stderr, nil) // plots: bench/plot's tests
	return stdout.String(), err
}

func TestArgErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in the message
	}{
		{"unknown case", []string{"--small", "C99"}, `unknown case "C99"`},
		{"runs 0", []string{"--runs", "0"}, "--runs 0"},
		{"runs not a number", []string{"--runs", "five"}, "-runs"},
		{"threads -1", []string{"--threads", "-1"}, "--threads -1"},
		{"warmup -1", []string{"--warmup=-1"}, "--warmup -1"},
		{"unknown flag", []string{"--fast"}, "-fast"},
		{"malformed from", []string{"--from", "f32[4,", "--to", "f32[4]"}, "malformed shape"},
		{"malformed to", []string{"--from", "f32[4]", "--to", "f33[4]"}, "unknown element type"},
		{"mismatched pair", []string{"--from", "f32[4,8]", "--to", "f32[8,4]"}, "shapes do not match"},
		{"from alone", []string{"--from", "f32[4]"}, "go together"},
		{"names and pair", []string{"C1", "--from", "f32[4]", "--to", "f32[4]"}, "exclude"},
		{"names and sweep", []string{"--sweep", "C1"}, "exclude"},
		{"json and csv", []string{"--json", "--csv"}, "exclude"},
		{"bad pad", []string{"--from", "f32[4]", "--to", "f32[4]", "--pad", "lots"}, "padding"},
		{"bad pad-to", []string{"--from", "f32[4]", "--to", "f32[4]", "--pad-to", "8,x"}, "padded dims"},
		{"pad-to too narrow", []string{"--from", "f32[4]", "--to", "f32[4]", "--pad-to", "2"}, "less than its size"},
		{"pad on standard set", []string{"--pad", "nan"}, "standard cases"},
		{"max-bytes without sweep", []string{"--max-bytes", "1M"}, "--sweep"},
		{"random -1", []string{"--random", "-1"}, "--random -1"},
		{"random and pair", []string{"--random", "3", "--from", "f32[4]", "--to", "f32[4]"}, "--random takes"},
		{"random and names", []string{"--random", "3", "C1"}, "--random takes"},
		{"seed without random", []string{"--seed", "3"}, "--seed applies"},
		{"bad seed", []string{"--random", "3", "--seed", "-3"}, "seed"},
		{"random max-bytes too small", []string{"--random", "3", "--max-bytes", "1MiB"}, "no random pair fits"},
		{"bad max-bytes", []string{"--sweep", "--max-bytes", "lots"}, "byte count"},
		{"tiny max-bytes", []string{"--sweep", "--max-bytes", "1K"}, "at least 4KiB"},
		{"3-D sweep", []string{"--sweep", "--from", "f32[2,2,2]", "--to", "f32[2,2,2]"}, "2-D"},
		{"small with pair", []string{"--small", "--from", "f32[4]", "--to", "f32[4]"}, "--small"},
		{"plot without a plotter", []string{"--plot", "out.svg"}, "draws no plots"},
		{"perms and to", []string{"--perms", "--from", "f32[2,3]", "--to", "f32[2,3]"}, "--perms"},
		{"perms and names", []string{"--perms", "C1"}, "--perms"},
		{"perms and sweep", []string{"--perms", "--sweep"}, "--perms"},
		{"perms and small", []string{"--perms", "--small"}, "--perms"},
		{"perms and pad-to", []string{"--perms", "--from", "f32[2,3]", "--pad-to", "4,4"}, "--pad-to"},
		{"perms of rank 1", []string{"--perms", "--from", "f32[8]"}, "rank 2 to 5"},
		{"perms of rank 6", []string{"--perms", "--from", "f32[2,2,2,2,2,2]"}, "rank 2 to 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := run(t, tt.args...)
			if err == nil {
				t.Fatalf("no error; output:\n%s", out)
			}
			if !errors.Is(err, ErrUsage) {
				t.Errorf("error %q does not wrap ErrUsage", err)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, tt.want) {
				t.Errorf("error %q: want one line containing %q", msg, tt.want)
			}
			if out != "" {
				t.Errorf("wrote %q before failing", out)
			}
		})
	}
}

func TestParseArgs(t *testing.T) {
	inv, err := parseArgs([]string{"C3", "--runs", "3", "t1", "--threads=2", "--peers", "--", "S1"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(inv.names, []string{"C3", "t1", "S1"}) || inv.cfg.Runs != 3 || inv.cfg.Threads != 2 || !inv.cfg.Peers {
		t.Errorf("parsed %+v", inv)
	}
	inv, err = parseArgs(nil)
	if err != nil {
		t.Fatal(err)
	}
	if inv.names != nil || inv.cfg.Runs != DefaultRuns || inv.cfg.Warmup != DefaultWarmup || inv.cfg.Threads != 1 || inv.maxBytes != DefaultMaxBytes {
		t.Errorf("defaults %+v", inv)
	}
	inv, err = parseArgs([]string{"--threads", "0"})
	if err != nil || inv.cfg.Threads < 1 {
		t.Errorf("--threads 0 gives %d threads, %v", inv.cfg.Threads, err)
	}
}

func TestHelpAndList(t *testing.T) {
	out, err := run(t, "-h")
	if err != nil || !strings.Contains(out, "usage: relayout bench") || !strings.Contains(out, "--sweep") {
		t.Errorf("-h: %v\n%s", err, out)
	}
	out, err = run(t, "--list")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range Names() {
		if !strings.Contains(out, "\n"+n+" ") {
			t.Errorf("--list lacks %s:\n%s", n, out)
		}
	}
}

// quick are the arguments of a fast end-to-end run on small cases.
var quick = []string{"--small", "--runs", "2", "--warmup", "0"}

func TestTable(t *testing.T) {
	out, err := run(t, append(quick, "C3", "C4", "C9", "--peers")...)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "# ISA "+isaLevel()+" ") || !strings.HasPrefix(lines[1], "case ") {
		t.Errorf("table header:\n%s", out)
	}
	// C3 and its naive peer, C4 with naive and gonum, C9 with none.
	var first []string
	for _, l := range lines[2:] {
		first = append(first, strings.Fields(l)[0])
	}
	if want := []string{"C3", "naive", "C4", "naive", "gonum", "C9"}; !slices.Equal(first, want) {
		t.Errorf("rows %v, want %v:\n%s", first, want, out)
	}
	// Aligned: every row's ratio column ends at the same place.
	head := []rune(lines[1])
	end := slices.Index(head, 'r')
	for ; string(head[end:end+5]) != "ratio"; end++ {
	}
	end += len("ratio")
	for _, line := range lines[2:] {
		l := []rune(line)
		if l[end] != ' ' || l[end-1] == ' ' {
			t.Errorf("ratio column misaligned in %q", line)
		}
	}
}

func TestJSON(t *testing.T) {
	// Reported as set; the kernels read it at start-up, so it does not
	// change the level of this process.
	t.Setenv("TILECOPY_CPU", "avx2")
	out, err := run(t, append(quick, "C4", "T2", "--json", "--peers")...)
	if err != nil {
		t.Fatal(err)
	}
	var records []map[string]any
	if err := json.Unmarshal([]byte(out), &records); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, out)
	}
	if len(records) != 2 {
		t.Fatalf("%d records, want 2", len(records))
	}
	for _, r := range records {
		for _, k := range []string{"name", "from", "to", "bytes", "gbps", "copy_gbps", "ratio", "isa", "threads", "min_ns", "median_ns", "max_ns", "tilecopy_cpu", "copy"} {
			if _, ok := r[k]; !ok {
				t.Errorf("record %v lacks %q", r["name"], k)
			}
		}
		if r["tilecopy_cpu"] != "avx2" || r["isa"] != isaLevel() || r["threads"] != 1.0 {
			t.Errorf("record %v: tilecopy_cpu %v, isa %v, threads %v", r["name"], r["tilecopy_cpu"], r["isa"], r["threads"])
		}
		if r["gbps"].(float64) <= 0 || r["ratio"].(float64) <= 0 {
			t.Errorf("record %v: gbps %v ratio %v", r["name"], r["gbps"], r["ratio"])
		}
		lo, mid, hi := r["min_ns"].(float64), r["median_ns"].(float64), r["max_ns"].(float64)
		if !(0 < lo && lo <= mid && mid <= hi) {
			t.Errorf("record %v: min %v median %v max %v", r["name"], lo, mid, hi)
		}
	}
	if records[0]["name"] != "C4" || records[0]["from"] != "f64[128,256]{1,0}" || records[0]["to"] != "f64[128,256]{0,1}" {
		t.Errorf("first record %v", records[0])
	}
	peers, _ := records[0]["peers"].([]any)
	if len(peers) != 2 {
		t.Errorf("C4 peers %v, want naive and gonum", records[0]["peers"])
	}
	if _, ok := records[1]["peers"]; ok {
		t.Errorf("T2 has peers %v", records[1]["peers"])
	}
}

func TestCSV(t *testing.T) {
	out, err := run(t, append(quick, "C1", "S1", "--csv")...)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("invalid CSV: %v\n%s", err, out)
	}
	if len(rows) != 3 || !slices.Equal(rows[0], CSVHeader()) {
		t.Fatalf("CSV rows:\n%s", out)
	}
	for _, col := range []string{"name", "from", "to", "bytes", "gbps", "copy_gbps", "ratio", "isa", "threads", "min_ns", "median_ns", "max_ns"} {
		if !slices.Contains(rows[0], col) {
			t.Errorf("header lacks %q", col)
		}
	}
	if rows[1][0] != "C1" || rows[2][0] != "S1" {
		t.Errorf("names %q, %q", rows[1][0], rows[2][0])
	}
}

// TestPermsCommand runs a permutation sweep of a small 3-D array: six
// rows, named by their perms in lexicographic order, the identity first.
func TestPermsCommand(t *testing.T) {
	out, err := run(t, "--runs", "2", "--warmup", "0", "--perms", "--from", "u8[2,3,4]{2,1,0}", "--csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("invalid CSV: %v\n%s", err, out)
	}
	var names, tos []string
	for _, r := range rows[1:] {
		names, tos = append(names, r[0]), append(tos, r[3])
	}
	if want := []string{"0,1,2", "0,2,1", "1,0,2", "1,2,0", "2,0,1", "2,1,0"}; !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	if len(tos) == 6 && (tos[0] != "u8[2,3,4]{2,1,0}" || tos[5] != "u8[2,3,4]{0,1,2}") {
		t.Errorf("destinations %q", tos)
	}
}

func TestSweepCommand(t *testing.T) {
	out, err := run(t, "--sweep", "--from", "f64[1,1]{1,0}", "--to", "f64[1,1]{0,1}", "--max-bytes", "64KiB", "--runs", "1", "--json", "--peers")
	if err != nil {
		t.Fatal(err)
	}
	var rs []Result
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rs {
		names = append(names, r.Name)
		if len(r.Peers) != 2 {
			t.Errorf("%s: peers %v", r.Name, r.Peers)
		}
	}
	if !slices.Equal(names, []string{"4KiB", "16KiB", "64KiB"}) {
		t.Errorf("sweep names %v", names)
	}
}

func TestRunStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cs, _ := Select([]string{"C8"}, Small)
	if _, err := Run(ctx, cs, Config{Runs: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context: %v", err)
	}
	if _, err := Run(context.Background(), cs, Config{Runs: 0}); err == nil {
		t.Error("Run with 0 runs did not fail")
	}
}

func TestParallelCopy(t *testing.T) {
	for _, n := range []int{0, 100, 1 << 20, 3<<20 + 5} {
		src := touched(int64(n), 9)
		for _, threads := range []int{1, 2, 3} {
			for name, f := range map[string]func(dst, src []byte) int{"copy": goCopy, "Copy": kernel.Copy} {
				dst := make([]byte, n)
				parallelCopy(dst, src, threads, f)
				if !bytes.Equal(dst, src) {
					t.Errorf("parallelCopy of %d bytes on %d threads with %s differs", n, threads, name)
				}
			}
		}
	}
}
