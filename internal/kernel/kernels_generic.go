package kernel

import (
	"encoding/binary"
	"unsafe"
)

// The portable kernels: the fallback on every machine and the reference
// the assembly kernels are tested against. Callers have checked bounds.

func copyRunsGeneric(dst []byte, dstStride int, src []byte, srcStride int, n, rows int) {
	if n == 0 {
		return
	}
	if dstStride == n && srcStride == n {
		copy(dst[:n*rows], src[:n*rows])
		return
	}
	if n <= 32 && n&(n-1) == 0 {
		copyShortRuns(dst, dstStride, src, srcStride, n, rows)
		return
	}
	if n < 16 {
		copyOddRuns(dst, dstStride, src, srcStride, n, rows)
		return
	}
	if n < 64 {
		copyMidRuns(dst, dstStride, src, srcStride, n, rows)
		return
	}
	d, s := 0, 0
	for range rows {
		copy(dst[d:d+n], src[s:s+n])
		d += dstStride
		s += srcStride
	}
}

// copyMidRuns is copyRunsGeneric for runs of 17 to 63 bytes: two moves
// of 16 or 32 bytes a run, the second ending at the run's end, over the
// first where they overlap, in place of a call to memmove a run (the
// cut last tile of u8 rows of 155 bytes in T(2,128) tiles, 27 bytes of
// each row: memmove was a fifth of the profile).
func copyMidRuns(dst []byte, dstStride int, src []byte, srcStride int, n, rows int) {
	d, s := 0, 0
	for range rows {
		dr, sr := dst[d:d+n], src[s:s+n]
		if n <= 32 {
			*(*[16]byte)(dr) = *(*[16]byte)(sr)
			*(*[16]byte)(dr[n-16:]) = *(*[16]byte)(sr[n-16:])
		} else {
			*(*[32]byte)(dr) = *(*[32]byte)(sr)
			*(*[32]byte)(dr[n-32:]) = *(*[32]byte)(sr[n-32:])
		}
		d += dstStride
		s += srcStride
	}
}

// copyShortRuns is copyRunsGeneric for runs of 1, 2, 4, 8, 16 or 32
// bytes, each moved by the compiler's inline moves of up to 16 bytes:
// copy() is a call to memmove a run, which cost more than the move (f32
// T(8,8) untiled: runs of 32 bytes, a tile's 8 a call; the blocked plans'
// gathers of 4 bytes of each 8-byte row of u8 T(8,8) tiles, 1.3-1.5x
// faster on three of the random pairs that make them: docs/perf).
func copyShortRuns(dst []byte, dstStride int, src []byte, srcStride int, n, rows int) {
	d, s := 0, 0
	for range rows {
		switch n {
		case 1:
			dst[d] = src[s]
		case 2:
			*(*[2]byte)(dst[d:]) = *(*[2]byte)(src[s:])
		case 4:
			*(*[4]byte)(dst[d:]) = *(*[4]byte)(src[s:])
		case 8:
			*(*[8]byte)(dst[d:]) = *(*[8]byte)(src[s:])
		case 16:
			*(*[16]byte)(dst[d:]) = *(*[16]byte)(src[s:])
		default:
			dr, sr := dst[d:d+32], src[s:s+32]
			*(*[16]byte)(dr) = *(*[16]byte)(sr)
			*(*[16]byte)(dr[16:]) = *(*[16]byte)(sr[16:])
		}
		d += dstStride
		s += srcStride
	}
}

// copyOddRuns is copyRunsGeneric for runs of 3 to 15 bytes that are no
// power of two, each moved by two of the compiler's inline moves of the
// power of two below n, the second ending where the run ends: copy()'s
// call to memmove a run cost more than the move (runs of 3 bytes of
// u8[2,3,2547,890]{1,0,2,3} into T(8,128)(4,1) tiles; docs/perf).
func copyOddRuns(dst []byte, dstStride int, src []byte, srcStride int, n, rows int) {
	d, s := 0, 0
	for range rows {
		dr, sr := dst[d:d+n], src[s:s+n]
		switch {
		case n < 4:
			*(*[2]byte)(dr) = *(*[2]byte)(sr)
			*(*[2]byte)(dr[n-2:]) = *(*[2]byte)(sr[n-2:])
		case n < 8:
			*(*[4]byte)(dr) = *(*[4]byte)(sr)
			*(*[4]byte)(dr[n-4:]) = *(*[4]byte)(sr[n-4:])
		default:
			*(*[8]byte)(dr) = *(*[8]byte)(sr)
			*(*[8]byte)(dr[n-8:]) = *(*[8]byte)(sr[n-8:])
		}
		d += dstStride
		s += srcStride
	}
}

// copyRunsGridGeneric is copyRunsGeneric steps times, each step's runs
// dstStep and srcStep bytes after the last's.
func copyRunsGridGeneric(dst []byte, dstStride, dstStep int, src []byte, srcStride, srcStep int, n, rows, steps int) {
	d, s := 0, 0
	for range steps {
		copyRunsGeneric(dst[d:], dstStride, src[s:], srcStride, n, rows)
		d += dstStep
		s += srcStep
	}
}

func fillRunsGeneric(dst []byte, dstStride int, n, rows int, pattern []byte) {
	if n == 0 || rows == 0 {
		return
	}
	zero := true
	for _, b := range pattern {
		zero = zero && b == 0
	}
	d := 0
	for range rows {
		run := dst[d : d+n]
		if zero {
			clear(run)
		} else {
			k := copy(run, pattern)
			for k < n { // doubling copies
				k += copy(run[k:], run[:k])
			}
		}
		d += dstStride
	}
}

