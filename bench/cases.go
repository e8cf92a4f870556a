package bench

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tilecopy/tilecopy/relayout"
)

// ErrUnknownCase is wrapped by the errors of Select for a name that is not
// in the standard case set.
var ErrUnknownCase = errors.New("unknown case")

// Case is one relayout to measure: a source and a destination layout of the
// same logical array, and the padding to compile them with.
type Case struct {
	// Name is the stable short name: C1…C9, T1…T6, S1 for the standard
	// set, "custom" for a user pair, the array size in a sweep.
	Name string
	// Desc says what the case is, in words.
	Desc string
	// From and To are the source and destination shapes.
	From, To relayout.Shape
	// Pad is Options.Pad: the padding value and, with Widths, the padded
	// logical dims of the destination.
	Pad relayout.Padding
}

// Size selects a variant of the standard case set.
type Size int

const (
	// Full is the standard case set: 256 MiB arrays that stream
	// from DRAM, a cache-resident 512×512, a 4 MiB padding case and a
	// 32 MiB packed s4 case.
	Full Size = iota
	// Small is the same set scaled down to arrays of 16–256 KiB that stay
	// in cache: for tests and quick looks, not for headline figures.
	Small
)

// String names the size as the --small flag does.
func (s Size) String() string {
	if s == Small {
		return "small"
	}
	return "full"
}

// caseDef is one entry of the standard set before its shapes are built.
type caseDef struct {
	name, desc  string
	dtype       string
	full, small []int64
	from, to    string  // layout text between the braces
	padFull     []int64 // Options.Pad.Widths of the full size, or nil
	padSmall    []int64 // and of the small one
}

// permuted is the minor_to_major of the destination that makes a relayout
// from row-major equal NumPy's a.transpose(perm) copied into a new
// row-major array. Destination dim i is source dim perm[i] and the last
// destination dim varies fastest, so the fastest logical dim is
// perm[r-1], then perm[r-2], …: minor_to_major is perm reversed.
func permuted(perm ...int) string {
	m2m := slices.Clone(perm)
	slices.Reverse(m2m)
	return joinInts(m2m)
}

func joinInts[T int | int64](v []T) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(int64(x), 10)
	}
	return strings.Join(s, ",")
}

// standardDefs is the standard case set, in report order.
func standardDefs() []caseDef {
	return []caseDef{
		{name: "C1", desc: "u8 2-D transpose", dtype: "u8", full: []int64{16384, 16384}, small: []int64{512, 512}, from: "1,0", to: "0,1"},
		{name: "C2", desc: "u16 2-D transpose", dtype: "u16", full: []int64{8192, 16384}, small: []int64{256, 512}, from: "1,0", to: "0,1"},
		{name: "C3", desc: "f32 2-D transpose", dtype: "f32", full: []int64{8192, 8192}, small: []int64{256, 256}, from: "1,0", to: "0,1"},
		{name: "C4", desc: "f64 2-D transpose", dtype: "f64", full: []int64{4096, 8192}, small: []int64{128, 256}, from: "1,0", to: "0,1"},
		{name: "C5", desc: "f32 4-D permutation (0,2,1,3)", dtype: "f32", full: []int64{64, 128, 256, 32}, small: []int64{4, 16, 32, 32}, from: "3,2,1,0", to: permuted(0, 2, 1, 3)},
		{name: "C6", desc: "f32 4-D permutation (3,2,1,0)", dtype: "f32", full: []int64{64, 128, 256, 32}, small: []int64{4, 16, 32, 32}, from: "3,2,1,0", to: permuted(3, 2, 1, 0)},
		{name: "C7", desc: "f32 4-D permutation (0,3,1,2): NHWC to NCHW", dtype: "f32", full: []int64{64, 256, 128, 32}, small: []int64{4, 32, 16, 32}, from: "3,2,1,0", to: permuted(0, 3, 1, 2)},
		{name: "C8", desc: "f32 2-D transpose, cache-resident", dtype: "f32", full: []int64{512, 512}, small: []int64{64, 64}, from: "1,0", to: "0,1"},
		{name: "C9", desc: "f32 row-major, dims padded (to [1008,1024] at full size)", dtype: "f32", full: []int64{1000, 1000}, small: []int64{100, 100}, from: "1,0", to: "1,0", padFull: []int64{1008, 1024}, padSmall: []int64{104, 128}},
		{name: "T1", desc: "f32 row-major to T(8,128)", dtype: "f32", full: []int64{8192, 8192}, small: []int64{256, 256}, from: "1,0", to: "1,0:T(8,128)"},
		{name: "T2", desc: "bf16 row-major to T(8,128)(2,1)", dtype: "bf16", full: []int64{8192, 16384}, small: []int64{256, 512}, from: "1,0", to: "1,0:T(8,128)(2,1)"},
		{name: "T3", desc: "s8 row-major to T(8,128)(4,1)", dtype: "s8", full: []int64{16384, 16384}, small: []int64{512, 512}, from: "1,0", to: "1,0:T(8,128)(4,1)"},
		{name: "T4", desc: "f32 T(8,128) to row-major (untile)", dtype: "f32", full: []int64{8192, 8192}, small: []int64{256, 256}, from: "1,0:T(8,128)", to: "1,0"},
		{name: "T5", desc: "bf16 T(8,128)(2,1) to row-major (untile)", dtype: "bf16", full: []int64{8192, 16384}, small: []int64{256, 512}, from: "1,0:T(8,128)(2,1)", to: "1,0"},
		{name: "T6", desc: "s8 T(8,128)(4,1) to row-major (untile)", dtype: "s8", full: []int64{16384, 16384}, small: []int64{512, 512}, from: "1,0:T(8,128)(4,1)", to: "1,0"},
		{name: "S1", desc: "s4 packed two to a byte, row-major to column-major", dtype: "s4", full: []int64{8192, 8192}, small: []int64{512, 512}, from: "1,0:E(4)", to: "0,1:E(4)"},
	}
}

