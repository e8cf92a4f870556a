//go:build (amd64 || arm64) && gc && !purego && !noasm

#include "textflag.h"

// Block transposes for arm64 with NEON (Advanced SIMD). The Go side
// (kernels_arm64.go) checks every bound, splits off ragged edges and
// chooses the order of the strips; these functions never validate.
//
// Registers: R0 destination block, R1 destination stride, R2 source
// block, R3 source stride, R4 blocks left, R5 source row pointer, R6
// destination row pointer, R7 destination step between blocks.

// PROLOGUE loads the frame of the transpose kernels:
// func(dst *byte, dstStride int, src *byte, srcStride int, n int).
#define PROLOGUE \
	MOVD dst+0(FP), R0; \
	MOVD dstStride+8(FP), R1; \
	MOVD src+16(FP), R2; \
	MOVD srcStride+24(FP), R3; \
	MOVD n+32(FP), R4

// NEXT(step) moves to the next block, step bytes along the source rows
// and R7 down the destination, and loops while blocks are left.
#define NEXT(step) \
	ADD  step, R2; \
	ADD  R7, R0; \
	SUBS $1, R4; \
	BNE  loop

// LOAD16(arr) loads sixteen source rows from R2 into V0..V15, 16 bytes
// each in arrangement arr.
#define LOAD16(arr) \
	MOVD R2, R5; \
	VLD1.P (R5)(R3), [V0.arr]; \
	VLD1.P (R5)(R3), [V1.arr]; \
	VLD1.P (R5)(R3), [V2.arr]; \
	VLD1.P (R5)(R3), [V3.arr]; \
	VLD1.P (R5)(R3), [V4.arr]; \
	VLD1.P (R5)(R3), [V5.arr]; \
	VLD1.P (R5)(R3), [V6.arr]; \
	VLD1.P (R5)(R3), [V7.arr]; \
	VLD1.P (R5)(R3), [V8.arr]; \
	VLD1.P (R5)(R3), [V9.arr]; \
	VLD1.P (R5)(R3), [V10.arr]; \
	VLD1.P (R5)(R3), [V11.arr]; \
	VLD1.P (R5)(R3), [V12.arr]; \
	VLD1.P (R5)(R3), [V13.arr]; \
	VLD1.P (R5)(R3), [V14.arr]; \
	VLD1.P (R5)(R3), [V15.arr]

// The interleaves and de-interleaves: Transpose with 2, 3 or 4 (or 8 of
// bytes) columns and a contiguous destination, or as many rows and a
// contiguous source. One step moves 16 bytes of each of those rows, with
// the structure stores and loads (ST2/ST3/ST4, LD2/LD3/LD4) that interleave
// elements of 1, 2 or 4 bytes in one instruction. Registers: R0 the
// stream (interleave: destination; de-interleave: source), R1 row 0, R2
// the row stride, R3 steps left, R4..R10 rows 1..7.

// INTERLEAVE_PROLOGUE loads the frame of the interleaves,
// func(dst *byte, src *byte, srcStride int, n int), and
// DEINTERLEAVE_PROLOGUE that of the de-interleaves,
// func(dst *byte, dstStride int, src *byte, n int), into R0 (the
// stream), R1 (row 0), R2 (the row stride) and R3 (steps).
#define INTERLEAVE_PROLOGUE \
	MOVD dst+0(FP), R0; \
	MOVD src+8(FP), R1; \
	MOVD srcStride+16(FP), R2; \
	MOVD n+24(FP), R3

#define DEINTERLEAVE_PROLOGUE \
	MOVD src+16(FP), R0; \
	MOVD dst+0(FP), R1; \
	MOVD dstStride+8(FP), R2; \
	MOVD n+24(FP), R3

// ROWS2, ROWS4 and ROWS8 point R4.. at the rows after row 0.
#define ROWS2 \
	ADD R2, R1, R4

#define ROWS3 \
	ROWS2; \
	ADD R2, R4, R5

#define ROWS4 \
	ROWS3; \
	ADD R2, R5, R6

#define ROWS8 \
	ROWS4; \
	ADD R2, R6, R7; \
	ADD R2, R7, R8; \
	ADD R2, R8, R9; \
	ADD R2, R9, R10

// LOAD_ROWS8(a, ..., h) loads 16 bytes of each of rows 0..7 into a..h
// and steps the rows on; STORE_ROWS8 stores a..h to them.
#define LOAD_ROWS8(a, b, c, d, e, f, g, h) \
	VLD1.P 16(R1), [a.B16]; \
	VLD1.P 16(R4), [b.B16]; \
	VLD1.P 16(R5), [c.B16]; \
	VLD1.P 16(R6), [d.B16]; \
	VLD1.P 16(R7), [e.B16]; \
	VLD1.P 16(R8), [f.B16]; \
	VLD1.P 16(R9), [g.B16]; \
	VLD1.P 16(R10), [h.B16]

#define STORE_ROWS8(a, b, c, d, e, f, g, h) \
	VST1.P [a.B16], 16(R1); \
	VST1.P [b.B16], 16(R4); \
	VST1.P [c.B16], 16(R5); \
	VST1.P [d.B16], 16(R6); \
	VST1.P [e.B16], 16(R7); \
	VST1.P [f.B16], 16(R8); \
	VST1.P [g.B16], 16(R9); \
	VST1.P [h.B16], 16(R10)

// INTERLEAVE2(arr), INTERLEAVE3(arr) and INTERLEAVE4(arr) emit the loop
// of an interleave of 2, 3 or 4 rows of elements in arrangement arr (B16,
// H8 or S4).
#define INTERLEAVE2(arr) \
	INTERLEAVE_PROLOGUE; \
	ROWS2; \
loop: \
	VLD1.P 16(R1), [V0.B16]; \
	VLD1.P 16(R4), [V1.B16]; \
	VST2.P [V0.arr, V1.arr], 32(R0); \
	SUBS $1, R3; \
	BNE loop; \
	RET

#define INTERLEAVE3(arr) \
	INTERLEAVE_PROLOGUE; \
	ROWS3; \
loop: \
	VLD1.P 16(R1), [V0.B16]; \
	VLD1.P 16(R4), [V1.B16]; \
	VLD1.P 16(R5), [V2.B16]; \
	VST3.P [V0.arr, V1.arr, V2.arr], 48(R0); \
	SUBS $1, R3; \
	BNE loop; \
	RET

#define INTERLEAVE4(arr) \
	INTERLEAVE_PROLOGUE; \
	ROWS4; \
loop: \
	VLD1.P 16(R1), [V0.B16]; \
	VLD1.P 16(R4), [V1.B16]; \
	VLD1.P 16(R5), [V2.B16]; \
	VLD1.P 16(R6), [V3.B16]; \
	VST4.P [V0.arr, V1.arr, V2.arr, V3.arr], 64(R0); \
	SUBS $1, R3; \
	BNE loop; \
	RET