// The generic transpose walks macro blocks of mi × mj elements (mi of
// each source row by mj source rows) in micro blocks of ui × uj. The
// macro block is long and shallow: its source rows lie at the large,
// often power-of-two strides of a plane and share cache sets, so few of
// them fit a set's ways, while a long stretch of each streams well.
// At 256 MiB these beat the square 256 × 256 blocks they replaced for
// f32, f64 and u8 (with 16 × 16 micro blocks; in-process A/B against
// copy()); u16 is best with the square blocks. A micro block as deep as
// the macro block (uj = mj) saves calls: the blockN functions already
// walk four source rows at a time, so the order is the same.
func genericBlocks(width int) (mi, mj, ui, uj int) {
	switch width {
	case 1:
		return 256, 256, 16, 16
	case 2:
		return 256, 256, 8, 8
	case 4:
		return 512, 64, 8, 64
	}
	return 4096 / width, 32, 8, 32
}

func transposeGeneric(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	dp := unsafe.Pointer(unsafe.SliceData(dst))
	sp := unsafe.Pointer(unsafe.SliceData(src))
	if fastWords && (cols == 2 || cols == 4) && pow2(width) && width*cols <= 8 && dstStride == width*cols {
		interleave(width, cols, dp, sp, srcStride, rows)
		return
	}
	if fastWords && (rows == 2 || rows == 4) && pow2(width) && width*rows <= 8 && srcStride == width*rows {
		deinterleave(width, rows, dp, dstStride, sp, cols)
		return
	}
	mi, mj, ui, uj := genericBlocks(width)
	for I := 0; I < rows; I += mi {
		I1 := min(I+mi, rows)
		for J := 0; J < cols; J += mj {
			J1 := min(J+mj, cols)
			for i0 := I; i0 < I1; i0 += ui {
				i1 := min(i0+ui, I1)
				for j0 := J; j0 < J1; j0 += uj {
					j1 := min(j0+uj, J1)
					switch {
					case !fastWords:
						blockBytewise(width, dst, dstStride, src, srcStride, i0, i1, j0, j1)
					case width == 1:
						block1(dp, dstStride, sp, srcStride, i0, i1, j0, j1)
					case width == 2:
						block2(dp, dstStride, sp, srcStride, i0, i1, j0, j1)
					case width == 4:
						block4(dp, dstStride, sp, srcStride, i0, i1, j0, j1)
					case width == 8:
						block8(dp, dstStride, sp, srcStride, i0, i1, j0, j1)
					case width == 16:
						block16(dp, dstStride, sp, srcStride, i0, i1, j0, j1)
					default:
						blockOdd(width, dp, dstStride, sp, srcStride, i0, i1, j0, j1)
					}
				}
			}
		}
	}
}

// The blockN functions transpose the block [i0,i1) × [j0,j1) of
// transposeGeneric; Transpose checked its bounds. Several source rows are
// read together so that each destination write covers several elements.

func block4(dp unsafe.Pointer, ds int, sp unsafe.Pointer, ss int, i0, i1, j0, j1 int) {
	j := j0
	for ; j+4 <= j1; j += 4 {
		s0 := unsafe.Add(sp, j*ss)
		i := i0
		// Two destination rows per step: one 8-byte load per source row
		// holds an element of each.
		for ; i+2 <= i1; i += 2 {
			s := unsafe.Add(s0, i*4)
			a := *(*uint64)(s)
			b := *(*uint64)(unsafe.Add(s, ss))
			c := *(*uint64)(unsafe.Add(s, 2*ss))
			e := *(*uint64)(unsafe.Add(s, 3*ss))
			d := unsafe.Add(dp, i*ds+j*4)
			*(*uint64)(d) = a&0xffffffff | b<<32
			*(*uint64)(unsafe.Add(d, 8)) = c&0xffffffff | e<<32
			d = unsafe.Add(d, ds)
			*(*uint64)(d) = a>>32 | b&^0xffffffff
			*(*uint64)(unsafe.Add(d, 8)) = c>>32 | e&^0xffffffff
		}
		for ; i < i1; i++ {
			s := unsafe.Add(s0, i*4)
			d := unsafe.Add(dp, i*ds+j*4)
			*(*uint32)(d) = *(*uint32)(s)
			*(*uint32)(unsafe.Add(d, 4)) = *(*uint32)(unsafe.Add(s, ss))
			*(*uint32)(unsafe.Add(d, 8)) = *(*uint32)(unsafe.Add(s, 2*ss))
			*(*uint32)(unsafe.Add(d, 12)) = *(*uint32)(unsafe.Add(s, 3*ss))
		}
	}
	for ; j < j1; j++ {
		s := unsafe.Add(sp, j*ss)
		for i := i0; i < i1; i++ {
			*(*uint32)(unsafe.Add(dp, i*ds+j*4)) = *(*uint32)(unsafe.Add(s, i*4))
		}
	}
}

func block8(dp unsafe.Pointer, ds int, sp unsafe.Pointer, ss int, i0, i1, j0, j1 int) {
	j := j0
	for ; j+4 <= j1; j += 4 {
		s0 := unsafe.Add(sp, j*ss)
		s1 := unsafe.Add(s0, ss)
		s2 := unsafe.Add(s1, ss)
		s3 := unsafe.Add(s2, ss)
		for i := i0; i < i1; i++ {
			d := unsafe.Add(dp, i*ds+j*8)
			*(*uint64)(d) = *(*uint64)(unsafe.Add(s0, i*8))
			*(*uint64)(unsafe.Add(d, 8)) = *(*uint64)(unsafe.Add(s1, i*8))
			*(*uint64)(unsafe.Add(d, 16)) = *(*uint64)(unsafe.Add(s2, i*8))
			*(*uint64)(unsafe.Add(d, 24)) = *(*uint64)(unsafe.Add(s3, i*8))
		}
	}
	for ; j < j1; j++ {
		s := unsafe.Add(sp, j*ss)
		for i := i0; i < i1; i++ {
			*(*uint64)(unsafe.Add(dp, i*ds+j*8)) = *(*uint64)(unsafe.Add(s, i*8))
		}
	}
}