// build parses the shapes of d at size s.
func (d caseDef) build(s Size) (Case, error) {
	dims, pad := d.full, d.padFull
	if s == Small {
		dims, pad = d.small, d.padSmall
	}
	text := func(layout string) string { return fmt.Sprintf("%s[%s]{%s}", d.dtype, joinInts(dims), layout) }
	from, err := relayout.ParseShape(text(d.from))
	if err != nil {
		return Case{}, fmt.Errorf("case %s: %w", d.name, err)
	}
	to, err := relayout.ParseShape(text(d.to))
	if err != nil {
		return Case{}, fmt.Errorf("case %s: %w", d.name, err)
	}
	c := Case{Name: d.name, Desc: d.desc, From: from, To: to}
	c.Pad.Widths = slices.Clone(pad)
	return c, nil
}

// Standard returns the standard case set at size s, in report order.
func Standard(s Size) []Case {
	defs := standardDefs()
	out := make([]Case, 0, len(defs))
	for _, d := range defs {
		c, err := d.build(s)
		if err != nil {
			// The set is fixed text; TestStandardCompiles keeps it valid.
			panic(err)
		}
		out = append(out, c)
	}
	return out
}

// Names lists the names of the standard cases in report order.
func Names() []string {
	defs := standardDefs()
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.name
	}
	return names
}

// Select returns the standard cases named (case-insensitively), in the
// order given, at size s; no names selects them all. An unknown name is an
// error wrapping ErrUnknownCase.
func Select(names []string, s Size) ([]Case, error) {
	all := Standard(s)
	if len(names) == 0 {
		return all, nil
	}
	out := make([]Case, 0, len(names))
	for _, n := range names {
		i := slices.IndexFunc(all, func(c Case) bool { return strings.EqualFold(c.Name, n) })
		if i < 0 {
			return nil, fmt.Errorf("%w %q (the cases are %s)", ErrUnknownCase, n, strings.Join(Names(), " "))
		}
		out = append(out, all[i])
	}
	return out, nil
}

// Pair returns a case named "custom" for a user's source and destination
// shape text, checking that they compile together with pad.
func Pair(from, to string, pad relayout.Padding) (Case, error) {
	f, err := relayout.ParseShape(from)
	if err != nil {
		return Case{}, fmt.Errorf("source shape: %w", err)
	}
	t, err := relayout.ParseShape(to)
	if err != nil {
		return Case{}, fmt.Errorf("destination shape: %w", err)
	}
	if _, err := relayout.Compile(f, t, &relayout.Options{Pad: pad}); err != nil {
		return Case{}, fmt.Errorf("%s to %s: %w", from, to, err)
	}
	return Case{Name: "custom", Desc: "user pair", From: f, To: t, Pad: pad}, nil
}

// SweepStart is the array size the sweep starts from, and each point is
// SweepStep times the previous one.
const (
	SweepStart = 4 << 10
	SweepStep  = 4
)

// DefaultSweep is the pair a sweep measures when none is given: a 2-D f32
// transpose.
const (
	DefaultSweepFrom = "f32[1,1]{1,0}"
	DefaultSweepTo   = "f32[1,1]{0,1}"
)

