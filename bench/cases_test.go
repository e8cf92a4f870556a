package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tilecopy/tilecopy/relayout"
)

func TestStandardCompiles(t *testing.T) {
	for _, size := range []Size{Full, Small} {
		cases := Standard(size)
		names := make([]string, len(cases))
		for i, c := range cases {
			names[i] = c.Name
			p, err := relayout.Compile(c.From, c.To, &relayout.Options{Pad: c.Pad})
			if err != nil {
				t.Errorf("%s %s: %v", size, c.Name, err)
				continue
			}
			if size == Small && p.SourceSize() > 256<<10 {
				t.Errorf("small %s holds %d bytes, more than 256 KiB", c.Name, p.SourceSize())
			}
			if c.Desc == "" {
				t.Errorf("%s has no description", c.Name)
			}
		}
		if !slices.Equal(names, Names()) {
			t.Errorf("%s names %v, Names() %v", size, names, Names())
		}
		if len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(names) {
			t.Errorf("duplicate names in %v", names)
		}
	}
}

// The 2-D transposes and 4-D permutations of the full set are 256 MiB on
// each side, past any last-level cache.
func TestStandardSizes(t *testing.T) {
	for _, c := range Standard(Full) {
		if _, ok := numpyPerm(c); !ok || c.Name == "C8" {
			continue
		}
		n, err := c.From.ByteSize()
		if err != nil || n != 256<<20 {
			t.Errorf("%s: %d bytes (%v), want 256 MiB", c.Name, n, err)
		}
	}
}

// numpyTranspose is NumPy's a.transpose(perm) copied into a new row-major
// array, written from the definition: b[j] = a[i] where i[perm[k]] = j[k].
func numpyTranspose(a []uint32, dims []int64, perm []int) []uint32 {
	r := len(dims)
	bdims := make([]int64, r)
	for k := range r {
		bdims[k] = dims[perm[k]]
	}
	b := make([]uint32, len(a))
	j := make([]int64, r)
	for off := range b {
		rem := int64(off)
		for k := r - 1; k >= 0; k-- {
			j[k] = rem % bdims[k]
			rem /= bdims[k]
		}
		src := int64(0)
		for d := range r {
			// i[d] is j[k] for the k with perm[k] == d.
			src = src*dims[d] + j[slices.Index(perm, d)]
		}
		b[off] = a[src]
	}
	return b
}

func words(b []byte) []uint32 {
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
	}
	return w
}

// permutations returns every permutation of 0..n-1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for at := 0; at <= len(p); at++ {
			out = append(out, slices.Insert(slices.Clone(p), at, n-1))
		}
	}
	return out
}

// TestPerms checks the permutation sweep against the recursive
// enumeration above: every permutation once, the identity first, each
// destination the NumPy encoding of its name, tiles dropped; and its
// errors.
func TestPerms(t *testing.T) {
	for _, text := range []string{"f32[3,5]{1,0}", "u8[2,3,5]{0,2,1}", "bf16[2,3,4,5]{3,2,1,0:T(2,2)}", "s4[2,2,2,2,4]{4,3,2,1,0:E(4)}"} {
		from, err := relayout.ParseShape(text)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := Perms(from, relayout.Padding{})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		want := permutations(from.Rank())
		if len(cs) != len(want) {
			t.Fatalf("%s: %d cases, want %d", text, len(cs), len(want))
		}
		seen := map[string]bool{}
		for i, c := range cs {
			seen[c.Name] = true
			l, _ := c.To.Layout()
			perm := slices.Clone(l.MinorToMajor)
			slices.Reverse(perm)
			fl, _ := from.Layout()
			if c.Name != joinInts(perm) || len(l.Tiles) != 0 || l.ElementSizeInBits != fl.ElementSizeInBits || !slices.Equal(c.To.Dims(), from.Dims()) {
				t.Errorf("%s: case %s goes to %v", text, c.Name, c.To)
			}
			if i == 0 && !slices.IsSorted(perm) {
				t.Errorf("%s: first case %s is not the identity", text, c.Name)
			}
		}
		for _, p := range want {
			if !seen[joinInts(p)] {
				t.Errorf("%s: no case for %v", text, p)
			}
		}
	}
	for _, text := range []string{"f32[8]", "f32[2,2,2,2,2,2]"} {
		from, _ := relayout.ParseShape(text)
		if _, err := Perms(from, relayout.Padding{}); err == nil {
			t.Errorf("%s: no error", text)
		}
	}
	from, _ := relayout.ParseShape("f32[2,3]")
	if _, err := Perms(from, relayout.Padding{Widths: []int64{4, 4}}); err == nil {
		t.Error("padded widths: no error")
	}
}