func block16(dp unsafe.Pointer, ds int, sp unsafe.Pointer, ss int, i0, i1, j0, j1 int) {
	for j := j0; j < j1; j++ {
		s := unsafe.Add(sp, j*ss)
		for i := i0; i < i1; i++ {
			d := unsafe.Add(dp, i*ds+j*16)
			e := unsafe.Add(s, i*16)
			*(*uint64)(d) = *(*uint64)(e)
			*(*uint64)(unsafe.Add(d, 8)) = *(*uint64)(unsafe.Add(e, 8))
		}
	}
}

func block2(dp unsafe.Pointer, ds int, sp unsafe.Pointer, ss int, i0, i1, j0, j1 int) {
	j := j0
	for ; j+4 <= j1; j += 4 {
		s0 := unsafe.Add(sp, j*ss)
		s1 := unsafe.Add(s0, ss)
		s2 := unsafe.Add(s1, ss)
		s3 := unsafe.Add(s2, ss)
		for i := i0; i < i1; i++ {
			v := uint64(*(*uint16)(unsafe.Add(s0, i*2))) |
				uint64(*(*uint16)(unsafe.Add(s1, i*2)))<<16 |
				uint64(*(*uint16)(unsafe.Add(s2, i*2)))<<32 |
				uint64(*(*uint16)(unsafe.Add(s3, i*2)))<<48
			*(*uint64)(unsafe.Add(dp, i*ds+j*2)) = v
		}
	}
	for ; j < j1; j++ {
		s := unsafe.Add(sp, j*ss)
		for i := i0; i < i1; i++ {
			*(*uint16)(unsafe.Add(dp, i*ds+j*2)) = *(*uint16)(unsafe.Add(s, i*2))
		}
	}
}

func block1(dp unsafe.Pointer, ds int, sp unsafe.Pointer, ss int, i0, i1, j0, j1 int) {
	j := j0
	if i1-i0 == 4 {
		// Four rows: the 4 bytes of each of 8 source rows, a word
		// each, are a 4×8 matrix of bytes, which transposeBytes4 turns
		// as two 4×4 ones (columns j..j+3 in the low halves, j+4..j+7
		// in the high). The (4,1) tiles of 8-bit types, untiled, take
		// such blocks, 4 rows of many columns.
		for ; j+8 <= j1; j += 8 {
			var r [4]uint64
			for k := range r {
				lo := *(*uint32)(unsafe.Add(sp, (j+k)*ss+i0))
				hi := *(*uint32)(unsafe.Add(sp, (j+k+4)*ss+i0))
				r[k] = uint64(lo) | uint64(hi)<<32
			}
			r[0], r[1], r[2], r[3] = transposeBytes4(r[0], r[1], r[2], r[3])
			for k, v := range r {
				*(*uint64)(unsafe.Add(dp, (i0+k)*ds+j)) = v
			}
		}
	}
	for ; j+8 <= j1; j += 8 {
		i := i0
		for ; i+8 <= i1; i += 8 {
			block8x8(unsafe.Add(dp, i*ds+j), ds, unsafe.Add(sp, j*ss+i), ss)
		}
		var s [8]unsafe.Pointer
		for k := range s {
			s[k] = unsafe.Add(sp, (j+k)*ss)
		}
		for ; i < i1; i++ {
			v := uint64(*(*byte)(unsafe.Add(s[0], i))) |
				uint64(*(*byte)(unsafe.Add(s[1], i)))<<8 |
				uint64(*(*byte)(unsafe.Add(s[2], i)))<<16 |
				uint64(*(*byte)(unsafe.Add(s[3], i)))<<24 |
				uint64(*(*byte)(unsafe.Add(s[4], i)))<<32 |
				uint64(*(*byte)(unsafe.Add(s[5], i)))<<40 |
				uint64(*(*byte)(unsafe.Add(s[6], i)))<<48 |
				uint64(*(*byte)(unsafe.Add(s[7], i)))<<56
			*(*uint64)(unsafe.Add(dp, i*ds+j)) = v
		}
	}
	for ; j < j1; j++ {
		s := unsafe.Add(sp, j*ss)
		for i := i0; i < i1; i++ {
			*(*byte)(unsafe.Add(dp, i*ds+j)) = *(*byte)(unsafe.Add(s, i))
		}
	}
}

// blockOdd moves elements of 3, 5, 6, 7 or 9 to 15 bytes, each as two
// words that overlap inside it (bytes [0, k) and [width-k, width), k the
// largest power of two below width): no byte outside an element is read
// or written.
func blockOdd(width int, dp unsafe.Pointer, ds int, sp unsafe.Pointer, ss int, i0, i1, j0, j1 int) {
	for i := i0; i < i1; i++ {
		s := unsafe.Add(sp, i*width)
		d := unsafe.Add(dp, i*ds)
		switch {
		case width < 4:
			for j := j0; j < j1; j++ {
				e, o := unsafe.Add(s, j*ss), unsafe.Add(d, j*width)
				*(*uint16)(o) = *(*uint16)(e)
				*(*uint16)(unsafe.Add(o, 1)) = *(*uint16)(unsafe.Add(e, 1))
			}
		case width < 8:
			for j := j0; j < j1; j++ {
				e, o := unsafe.Add(s, j*ss), unsafe.Add(d, j*width)
				*(*uint32)(o) = *(*uint32)(e)
				*(*uint32)(unsafe.Add(o, width-4)) = *(*uint32)(unsafe.Add(e, width-4))
			}
		default:
			for j := j0; j < j1; j++ {
				e, o := unsafe.Add(s, j*ss), unsafe.Add(d, j*width)
				*(*uint64)(o) = *(*uint64)(e)
				*(*uint64)(unsafe.Add(o, width-8)) = *(*uint64)(unsafe.Add(e, width-8))
			}
		}
	}
}

