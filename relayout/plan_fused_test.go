package relayout

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

// fused returns p's fused executor, or nil.
func (p *Plan) fused() *fusedTiles {
	f, _ := p.exec.(*fusedTiles)
	return f
}

// TestFusedTilesPlans runs the pairs of f32 rows and bf16 (2,1) tiles
// that fuse (where the level has the kernels) against the reference:
// whole tiles, tiles the edge cuts (odd rows, columns not a multiple of
// the tile's, fewer rows than a tile), batches, other tile sizes and
// paddings, both ways, streamed and not, on one and two threads, and
// chunk range by chunk range; and checks that the fused path ran.
func TestFusedTilesPlans(t *testing.T) {
	cases := []struct {
		rows, tiles string
		pad         Padding
	}{
		{"f32[64,1024]{1,0}", "bf16[64,1024]{1,0:T(8,128)(2,1)}", Padding{}},
		{"f32[1000,1000]{1,0}", "bf16[1000,1000]{1,0:T(8,128)(2,1)}", Padding{}},
		{"f32[13,300]{1,0}", "bf16[13,300]{1,0:T(8,128)(2,1)}", Padding{Kind: PadNaN}},
		{"f32[3,130]{1,0}", "bf16[3,130]{1,0:T(8,128)(2,1)}", PadWith(-1.5)},
		{"f32[2,17,260]{2,1,0}", "bf16[2,17,260]{2,1,0:T(8,128)(2,1)}", Padding{Kind: PadLowest}},
		{"f32[30,100]{1,0}", "bf16[30,100]{1,0:T(4,32)(2,1)}", PadWith(3)},
		{"f32[33,48]{1,0}", "bf16[33,48]{1,0:T(2,16)(2,1)}", Padding{Kind: PadHighest}},
	}
	for i, c := range cases {
		for _, up := range []bool{true, false} {
			from, to := c.rows, c.tiles
			if !up {
				from, to = to, from
			}
			seed := uint64(2*i + 1)
			if up {
				seed++
			}
			runVariants(t, seed, from, to, c.pad, func(p *Plan) {
				if (p.fused() != nil) != kernel.FusedTiles() || (p.fused() != nil) != strings.Contains(p.String(), "fused:") {
					t.Fatalf("%s -> %s: fused %v, the level has the kernels %v:\n%s", from, to, p.fused() != nil, kernel.FusedTiles(), p)
				}
				checkRangesAgainstReference(t, seed, p, c.pad)
			})
		}
	}
}

// TestFusedTilesValues runs the fused plans on the values that round
// differently (f32 NaN payloads, ±inf, ±0, subnormals, ties of bf16
// and random bits) and every bf16 pattern back, against the reference.
func TestFusedTilesValues(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	special := []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0xff812345, 0x7fa00000,
		0x00000001, 0x807fffff, 0x00008000, 0x00018000, 0x7f7fffff, 0x7f7f8000, 0x3f808000, 0x3f818000, 0xbf808000}
	for _, up := range []bool{true, false} {
		rows, tiles := parsePair(t, "f32[256,256]{1,0}", "bf16[256,256]{1,0:T(8,128)(2,1)}")
		from, to := rows, tiles
		if !up {
			from, to = tiles, rows
		}
		p, err := Compile(from, to, nil)
		if err != nil {
			t.Fatal(err)
		}
		src := make([]byte, p.SourceSize())
		for i := range len(src) / 4 {
			x := r.Uint32()
			switch r.IntN(5) {
			case 0:
				x = special[r.IntN(len(special))]
			case 1:
				x &= 0x807fffff // subnormal
			case 2:
				x = x&^0xffff | 0x8000 // a tie
			case 3:
				x |= 0x7f800000 // NaN or inf
			}
			binary.LittleEndian.PutUint32(src[4*i:], x)
		}
		if !up { // every bf16 pattern
			for i := range len(src) / 2 {
				binary.LittleEndian.PutUint16(src[2*i:], uint16(i))
			}
		}
		want, got := make([]byte, p.DestinationSize()), make([]byte, p.DestinationSize())
		if err := Reference(want, src, from, to, Padding{}); err != nil {
			t.Fatal(err)
		}
		if err := p.Run(got, src); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s -> %s (fused %v): the values differ from the reference's", from, to, p.fused() != nil)
		}
	}
}

// TestFusedTilesChosen checks that the pair of the issue, f32
// [8192,8192] to bf16 T(8,128)(2,1) and back, takes the fused path where
// the level has the kernels (today's two passes where not), and that
// pairs close to it that the kernels do not fit keep today's paths.
func TestFusedTilesChosen(t *testing.T) {
	for _, c := range []struct {
		from, to string
		pad      Padding
		fuses    bool
	}{
		{"f32[8192,8192]{1,0}", "bf16[8192,8192]{1,0:T(8,128)(2,1)}", Padding{}, true},
		{"bf16[8192,8192]{1,0:T(8,128)(2,1)}", "f32[8192,8192]{1,0}", Padding{}, true},
		{"f32[1000,1000]{1,0}", "bf16[1000,1000]{1,0:T(8,128)(2,1)}", Padding{}, true},
		{"f32[1000,1000]{1,0}", "bf16[1000,1000]{1,0:T(8,128)(2,1)}", Padding{Widths: []int64{1008, 1024}}, false},
		{"f32[1000,1000]{0,1}", "bf16[1000,1000]{1,0:T(8,128)(2,1)}", Padding{}, false},
		{"f32[1000,1000]{1,0}", "bf16[1000,1000]{0,1:T(8,128)(2,1)}", Padding{}, false},
		{"f32[1000,1000]{1,0}", "bf16[1000,1000]{1,0:T(8,128)}", Padding{}, false},
		{"f32[1000,1000]{1,0}", "bf16[1000,1000]{1,0:T(8,120)(2,1)}", Padding{}, false},
		{"f32[1000,1000]{1,0}", "f16[1000,1000]{1,0:T(8,128)(2,1)}", Padding{}, false},
		{"f32[1000,1000]{1,0:T(8,128)}", "bf16[1000,1000]{1,0:T(8,128)(2,1)}", Padding{}, false},
	} {
		from, to := parsePair(t, c.from, c.to)
		p, err := Compile(from, to, &Options{Pad: c.pad})
		if err != nil {
			t.Fatal(err)
		}
		want := c.fuses && kernel.FusedTiles()
		if (p.fused() != nil) != want || strings.Contains(p.String(), "fused:") != want || !want && p.conversion() == nil {
			t.Errorf("%s -> %s: fused %v, want %v:\n%s", c.from, c.to, p.fused() != nil, want, p)
		}
	}
}
