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