// blockBytewise is the block transpose for machines without fast
// unaligned little-endian words.
func blockBytewise(w int, dst []byte, ds int, src []byte, ss int, i0, i1, j0, j1 int) {
	for j := j0; j < j1; j++ {
		for i := i0; i < i1; i++ {
			copy(dst[i*ds+j*w:i*ds+j*w+w], src[j*ss+i*w:j*ss+i*w+w])
		}
	}
}

// interleave is the transpose whose destination rows are cols ∈ {2, 4}
// elements packed back to back: it weaves cols source rows into one
// stream, one word store per destination row (TPU tiles (2,1) and (4,1)).
func interleave(width, cols int, dp, sp unsafe.Pointer, ss int, rows int) {
	s0, s1 := sp, unsafe.Add(sp, ss)
	switch width*8 + cols {
	case 8 + 2:
		for i := range rows {
			*(*uint16)(unsafe.Add(dp, 2*i)) = uint16(*(*uint8)(unsafe.Add(s0, i))) | uint16(*(*uint8)(unsafe.Add(s1, i)))<<8
		}
	case 16 + 2:
		for i := range rows {
			*(*uint32)(unsafe.Add(dp, 4*i)) = uint32(*(*uint16)(unsafe.Add(s0, 2*i))) | uint32(*(*uint16)(unsafe.Add(s1, 2*i)))<<16
		}
	case 32 + 2:
		for i := range rows {
			*(*uint64)(unsafe.Add(dp, 8*i)) = uint64(*(*uint32)(unsafe.Add(s0, 4*i))) | uint64(*(*uint32)(unsafe.Add(s1, 4*i)))<<32
		}
	case 8 + 4:
		s2, s3 := unsafe.Add(s1, ss), unsafe.Add(s1, 2*ss)
		for i := range rows {
			*(*uint32)(unsafe.Add(dp, 4*i)) = uint32(*(*uint8)(unsafe.Add(s0, i))) | uint32(*(*uint8)(unsafe.Add(s1, i)))<<8 |
				uint32(*(*uint8)(unsafe.Add(s2, i)))<<16 | uint32(*(*uint8)(unsafe.Add(s3, i)))<<24
		}
	case 16 + 4:
		s2, s3 := unsafe.Add(s1, ss), unsafe.Add(s1, 2*ss)
		for i := range rows {
			*(*uint64)(unsafe.Add(dp, 8*i)) = uint64(*(*uint16)(unsafe.Add(s0, 2*i))) | uint64(*(*uint16)(unsafe.Add(s1, 2*i)))<<16 |
				uint64(*(*uint16)(unsafe.Add(s2, 2*i)))<<32 | uint64(*(*uint16)(unsafe.Add(s3, 2*i)))<<48
		}
	}
}

// deinterleave is the transpose whose source rows are rows ∈ {2, 4}
// elements packed back to back: one word load per source row, split over
// rows destination rows (untiling (2,1) and (4,1)).
func deinterleave(width, rows int, dp unsafe.Pointer, ds int, sp unsafe.Pointer, cols int) {
	d0, d1 := dp, unsafe.Add(dp, ds)
	switch width*8 + rows {
	case 8 + 2:
		for j := range cols {
			v := *(*uint16)(unsafe.Add(sp, 2*j))
			*(*uint8)(unsafe.Add(d0, j)) = uint8(v)
			*(*uint8)(unsafe.Add(d1, j)) = uint8(v >> 8)
		}
	case 16 + 2:
		for j := range cols {
			v := *(*uint32)(unsafe.Add(sp, 4*j))
			*(*uint16)(unsafe.Add(d0, 2*j)) = uint16(v)
			*(*uint16)(unsafe.Add(d1, 2*j)) = uint16(v >> 16)
		}
	case 32 + 2:
		for j := range cols {
			v := *(*uint64)(unsafe.Add(sp, 8*j))
			*(*uint32)(unsafe.Add(d0, 4*j)) = uint32(v)
			*(*uint32)(unsafe.Add(d1, 4*j)) = uint32(v >> 32)
		}
	case 8 + 4:
		d2, d3 := unsafe.Add(d1, ds), unsafe.Add(d1, 2*ds)
		for j := range cols {
			v := *(*uint32)(unsafe.Add(sp, 4*j))
			*(*uint8)(unsafe.Add(d0, j)) = uint8(v)
			*(*uint8)(unsafe.Add(d1, j)) = uint8(v >> 8)
			*(*uint8)(unsafe.Add(d2, j)) = uint8(v >> 16)
			*(*uint8)(unsafe.Add(d3, j)) = uint8(v >> 24)
		}
	case 16 + 4:
		d2, d3 := unsafe.Add(d1, ds), unsafe.Add(d1, 2*ds)
		for j := range cols {
			v := *(*uint64)(unsafe.Add(sp, 8*j))
			*(*uint16)(unsafe.Add(d0, 2*j)) = uint16(v)
			*(*uint16)(unsafe.Add(d1, 2*j)) = uint16(v >> 16)
			*(*uint16)(unsafe.Add(d2, 2*j)) = uint16(v >> 32)
			*(*uint16)(unsafe.Add(d3, 2*j)) = uint16(v >> 48)
		}
	}
}

