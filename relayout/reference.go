package relayout

import (
	"fmt"

	"github.com/tilecopy/tilecopy/tiling"
)

// Reference relayouts src, laid out as from, into dst, laid out as to, one
// element at a time through the index maps, writing pad into every place of
// dst that holds no element. It is slow and obviously correct: the oracle
// the planner is tested against. Where the element types differ, each
// element is converted on its own (see Compile). Errors are those of
// Compile and Run. The shapes come in Compile's order: source first.
func Reference(dst, src []byte, from, to Shape, pad Padding) error {
	return ReferenceOptions(dst, src, from, to, &Options{Pad: pad})
}

// ReferenceOptions is Reference with the padding and the conversion
// options (Saturate) of opts; Threads is ignored. A nil opts is the zero
// Options.
func ReferenceOptions(dst, src []byte, from, to Shape, opts *Options) error {
	if opts == nil {
		opts = &Options{}
	}
	fm, tm, pat, err := prepare(from, to, opts.Pad)
	if err != nil {
		return err
	}
	if err := checkBuffers(dst, src, tm.Bytes(), fm.Bytes()); err != nil {
		return err
	}
	dt, st := to.dtype, from.dtype
	conv := newConversion(st, dt, opts.Saturate)
	rank := len(to.dims)
	idx := make([]int64, rank)
	val := make([]byte, dt.ByteWidth())
	sval := make([]byte, st.ByteWidth())
	for off := range tm.Elements() {
		if logicalIndex(tm, off, idx, to.dims) {
			readElement(src, fm, fm.Offset(idx), st, sval)
			if st == dt { // as stored, high bits of unpacked sub-byte values too
				copy(val, sval)
			} else {
				putElement(val, 0, int64(8*len(val)), conv(getElement(sval, 0, int64(8*len(sval)))))
				if dt.IsSubByte() {
					val[0] = widenSubByte(val[0], dt)
				}
			}
		} else {
			copy(val, pat)
		}
		writeElement(dst, tm, off, dt, val)
	}
	// The bits of a packed buffer's last byte beyond its last element.
	if tm.ElementBits() < 8 {
		used := tm.Elements() * tm.ElementBits()
		if r := used % 8; r != 0 {
			dst[len(dst)-1] &^= byte(0xff) >> r
		}
	}
	return nil
}

// prepare checks that from and to describe the same array and returns
// their index maps (the destination's widened by pad.Widths) and the
// padding pattern.
func prepare(from, to Shape, pad Padding) (fm, tm *tiling.Map, pat []byte, err error) {
	if err := sameArray(to, from); err != nil {
		return nil, nil, nil, err
	}
	if fm, err = from.denseMap(); err != nil {
		return nil, nil, nil, fmt.Errorf("source: %w", err)
	}
	wide, err := pad.widened(to)
	if err != nil {
		return nil, nil, nil, err
	}
	if tm, err = wide.denseMap(); err != nil {
		return nil, nil, nil, fmt.Errorf("destination: %w", err)
	}
	if pat, err = pad.pattern(to.dtype); err != nil {
		return nil, nil, nil, err
	}
	return fm, tm, pat, nil
}

// logicalIndex sets idx to the element stored at offset off of m and
// reports whether there is one inside dims (dims may be smaller than the
// map's when the destination is widened).
func logicalIndex(m *tiling.Map, off int64, idx, dims []int64) bool {
	if !m.Index(off, idx) {
		return false
	}
	for d, n := range dims {
		if idx[d] >= n {
			return false
		}
	}
	return true
}

// readElement reads element off of buf (laid out by m) into val, as the
// little-endian bytes of one unpacked element of type dt. A packed
// sub-byte element is unpacked: sign-extended for signed types,
// zero-filled otherwise; an unpacked one is read as stored.
func readElement(buf []byte, m *tiling.Map, off int64, dt DType, val []byte) {
	b, shift := m.BitOffset(off)
	if m.ElementBits() >= 8 {
		copy(val, buf[b:b+int64(len(val))])
		return
	}
	val[0] = widenSubByte(buf[b]>>shift, dt)
}

// writeElement writes the unpacked element val of type dt as element off
// of buf (laid out by m); packing keeps the low bits.
func writeElement(buf []byte, m *tiling.Map, off int64, dt DType, val []byte) {
	b, shift := m.BitOffset(off)
	storage := m.ElementBits()
	if storage >= 8 {
		copy(buf[b:b+int64(len(val))], val)
		return
	}
	mask := byte(1)<<storage - 1
	buf[b] = buf[b]&^(mask<<shift) | (val[0]&mask)<<shift
}

// widenSubByte extends a sub-byte value (in the low bits) to a byte:
// sign-extended for signed types, zero-filled otherwise.
func widenSubByte(v byte, dt DType) byte {
	bits := dt.Bits()
	v &= byte(1)<<bits - 1
	if dt.IsSigned() && v&(1<<(bits-1)) != 0 {
		v |= ^(byte(1)<<bits - 1)
	}
	return v
}