// DEINTERLEAVE2(arr), DEINTERLEAVE3(arr) and DEINTERLEAVE4(arr) are
// their inverses.
#define DEINTERLEAVE2(arr) \
	DEINTERLEAVE_PROLOGUE; \
	ROWS2; \
loop: \
	VLD2.P 32(R0), [V0.arr, V1.arr]; \
	VST1.P [V0.B16], 16(R1); \
	VST1.P [V1.B16], 16(R4); \
	SUBS $1, R3; \
	BNE loop; \
	RET

#define DEINTERLEAVE3(arr) \
	DEINTERLEAVE_PROLOGUE; \
	ROWS3; \
loop: \
	VLD3.P 48(R0), [V0.arr, V1.arr, V2.arr]; \
	VST1.P [V0.B16], 16(R1); \
	VST1.P [V1.B16], 16(R4); \
	VST1.P [V2.B16], 16(R5); \
	SUBS $1, R3; \
	BNE loop; \
	RET

#define DEINTERLEAVE4(arr) \
	DEINTERLEAVE_PROLOGUE; \
	ROWS4; \
loop: \
	VLD4.P 64(R0), [V0.arr, V1.arr, V2.arr, V3.arr]; \
	VST1.P [V0.B16], 16(R1); \
	VST1.P [V1.B16], 16(R4); \
	VST1.P [V2.B16], 16(R5); \
	VST1.P [V3.B16], 16(R6); \
	SUBS $1, R3; \
	BNE loop; \
	RET

// The 4-bit field kernels: PackBits and UnpackBits of 4-bit fields, and
// PackRows8 and UnpackRows8. Packing is SLI (shift left and insert):
// the first field's byte shifted into the high nibble of the second's.
// Unpacking shifts the high nibble down (USHR) and keeps the bits under
// the mask in V30 of both nibbles, then sign-extends them from the bit
// in V31 as (v ^ sign) - sign (sign 0 leaves them zero-extended).

// FIELD(v, d) sets d to the bits of v under V30, sign-extended from V31.
#define FIELD(v, d) \
	VAND V30.B16, v.B16, d.B16; \
	VEOR V31.B16, d.B16, d.B16; \
	VSUB V31.B16, d.B16, d.B16

// SPLIT(v, hi, lo) sets hi and lo to the fields of the high and low
// nibbles of v.
#define SPLIT(v, hi, lo) \
	VUSHR $4, v.B16, hi.B16; \
	FIELD(hi, hi); \
	FIELD(v, lo)

// func transpose4NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)
//
// Register block: 16 source rows of 4 elements (16 bytes) in, 4
// destination rows of 16 elements (64 bytes) out. Source row 4g+r (group
// g, row r of a 4x4 transpose) is loaded into V(4r+g), so that after the
// transposes destination row c is V(4c)..V(4c+3), one four-register store.
TEXT ·transpose4NEON(SB), NOSPLIT, $0-40
	PROLOGUE
	LSL  $2, R1, R7

loop:
	MOVD R2, R5
	VLD1.P (R5)(R3), [V0.S4]
	VLD1.P (R5)(R3), [V4.S4]
	VLD1.P (R5)(R3), [V8.S4]
	VLD1.P (R5)(R3), [V12.S4]
	VLD1.P (R5)(R3), [V1.S4]
	VLD1.P (R5)(R3), [V5.S4]
	VLD1.P (R5)(R3), [V9.S4]
	VLD1.P (R5)(R3), [V13.S4]
	VLD1.P (R5)(R3), [V2.S4]
	VLD1.P (R5)(R3), [V6.S4]
	VLD1.P (R5)(R3), [V10.S4]
	VLD1.P (R5)(R3), [V14.S4]
	VLD1.P (R5)(R3), [V3.S4]
	VLD1.P (R5)(R3), [V7.S4]
	VLD1.P (R5)(R3), [V11.S4]
	VLD1.P (R5)(R3), [V15.S4]
	VTRN1 V4.S4, V0.S4, V16.S4
	VTRN2 V4.S4, V0.S4, V17.S4
	VTRN1 V12.S4, V8.S4, V18.S4
	VTRN2 V12.S4, V8.S4, V19.S4
	VTRN1 V18.D2, V16.D2, V0.D2
	VTRN2 V18.D2, V16.D2, V8.D2
	VTRN1 V19.D2, V17.D2, V4.D2
	VTRN2 V19.D2, V17.D2, V12.D2
	VTRN1 V5.S4, V1.S4, V20.S4
	VTRN2 V5.S4, V1.S4, V21.S4
	VTRN1 V13.S4, V9.S4, V22.S4
	VTRN2 V13.S4, V9.S4, V23.S4
	VTRN1 V22.D2, V20.D2, V1.D2
	VTRN2 V22.D2, V20.D2, V9.D2
	VTRN1 V23.D2, V21.D2, V5.D2
	VTRN2 V23.D2, V21.D2, V13.D2
	VTRN1 V6.S4, V2.S4, V24.S4
	VTRN2 V6.S4, V2.S4, V25.S4
	VTRN1 V14.S4, V10.S4, V26.S4
	VTRN2 V14.S4, V10.S4, V27.S4
	VTRN1 V26.D2, V24.D2, V2.D2
	VTRN2 V26.D2, V24.D2, V10.D2
	VTRN1 V27.D2, V25.D2, V6.D2
	VTRN2 V27.D2, V25.D2, V14.D2
	VTRN1 V7.S4, V3.S4, V28.S4
	VTRN2 V7.S4, V3.S4, V29.S4
	VTRN1 V15.S4, V11.S4, V30.S4
	VTRN2 V15.S4, V11.S4, V31.S4
	VTRN1 V30.D2, V28.D2, V3.D2
	VTRN2 V30.D2, V28.D2, V11.D2
	VTRN1 V31.D2, V29.D2, V7.D2
	VTRN2 V31.D2, V29.D2, V15.D2
	MOVD R0, R6
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], (R6)(R1)
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], (R6)(R1)
	VST1.P [V8.S4, V9.S4, V10.S4, V11.S4], (R6)(R1)
	VST1   [V12.S4, V13.S4, V14.S4, V15.S4], (R6)
	NEXT($16)
	RET

// func transpose8NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)
//
// Register block: 8 source rows of 2 elements (16 bytes) in, 2
// destination rows of 8 elements (64 bytes) out. Source row 2g+r is
// loaded into V(4r+g); destination row c is then V(4c)..V(4c+3).
TEXT ·transpose8NEON(SB), NOSPLIT, $0-40
	PROLOGUE
	LSL  $1, R1, R7