func packBitsGeneric(dst, src []byte, n, bits int) {
	i := 0
	if fastWords {
		// A word of eight elements at a time: pair neighbouring lanes,
		// the first one's field above the second's, into lanes twice as
		// wide (16, 32, 64 bits) until each holds a byte of fields, then
		// gather those bytes.
		dp := unsafe.Pointer(unsafe.SliceData(dst))
		sp := unsafe.Pointer(unsafe.SliceData(src))
		// One loop per field width, each a word of elements a step.
		switch bits {
		case 4:
			for ; i+8 <= n; i += 8 {
				v := *(*uint64)(unsafe.Add(sp, i)) & 0x0f0f0f0f0f0f0f0f
				v = (v<<4 | v>>8) & 0x00ff00ff00ff00ff
				v = (v | v>>8) & 0x0000ffff0000ffff
				*(*uint32)(unsafe.Add(dp, i/2)) = uint32(v | v>>16)
			}
		case 2:
			for ; i+8 <= n; i += 8 {
				v := *(*uint64)(unsafe.Add(sp, i)) & 0x0303030303030303
				v = (v<<2 | v>>8) & 0x000f000f000f000f
				v = (v<<4 | v>>16) & 0x000000ff000000ff
				*(*uint16)(unsafe.Add(dp, i/4)) = uint16(v | v>>24)
			}
		default:
			for ; i+8 <= n; i += 8 {
				v := *(*uint64)(unsafe.Add(sp, i)) & 0x0101010101010101
				v = (v<<1 | v>>8) & 0x0003000300030003
				v = (v<<2 | v>>16) & 0x0000000f0000000f
				*(*uint8)(unsafe.Add(dp, i/8)) = uint8(v<<4 | v>>32)
			}
		}
	}
	per := 8 / bits
	mask := byte(1)<<bits - 1
	for ; i < n; i += per {
		var b byte
		for k := range per {
			b <<= bits
			if i+k < n {
				b |= src[i+k] & mask
			}
		}
		dst[i/per] = b
	}
}

func unpackBitsGeneric(dst, src []byte, n, bits, natural int, signed bool) {
	fv := newFieldValues(natural, signed)
	i := 0
	if fastWords {
		// The bytes of eight elements (bits of them) at a time: spread
		// them to lanes of 64/bits bits, split each lane into two halves,
		// the upper field into the lower half, until the lanes are bytes;
		// keep the value's bits, then sign-extend the bytes whose top
		// value bit is set (the multiply copies that bit into all the
		// bits above it, within the byte).
		dp := unsafe.Pointer(unsafe.SliceData(dst))
		sp := unsafe.Pointer(unsafe.SliceData(src))
		// One loop per field width, each eight elements a step.
		switch bits {
		case 4:
			for ; i+8 <= n; i += 8 {
				x := uint64(*(*uint32)(unsafe.Add(sp, i/2)))
				x = (x | x<<16) & 0x0000ffff0000ffff
				x = (x | x<<8) & 0x00ff00ff00ff00ff
				x = (x>>4)&0x000f000f000f000f | (x&0x000f000f000f000f)<<8
				*(*uint64)(unsafe.Add(dp, i)) = fv.word(x)
			}
		case 2:
			for ; i+8 <= n; i += 8 {
				x := uint64(*(*uint16)(unsafe.Add(sp, i/4)))
				x = (x | x<<24) & 0x000000ff000000ff
				x = (x>>4)&0x0000000f0000000f | (x&0x0000000f0000000f)<<16
				x = (x>>2)&0x0003000300030003 | (x&0x0003000300030003)<<8
				*(*uint64)(unsafe.Add(dp, i)) = fv.word(x)
			}
		default:
			for ; i+8 <= n; i += 8 {
				x := uint64(*(*uint8)(unsafe.Add(sp, i/8)))
				x = (x>>4)&0xf | (x&0xf)<<32
				x = (x>>2)&0x0000000300000003 | (x&0x0000000300000003)<<16
				x = (x>>1)&0x0001000100010001 | (x&0x0001000100010001)<<8
				*(*uint64)(unsafe.Add(dp, i)) = fv.word(x)
			}
		}
	}
	per := 8 / bits
	for ; i < n; i++ {
		dst[i] = fv.byte(src[i/per] >> uint(8-bits-(i%per)*bits))
	}
}

// fieldValues turns fields, one a byte in its low bits (or eight a word),
// into the values UnpackBits gives: the low natural bits, sign-extended
// when signed.
type fieldValues struct {
	mask, sign      byte   // the value's bits; its top bit when signed, else 0
	keep, top, fill uint64 // mask and sign in every byte of a word; the multiplier that copies the sign bit up
}

// newFieldValues returns the fieldValues of natural-bit values.
func newFieldValues(natural int, signed bool) fieldValues {
	f := fieldValues{mask: byte(1)<<natural - 1}
	if signed {
		f.sign = 1 << (natural - 1)
	}
	f.keep = 0x0101010101010101 * uint64(f.mask)
	f.top = 0x0101010101010101 * uint64(f.sign)
	f.fill = uint64(0xff<<natural&0xff) >> (natural - 1)
	return f
}

// byte returns the value of the field in the low bits of b.
func (f fieldValues) byte(b byte) byte { return (b&f.mask ^ f.sign) - f.sign }

// word returns the values of the fields in the low bits of each byte of
// x: the bytes whose top value bit is set sign-extended by a multiply
// that copies that bit into the bits above it, within the byte.
func (f fieldValues) word(x uint64) uint64 {
	x &= f.keep
	return x | (x&f.top)*f.fill
}

// transposeFieldsGeneric is TransposeFields after its checks, from byte
// b0 of every row on (the bytes before it done already), a word at a
// time: the rows' bytes spread into a word's e-byte groups, then the
// fieldSwaps delta swaps.
func transposeFieldsGeneric(dst, src []byte, srcStride, rows, n, b0, bits int) {
	e := 8 / bits
	swaps := swapsFor(bits)
	per := 8 / e // bytes of each row in a word
	var r [8][]byte
	for k := 0; k < rows/e; k++ {
		for m := range e {
			r[m] = src[(k*e+m)*srcStride:][:n]
		}
		d := dst[k*e*n : (k+1)*e*n]
		for b := b0; b < n; b += per {
			var x uint64
			switch {
			case b+per > n: // the last bytes of the rows: a group at a time
				for j := range n - b {
					for m := range e {
						x |= uint64(r[m][b+j]) << (8 * (e*j + m))
					}
				}
			case e == 2:
				x = spread2(binary.LittleEndian.Uint32(r[0][b:])) | spread2(binary.LittleEndian.Uint32(r[1][b:]))<<8
			case e == 4:
				x = spread4(r[0][b:]) | spread4(r[1][b:])<<8 | spread4(r[2][b:])<<16 | spread4(r[3][b:])<<24
			default:
				x = uint64(r[0][b]) | uint64(r[1][b])<<8 | uint64(r[2][b])<<16 | uint64(r[3][b])<<24 |
					uint64(r[4][b])<<32 | uint64(r[5][b])<<40 | uint64(r[6][b])<<48 | uint64(r[7][b])<<56
			}
			for _, w := range swaps {
				t := (x>>w.shift ^ x) & w.mask
				x ^= t ^ t<<w.shift
			}
			if b+per <= n {
				binary.LittleEndian.PutUint64(d[e*b:], x)
				continue
			}
			for j := range e * (n - b) {
				d[e*b+j] = byte(x >> (8 * j))
			}
		}
	}
}

