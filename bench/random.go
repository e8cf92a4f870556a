package bench

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/tilecopy/tilecopy/relayout"
)

// The realistic random pairs of Random: what a new user brings.
const (
	// RandomMinBytes and RandomMaxBytes bound a pair's logical bytes
	// (elements × element size), drawn log-uniformly between them.
	RandomMinBytes = 8 << 20
	RandomMaxBytes = 64 << 20
	// randomMaxGrowth is how much larger than the logical bytes a padded
	// side may be before the pair is drawn again.
	randomMaxGrowth = 4
	// randomTries bounds the draws of one pair.
	randomTries = 100000
)

// randomType is an element type of the random pairs, with the layout
// suffix it takes (E(4) for the packed types) and the minor tile of the
// TPU tiling for its width.
type randomType struct {
	name   string
	bytes  float64 // bytes per element, 0.5 for the packed 4-bit types
	packed bool
	minor  string // (2,1), (4,1), (8,1) or ""
}

var randomTypes = []randomType{
	{"f32", 4, false, ""}, {"bf16", 2, false, "(2,1)"}, {"f16", 2, false, "(2,1)"},
	{"s8", 1, false, "(4,1)"}, {"u8", 1, false, "(4,1)"}, {"s32", 4, false, ""},
	{"f64", 8, false, ""}, {"c64", 8, false, ""},
	{"s4", 0.5, true, "(8,1)"}, {"u4", 0.5, true, "(8,1)"},
}

// randomTiles are the tilings other than the TPU's that a side may take.
var randomTiles = []string{
	"T(4,128)", "T(16,128)", "T(2,128)", "T(1,128)", "T(8,8)", "T(32,32)",
	"T(128)", "T(256)", "T(16,64)", "L(1024)",
}

// Random returns n realistic random layout pairs, the same for the same
// seed, named R1…Rn: element types f32, bf16, f16, s8, u8, s32, f64, c64
// and packed s4 and u4 (E(4)); ranks 2 to 5; dims a mix of tiny (1-4),
// round (multiples of 128) and odd ones; RandomMinBytes to
// RandomMaxBytes of elements; each side row-major or a random
// permutation, untiled, with the TPU tile for its width (T(8,128), with
// (2,1), (4,1) or (8,1) inside for 16-, 8- and 4-bit types) or with one
// of randomTiles. A pair whose padded side would hold more than 4 times
// the logical bytes, or more than maxBytes (≤ 0: no bound), is drawn
// again.
func Random(n int, seed uint64, maxBytes int64) ([]Case, error) {
	if n < 1 {
		return nil, fmt.Errorf("%d random pairs: at least one is needed", n)
	}
	r := rand.New(rand.NewPCG(seed, 0x7e11c0b7))
	out := make([]Case, 0, n)
	for i := range n {
		c, err := randomPair(r, maxBytes)
		if err != nil {
			return nil, err
		}
		c.Name = "R" + strconv.Itoa(i+1)
		out = append(out, c)
	}
	return out, nil
}

// randomPair draws one pair of Random.
func randomPair(r *rand.Rand, maxBytes int64) (Case, error) {
	for range randomTries {
		t := randomTypes[r.IntN(len(randomTypes))]
		dims, ok := randomDims(r, t.bytes)
		if !ok {
			continue
		}
		text := t.name + "[" + joinInts(dims) + "]"
		from, err := relayout.ParseShape(text + randomLayout(r, t, len(dims)))
		if err != nil {
			return Case{}, fmt.Errorf("random pair: %w", err)
		}
		to, err := relayout.ParseShape(text + randomLayout(r, t, len(dims)))
		if err != nil {
			return Case{}, fmt.Errorf("random pair: %w", err)
		}
		logical := int64(math.Ceil(float64(product(dims)) * t.bytes))
		if !fitsRandom(from, logical, maxBytes) || !fitsRandom(to, logical, maxBytes) {
			continue
		}
		if _, err := relayout.Compile(from, to, nil); err != nil {
			return Case{}, fmt.Errorf("random pair %s to %s: %w", from, to, err)
		}
		return Case{Desc: "random pair", From: from, To: to}, nil
	}
	return Case{}, fmt.Errorf("no random pair fits in %s after %d draws", FormatBytes(maxBytes), randomTries)
}

// fitsRandom reports whether a side of a random pair holds at most
// randomMaxGrowth times the logical bytes, and at most maxBytes (if > 0).
func fitsRandom(s relayout.Shape, logical, maxBytes int64) bool {
	n, err := s.ByteSize()
	return err == nil && n <= randomMaxGrowth*logical && (maxBytes <= 0 || n <= maxBytes)
}