loop:
	MOVD R2, R5
	VLD1.P (R5)(R3), [V0.D2]
	VLD1.P (R5)(R3), [V4.D2]
	VLD1.P (R5)(R3), [V1.D2]
	VLD1.P (R5)(R3), [V5.D2]
	VLD1.P (R5)(R3), [V2.D2]
	VLD1.P (R5)(R3), [V6.D2]
	VLD1.P (R5)(R3), [V3.D2]
	VLD1.P (R5)(R3), [V7.D2]
	VTRN1 V4.D2, V0.D2, V16.D2
	VTRN2 V4.D2, V0.D2, V20.D2
	VTRN1 V5.D2, V1.D2, V17.D2
	VTRN2 V5.D2, V1.D2, V21.D2
	VTRN1 V6.D2, V2.D2, V18.D2
	VTRN2 V6.D2, V2.D2, V22.D2
	VTRN1 V7.D2, V3.D2, V19.D2
	VTRN2 V7.D2, V3.D2, V23.D2
	MOVD R0, R6
	VST1.P [V16.D2, V17.D2, V18.D2, V19.D2], (R6)(R1)
	VST1   [V20.D2, V21.D2, V22.D2, V23.D2], (R6)
	NEXT($16)
	RET

// func transpose1NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)
//
// Register block: 16 source rows of 16 bytes in, 16 destination rows of
// 16 bytes out. Four rounds of TRN1/TRN2 on bytes, halfwords, words and
// doublewords swap ever larger squares; the rounds alternate between
// V0-V15 and V16-V31, and destination row c ends in Vc.
TEXT ·transpose1NEON(SB), NOSPLIT, $0-40
	PROLOGUE
	LSL  $4, R1, R7

loop:
	LOAD16(B16)
	VTRN1 V1.B16, V0.B16, V16.B16
	VTRN2 V1.B16, V0.B16, V17.B16
	VTRN1 V3.B16, V2.B16, V18.B16
	VTRN2 V3.B16, V2.B16, V19.B16
	VTRN1 V5.B16, V4.B16, V20.B16
	VTRN2 V5.B16, V4.B16, V21.B16
	VTRN1 V7.B16, V6.B16, V22.B16
	VTRN2 V7.B16, V6.B16, V23.B16
	VTRN1 V9.B16, V8.B16, V24.B16
	VTRN2 V9.B16, V8.B16, V25.B16
	VTRN1 V11.B16, V10.B16, V26.B16
	VTRN2 V11.B16, V10.B16, V27.B16
	VTRN1 V13.B16, V12.B16, V28.B16
	VTRN2 V13.B16, V12.B16, V29.B16
	VTRN1 V15.B16, V14.B16, V30.B16
	VTRN2 V15.B16, V14.B16, V31.B16
	VTRN1 V18.H8, V16.H8, V0.H8
	VTRN2 V18.H8, V16.H8, V2.H8
	VTRN1 V19.H8, V17.H8, V1.H8
	VTRN2 V19.H8, V17.H8, V3.H8
	VTRN1 V22.H8, V20.H8, V4.H8
	VTRN2 V22.H8, V20.H8, V6.H8
	VTRN1 V23.H8, V21.H8, V5.H8
	VTRN2 V23.H8, V21.H8, V7.H8
	VTRN1 V26.H8, V24.H8, V8.H8
	VTRN2 V26.H8, V24.H8, V10.H8
	VTRN1 V27.H8, V25.H8, V9.H8
	VTRN2 V27.H8, V25.H8, V11.H8
	VTRN1 V30.H8, V28.H8, V12.H8
	VTRN2 V30.H8, V28.H8, V14.H8
	VTRN1 V31.H8, V29.H8, V13.H8
	VTRN2 V31.H8, V29.H8, V15.H8
	VTRN1 V4.S4, V0.S4, V16.S4
	VTRN2 V4.S4, V0.S4, V20.S4
	VTRN1 V5.S4, V1.S4, V17.S4
	VTRN2 V5.S4, V1.S4, V21.S4
	VTRN1 V6.S4, V2.S4, V18.S4
	VTRN2 V6.S4, V2.S4, V22.S4
	VTRN1 V7.S4, V3.S4, V19.S4
	VTRN2 V7.S4, V3.S4, V23.S4
	VTRN1 V12.S4, V8.S4, V24.S4
	VTRN2 V12.S4, V8.S4, V28.S4
	VTRN1 V13.S4, V9.S4, V25.S4
	VTRN2 V13.S4, V9.S4, V29.S4
	VTRN1 V14.S4, V10.S4, V26.S4
	VTRN2 V14.S4, V10.S4, V30.S4
	VTRN1 V15.S4, V11.S4, V27.S4
	VTRN2 V15.S4, V11.S4, V31.S4
	VTRN1 V24.D2, V16.D2, V0.D2
	VTRN2 V24.D2, V16.D2, V8.D2
	VTRN1 V25.D2, V17.D2, V1.D2
	VTRN2 V25.D2, V17.D2, V9.D2
	VTRN1 V26.D2, V18.D2, V2.D2
	VTRN2 V26.D2, V18.D2, V10.D2
	VTRN1 V27.D2, V19.D2, V3.D2
	VTRN2 V27.D2, V19.D2, V11.D2
	VTRN1 V28.D2, V20.D2, V4.D2
	VTRN2 V28.D2, V20.D2, V12.D2
	VTRN1 V29.D2, V21.D2, V5.D2
	VTRN2 V29.D2, V21.D2, V13.D2
	VTRN1 V30.D2, V22.D2, V6.D2
	VTRN2 V30.D2, V22.D2, V14.D2
	VTRN1 V31.D2, V23.D2, V7.D2
	VTRN2 V31.D2, V23.D2, V15.D2
	MOVD R0, R6
	VST1.P [V0.B16], (R6)(R1)
	VST1.P [V1.B16], (R6)(R1)
	VST1.P [V2.B16], (R6)(R1)
	VST1.P [V3.B16], (R6)(R1)
	VST1.P [V4.B16], (R6)(R1)
	VST1.P [V5.B16], (R6)(R1)
	VST1.P [V6.B16], (R6)(R1)
	VST1.P [V7.B16], (R6)(R1)
	VST1.P [V8.B16], (R6)(R1)
	VST1.P [V9.B16], (R6)(R1)
	VST1.P [V10.B16], (R6)(R1)
	VST1.P [V11.B16], (R6)(R1)
	VST1.P [V12.B16], (R6)(R1)
	VST1.P [V13.B16], (R6)(R1)
	VST1.P [V14.B16], (R6)(R1)
	VST1   [V15.B16], (R6)
	NEXT($16)
	RET