// packRows8Generic is PackRows8 after its checks: a word of each pair of
// rows at a time packs eight bytes of fields (row 2i over row 2i+1),
// which spread to every fourth byte of the destination.
func packRows8Generic(dst, src []byte, srcStride, n int) {
	j := 0
	if fastWords {
		sp := unsafe.Pointer(unsafe.SliceData(src))
		dp := unsafe.Pointer(unsafe.SliceData(dst))
		for ; j+8 <= n; j += 8 {
			var out [4]uint64 // words j..j+7, two to an element
			for i := range 4 {
				hi := *(*uint64)(unsafe.Add(sp, 2*i*srcStride+j)) & 0x0f0f0f0f0f0f0f0f
				lo := *(*uint64)(unsafe.Add(sp, (2*i+1)*srcStride+j)) & 0x0f0f0f0f0f0f0f0f
				p := hi<<4 | lo // byte k: the fields of rows 2i, 2i+1 at column j+k
				for k := range 4 {
					b := p >> (16 * k) // columns j+2k and j+2k+1 in its low two bytes
					out[k] |= (b&0xff)<<(8*i) | (b>>8&0xff)<<(8*i+32)
				}
			}
			for k, w := range out {
				*(*uint64)(unsafe.Add(dp, 4*j+8*k)) = w
			}
		}
	}
	for ; j < n; j++ {
		for i := range 4 {
			dst[4*j+i] = src[2*i*srcStride+j]&0x0f<<4 | src[(2*i+1)*srcStride+j]&0x0f
		}
	}
}

// unpackRows8Generic is UnpackRows8 after its checks: eight words at a
// time gather, for each pair of rows, the eight bytes that hold its
// fields, which split into the two rows' bytes (as unpackBitsGeneric
// masks and sign-extends them); the rest a field at a time.
func unpackRows8Generic(dst []byte, dstStride int, src []byte, n, natural int, signed bool) {
	fv := newFieldValues(natural, signed)
	j := 0
	if fastWords {
		sp := unsafe.Pointer(unsafe.SliceData(src))
		dp := unsafe.Pointer(unsafe.SliceData(dst))
		for ; j+8 <= n; j += 8 {
			var w [4]uint64 // words j..j+7, two to an element
			for k := range w {
				w[k] = *(*uint64)(unsafe.Add(sp, 4*j+8*k))
			}
			for i := range 4 {
				var p uint64 // byte m: the fields of rows 2i, 2i+1 at column j+m
				for k, x := range w {
					p |= (x>>(8*i)&0xff)<<(16*k) | (x>>(8*i+32)&0xff)<<(16*k+8)
				}
				*(*uint64)(unsafe.Add(dp, 2*i*dstStride+j)) = fv.word(p >> 4)
				*(*uint64)(unsafe.Add(dp, (2*i+1)*dstStride+j)) = fv.word(p)
			}
		}
	}
	for ; j < n; j++ {
		for i := range 4 {
			b := src[4*j+i]
			dst[2*i*dstStride+j] = fv.byte(b >> 4)
			dst[(2*i+1)*dstStride+j] = fv.byte(b)
		}
	}
}

// Masks of the high and the low nibble of every byte of a word.
const (
	highNibbles = 0xf0f0f0f0f0f0f0f0
	lowNibbles  = 0x0f0f0f0f0f0f0f0f
)

// swapNibbles returns, byte by byte, x&0xf0 | y>>4 and x<<4 | y&0x0f: of
// bytes of packed rows 2i and 2i+1, byte i of the (8,1) words of their
// two fields; of those, the rows' bytes again.
func swapNibbles(x, y uint64) (uint64, uint64) {
	return x&highNibbles | y>>4&lowNibbles, x<<4&highNibbles | y&lowNibbles
}

// interleaveNibbles8Generic is InterleaveNibbles8 after its checks:
// eight bytes of each row at a time (16 words) where words load whole,
// then four (8 words: the 8 fields of a T(8,8) tile's row, a call each),
// then a field at a time.
func interleaveNibbles8Generic(dst, src []byte, srcStride, n int) {
	j := 0 // the field
	if fastWords {
		sp := unsafe.Pointer(unsafe.SliceData(src))
		dp := unsafe.Pointer(unsafe.SliceData(dst))
		var rows, out [8]uint64
		for j+8 <= n {
			words := 8 // two fields each
			if j+16 > n {
				words = 4
			}
			for r := range rows {
				at := unsafe.Add(sp, r*srcStride+j/2)
				if words == 8 {
					rows[r] = *(*uint64)(at)
				} else {
					rows[r] = uint64(*(*uint32)(at))
				}
			}
			nibbleWords(out[:words], &rows)
			for k, w := range out[:words] {
				*(*uint64)(unsafe.Add(dp, 4*j+8*k)) = w
			}
			j += 2 * words
		}
	}
	for ; j < n; j++ {
		for i := range 4 {
			dst[4*j+i] = field4At(src[2*i*srcStride:], j)<<4 | field4At(src[(2*i+1)*srcStride:], j)
		}
	}
}

