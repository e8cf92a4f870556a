package tilecopy

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// field returns element i of a packed buffer, by definition: bits i*bits
// to (i+1)*bits counted from the most significant bit of byte 0.
func field(src []byte, i, bits int) byte {
	bit := i * bits
	return src[bit/8] >> (8 - bits - bit%8) & (1<<bits - 1)
}

func TestPackUnpackBits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, bits := range []int{1, 2, 4} {
		for natural := 1; natural <= bits; natural++ {
			for _, signed := range []bool{false, true} {
				t.Run(fmt.Sprintf("E%d/natural%d/signed=%v", bits, natural, signed), func(t *testing.T) {
					for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000 + r.IntN(100)} {
						src := make([]byte, n)
						for i := range src {
							src[i] = byte(r.Uint32())
						}
						packed := bytes.Repeat([]byte{0xff}, (n*bits+7)/8)
						PackBits(packed, src, n, bits)
						for i := range n {
							if got, want := field(packed, i, bits), src[i]&(1<<bits-1); got != want {
								t.Fatalf("n=%d: packed field %d = %x, want %x", n, i, got, want)
							}
						}
						if used := n * bits % 8; used != 0 && packed[len(packed)-1]&(0xff>>used) != 0 {
							t.Fatalf("n=%d: unused bits of the last byte not cleared: %08b", n, packed[len(packed)-1])
						}
						out := make([]byte, n)
						UnpackBits(out, packed, n, bits, natural, signed)
						for i := range n {
							v := src[i] & (1<<natural - 1)
							if signed && v&(1<<(natural-1)) != 0 {
								v |= ^byte(1<<natural - 1)
							}
							if out[i] != v {
								t.Fatalf("n=%d: unpacked %d = %x, want %x (source byte %x)", n, i, out[i], v, src[i])
							}
						}
					}
				})
			}
		}
	}
}