// randomDims draws the dims of a pair of elements of the given bytes:
// a rank of 2 to 5, some dims tiny, the others round or odd around the
// size that brings the array to a log-uniform target between
// RandomMinBytes and RandomMaxBytes; ok is false when the product misses
// that range (the caller draws again).
func randomDims(r *rand.Rand, bytes float64) (dims []int64, ok bool) {
	rank := 2 + r.IntN(4)
	target := RandomMinBytes * math.Exp(r.Float64()*math.Log(RandomMaxBytes/RandomMinBytes)) / bytes
	dims = make([]int64, rank)
	tiny := make([]bool, rank)
	left := target
	big := rank
	for i := range dims {
		if big > 1 && r.IntN(4) == 0 { // at least one dim stays large
			tiny[i], big = true, big-1
			dims[i] = 1 + r.Int64N(4)
			left /= float64(dims[i])
		}
	}
	for i := range dims {
		if tiny[i] {
			continue
		}
		// The geometric share of what is left, spread by up to 4x either
		// way, the last large dim taking the rest.
		size := math.Pow(left, 1/float64(big))
		if big > 1 {
			size *= math.Exp((r.Float64()*2 - 1) * math.Log(4))
		}
		if r.IntN(2) == 0 {
			dims[i] = 128 * max(1, int64(math.Round(size/128)))
		} else {
			dims[i] = max(17, int64(size))
			if dims[i]%128 == 0 {
				dims[i] += 1 + r.Int64N(127)
			}
		}
		left /= float64(dims[i])
		big--
	}
	b := float64(product(dims)) * bytes
	return dims, b >= RandomMinBytes && b <= RandomMaxBytes
}

// randomLayout draws one side's layout text: the order, then the tiling.
func randomLayout(r *rand.Rand, t randomType, rank int) string {
	perm := make([]int, rank) // minor_to_major
	for i := range perm {
		perm[i] = rank - 1 - i
	}
	if r.IntN(2) == 0 {
		r.Shuffle(rank, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	}
	var tiling string
	switch k := r.IntN(3); k {
	case 1:
		tiling = "T(8,128)" + t.minor
	case 2:
		tiling = randomTiles[r.IntN(len(randomTiles))]
	}
	if t.packed {
		tiling += "E(4)"
	}
	if tiling != "" {
		tiling = ":" + tiling
	}
	return "{" + joinInts(perm) + tiling + "}"
}

// product multiplies dims.
func product(dims []int64) int64 {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	return n
}

// Distribution sums up the ratios of a set of results.
type Distribution struct {
	N                             int
	Min, P10, Q1, Median, Q3, Max float64
	Worst                         []Result // the five lowest ratios, lowest first
}

// Distribute sums up the ratios of results (to the limit).
func Distribute(results []Result) Distribution {
	s := slices.Clone(results)
	slices.SortStableFunc(s, func(a, b Result) int {
		switch {
		case a.Ratio < b.Ratio:
			return -1
		case a.Ratio > b.Ratio:
			return 1
		}
		return 0
	})
	d := Distribution{N: len(s)}
	if len(s) == 0 {
		return d
	}
	q := func(p float64) float64 { // the nearest-rank percentile
		k := int(math.Ceil(p*float64(len(s)))) - 1
		return s[min(max(k, 0), len(s)-1)].Ratio
	}
	d.Min, d.P10, d.Q1, d.Median, d.Q3, d.Max = s[0].Ratio, q(0.10), q(0.25), q(0.50), q(0.75), s[len(s)-1].Ratio
	d.Worst = s[:min(5, len(s))]
	return d
}

// WriteDistribution writes d as a few lines of text: the quantiles of
// the ratio to the limit, then the worst pairs with their texts, ready
// for --from and --to.
func WriteDistribution(w io.Writer, d Distribution) error {
	var b strings.Builder
	fmt.Fprintf(&b, "ratio to the copy limit over %d pairs: min %.3f  p10 %.3f  q1 %.3f  median %.3f  q3 %.3f  max %.3f\n",
		d.N, d.Min, d.P10, d.Q1, d.Median, d.Q3, d.Max)
	if len(d.Worst) > 0 {
		b.WriteString("worst pairs:\n")
	}
	for _, r := range d.Worst {
		fmt.Fprintf(&b, "  %-5s %.3f  %6.2f GB/s  --from '%s' --to '%s'\n", r.Name, r.Ratio, r.GBps, r.From, r.To)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