// Sweep returns one case per array size from SweepStart up to maxBytes in
// steps of SweepStep, for the layouts, element type and padding value of a
// 2-D pair (its dims are replaced): square arrays whose source holds about
// that many bytes. Each case is named by its target size ("4KiB", …).
func Sweep(from, to relayout.Shape, pad relayout.Padding, maxBytes int64) ([]Case, error) {
	if from.Rank() != 2 || to.Rank() != 2 {
		return nil, fmt.Errorf("a sweep needs a 2-D pair, not rank %d", from.Rank())
	}
	if pad.Widths != nil {
		return nil, errors.New("a sweep cannot pad dims to fixed widths")
	}
	if maxBytes < SweepStart {
		return nil, fmt.Errorf("a sweep needs a size cap of at least %s, not %d bytes", FormatBytes(SweepStart), maxBytes)
	}
	fl, _ := from.Layout()
	tl, _ := to.Layout()
	bits := int64(from.DType().ByteWidth() * 8)
	if fl.ElementSizeInBits > 0 {
		bits = fl.ElementSizeInBits
	}
	var out []Case
	for target := int64(SweepStart); target <= maxBytes; target *= SweepStep {
		n := int64(math.Sqrt(float64(target * 8 / bits)))
		dims := []int64{n, n}
		f := relayout.NewShape(from.DType(), dims, &fl)
		t := relayout.NewShape(to.DType(), dims, &tl)
		if _, err := relayout.Compile(f, t, &relayout.Options{Pad: pad}); err != nil {
			return nil, fmt.Errorf("sweep at %d×%d: %w", n, n, err)
		}
		out = append(out, Case{
			Name: FormatBytes(target),
			Desc: fmt.Sprintf("%s %d×%d", from.DType(), n, n),
			From: f, To: t, Pad: pad,
		})
		if target > math.MaxInt64/SweepStep {
			break
		}
	}
	return out, nil
}

// DefaultPermsFrom is the array --perms permutes when no --from is given:
// C6's, row-major.
const DefaultPermsFrom = "f32[64,128,256,32]{3,2,1,0}"

// MaxPermsRank bounds the rank of a permutation sweep: 5! = 120 cases.
const MaxPermsRank = 5

// Perms returns one case per permutation of from's dims, in lexicographic
// order: the destination is what NumPy's a.transpose(perm) copied into a
// new row-major array holds, the same logical array with minor_to_major
// perm reversed (and from's element storage, untiled). The identity is
// the first case, a plain copy to compare the others with. Each case is
// named by its perm ("0,2,1,3").
func Perms(from relayout.Shape, pad relayout.Padding) ([]Case, error) {
	r := from.Rank()
	if r < 2 || r > MaxPermsRank {
		return nil, fmt.Errorf("a permutation sweep needs rank 2 to %d, not %d", MaxPermsRank, r)
	}
	if pad.Widths != nil {
		return nil, errors.New("a permutation sweep cannot pad dims to fixed widths")
	}
	fl, _ := from.Layout()
	var out []Case
	for perm := range eachPermutation(r) {
		tl := fl
		tl.Tiles = nil
		tl.MinorToMajor = slices.Clone(perm)
		slices.Reverse(tl.MinorToMajor)
		to := relayout.NewShape(from.DType(), from.Dims(), &tl)
		name := joinInts(perm)
		if _, err := relayout.Compile(from, to, &relayout.Options{Pad: pad}); err != nil {
			return nil, fmt.Errorf("permutation (%s): %w", name, err)
		}
		out = append(out, Case{Name: name, Desc: fmt.Sprintf("%s transpose(%s)", from.DType(), name), From: from, To: to, Pad: pad})
	}
	return out, nil
}

// eachPermutation yields the permutations of 0..n-1 in lexicographic order;
// each slice is reused for the next.
func eachPermutation(n int) func(yield func([]int) bool) {
	return func(yield func([]int) bool) {
		p := make([]int, n)
		for i := range p {
			p[i] = i
		}
		for {
			if !yield(p) {
				return
			}
			// The next permutation: the last ascent, swapped with the
			// last larger element after it, the tail reversed.
			i := n - 2
			for i >= 0 && p[i] > p[i+1] {
				i--
			}
			if i < 0 {
				return
			}
			j := n - 1
			for p[j] < p[i] {
				j--
			}
			p[i], p[j] = p[j], p[i]
			slices.Reverse(p[i+1:])
		}
	}
}

// FormatBytes writes n as the largest binary unit that divides it (4KiB,
// 256MiB, 1GiB), or in bytes.
func FormatBytes(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// ParseBytes reads a byte count: a whole number with an optional binary
// unit K, KiB, M, MiB, G or GiB (any case).
func ParseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	shift := uint(0)
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"kib", 10}, {"mib", 20}, {"gib", 30}, {"k", 10}, {"m", 20}, {"g", 30}, {"b", 0}} {
		if strings.HasSuffix(t, u.suffix) {
			t, shift = strings.TrimSuffix(t, u.suffix), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("byte count %q: want a whole number with an optional unit K, M or G (binary)", s)
	}
	return n << shift, nil
}