// nibbleWords sets each out[k] to the (8,1) words of fields 2k and
// 2k+1 of the 8 packed rows, from their first len(out) bytes (4 or 8):
// byte i of word 2k is byte k of the rows 2i, 2i+1 with their nibbles
// swapped (swapNibbles), which, four bytes of four rows at a time, is a
// 4×4 transpose of bytes (transposeBytes4).
func nibbleWords(out []uint64, rows *[8]uint64) {
	e0, o0 := swapNibbles(rows[0], rows[1])
	e1, o1 := swapNibbles(rows[2], rows[3])
	e2, o2 := swapNibbles(rows[4], rows[5])
	e3, o3 := swapNibbles(rows[6], rows[7])
	for h := 0; h+4 <= len(out); h += 4 {
		s := uint(8 * h) // byte k of e's half h, then of o's
		out[h], out[h+1], out[h+2], out[h+3] = transposeBytes4(
			e0>>s&0xffffffff|o0>>s<<32, e1>>s&0xffffffff|o1>>s<<32,
			e2>>s&0xffffffff|o2>>s<<32, e3>>s&0xffffffff|o3>>s<<32)
	}
}

// nibbleRows undoes nibbleWords: it sets the 8 rows' first len(w) bytes
// (4 or 8) from the words w, two fields each.
func nibbleRows(rows *[8]uint64, w []uint64) {
	var e0, e1, e2, e3, o0, o1, o2, o3 uint64
	for h := 0; h+4 <= len(w); h += 4 {
		s := uint(8 * h)
		r0, r1, r2, r3 := transposeBytes4(w[h], w[h+1], w[h+2], w[h+3])
		e0, o0 = e0|r0&0xffffffff<<s, o0|r0>>32<<s
		e1, o1 = e1|r1&0xffffffff<<s, o1|r1>>32<<s
		e2, o2 = e2|r2&0xffffffff<<s, o2|r2>>32<<s
		e3, o3 = e3|r3&0xffffffff<<s, o3|r3>>32<<s
	}
	rows[0], rows[1] = swapNibbles(e0, o0)
	rows[2], rows[3] = swapNibbles(e1, o1)
	rows[4], rows[5] = swapNibbles(e2, o2)
	rows[6], rows[7] = swapNibbles(e3, o3)
}

// transposeBytes4 transposes the 4×4 matrix of bytes that the low
// halves of r0..r3 hold (byte k of ri is element (i, k)), and the one
// the high halves hold: the off-diagonal 2×2 blocks swap, then the
// off-diagonal bytes of each block.
func transposeBytes4(r0, r1, r2, r3 uint64) (uint64, uint64, uint64, uint64) {
	const halves, bytes = 0x0000ffff0000ffff, 0x00ff00ff00ff00ff
	t := (r0>>16 ^ r2) & halves
	r0, r2 = r0^t<<16, r2^t
	t = (r1>>16 ^ r3) & halves
	r1, r3 = r1^t<<16, r3^t
	t = (r0>>8 ^ r1) & bytes
	r0, r1 = r0^t<<8, r1^t
	t = (r2>>8 ^ r3) & bytes
	r2, r3 = r2^t<<8, r3^t
	return r0, r1, r2, r3
}

// transposeBytes8 transposes the 8×8 matrix of bytes in r (byte k of
// r[i] is element (i, k)): each half of four words as two 4×4 matrices
// (transposeBytes4), then the off-diagonal 4×4 blocks swap.
func transposeBytes8(r *[8]uint64) {
	r[0], r[1], r[2], r[3] = transposeBytes4(r[0], r[1], r[2], r[3])
	r[4], r[5], r[6], r[7] = transposeBytes4(r[4], r[5], r[6], r[7])
	for k := range 4 {
		t := (r[k]>>32 ^ r[k+4]) & 0xffffffff
		r[k], r[k+4] = r[k]^t<<32, r[k+4]^t
	}
}

// block8x8 transposes the 8×8 block of bytes at sp (rows ss apart) to dp
// (rows ds apart) with one transposeBytes8: a word of each source row.
func block8x8(dp unsafe.Pointer, ds int, sp unsafe.Pointer, ss int) {
	var r [8]uint64
	for k := range r {
		r[k] = *(*uint64)(unsafe.Add(sp, k*ss))
	}
	transposeBytes8(&r)
	for k, v := range r {
		*(*uint64)(unsafe.Add(dp, k*ds)) = v
	}
}

// deinterleaveNibbles8Generic is DeinterleaveNibbles8 after its checks,
// in the steps of interleaveNibbles8Generic.
func deinterleaveNibbles8Generic(dst []byte, dstStride int, src []byte, n int) {
	j := 0
	if fastWords {
		sp := unsafe.Pointer(unsafe.SliceData(src))
		dp := unsafe.Pointer(unsafe.SliceData(dst))
		var rows, w [8]uint64
		for j+8 <= n {
			words := 8 // two fields each
			if j+16 > n {
				words = 4
			}
			for k := range w[:words] {
				w[k] = *(*uint64)(unsafe.Add(sp, 4*j+8*k))
			}
			nibbleRows(&rows, w[:words])
			for r, x := range rows {
				at := unsafe.Add(dp, r*dstStride+j/2)
				if words == 8 {
					*(*uint64)(at) = x
				} else {
					*(*uint32)(at) = uint32(x)
				}
			}
			j += 2 * words
		}
	}
	for ; j < n; j++ {
		for i := range 4 {
			b := src[4*j+i]
			setField4At(dst[2*i*dstStride:], j, b>>4)
			setField4At(dst[(2*i+1)*dstStride:], j, b&0x0f)
		}
	}
}

// field4At returns 4-bit field j of the packed row b (the first of a byte
// in its high nibble).
func field4At(b []byte, j int) byte { return b[j/2] >> (4 - 4*(j%2)) & 0x0f }

