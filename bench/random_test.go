package bench

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/tilecopy/tilecopy/relayout"
)

// TestRandom checks the random pairs: the same seed draws the same pairs
// and another seed others; each pair has 8 to 64 MiB of elements, sides
// of at most 4 times that and of maxBytes, a rank of 2 to 5 and one of
// the element types; and over many pairs every type, tiny, round and odd
// dims, permutations, the TPU tiles and the other tiles all occur.
func TestRandom(t *testing.T) {
	const n = 300
	a, err := Random(n, 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Random(n, 7, 0)
	c, _ := Random(n, 8, 0)
	same := 0
	for i := range a {
		if a[i].From.String() != b[i].From.String() || a[i].To.String() != b[i].To.String() {
			t.Fatalf("pair %d differs between two draws with seed 7", i)
		}
		if a[i].From.String() == c[i].From.String() {
			same++
		}
	}
	if same == n {
		t.Error("seeds 7 and 8 drew the same pairs")
	}
	seen := map[string]bool{}
	types := map[string]bool{}
	for _, p := range a {
		from, to := p.From.String(), p.To.String()
		if p.From.Rank() < 2 || p.From.Rank() > 5 {
			t.Errorf("%s: rank %d", from, p.From.Rank())
		}
		elems := int64(1)
		for _, d := range p.From.Dims() {
			elems *= d
			switch {
			case d <= 4:
				seen["tiny"] = true
			case d%128 == 0:
				seen["round"] = true
			default:
				seen["odd"] = true
			}
		}
		tname := from[:strings.IndexByte(from, '[')]
		types[tname] = true
		bits := float64(p.From.DType().Bits())
		if strings.Contains(from, "E(4)") {
			bits = 4
		}
		logical := int64(math.Ceil(float64(elems) * bits / 8))
		if logical < RandomMinBytes || logical > RandomMaxBytes {
			t.Errorf("%s: %d logical bytes", from, logical)
		}
		for _, s := range []relayout.Shape{p.From, p.To} {
			if n, err := s.ByteSize(); err != nil || n > 4*logical {
				t.Errorf("%s: %d bytes for %d logical, %v", s, n, logical, err)
			}
		}
		for _, side := range []string{from, to} {
			for _, m := range []string{"T(8,128)", "(2,1)", "(4,1)", "(8,1)", "T(32,32)", "T(256)", "L(1024)"} {
				if strings.Contains(side, m) {
					seen[m] = true
				}
			}
			if regexp.MustCompile(`\{(\d+,)*\d+[:}]`).MatchString(side) && !isRowMajor(side) {
				seen["permutation"] = true
			}
		}
	}
	for _, want := range []string{"tiny", "round", "odd", "T(8,128)", "(2,1)", "(4,1)", "(8,1)", "T(32,32)", "T(256)", "L(1024)", "permutation"} {
		if !seen[want] {
			t.Errorf("no pair of %d has %s", n, want)
		}
	}
	if len(types) != len(randomTypes) {
		t.Errorf("the pairs have %d element types, want %d: %v", len(types), len(randomTypes), types)
	}
	small, err := Random(20, 1, 24<<20)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range small {
		for _, s := range []relayout.Shape{p.From, p.To} {
			if n, _ := s.ByteSize(); n > 24<<20 {
				t.Errorf("max bytes 24 MiB: %s holds %d bytes", s, n)
			}
		}
	}
	if _, err := Random(0, 1, 0); err == nil {
		t.Error("Random(0, …): no error")
	}
	if _, err := Random(1, 1, 1<<20); err == nil {
		t.Error("Random with a 1 MiB bound under the 8 MiB minimum: no error")
	}
}

// isRowMajor reports whether a shape text's minor_to_major is {r-1,…,0}.
func isRowMajor(text string) bool {
	s, err := relayout.ParseShape(text)
	if err != nil {
		return false
	}
	l, _ := s.Layout()
	m := l.MinorToMajor
	for i, d := range m {
		if d != len(m)-1-i {
			return false
		}
	}
	return true
}

// TestDistribute checks the quantiles and the worst pairs on ratios
// 0.01 to 1.00.
func TestDistribute(t *testing.T) {
	var rs []Result
	for i := 100; i >= 1; i-- {
		rs = append(rs, Result{Name: "R", Ratio: float64(i) / 100})
	}
	d := Distribute(rs)
	if d.N != 100 || d.Min != 0.01 || d.P10 != 0.10 || d.Q1 != 0.25 || d.Median != 0.50 || d.Q3 != 0.75 || d.Max != 1 {
		t.Errorf("Distribute = %+v", d)
	}
	if len(d.Worst) != 5 || d.Worst[0].Ratio != 0.01 || d.Worst[4].Ratio != 0.05 {
		t.Errorf("worst %+v", d.Worst)
	}
	var b strings.Builder
	if err := WriteDistribution(&b, d); err != nil || !strings.Contains(b.String(), "median 0.500") {
		t.Errorf("WriteDistribution: %v\n%s", err, b.String())
	}
}

// TestWritePairs checks that each row's pair is --from/--to text that
// parses back to the case's shapes.
func TestWritePairs(t *testing.T) {
	cs, err := Random(20, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	var rs []Result
	for _, c := range cs {
		rs = append(rs, Result{Name: c.Name, From: c.From.String(), To: c.To.String(), Ratio: 0.5})
	}
	var b strings.Builder
	if err := WritePairs(&b, rs, "env"); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`--from '([^']*)' --to '([^']*)'`)
	got := re.FindAllStringSubmatch(b.String(), -1)
	if len(got) != len(cs) {
		t.Fatalf("%d pairs in the table, want %d:\n%s", len(got), len(cs), b.String())
	}
	for i, m := range got {
		from, err1 := relayout.ParseShape(m[1])
		to, err2 := relayout.ParseShape(m[2])
		if err1 != nil || err2 != nil || !from.Equal(cs[i].From) || !to.Equal(cs[i].To) {
			t.Errorf("row %d: %q → %q does not give back %s → %s (%v, %v)", i, m[1], m[2], cs[i].From, cs[i].To, err1, err2)
		}
	}
}