// The encoding of a NumPy permutation as a destination minor_to_major
// (perm reversed) agrees with NumPy's definition, for every permutation
// of ranks 2 to 4, and so does the naive peer.
func TestPermutationEncoding(t *testing.T) {
	for _, dims := range [][]int64{{3, 5}, {2, 3, 5}, {2, 3, 4, 5}} {
		for _, perm := range permutations(len(dims)) {
			name := fmt.Sprintf("%v/%v", dims, perm)
			from := relayout.NewShape(relayout.F32, dims, nil)
			l := relayout.Layout{MinorToMajor: slices.Clone(perm)}
			slices.Reverse(l.MinorToMajor)
			c := Case{Name: name, From: from, To: relayout.NewShape(relayout.F32, dims, &l)}
			p, err := relayout.Compile(c.From, c.To, nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			src := touched(p.SourceSize(), 1)
			dst := make([]byte, p.DestinationSize())
			if err := p.Run(dst, src); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want := numpyTranspose(words(src), dims, perm)
			if got := words(dst); !slices.Equal(got, want) {
				t.Errorf("%s: relayout gives %v, NumPy %v", name, got, want)
			}
			got, ok := numpyPerm(c)
			if !ok || !slices.Equal(got, perm) {
				t.Errorf("%s: numpyPerm = %v, %v", name, got, ok)
			}
			peers := peersFor(c, dst, src)
			if len(peers) != 1 || peers[0].name != PeerNaive {
				t.Fatalf("%s: peers %v", name, peers)
			}
			clear(dst)
			peers[0].run()
			if got := words(dst); !slices.Equal(got, want) {
				t.Errorf("%s: naive loop gives %v, NumPy %v", name, got, want)
			}
		}
	}
}

// Every peer writes what the plan writes, on the small standard cases.
func TestPeersMatchPlan(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Standard(Small) {
		p, err := relayout.Compile(c.From, c.To, &relayout.Options{Pad: c.Pad})
		if err != nil {
			t.Fatal(err)
		}
		src := touched(p.SourceSize(), 3)
		want := make([]byte, p.DestinationSize())
		if err := p.Run(want, src); err != nil {
			t.Fatal(err)
		}
		dst := make([]byte, p.DestinationSize())
		for _, q := range peersFor(c, dst, src) {
			seen[q.name] = true
			clear(dst)
			q.run()
			if !bytes.Equal(dst, want) {
				t.Errorf("%s: peer %s differs from the plan", c.Name, q.name)
			}
		}
	}
	for _, name := range []string{PeerNaive, PeerGonum} {
		if !seen[name] {
			t.Errorf("no small case has peer %s", name)
		}
	}
}

func TestPeersApply(t *testing.T) {
	want := map[string][]string{
		"C1": {PeerNaive}, "C4": {PeerNaive, PeerGonum}, "C6": {PeerNaive}, "C8": {PeerNaive},
		"C9": nil, "T1": nil, "T4": nil, "S1": nil,
	}
	for _, c := range Standard(Small) {
		w, ok := want[c.Name]
		if !ok {
			continue
		}
		var got []string
		for _, p := range peersFor(c, nil, nil) {
			got = append(got, p.name)
		}
		if !slices.Equal(got, w) {
			t.Errorf("%s: peers %v, want %v", c.Name, got, w)
		}
	}
}

func TestSelect(t *testing.T) {
	tests := []struct {
		names []string
		want  []string
		err   error
	}{
		{nil, Names(), nil},
		{[]string{"C3"}, []string{"C3"}, nil},
		{[]string{"t2", "c1"}, []string{"T2", "C1"}, nil},
		{[]string{"C3", "C99"}, nil, ErrUnknownCase},
		{[]string{""}, nil, ErrUnknownCase},
	}
	for _, tt := range tests {
		cs, err := Select(tt.names, Small)
		if !errors.Is(err, tt.err) {
			t.Errorf("Select(%q): error %v, want %v", tt.names, err, tt.err)
			continue
		}
		var got []string
		for _, c := range cs {
			got = append(got, c.Name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Select(%q) = %v, want %v", tt.names, got, tt.want)
		}
	}
}

func TestPair(t *testing.T) {
	tests := []struct {
		from, to string
		err      error
	}{
		{"f32[4,8]{1,0}", "f32[4,8]{0,1}", nil},
		{"f32[4,8", "f32[4,8]{0,1}", relayout.ErrSyntax},
		{"f32[4,8]", "f32[4,9]", relayout.ErrShapeMismatch},
		{"f32[4,8]", "s8[4,8]", relayout.ErrTypeMismatch},
	}
	for _, tt := range tests {
		c, err := Pair(tt.from, tt.to, relayout.Padding{})
		if !errors.Is(err, tt.err) {
			t.Errorf("Pair(%q, %q): error %v, want %v", tt.from, tt.to, err, tt.err)
		}
		if err == nil && c.Name != "custom" {
			t.Errorf("Pair(%q, %q) named %q", tt.from, tt.to, c.Name)
		}
	}
}

func TestSweep(t *testing.T) {
	f, _ := relayout.ParseShape(DefaultSweepFrom)
	to, _ := relayout.ParseShape(DefaultSweepTo)
	cs, err := Sweep(f, to, relayout.Padding{}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
		if c.From.Dim(0) != c.From.Dim(1) {
			t.Errorf("%s is not square: %v", c.Name, c.From)
		}
	}
	if want := []string{"4KiB", "16KiB", "64KiB", "256KiB", "1MiB"}; !slices.Equal(names, want) {
		t.Errorf("sweep points %v, want %v", names, want)
	}
	if n, _ := cs[0].From.ByteSize(); n != 4096 {
		t.Errorf("first point holds %d bytes, want 4096", n)
	}
	three, _ := relayout.ParseShape("f32[2,2,2]")
	if _, err := Sweep(three, three, relayout.Padding{}, 1<<20); err == nil {
		t.Error("a 3-D sweep did not fail")
	}
	if _, err := Sweep(f, to, relayout.Padding{}, 100); err == nil {
		t.Error("a sweep capped below 4 KiB did not fail")
	}
}

func TestBytes(t *testing.T) {
	for _, tt := range []struct {
		text string
		n    int64
	}{{"4096", 4096}, {"4KiB", 4096}, {"4k", 4096}, {"256MiB", 256 << 20}, {"1GiB", 1 << 30}, {"2G", 2 << 30}, {"10b", 10}} {
		n, err := ParseBytes(tt.text)
		if err != nil || n != tt.n {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tt.text, n, err, tt.n)
		}
	}
	for _, bad := range []string{"", "x", "-1", "1.5G", "1TiB", "99999999999G"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) did not fail", bad)
		}
	}
	for n, want := range map[int64]string{4096: "4KiB", 1 << 30: "1GiB", 256 << 20: "256MiB", 1000: "1000B", 1536: "1536B"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0B", 1023: "1023B", 16 << 10: "16KiB", 3984588: "3.80MiB", 256 << 20: "256MiB", 40 << 20: "40MiB", 41 << 19: "20.5MiB"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// relayout/plan_bench_test.go keeps its own copy of the standard set (the
// relayout package cannot import bench): it must list the same cases.
func TestRelayoutBenchMirror(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "relayout", "plan_bench_test.go"))
	if err != nil {
		t.Skipf("relayout benchmarks not found: %v", err)
	}
	goInts := func(d []int64) string {
		if d == nil {
			return "nil"
		}
		return "[]int64{" + strings.ReplaceAll(joinInts(d), ",", ", ") + "}"
	}
	for _, d := range standardDefs() {
		line := fmt.Sprintf("{%q, %q, %s, %s, %q, %q, %s, %s}", d.name, d.dtype, goInts(d.small), goInts(d.full), d.from, d.to, goInts(d.padSmall), goInts(d.padFull))
		if !strings.Contains(string(src), line) {
			t.Errorf("relayout/plan_bench_test.go lacks %s", line)
		}
	}
}

// A case that converts element types has no peers: they move elements
// of one width.
func TestNoPeersAcrossTypes(t *testing.T) {
	from := relayout.NewShape(relayout.F32, []int64{8, 16}, nil)
	to := relayout.NewShape(relayout.BF16, []int64{8, 16}, &relayout.Layout{MinorToMajor: []int{0, 1}})
	c := Case{Name: "convert", From: from, To: to}
	if perm, ok := numpyPerm(c); ok {
		t.Errorf("numpyPerm of a conversion = %v, true", perm)
	}
	if peers := peersFor(c, make([]byte, 2*8*16), make([]byte, 4*8*16)); len(peers) != 0 {
		t.Errorf("peers of a conversion: %d", len(peers))
	}
}