// setField4At sets 4-bit field j of the packed row b to v (≤ 0x0f).
func setField4At(b []byte, j int, v byte) {
	shift := 4 - 4*(j%2)
	b[j/2] = b[j/2]&^(0x0f<<shift) | v<<shift
}

// spread2 returns the four bytes of v two bytes apart in a word.
func spread2(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000ffff0000ffff
	return (x | x<<8) & 0x00ff00ff00ff00ff
}

// spread4 returns the first two bytes of p four bytes apart in a word.
func spread4(p []byte) uint64 { return uint64(p[0]) | uint64(p[1])<<32 }

// tinyBlockElems bounds the blocks that tinyGrid moves: blocks of so few
// elements that transposeFast's choice of a kernel for each would cost
// more than moving its elements one at a time.
const tinyBlockElems = 32

// tinyGrid transposes every block of the grid g, as TransposeGrid does,
// where its blocks are rows × cols of at most tinyBlockElems elements of
// 1, 2, 4, 8 or 16 bytes: one loop over the blocks that moves each element
// with one load and one store, in place of a kernel choice and call per
// block (the 2×2 blocks of two (2,1) tiles of bf16 swapping their
// pairs); and where its blocks are 8×8 bytes, one that moves a word of
// each source row of a block at a time (transposeBytes8). It reports
// false, having moved nothing, for other grids. The caller has checked
// the grid's bounds.
func tinyGrid(width int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, g Grid) bool {
	if !fastWords {
		return false
	}
	dp := unsafe.Pointer(unsafe.SliceData(dst))
	sp := unsafe.Pointer(unsafe.SliceData(src))
	if width == 1 && rows == 8 && cols == 8 {
		// Blocks of 8×8 bytes (T(8,8) tiles of 8-bit types, and of
		// 4-bit ones unpacked): one transposeBytes8 a block.
		for a := range g.Outer {
			for b := range g.Inner {
				block8x8(unsafe.Add(dp, a*g.DstOuter+b*g.DstInner), dstStride, unsafe.Add(sp, a*g.SrcOuter+b*g.SrcInner), srcStride)
			}
		}
		return true
	}
	if rows*cols > tinyBlockElems {
		return false
	}
	switch width {
	case 1:
		tinyGridOf[uint8](dp, dstStride, sp, srcStride, rows, cols, g)
	case 2:
		tinyGridOf[uint16](dp, dstStride, sp, srcStride, rows, cols, g)
	case 4:
		tinyGridOf[uint32](dp, dstStride, sp, srcStride, rows, cols, g)
	case 8:
		tinyGridOf[uint64](dp, dstStride, sp, srcStride, rows, cols, g)
	case 16:
		tinyGridOf[[2]uint64](dp, dstStride, sp, srcStride, rows, cols, g)
	default:
		return false
	}
	return true
}

// tinyGridOf is tinyGrid for elements of type T.
func tinyGridOf[T uint8 | uint16 | uint32 | uint64 | [2]uint64](dp unsafe.Pointer, dstStride int, sp unsafe.Pointer, srcStride int, rows, cols int, g Grid) {
	var zero T
	w := int(unsafe.Sizeof(zero))
	for a := range g.Outer {
		for b := range g.Inner {
			d := unsafe.Add(dp, a*g.DstOuter+b*g.DstInner)
			s := unsafe.Add(sp, a*g.SrcOuter+b*g.SrcInner)
			for i := range rows {
				di := unsafe.Add(d, i*dstStride)
				si := unsafe.Add(s, i*w)
				for j := range cols {
					*(*T)(unsafe.Add(di, j*w)) = *(*T)(unsafe.Add(si, j*srcStride))
				}
			}
		}
	}
}

// pattern32 returns 32 bytes of pattern repeated; len(pattern) divides
// 32. Patterns of up to 8 bytes are one word broadcast, without the calls
// to memmove that copying them in place would make: a fill of a few
// hundred bytes a call (the padding of a cut tile, a call for each) spent
// more time making the pattern than writing it.
func pattern32(pattern []byte) (pat [32]byte) {
	var v uint64
	switch len(pattern) {
	case 1:
		v = uint64(pattern[0]) * 0x0101010101010101
	case 2:
		v = uint64(binary.LittleEndian.Uint16(pattern)) * 0x0001000100010001
	case 4:
		v = uint64(binary.LittleEndian.Uint32(pattern)) * 0x0000000100000001
	case 8:
		v = binary.LittleEndian.Uint64(pattern)
	default:
		for k := copy(pat[:], pattern); k < 32; k *= 2 {
			copy(pat[k:], pat[:k])
		}
		return pat
	}
	for i := 0; i < 32; i += 8 {
		binary.LittleEndian.PutUint64(pat[i:], v)
	}
	return pat
}

// transposeNibblePairsGeneric is TransposeNibblePairs.
func transposeNibblePairsGeneric(buf []byte, h, n int) {
	for b := range n {
		turnNibbles(buf[2*b*h:2*b*h+h], buf[2*b*h+h:2*b*h+2*h])
	}
}

// turnNibbles turns around the 2×2 blocks of fields of x[i] and y[i],
// a word at a time: x keeps its high fields and takes y's, y takes x's
// low fields and keeps its own.
func turnNibbles(x, y []byte) {
	const hi, lo = 0xf0f0f0f0f0f0f0f0, 0x0f0f0f0f0f0f0f0f
	y = y[:len(x)]
	i := 0
	for ; i+8 <= len(x); i += 8 {
		u, v := binary.LittleEndian.Uint64(x[i:]), binary.LittleEndian.Uint64(y[i:])
		binary.LittleEndian.PutUint64(x[i:], u&hi|v>>4&lo)
		binary.LittleEndian.PutUint64(y[i:], u<<4&hi|v&lo)
	}
	for ; i < len(x); i++ {
		u, v := x[i], y[i]
		x[i], y[i] = u&0xf0|v>>4, u<<4|v&0x0f
	}
}