// func transpose2NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)
//
// Register block: 16 source rows of 8 elements (16 bytes) in, 8
// destination rows of 16 elements (32 bytes) out: two 8x8 transposes of
// halfwords (source rows 0-7 in V0-V7, 8-15 in V8-V15), three TRN rounds
// each, the last of which leaves destination row c in V(16+2c) and
// V(17+2c), one two-register store.
TEXT ·transpose2NEON(SB), NOSPLIT, $0-40
	PROLOGUE
	LSL  $3, R1, R7

loop:
	LOAD16(H8)
	VTRN1 V1.H8, V0.H8, V16.H8
	VTRN2 V1.H8, V0.H8, V17.H8
	VTRN1 V3.H8, V2.H8, V18.H8
	VTRN2 V3.H8, V2.H8, V19.H8
	VTRN1 V5.H8, V4.H8, V20.H8
	VTRN2 V5.H8, V4.H8, V21.H8
	VTRN1 V7.H8, V6.H8, V22.H8
	VTRN2 V7.H8, V6.H8, V23.H8
	VTRN1 V9.H8, V8.H8, V24.H8
	VTRN2 V9.H8, V8.H8, V25.H8
	VTRN1 V11.H8, V10.H8, V26.H8
	VTRN2 V11.H8, V10.H8, V27.H8
	VTRN1 V13.H8, V12.H8, V28.H8
	VTRN2 V13.H8, V12.H8, V29.H8
	VTRN1 V15.H8, V14.H8, V30.H8
	VTRN2 V15.H8, V14.H8, V31.H8
	VTRN1 V18.S4, V16.S4, V0.S4
	VTRN2 V18.S4, V16.S4, V2.S4
	VTRN1 V19.S4, V17.S4, V1.S4
	VTRN2 V19.S4, V17.S4, V3.S4
	VTRN1 V22.S4, V20.S4, V4.S4
	VTRN2 V22.S4, V20.S4, V6.S4
	VTRN1 V23.S4, V21.S4, V5.S4
	VTRN2 V23.S4, V21.S4, V7.S4
	VTRN1 V26.S4, V24.S4, V8.S4
	VTRN2 V26.S4, V24.S4, V10.S4
	VTRN1 V27.S4, V25.S4, V9.S4
	VTRN2 V27.S4, V25.S4, V11.S4
	VTRN1 V30.S4, V28.S4, V12.S4
	VTRN2 V30.S4, V28.S4, V14.S4
	VTRN1 V31.S4, V29.S4, V13.S4
	VTRN2 V31.S4, V29.S4, V15.S4
	VTRN1 V4.D2, V0.D2, V16.D2
	VTRN2 V4.D2, V0.D2, V24.D2
	VTRN1 V5.D2, V1.D2, V18.D2
	VTRN2 V5.D2, V1.D2, V26.D2
	VTRN1 V6.D2, V2.D2, V20.D2
	VTRN2 V6.D2, V2.D2, V28.D2
	VTRN1 V7.D2, V3.D2, V22.D2
	VTRN2 V7.D2, V3.D2, V30.D2
	VTRN1 V12.D2, V8.D2, V17.D2
	VTRN2 V12.D2, V8.D2, V25.D2
	VTRN1 V13.D2, V9.D2, V19.D2
	VTRN2 V13.D2, V9.D2, V27.D2
	VTRN1 V14.D2, V10.D2, V21.D2
	VTRN2 V14.D2, V10.D2, V29.D2
	VTRN1 V15.D2, V11.D2, V23.D2
	VTRN2 V15.D2, V11.D2, V31.D2
	MOVD R0, R6
	VST1.P [V16.H8, V17.H8], (R6)(R1)
	VST1.P [V18.H8, V19.H8], (R6)(R1)
	VST1.P [V20.H8, V21.H8], (R6)(R1)
	VST1.P [V22.H8, V23.H8], (R6)(R1)
	VST1.P [V24.H8, V25.H8], (R6)(R1)
	VST1.P [V26.H8, V27.H8], (R6)(R1)
	VST1.P [V28.H8, V29.H8], (R6)(R1)
	VST1   [V30.H8, V31.H8], (R6)
	NEXT($16)
	RET

// func transpose16NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)
//
// Register block: 4 source rows of 4 elements (64 bytes) in, 4
// destination rows of 4 elements out. An element is a whole register:
// element c of source row r is loaded into V(4c+r), so destination row c
// is V(4c)..V(4c+3), one four-register store.
TEXT ·transpose16NEON(SB), NOSPLIT, $0-40
	PROLOGUE
	LSL  $2, R1, R7
	SUB  $48, R3, R8

loop:
	MOVD R2, R5
	VLD1.P 16(R5), [V0.D2]
	VLD1.P 16(R5), [V4.D2]
	VLD1.P 16(R5), [V8.D2]
	VLD1.P (R5)(R8), [V12.D2]
	VLD1.P 16(R5), [V1.D2]
	VLD1.P 16(R5), [V5.D2]
	VLD1.P 16(R5), [V9.D2]
	VLD1.P (R5)(R8), [V13.D2]
	VLD1.P 16(R5), [V2.D2]
	VLD1.P 16(R5), [V6.D2]
	VLD1.P 16(R5), [V10.D2]
	VLD1.P (R5)(R8), [V14.D2]
	VLD1.P 16(R5), [V3.D2]
	VLD1.P 16(R5), [V7.D2]
	VLD1.P 16(R5), [V11.D2]
	VLD1.P (R5)(R8), [V15.D2]
	MOVD R0, R6
	VST1.P [V0.D2, V1.D2, V2.D2, V3.D2], (R6)(R1)
	VST1.P [V4.D2, V5.D2, V6.D2, V7.D2], (R6)(R1)
	VST1.P [V8.D2, V9.D2, V10.D2, V11.D2], (R6)(R1)
	VST1   [V12.D2, V13.D2, V14.D2, V15.D2], (R6)
	NEXT($64)
	RET

// The record transposes of RGB pixels (three channels of 1, 2 or 4
// bytes: records of 3, 6 and 12 bytes). LD3 splits each source row's
// records into three planes, one channel each, in consecutive registers
// (row r's in V(3r), V(3r+1), V(3r+2)); each plane is transposed in
// place, its row r's register then holding its column r; and ST3 joins
// the three planes of each column back into records. Only the records'
// bytes are read and written.

