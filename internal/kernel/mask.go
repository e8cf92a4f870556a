package kernel

import (
	"encoding/binary"
	"fmt"

	"github.com/tilecopy/tilecopy/internal/mem"
)

// A Mask is what a masked copy (Mask.Copy) keeps of its source: a
// pattern of period bytes, byte i of the destination taking the bits of
// source byte i set in keep[i%period] and the others from
// pat[i%period]. A layout copied to itself is such a copy, keep the bits
// of its elements and pat its padding.
type Mask struct {
	period int
	// keep and pat hold the pattern twice over, from offset 0, for a
	// length of 2 × loop bytes: loop is the least common multiple of
	// the period and 256 where that is at most maxMaskLoop, which
	// suits the kernels (kernelLen is then loop), and the period
	// itself where it is not (kernelLen 0: no kernel).
	keep, pat []byte
	loop      int
	kernelLen int
}

// maxMaskLoop bounds a Mask's loop for the kernels: its two patterns,
// twice over, then take 4 × 64 KiB, which the L2 keeps beside the
// lines in flight.
const maxMaskLoop = 64 << 10

// NewMask returns the Mask of period len(keep) that keeps the bits set
// in keep and takes the others from pat (pat's bits under keep are
// ignored). keep and pat must be of one length, at least 1.
func NewMask(keep, pat []byte) (*Mask, error) {
	p := len(keep)
	if p == 0 || len(pat) != p {
		return nil, fmt.Errorf("kernel: mask of %d bytes and pattern of %d: want one length, at least 1", p, len(pat))
	}
	m := &Mask{period: p, loop: p}
	if l := p / gcd(p, copyBlock) * copyBlock; l <= maxMaskLoop {
		m.loop, m.kernelLen = l, l
	}
	m.keep, m.pat = make([]byte, 2*m.loop), make([]byte, 2*m.loop)
	for i := range m.keep {
		k := keep[i%p]
		m.keep[i], m.pat[i] = k, pat[i%p]&^k
	}
	return m, nil
}

// gcd returns the greatest common divisor of a, b > 0.
func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Copy copies min(len(dst), len(src)) bytes of src to dst through m,
// dst[0] at byte phase of the pattern (taken modulo its period), and
// returns that count. With stream, where the level in use has
// non-temporal stores (AVX2 and above), it walks the current tuning's
// CopyParts parts of the buffers at once, as Copy does past the caches,
// and the destination bypasses them (fenced before it returns);
// otherwise it goes through the caches, a vector at a time where the
// level has a kernel for it (AVX2 and above), else, or where the buffers
// overlap, 8 bytes a step.
func (m *Mask) Copy(dst, src []byte, phase int, stream bool) int {
	return m.copyIn(dst, src, phase, stream, tuning.CopyParts)
}

// copyIn is Copy over parts parts where it streams.
func (m *Mask) copyIn(dst, src []byte, phase int, stream bool, parts int) int {
	n := min(len(dst), len(src))
	dst, src = dst[:n], src[:n]
	phase = (phase%m.period + m.period) % m.period
	switch {
	case mem.Overlap(dst, src):
		// An overlap is copied as copy() would, front to back or back
		// to front, then masked in place.
		copy(dst, src)
		m.apply(dst, dst, phase)
	case !copyMasked(dst, src, m, phase, max(parts, 1), stream):
		m.apply(dst, src, phase)
	}
	return n
}

// apply copies src through m to dst (of the same length; the same slice
// or apart), dst[0] at byte phase of the pattern, phase < m.loop.
func (m *Mask) apply(dst, src []byte, phase int) {
	for pos := 0; pos < len(dst); {
		c := min(len(dst)-pos, m.loop)
		maskBytes(dst[pos:pos+c], src[pos:pos+c], m.keep[phase:phase+c], m.pat[phase:phase+c])
		pos += c
		phase = (phase + c) % m.loop
	}
}

// maskBytes stores src & keep | pat into dst, all of one length.
func maskBytes(dst, src, keep, pat []byte) {
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		v := binary.LittleEndian.Uint64(src[i:])&binary.LittleEndian.Uint64(keep[i:]) | binary.LittleEndian.Uint64(pat[i:])
		binary.LittleEndian.PutUint64(dst[i:], v)
	}
	for ; i < len(dst); i++ {
		dst[i] = src[i]&keep[i] | pat[i]
	}
}

// copyParts runs kern, the masked parts kernel of a level, on dst and
// src (of the same length, apart), dst[0] at byte phase of the pattern:
// the bytes before dst's first 64-byte line through apply; then parts
// parts of a multiple of m.kernelLen bytes each, where the buffers hold
// as many; then the whole blocks left as one part, and the bytes after
// them through apply; the kernel's stores fenced where they stream.
func (m *Mask) copyParts(dst, src []byte, phase, parts int, kern func(dst, src *byte, partLen, parts, blocks int, mask, pat *byte, maskLen, phase int), stream bool) {
	n, l := len(dst), m.kernelLen
	done := lineHead(dst)
	m.apply(dst[:done], src[:done], phase)
	ran := false
	for _, k := range []int{parts, 1} {
		partLen := (n - done) / copyBlock * copyBlock // one part: the whole blocks left
		if k > 1 {
			partLen = (n - done) / k / l * l
		}
		if partLen > 0 {
			kern(&dst[done], &src[done], partLen, k, partLen/copyBlock, &m.keep[0], &m.pat[0], l, (phase+done)%l)
			done += k * partLen
			ran = true
		}
	}
	if ran && stream {
		storeFence()
	}
	m.apply(dst[done:], src[done:], (phase+done)%l)
}