// XPOSE8B(a0, ..., a7) transposes the 8x8 bytes of a plane held a row in
// each of the D registers a0..a7, in place, with V24..V31 as scratch:
// TRN1/TRN2 on bytes, halfwords and words.
#define XPOSE8B(a0, a1, a2, a3, a4, a5, a6, a7) \
	VTRN1 a1.B8, a0.B8, V24.B8; \
	VTRN2 a1.B8, a0.B8, V25.B8; \
	VTRN1 a3.B8, a2.B8, V26.B8; \
	VTRN2 a3.B8, a2.B8, V27.B8; \
	VTRN1 a5.B8, a4.B8, V28.B8; \
	VTRN2 a5.B8, a4.B8, V29.B8; \
	VTRN1 a7.B8, a6.B8, V30.B8; \
	VTRN2 a7.B8, a6.B8, V31.B8; \
	VTRN1 V26.H4, V24.H4, a0.H4; \
	VTRN2 V26.H4, V24.H4, a2.H4; \
	VTRN1 V27.H4, V25.H4, a1.H4; \
	VTRN2 V27.H4, V25.H4, a3.H4; \
	VTRN1 V30.H4, V28.H4, a4.H4; \
	VTRN2 V30.H4, V28.H4, a6.H4; \
	VTRN1 V31.H4, V29.H4, a5.H4; \
	VTRN2 V31.H4, V29.H4, a7.H4; \
	VTRN1 a4.S2, a0.S2, V24.S2; \
	VTRN2 a4.S2, a0.S2, V28.S2; \
	VTRN1 a5.S2, a1.S2, V25.S2; \
	VTRN2 a5.S2, a1.S2, V29.S2; \
	VTRN1 a6.S2, a2.S2, V26.S2; \
	VTRN2 a6.S2, a2.S2, V30.S2; \
	VTRN1 a7.S2, a3.S2, V27.S2; \
	VTRN2 a7.S2, a3.S2, V31.S2; \
	VMOV  V24.B16, a0.B16; \
	VMOV  V25.B16, a1.B16; \
	VMOV  V26.B16, a2.B16; \
	VMOV  V27.B16, a3.B16; \
	VMOV  V28.B16, a4.B16; \
	VMOV  V29.B16, a5.B16; \
	VMOV  V30.B16, a6.B16; \
	VMOV  V31.B16, a7.B16

// XPOSE4(a0, a1, a2, a3, e, d) transposes the 4x4 elements of
// arrangement e (H4 or S4) of a plane held a row in each of a0..a3, in
// place, with V24..V27 as scratch: TRN1/TRN2 on the elements, then on
// pairs of them (arrangement d: S2 or D2).
#define XPOSE4(a0, a1, a2, a3, e, d) \
	VTRN1 a1.e, a0.e, V24.e; \
	VTRN2 a1.e, a0.e, V25.e; \
	VTRN1 a3.e, a2.e, V26.e; \
	VTRN2 a3.e, a2.e, V27.e; \
	VTRN1 V26.d, V24.d, a0.d; \
	VTRN2 V26.d, V24.d, a2.d; \
	VTRN1 V27.d, V25.d, a1.d; \
	VTRN2 V27.d, V25.d, a3.d

// RECORDS4(e, d) moves a block of 4x4 records of three channels of
// arrangement e (H4 or S4) from R2 to R0: LD3 of 4 source rows, the
// three planes transposed (XPOSE4 with pairs d), ST3 of 4 destination
// rows.
#define RECORDS4(e, d) \
	MOVD R2, R5; \
	VLD3.P (R5)(R3), [V0.e, V1.e, V2.e]; \
	VLD3.P (R5)(R3), [V3.e, V4.e, V5.e]; \
	VLD3.P (R5)(R3), [V6.e, V7.e, V8.e]; \
	VLD3.P (R5)(R3), [V9.e, V10.e, V11.e]; \
	XPOSE4(V0, V3, V6, V9, e, d); \
	XPOSE4(V1, V4, V7, V10, e, d); \
	XPOSE4(V2, V5, V8, V11, e, d); \
	MOVD R0, R6; \
	VST3.P [V0.e, V1.e, V2.e], (R6)(R1); \
	VST3.P [V3.e, V4.e, V5.e], (R6)(R1); \
	VST3.P [V6.e, V7.e, V8.e], (R6)(R1); \
	VST3   [V9.e, V10.e, V11.e], (R6)

// func transpose3NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)
//
// Register block: 8 source rows of 8 records of 3 bytes (24 bytes) in,
// 8 destination rows of 8 records out.
TEXT ·transpose3NEON(SB), NOSPLIT, $0-40
	PROLOGUE
	LSL  $3, R1, R7

loop:
	MOVD R2, R5
	VLD3.P (R5)(R3), [V0.B8, V1.B8, V2.B8]
	VLD3.P (R5)(R3), [V3.B8, V4.B8, V5.B8]
	VLD3.P (R5)(R3), [V6.B8, V7.B8, V8.B8]
	VLD3.P (R5)(R3), [V9.B8, V10.B8, V11.B8]
	VLD3.P (R5)(R3), [V12.B8, V13.B8, V14.B8]
	VLD3.P (R5)(R3), [V15.B8, V16.B8, V17.B8]
	VLD3.P (R5)(R3), [V18.B8, V19.B8, V20.B8]
	VLD3.P (R5)(R3), [V21.B8, V22.B8, V23.B8]
	XPOSE8B(V0, V3, V6, V9, V12, V15, V18, V21)
	XPOSE8B(V1, V4, V7, V10, V13, V16, V19, V22)
	XPOSE8B(V2, V5, V8, V11, V14, V17, V20, V23)
	MOVD R0, R6
	VST3.P [V0.B8, V1.B8, V2.B8], (R6)(R1)
	VST3.P [V3.B8, V4.B8, V5.B8], (R6)(R1)
	VST3.P [V6.B8, V7.B8, V8.B8], (R6)(R1)
	VST3.P [V9.B8, V10.B8, V11.B8], (R6)(R1)
	VST3.P [V12.B8, V13.B8, V14.B8], (R6)(R1)
	VST3.P [V15.B8, V16.B8, V17.B8], (R6)(R1)
	VST3.P [V18.B8, V19.B8, V20.B8], (R6)(R1)
	VST3   [V21.B8, V22.B8, V23.B8], (R6)
	NEXT($24)
	RET

// func transpose6NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)
//
// Register block: 4 source rows of 4 records of 6 bytes (24 bytes) in,
// 4 destination rows of 4 records out.
TEXT ·transpose6NEON(SB), NOSPLIT, $0-40
	PROLOGUE
	LSL  $2, R1, R7

loop:
	RECORDS4(H4, S2)
	NEXT($24)
	RET

// func transpose12NEON(dst *byte, dstStride int, src *byte, srcStride int, n int)
//
// Register block: 4 source rows of 4 records of 12 bytes (48 bytes) in,
// 4 destination rows of 4 records out.
TEXT ·transpose12NEON(SB), NOSPLIT, $0-40
	PROLOGUE
	LSL  $2, R1, R7

loop:
	RECORDS4(S4, D2)
	NEXT($48)
	RET

// func interleave2x1NEON(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave2x1NEON(SB), NOSPLIT, $0-32
	INTERLEAVE2(B16)

// func interleave2x2NEON(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave2x2NEON(SB), NOSPLIT, $0-32
	INTERLEAVE2(H8)

// func interleave2x4NEON(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave2x4NEON(SB), NOSPLIT, $0-32
	INTERLEAVE2(S4)

// func interleave3x1NEON(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave3x1NEON(SB), NOSPLIT, $0-32
	INTERLEAVE3(B16)

// func interleave3x2NEON(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave3x2NEON(SB), NOSPLIT, $0-32
	INTERLEAVE3(H8)

// func interleave3x4NEON(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave3x4NEON(SB), NOSPLIT, $0-32
	INTERLEAVE3(S4)

// func interleave4x1NEON(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave4x1NEON(SB), NOSPLIT, $0-32
	INTERLEAVE4(B16)

// func interleave4x2NEON(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave4x2NEON(SB), NOSPLIT, $0-32
	INTERLEAVE4(H8)

// func interleave4x4NEON(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave4x4NEON(SB), NOSPLIT, $0-32
	INTERLEAVE4(S4)

// ZIP_PAIRS8 zips the four pairs of byte rows (a0, b0) .. (a3, b3) into
// byte pairs (ZIP1 the first 8 of each, ZIP2 the last 8) and stores the
// four registers of pairs as halfwords by ST4: 64 bytes from the ZIP1s,
// then 64 from the ZIP2s, at R0 (which moves on). V16..V23 scratch.
#define ZIP_PAIRS8(a0, b0, a1, b1, a2, b2, a3, b3) \
	VZIP1 b0.B16, a0.B16, V16.B16; \
	VZIP1 b1.B16, a1.B16, V17.B16; \
	VZIP1 b2.B16, a2.B16, V18.B16; \
	VZIP1 b3.B16, a3.B16, V19.B16; \
	VZIP2 b0.B16, a0.B16, V20.B16; \
	VZIP2 b1.B16, a1.B16, V21.B16; \
	VZIP2 b2.B16, a2.B16, V22.B16; \
	VZIP2 b3.B16, a3.B16, V23.B16; \
	VST4.P [V16.H8, V17.H8, V18.H8, V19.H8], 64(R0); \
	VST4.P [V20.H8, V21.H8, V22.H8, V23.H8], 64(R0)

// UNZIP_PAIRS8 is ZIP_PAIRS8's inverse: LD4 of halfwords takes 128 bytes
// at R0 (which moves on) apart into four registers of byte pairs
// (elements 0-7 from the first 64 bytes, 8-15 from the next), and UZP1
// and UZP2 split the pairs into eight rows, V16..V23 in row order.
#define UNZIP_PAIRS8 \
	VLD4.P 64(R0), [V0.H8, V1.H8, V2.H8, V3.H8]; \
	VLD4.P 64(R0), [V4.H8, V5.H8, V6.H8, V7.H8]; \
	VUZP1 V4.B16, V0.B16, V16.B16; \
	VUZP2 V4.B16, V0.B16, V17.B16; \
	VUZP1 V5.B16, V1.B16, V18.B16; \
	VUZP2 V5.B16, V1.B16, V19.B16; \
	VUZP1 V6.B16, V2.B16, V20.B16; \
	VUZP2 V6.B16, V2.B16, V21.B16; \
	VUZP1 V7.B16, V3.B16, V22.B16; \
	VUZP2 V7.B16, V3.B16, V23.B16

// func interleave8x1NEON(dst *byte, src *byte, srcStride int, n int)
//
// Eight rows of bytes: rows 2p and 2p+1 zipped into byte pairs (ZIP1 the
// first 8 of each, ZIP2 the last 8), then the four registers of pairs
// stored as halfwords by ST4, 64 bytes from the ZIP1s and 64 from the
// ZIP2s.
TEXT ·interleave8x1NEON(SB), NOSPLIT, $0-32
	INTERLEAVE_PROLOGUE
	ROWS8

loop:
	LOAD_ROWS8(V0, V1, V2, V3, V4, V5, V6, V7)
	ZIP_PAIRS8(V0, V1, V2, V3, V4, V5, V6, V7)
	SUBS $1, R3
	BNE  loop
	RET

// func deinterleave2x1NEON(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave2x1NEON(SB), NOSPLIT, $0-32
	DEINTERLEAVE2(B16)

// func deinterleave2x2NEON(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave2x2NEON(SB), NOSPLIT, $0-32
	DEINTERLEAVE2(H8)

// func deinterleave2x4NEON(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave2x4NEON(SB), NOSPLIT, $0-32
	DEINTERLEAVE2(S4)

// func deinterleave3x1NEON(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave3x1NEON(SB), NOSPLIT, $0-32
	DEINTERLEAVE3(B16)

// func deinterleave3x2NEON(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave3x2NEON(SB), NOSPLIT, $0-32
	DEINTERLEAVE3(H8)

// func deinterleave3x4NEON(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave3x4NEON(SB), NOSPLIT, $0-32
	DEINTERLEAVE3(S4)

// func deinterleave4x1NEON(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave4x1NEON(SB), NOSPLIT, $0-32
	DEINTERLEAVE4(B16)

// func deinterleave4x2NEON(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave4x2NEON(SB), NOSPLIT, $0-32
	DEINTERLEAVE4(H8)

// func deinterleave4x4NEON(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave4x4NEON(SB), NOSPLIT, $0-32
	DEINTERLEAVE4(S4)

// func deinterleave8x1NEON(dst *byte, dstStride int, src *byte, n int)
//
// The inverse of interleave8x1NEON: LD4 of halfwords takes the byte
// pairs of rows 2p and 2p+1 apart (elements 0-7 from the first 64 bytes,
// 8-15 from the next), UZP1 and UZP2 split the pairs into the rows.
TEXT ·deinterleave8x1NEON(SB), NOSPLIT, $0-32
	DEINTERLEAVE_PROLOGUE
	ROWS8

loop:
	UNZIP_PAIRS8
	STORE_ROWS8(V16, V17, V18, V19, V20, V21, V22, V23)
	SUBS $1, R3
	BNE  loop
	RET

// NIBBLE_SWAP(x, y) turns the bytes of x and y into x&0xf0 | y>>4 and
// x<<4 | y&0x0f (V24 scratch): SLI puts x's low nibble over y's high
// one, SRI y's old high nibble under x's. Of bytes of packed rows 2i
// and 2i+1 it makes byte i of the (8,1) words of their two fields, and
// of those the rows' bytes again.
#define NIBBLE_SWAP(x, y) \
	VORR y.B16, y.B16, V24.B16; \
	VSLI $4, x.B16, y.B16; \
	VSRI $4, V24.B16, x.B16

// func interleave8NibblesNEON(dst *byte, src *byte, srcStride int, n int)
//
// n steps of 16 bytes (32 fields) of each of 8 packed rows into 32 words
// of nibbles (InterleaveNibbles8): the nibble swap of rows 2i and 2i+1,
// then the eight registers, E0..E3 (V0, V2, V4, V6) before O0..O3 (V1,
// V3, V5, V7), interleaved by bytes as interleave8x1NEON does.
TEXT ·interleave8NibblesNEON(SB), NOSPLIT, $0-32
	INTERLEAVE_PROLOGUE
	ROWS8

loop:
	LOAD_ROWS8(V0, V1, V2, V3, V4, V5, V6, V7)
	NIBBLE_SWAP(V0, V1)
	NIBBLE_SWAP(V2, V3)
	NIBBLE_SWAP(V4, V5)
	NIBBLE_SWAP(V6, V7)
	ZIP_PAIRS8(V0, V2, V4, V6, V1, V3, V5, V7)
	SUBS $1, R3
	BNE  loop
	RET

// func deinterleave8NibblesNEON(dst *byte, dstStride int, src *byte, n int)
//
// The inverse: the bytes of the words taken apart as
// deinterleave8x1NEON takes them (E0..E3 in V16..V19, O0..O3 in
// V20..V23), each pair swapped back into rows 2i and 2i+1.
TEXT ·deinterleave8NibblesNEON(SB), NOSPLIT, $0-32
	DEINTERLEAVE_PROLOGUE
	ROWS8

loop:
	UNZIP_PAIRS8
	NIBBLE_SWAP(V16, V20)
	NIBBLE_SWAP(V17, V21)
	NIBBLE_SWAP(V18, V22)
	NIBBLE_SWAP(V19, V23)
	STORE_ROWS8(V16, V20, V17, V21, V18, V22, V19, V23)
	SUBS $1, R3
	BNE  loop
	RET

// func pack4NEON(dst *byte, src *byte, n int)
//
// n steps of 32 source bytes into 16 packed ones: LD2 takes the first
// and second fields of each byte apart.
TEXT ·pack4NEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2

loop:
	VLD2.P 32(R1), [V0.B16, V1.B16]
	VSLI   $4, V0.B16, V1.B16
	VST1.P [V1.B16], 16(R0)
	SUBS   $1, R2
	BNE    loop
	RET

// func unpack4NEON(dst *byte, src *byte, n int, mask, sign byte)
//
// n steps of 16 packed bytes into 32, ST2 putting each byte's two fields
// side by side.
TEXT ·unpack4NEON(SB), NOSPLIT, $0-26
	MOVD  dst+0(FP), R0
	MOVD  src+8(FP), R1
	MOVD  n+16(FP), R2
	MOVBU mask+24(FP), R3
	MOVBU sign+25(FP), R4
	VDUP  R3, V30.B16
	VDUP  R4, V31.B16

loop:
	VLD1.P 16(R1), [V0.B16]
	SPLIT(V0, V1, V2)
	VST2.P [V1.B16, V2.B16], 32(R0)
	SUBS   $1, R2
	BNE    loop
	RET

// func packRows8NEON(dst *byte, src *byte, srcStride int, n int)
//
// n steps of 16 bytes of each of 8 source rows into 16 words of 4
// bytes: rows 2i and 2i+1 packed into one byte by SLI (in V16+i), then
// the four registers of bytes interleaved by ST4.
TEXT ·packRows8NEON(SB), NOSPLIT, $0-32
	INTERLEAVE_PROLOGUE
	ROWS8

loop:
	LOAD_ROWS8(V0, V16, V1, V17, V2, V18, V3, V19)
	VSLI   $4, V0.B16, V16.B16
	VSLI   $4, V1.B16, V17.B16
	VSLI   $4, V2.B16, V18.B16
	VSLI   $4, V3.B16, V19.B16
	VST4.P [V16.B16, V17.B16, V18.B16, V19.B16], 64(R0)
	SUBS   $1, R3
	BNE    loop
	RET

// func unpackRows8NEON(dst *byte, dstStride int, src *byte, n int, mask, sign byte)
//
// The inverse of packRows8NEON: LD4 takes 16 words apart into the bytes
// of rows 2i and 2i+1 (in Vi), which split into the two rows.
TEXT ·unpackRows8NEON(SB), NOSPLIT, $0-34
	DEINTERLEAVE_PROLOGUE
	ROWS8
	MOVBU mask+32(FP), R11
	MOVBU sign+33(FP), R12
	VDUP  R11, V30.B16
	VDUP  R12, V31.B16

loop:
	VLD4.P 64(R0), [V0.B16, V1.B16, V2.B16, V3.B16]
	SPLIT(V0, V16, V17)
	SPLIT(V1, V18, V19)
	SPLIT(V2, V20, V21)
	SPLIT(V3, V22, V23)
	STORE_ROWS8(V16, V17, V18, V19, V20, V21, V22, V23)
	SUBS   $1, R3
	BNE    loop
	RET

// The element type conversions: n elements (a multiple of 16) from src
// to dst, 16 a step, with the bits of convert.go's F32ToBF16,
// BF16ToF32, F32ToF16 and F16ToF32. Registers: R0 dst, R1 src, R2
// elements left.
//
// Go's assembler has no vector FCVTN, FCVTL or CMHI, so these macros
// write them as WORDs; their arguments are register numbers (0 for V0).
// FCVTN writes the low half of d, FCVTN2 the high half, leaving the
// other; FCVTL and FCVTL2 widen the low and high half of n.

// FCVTN_4H(d, n) is FCVTN Vd.4H, Vn.4S.
#define FCVTN_4H(d, n) WORD $(0x0e216800 | (n)<<5 | (d))

// FCVTN2_8H(d, n) is FCVTN2 Vd.8H, Vn.4S.
#define FCVTN2_8H(d, n) WORD $(0x4e216800 | (n)<<5 | (d))

// FCVTL_4S(d, n) is FCVTL Vd.4S, Vn.4H.
#define FCVTL_4S(d, n) WORD $(0x0e217800 | (n)<<5 | (d))

// FCVTL2_4S(d, n) is FCVTL2 Vd.4S, Vn.8H.
#define FCVTL2_4S(d, n) WORD $(0x4e217800 | (n)<<5 | (d))

// CMHI_4S(d, n, m) is CMHI Vd.4S, Vn.4S, Vm.4S: all ones in each lane
// where n > m, unsigned.
#define CMHI_4S(d, n, m) WORD $(0x6ea03400 | (m)<<16 | (n)<<5 | (d))

// CMHI_8H(d, n, m) is CMHI Vd.8H, Vn.8H, Vm.8H.
#define CMHI_8H(d, n, m) WORD $(0x6e603400 | (m)<<16 | (n)<<5 | (d))

// SPLAT(c, v) sets every lane of v (a register and arrangement) to the
// constant c, through R3.
#define SPLAT(c, v) \
	MOVD c, R3; \
	VDUP R3, v

// func fpcr() uint64
//
// The floating-point control register: the rounding mode and the
// flush-to-zero, default-NaN and alternative half-precision bits that
// FCVTN and FCVTL obey.
TEXT ·fpcr(SB), NOSPLIT, $0-8
	MRS  FPCR, R0
	MOVD R0, ret+0(FP)
	RET

// func convertF32ToF16NEON(dst *byte, src *byte, n int)
//
// FCVTN narrows four f32 to f16, rounding as FPCR says: to nearest even
// in a Go program, subnormals kept, a NaN quieted with its sign and the
// top of its payload, as F32ToF16 does (convertAsm checks FPCR).
TEXT ·convertF32ToF16NEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2

loop:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	FCVTN_4H(4, 0)  // FCVTN  V4.4H, V0.4S
	FCVTN2_8H(4, 1) // FCVTN2 V4.8H, V1.4S
	FCVTN_4H(5, 2)  // FCVTN  V5.4H, V2.4S
	FCVTN2_8H(5, 3) // FCVTN2 V5.8H, V3.4S
	VST1.P [V4.H8, V5.H8], 32(R0)
	SUBS   $16, R2
	BNE    loop
	RET

// func convertF16ToF32NEON(dst *byte, src *byte, n int)
//
// FCVTL widens four f16 to f32: exact, a NaN quieted with its sign and
// payload, as F16ToF32 does.
TEXT ·convertF16ToF32NEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2

loop:
	VLD1.P 32(R1), [V0.H8, V1.H8]
	FCVTL_4S(2, 0)  // FCVTL  V2.4S, V0.4H
	FCVTL2_4S(3, 0) // FCVTL2 V3.4S, V0.8H
	FCVTL_4S(4, 1)  // FCVTL  V4.4S, V1.4H
	FCVTL2_4S(5, 1) // FCVTL2 V5.4S, V1.8H
	VST1.P [V2.S4, V3.S4, V4.S4, V5.S4], 64(R0)
	SUBS   $16, R2
	BNE    loop
	RET

// BF16_ROUND(x, t, u, un) sets t to the f32 lanes of x rounded to
// nearest even at bit 16, x + 0x7fff + ((x>>16)&1), and u to all ones
// in the lanes where x is a NaN (|x| > 0x7f800000). V31 holds 1, V30
// 0x7fff, V29 0x7fffffff and V28 0x7f800000 in each lane; un is u's
// register number, for CMHI.
#define BF16_ROUND(x, t, u, un) \
	VUSHR $16, x.S4, t.S4; \
	VAND  V31.B16, t.B16, t.B16; \
	VADD  V30.S4, t.S4, t.S4; \
	VADD  x.S4, t.S4, t.S4; \
	VAND  V29.B16, x.B16, u.B16; \
	CMHI_4S(un, un, 28)

// BF16_NARROW(a, b, ta, tb, ua, ub, d) sets d to the eight bf16 of the
// f32 lanes of a then b, whose BF16_ROUND gave ta and tb (rounded) and
// ua and ub (NaN): the high halves of the rounded lanes (UZP2), and in
// the NaN lanes the high halves of a and b with the quiet bit 0x0040
// (in V27's halfwords) set. V26 is scratch; ua is overwritten.
#define BF16_NARROW(a, b, ta, tb, ua, ub, d) \
	VUZP2 tb.H8, ta.H8, d.H8; \
	VUZP2 b.H8, a.H8, V26.H8; \
	VORR  V27.B16, V26.B16, V26.B16; \
	VUZP1 ub.H8, ua.H8, ua.H8; \
	VBIT  ua.B16, V26.B16, d.B16

// func convertF32ToBF16NEON(dst *byte, src *byte, n int)
//
// No instruction of baseline ARMv8 makes bf16 (BFCVTN is ARMv8.6's),
// so the rounding is F32ToBF16's integer formula on the f32 bits.
TEXT ·convertF32ToBF16NEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2
	SPLAT($1, V31.S4)
	SPLAT($0x7fff, V30.S4)
	SPLAT($0x7fffffff, V29.S4)
	SPLAT($0x7f800000, V28.S4)
	SPLAT($0x0040, V27.H8)

loop:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	BF16_ROUND(V0, V4, V8, 8)
	BF16_ROUND(V1, V5, V9, 9)
	BF16_ROUND(V2, V6, V10, 10)
	BF16_ROUND(V3, V7, V11, 11)
	BF16_NARROW(V0, V1, V4, V5, V8, V9, V12)
	BF16_NARROW(V2, V3, V6, V7, V10, V11, V13)
	VST1.P [V12.H8, V13.H8], 32(R0)
	SUBS   $16, R2
	BNE    loop
	RET

// BF16_WIDEN(h, d0, d1, m, mn) widens the eight bf16 of h into the f32
// of d0 (the first four) and d1: each a NaN (|h| > 0x7f80) quieted by
// setting 0x0040, then shifted into the high half of a lane by ZIP with
// zeros. V31 holds 0x7fff, V30 0x7f80, V29 0x0040 in each halfword, V28
// zero; m is scratch and mn its register number (for CMHI); h is
// overwritten.
#define BF16_WIDEN(h, d0, d1, m, mn) \
	VAND  V31.B16, h.B16, m.B16; \
	CMHI_8H(mn, mn, 30); \
	VAND  V29.B16, m.B16, m.B16; \
	VORR  m.B16, h.B16, h.B16; \
	VZIP1 h.H8, V28.H8, d0.H8; \
	VZIP2 h.H8, V28.H8, d1.H8

// func convertBF16ToF32NEON(dst *byte, src *byte, n int)
TEXT ·convertBF16ToF32NEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2
	SPLAT($0x7fff, V31.H8)
	SPLAT($0x7f80, V30.H8)
	SPLAT($0x0040, V29.H8)
	VEOR V28.B16, V28.B16, V28.B16

loop:
	VLD1.P 32(R1), [V0.H8, V1.H8]
	BF16_WIDEN(V0, V2, V3, V6, 6)
	BF16_WIDEN(V1, V4, V5, V7, 7)
	VST1.P [V2.S4, V3.S4, V4.S4, V5.S4], 64(R0)
	SUBS   $16, R2
	BNE    loop
	RET
