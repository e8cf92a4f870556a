//go:build (amd64 || arm64) && gc && !purego && !noasm

#include "textflag.h"

// Block transposes and interleaves for amd64, AVX2 and AVX-512. The Go
// side (kernels_amd64.go) checks every bound, splits off ragged edges and
// chooses the order of the strips; these functions never validate.
//
// Register conventions in the transpose kernels:
//	DI  destination block, DX destination stride, R9 = 3*DX, R12 the
//	    destination step between blocks
//	SI  source block, BX source stride, R8 = 3*BX
//	CX  blocks left
//	R10 source row pointer, R11 destination row pointer

// PROLOGUE loads the common frame of the transpose kernels:
// func(dst *byte, dstStride int, src *byte, srcStride int, n int).
#define PROLOGUE \
	MOVQ dst+0(FP), DI; \
	MOVQ dstStride+8(FP), DX; \
	MOVQ src+16(FP), SI; \
	MOVQ srcStride+24(FP), BX; \
	MOVQ n+32(FP), CX; \
	LEAQ (BX)(BX*2), R8; \
	LEAQ (DX)(DX*2), R9

// RUNSPROLOGUE loads the common frame of the run copies: func(dst *byte,
// dstStride int, src *byte, srcStride int, n int, rows int, ...).
#define RUNSPROLOGUE \
	MOVQ dst+0(FP), DI; \
	MOVQ dstStride+8(FP), DX; \
	MOVQ src+16(FP), SI; \
	MOVQ srcStride+24(FP), BX; \
	MOVQ n+32(FP), R8; \
	MOVQ rows+40(FP), CX

// LOAD4(op, a, b, c, d) loads four source rows from R10 and advances R10
// by four rows.
#define LOAD4(op, a, b, c, d) \
	op (R10), a; \
	op (R10)(BX*1), b; \
	op (R10)(BX*2), c; \
	op (R10)(R8*1), d; \
	LEAQ (R10)(BX*4), R10

// STORE4(op, off, a, b, c, d) stores four destination rows at R11+off and
// advances R11 by four rows.
#define STORE4(op, off, a, b, c, d) \
	op a, off(R11); \
	op b, off(R11)(DX*1); \
	op c, off(R11)(DX*2); \
	op d, off(R11)(R9*1); \
	LEAQ (R11)(DX*4), R11

// ---------------------------------------------------------------------------
// AVX-512

// XPOSE4LANES transposes the 4×4 matrix of 128-bit lanes held in a, b, c,
// d (one row each) in place, using v0..v3 as scratch.
#define XPOSE4LANES(a, b, c, d, v0, v1, v2, v3) \
	VSHUFI32X4 $0x44, b, a, v0; \
	VSHUFI32X4 $0xEE, b, a, v1; \
	VSHUFI32X4 $0x44, d, c, v2; \
	VSHUFI32X4 $0xEE, d, c, v3; \
	VSHUFI32X4 $0x88, v2, v0, a; \
	VSHUFI32X4 $0xDD, v2, v0, b; \
	VSHUFI32X4 $0x88, v3, v1, c; \
	VSHUFI32X4 $0xDD, v3, v1, d

// XPOSE16X16D transposes the 16×16 matrix of dwords in Z0..Z15 (row r in
// Zr) in place, using Z16..Z31 as scratch: afterwards column c is in Zc.
#define XPOSE16X16D \
	VPUNPCKLDQ Z1, Z0, Z16; \
	VPUNPCKHDQ Z1, Z0, Z17; \
	VPUNPCKLDQ Z3, Z2, Z18; \
	VPUNPCKHDQ Z3, Z2, Z19; \
	VPUNPCKLDQ Z5, Z4, Z20; \
	VPUNPCKHDQ Z5, Z4, Z21; \
	VPUNPCKLDQ Z7, Z6, Z22; \
	VPUNPCKHDQ Z7, Z6, Z23; \
	VPUNPCKLDQ Z9, Z8, Z24; \
	VPUNPCKHDQ Z9, Z8, Z25; \
	VPUNPCKLDQ Z11, Z10, Z26; \
	VPUNPCKHDQ Z11, Z10, Z27; \
	VPUNPCKLDQ Z13, Z12, Z28; \
	VPUNPCKHDQ Z13, Z12, Z29; \
	VPUNPCKLDQ Z15, Z14, Z30; \
	VPUNPCKHDQ Z15, Z14, Z31; \
	VPUNPCKLQDQ Z18, Z16, Z0; \
	VPUNPCKHQDQ Z18, Z16, Z1; \
	VPUNPCKLQDQ Z19, Z17, Z2; \
	VPUNPCKHQDQ Z19, Z17, Z3; \
	VPUNPCKLQDQ Z22, Z20, Z4; \
	VPUNPCKHQDQ Z22, Z20, Z5; \
	VPUNPCKLQDQ Z23, Z21, Z6; \
	VPUNPCKHQDQ Z23, Z21, Z7; \
	VPUNPCKLQDQ Z26, Z24, Z8; \
	VPUNPCKHQDQ Z26, Z24, Z9; \
	VPUNPCKLQDQ Z27, Z25, Z10; \
	VPUNPCKHQDQ Z27, Z25, Z11; \
	VPUNPCKLQDQ Z30, Z28, Z12; \
	VPUNPCKHQDQ Z30, Z28, Z13; \
	VPUNPCKLQDQ Z31, Z29, Z14; \
	VPUNPCKHQDQ Z31, Z29, Z15; \
	XPOSE4LANES(Z0, Z4, Z8, Z12, Z16, Z17, Z18, Z19); \
	XPOSE4LANES(Z1, Z5, Z9, Z13, Z20, Z21, Z22, Z23); \
	XPOSE4LANES(Z2, Z6, Z10, Z14, Z24, Z25, Z26, Z27); \
	XPOSE4LANES(Z3, Z7, Z11, Z15, Z28, Z29, Z30, Z31)

// STORE16Z(op) stores Z0..Z15 to sixteen destination rows from DI.
#define STORE16Z(op) \
	MOVQ DI, R11; \
	STORE4(op, 0, Z0, Z1, Z2, Z3); \
	STORE4(op, 0, Z4, Z5, Z6, Z7); \
	STORE4(op, 0, Z8, Z9, Z10, Z11); \
	STORE4(op, 0, Z12, Z13, Z14, Z15)

#define BODY4AVX512(op) \
	MOVQ SI, R10; \
	LOAD4(VMOVDQU32, Z0, Z1, Z2, Z3); \
	LOAD4(VMOVDQU32, Z4, Z5, Z6, Z7); \
	LOAD4(VMOVDQU32, Z8, Z9, Z10, Z11); \
	LOAD4(VMOVDQU32, Z12, Z13, Z14, Z15); \
	XPOSE16X16D; \
	STORE16Z(op); \
	ADDQ $64, SI; \
	ADDQ R12, DI

// func transpose4AVX512(dst *byte, dstStride int, src *byte, srcStride int, n int)
TEXT ·transpose4AVX512(SB), NOSPLIT, $0-40
	PROLOGUE
	MOVQ DX, R12
	SHLQ $4, R12

loop:
	BODY4AVX512(VMOVDQU32)
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// GATHER8(m) loads four 16-byte pieces of source rows from R10 into the
// lanes of Zm, advances R10 by four rows, and reorders the bytes so that
// dword i holds byte i of the four rows (VPERMB with the index in Z31).
#define GATHER8(xm, zm) \
	VMOVDQU (R10), xm; \
	VINSERTI32X4 $1, (R10)(BX*1), zm, zm; \
	VINSERTI32X4 $2, (R10)(BX*2), zm, zm; \
	VINSERTI32X4 $3, (R10)(R8*1), zm, zm; \
	LEAQ (R10)(BX*4), R10; \
	VPERMB zm, Z31, zm

#define BODY1AVX512(op) \
	MOVQ SI, R10; \
	VMOVDQU64 permBytes4x16<>(SB), Z31; \
	GATHER8(X0, Z0); \
	GATHER8(X1, Z1); \
	GATHER8(X2, Z2); \
	GATHER8(X3, Z3); \
	GATHER8(X4, Z4); \
	GATHER8(X5, Z5); \
	GATHER8(X6, Z6); \
	GATHER8(X7, Z7); \
	GATHER8(X8, Z8); \
	GATHER8(X9, Z9); \
	GATHER8(X10, Z10); \
	GATHER8(X11, Z11); \
	GATHER8(X12, Z12); \
	GATHER8(X13, Z13); \
	GATHER8(X14, Z14); \
	GATHER8(X15, Z15); \
	XPOSE16X16D; \
	STORE16Z(op); \
	ADDQ $16, SI; \
	ADDQ R12, DI

// func transpose1AVX512(dst *byte, dstStride int, src *byte, srcStride int, n int)
TEXT ·transpose1AVX512(SB), NOSPLIT, $0-40
	PROLOGUE
	MOVQ DX, R12
	SHLQ $4, R12

loop:
	BODY1AVX512(VMOVDQU32)
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// GATHER16(m) loads two 32-byte pieces of source rows from R10 into the
// halves of Zm, advances R10 by two rows, and reorders the words so that
// dword i holds element i of the two rows (VPERMW with the index in Z31).
#define GATHER16(ym, zm) \
	VMOVDQU (R10), ym; \
	VINSERTI64X4 $1, (R10)(BX*1), zm, zm; \
	LEAQ (R10)(BX*2), R10; \
	VPERMW zm, Z31, zm

#define BODY2AVX512(op) \
	MOVQ SI, R10; \
	VMOVDQU64 permWords2x16<>(SB), Z31; \
	GATHER16(Y0, Z0); \
	GATHER16(Y1, Z1); \
	GATHER16(Y2, Z2); \
	GATHER16(Y3, Z3); \
	GATHER16(Y4, Z4); \
	GATHER16(Y5, Z5); \
	GATHER16(Y6, Z6); \
	GATHER16(Y7, Z7); \
	GATHER16(Y8, Z8); \
	GATHER16(Y9, Z9); \
	GATHER16(Y10, Z10); \
	GATHER16(Y11, Z11); \
	GATHER16(Y12, Z12); \
	GATHER16(Y13, Z13); \
	GATHER16(Y14, Z14); \
	GATHER16(Y15, Z15); \
	XPOSE16X16D; \
	STORE16Z(op); \
	ADDQ $32, SI; \
	ADDQ R12, DI

// func transpose2AVX512(dst *byte, dstStride int, src *byte, srcStride int, n int)
TEXT ·transpose2AVX512(SB), NOSPLIT, $0-40
	PROLOGUE
	MOVQ DX, R12
	SHLQ $4, R12

loop:
	BODY2AVX512(VMOVDQU32)
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// SCATTER4X16 splits the dwords of column zc into four rows of bytes
// (VPERMB with the index in Z16) and stores them at R11, advancing R11 by
// four rows.
#define SCATTER4X16(xc, zc) \
	VPERMB zc, Z16, zc; \
	VMOVDQU xc, (R11); \
	VEXTRACTI32X4 $1, zc, (R11)(DX*1); \
	VEXTRACTI32X4 $2, zc, (R11)(DX*2); \
	VEXTRACTI32X4 $3, zc, (R11)(R9*1); \
	LEAQ (R11)(DX*4), R11

// BODY1ROWSAVX512 transposes a block of 16 source rows of 64 bytes into 64
// destination rows of 16 bytes: the 16x16 dword transpose, then VPERMB
// splits each column of dwords into four rows of bytes.
#define BODY1ROWSAVX512 \
	MOVQ SI, R10; \
	LOAD4(VMOVDQU32, Z0, Z1, Z2, Z3); \
	LOAD4(VMOVDQU32, Z4, Z5, Z6, Z7); \
	LOAD4(VMOVDQU32, Z8, Z9, Z10, Z11); \
	LOAD4(VMOVDQU32, Z12, Z13, Z14, Z15); \
	XPOSE16X16D; \
	VMOVDQU64 permBytes16x4<>(SB), Z16; \
	MOVQ DI, R11; \
	SCATTER4X16(X0, Z0); \
	SCATTER4X16(X1, Z1); \
	SCATTER4X16(X2, Z2); \
	SCATTER4X16(X3, Z3); \
	SCATTER4X16(X4, Z4); \
	SCATTER4X16(X5, Z5); \
	SCATTER4X16(X6, Z6); \
	SCATTER4X16(X7, Z7); \
	SCATTER4X16(X8, Z8); \
	SCATTER4X16(X9, Z9); \
	SCATTER4X16(X10, Z10); \
	SCATTER4X16(X11, Z11); \
	SCATTER4X16(X12, Z12); \
	SCATTER4X16(X13, Z13); \
	SCATTER4X16(X14, Z14); \
	SCATTER4X16(X15, Z15); \
	ADDQ $64, SI; \
	ADDQ R12, DI

// func transpose1RowsAVX512(dst *byte, dstStride int, src *byte, srcStride int, n int)
TEXT ·transpose1RowsAVX512(SB), NOSPLIT, $0-40
	PROLOGUE
	MOVQ DX, R12
	SHLQ $6, R12

loop:
	BODY1ROWSAVX512
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// SCATTER2X32 splits the dwords of column zc into two rows of words
// (VPERMW with the index in Z16) and stores them at R11, advancing R11 by
// two rows.
#define SCATTER2X32(yc, zc) \
	VPERMW zc, Z16, zc; \
	VMOVDQU yc, (R11); \
	VEXTRACTI64X4 $1, zc, (R11)(DX*1); \
	LEAQ (R11)(DX*2), R11

// BODY2ROWSAVX512 transposes a block of 16 source rows of 32 two-byte
// elements into 32 destination rows of 16: the 16x16 dword transpose, then
// VPERMW splits each column of dwords into two rows of words.
#define BODY2ROWSAVX512 \
	MOVQ SI, R10; \
	LOAD4(VMOVDQU32, Z0, Z1, Z2, Z3); \
	LOAD4(VMOVDQU32, Z4, Z5, Z6, Z7); \
	LOAD4(VMOVDQU32, Z8, Z9, Z10, Z11); \
	LOAD4(VMOVDQU32, Z12, Z13, Z14, Z15); \
	XPOSE16X16D; \
	VMOVDQU64 permWords16x2<>(SB), Z16; \
	MOVQ DI, R11; \
	SCATTER2X32(Y0, Z0); \
	SCATTER2X32(Y1, Z1); \
	SCATTER2X32(Y2, Z2); \
	SCATTER2X32(Y3, Z3); \
	SCATTER2X32(Y4, Z4); \
	SCATTER2X32(Y5, Z5); \
	SCATTER2X32(Y6, Z6); \
	SCATTER2X32(Y7, Z7); \
	SCATTER2X32(Y8, Z8); \
	SCATTER2X32(Y9, Z9); \
	SCATTER2X32(Y10, Z10); \
	SCATTER2X32(Y11, Z11); \
	SCATTER2X32(Y12, Z12); \
	SCATTER2X32(Y13, Z13); \
	SCATTER2X32(Y14, Z14); \
	SCATTER2X32(Y15, Z15); \
	ADDQ $64, SI; \
	ADDQ R12, DI

// func transpose2RowsAVX512(dst *byte, dstStride int, src *byte, srcStride int, n int)
TEXT ·transpose2RowsAVX512(SB), NOSPLIT, $0-40
	PROLOGUE
	MOVQ DX, R12
	SHLQ $5, R12

loop:
	BODY2ROWSAVX512
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// XPOSE8X8Q transposes the 8×8 matrix of qwords in Z0..Z7 (row r in Zr),
// using Z16..Z23 as scratch: afterwards column c is in Z(8+c).
#define XPOSE8X8Q \
	VPUNPCKLQDQ Z1, Z0, Z8; \
	VPUNPCKHQDQ Z1, Z0, Z9; \
	VPUNPCKLQDQ Z3, Z2, Z10; \
	VPUNPCKHQDQ Z3, Z2, Z11; \
	VPUNPCKLQDQ Z5, Z4, Z12; \
	VPUNPCKHQDQ Z5, Z4, Z13; \
	VPUNPCKLQDQ Z7, Z6, Z14; \
	VPUNPCKHQDQ Z7, Z6, Z15; \
	XPOSE4LANES(Z8, Z10, Z12, Z14, Z16, Z17, Z18, Z19); \
	XPOSE4LANES(Z9, Z11, Z13, Z15, Z20, Z21, Z22, Z23)

#define BODY8AVX512(op) \
	MOVQ SI, R10; \
	LOAD4(VMOVDQU64, Z0, Z1, Z2, Z3); \
	LOAD4(VMOVDQU64, Z4, Z5, Z6, Z7); \
	XPOSE8X8Q; \
	MOVQ DI, R11; \
	STORE4(op, 0, Z8, Z9, Z10, Z11); \
	STORE4(op, 0, Z12, Z13, Z14, Z15); \
	ADDQ $64, SI; \
	ADDQ R12, DI

// func transpose8AVX512(dst *byte, dstStride int, src *byte, srcStride int, n int)
TEXT ·transpose8AVX512(SB), NOSPLIT, $0-40
	PROLOGUE
	MOVQ DX, R12
	SHLQ $3, R12

loop:
	BODY8AVX512(VMOVDQU64)
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

#define BODY16AVX512(op) \
	MOVQ SI, R10; \
	LOAD4(VMOVDQU64, Z0, Z1, Z2, Z3); \
	XPOSE4LANES(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7); \
	MOVQ DI, R11; \
	STORE4(op, 0, Z0, Z1, Z2, Z3); \
	ADDQ $64, SI; \
	ADDQ R12, DI

// func transpose16AVX512(dst *byte, dstStride int, src *byte, srcStride int, n int)
TEXT ·transpose16AVX512(SB), NOSPLIT, $0-40
	PROLOGUE
	MOVQ DX, R12
	SHLQ $2, R12

loop:
	BODY16AVX512(VMOVDQU64)
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// AVX2

// XPOSE8X8DY transposes the 8×8 matrix of dwords in Y0..Y7 (row r in Yr):
// afterwards column c is in Y(8+c).
#define XPOSE8X8DY \
	VPUNPCKLDQ Y1, Y0, Y8; \
	VPUNPCKHDQ Y1, Y0, Y9; \
	VPUNPCKLDQ Y3, Y2, Y10; \
	VPUNPCKHDQ Y3, Y2, Y11; \
	VPUNPCKLDQ Y5, Y4, Y12; \
	VPUNPCKHDQ Y5, Y4, Y13; \
	VPUNPCKLDQ Y7, Y6, Y14; \
	VPUNPCKHDQ Y7, Y6, Y15; \
	VPUNPCKLQDQ Y10, Y8, Y0; \
	VPUNPCKHQDQ Y10, Y8, Y1; \
	VPUNPCKLQDQ Y11, Y9, Y2; \
	VPUNPCKHQDQ Y11, Y9, Y3; \
	VPUNPCKLQDQ Y14, Y12, Y4; \
	VPUNPCKHQDQ Y14, Y12, Y5; \
	VPUNPCKLQDQ Y15, Y13, Y6; \
	VPUNPCKHQDQ Y15, Y13, Y7; \
	VPERM2I128 $0x20, Y4, Y0, Y8; \
	VPERM2I128 $0x31, Y4, Y0, Y12; \
	VPERM2I128 $0x20, Y5, Y1, Y9; \
	VPERM2I128 $0x31, Y5, Y1, Y13; \
	VPERM2I128 $0x20, Y6, Y2, Y10; \
	VPERM2I128 $0x31, Y6, Y2, Y14; \
	VPERM2I128 $0x20, Y7, Y3, Y11; \
	VPERM2I128 $0x31, Y7, Y3, Y15

#define BODY4AVX2(op) \
	MOVQ SI, R10; \
	LOAD4(VMOVDQU, Y0, Y1, Y2, Y3); \
	LOAD4(VMOVDQU, Y4, Y5, Y6, Y7); \
	XPOSE8X8DY; \
	MOVQ DI, R11; \
	STORE4(op, 0, Y8, Y9, Y10, Y11); \
	STORE4(op, 0, Y12, Y13, Y14, Y15); \
	LOAD4(VMOVDQU, Y0, Y1, Y2, Y3); \
	LOAD4(VMOVDQU, Y4, Y5, Y6, Y7); \
	XPOSE8X8DY; \
	MOVQ DI, R11; \
	STORE4(op, 32, Y8, Y9, Y10, Y11); \
	STORE4(op, 32, Y12, Y13, Y14, Y15); \
	ADDQ $32, SI; \
	ADDQ R12, DI

// func transpose4AVX2(dst *byte, dstStride int, src *byte, srcStride int, n int)
TEXT ·transpose4AVX2(SB), NOSPLIT, $0-40
	PROLOGUE
	MOVQ DX, R12
	SHLQ $3, R12

loop:
	BODY4AVX2(VMOVDQU)
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// SPLIT2X8Y splits the dwords of column yc (one per source row: two
// 2-byte elements) into two destination rows of eight elements at R11
// (VPSHUFB with the mask in Y0, then VPERMQ joins the lanes), advancing
// R11 by two rows.
#define SPLIT2X8Y(xc, yc) \
	VPSHUFB Y0, yc, yc; \
	VPERMQ $0xD8, yc, yc; \
	VMOVDQU xc, (R11); \
	VEXTRACTI128 $1, yc, (R11)(DX*1); \
	LEAQ (R11)(DX*2), R11

// BODY2AVX2 transposes 8 source rows of 16 two-byte elements into 16
// destination rows of 8: the 8x8 dword transpose, then SPLIT2X8Y.
#define BODY2AVX2 \
	MOVQ SI, R10; \
	LOAD4(VMOVDQU, Y0, Y1, Y2, Y3); \
	LOAD4(VMOVDQU, Y4, Y5, Y6, Y7); \
	XPOSE8X8DY; \
	VMOVDQU shufWords2x4<>(SB), Y0; \
	MOVQ DI, R11; \
	SPLIT2X8Y(X8, Y8); \
	SPLIT2X8Y(X9, Y9); \
	SPLIT2X8Y(X10, Y10); \
	SPLIT2X8Y(X11, Y11); \
	SPLIT2X8Y(X12, Y12); \
	SPLIT2X8Y(X13, Y13); \
	SPLIT2X8Y(X14, Y14); \
	SPLIT2X8Y(X15, Y15); \
	ADDQ $32, SI; \
	ADDQ R12, DI

// func transpose2AVX2(dst *byte, dstStride int, src *byte, srcStride int, n int)
TEXT ·transpose2AVX2(SB), NOSPLIT, $0-40
	PROLOGUE
	MOVQ DX, R12
	SHLQ $4, R12

loop:
	BODY2AVX2
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// SPLIT4X8Y splits the dwords of column yc (one per source row: four
// bytes) into four destination rows of eight bytes at R11 (VPSHUFB with
// the mask in Y0, VPERMD with the index in Y1), advancing R11 by four rows.
#define SPLIT4X8Y(xc, yc) \
	VPSHUFB Y0, yc, yc; \
	VPERMD yc, Y1, yc; \
	VMOVQ xc, (R11); \
	VPEXTRQ $1, xc, (R11)(DX*1); \
	VEXTRACTI128 $1, yc, X2; \
	VMOVQ X2, (R11)(DX*2); \
	VPEXTRQ $1, X2, (R11)(R9*1); \
	LEAQ (R11)(DX*4), R11

// BODY1AVX2 transposes 8 source rows of 32 bytes into 32 destination rows
// of 8: the 8x8 dword transpose, then SPLIT4X8Y.
#define BODY1AVX2 \
	MOVQ SI, R10; \
	LOAD4(VMOVDQU, Y0, Y1, Y2, Y3); \
	LOAD4(VMOVDQU, Y4, Y5, Y6, Y7); \
	XPOSE8X8DY; \
	VMOVDQU shufBytes4x4<>(SB), Y0; \
	VMOVDQU permDwordsLanes<>(SB), Y1; \
	MOVQ DI, R11; \
	SPLIT4X8Y(X8, Y8); \
	SPLIT4X8Y(X9, Y9); \
	SPLIT4X8Y(X10, Y10); \
	SPLIT4X8Y(X11, Y11); \
	SPLIT4X8Y(X12, Y12); \
	SPLIT4X8Y(X13, Y13); \
	SPLIT4X8Y(X14, Y14); \
	SPLIT4X8Y(X15, Y15); \
	ADDQ $32, SI; \
	ADDQ R12, DI

// func transpose1AVX2(dst *byte, dstStride int, src *byte, srcStride int, n int)
TEXT ·transpose1AVX2(SB), NOSPLIT, $0-40
	PROLOGUE
	MOVQ DX, R12
	SHLQ $5, R12

loop:
	BODY1AVX2
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// XPOSE4X4QY transposes the 4×4 matrix of qwords in Y0..Y3 (row r in Yr):
// afterwards column c is in Y(8+c).
#define XPOSE4X4QY \
	VPUNPCKLQDQ Y1, Y0, Y4; \
	VPUNPCKHQDQ Y1, Y0, Y5; \
	VPUNPCKLQDQ Y3, Y2, Y6; \
	VPUNPCKHQDQ Y3, Y2, Y7; \
	VPERM2I128 $0x20, Y6, Y4, Y8; \
	VPERM2I128 $0x31, Y6, Y4, Y10; \
	VPERM2I128 $0x20, Y7, Y5, Y9; \
	VPERM2I128 $0x31, Y7, Y5, Y11

#define BODY8AVX2(op) \
	MOVQ SI, R10; \
	LOAD4(VMOVDQU, Y0, Y1, Y2, Y3); \
	XPOSE4X4QY; \
	MOVQ DI, R11; \
	STORE4(op, 0, Y8, Y9, Y10, Y11); \
	LOAD4(VMOVDQU, Y0, Y1, Y2, Y3); \
	XPOSE4X4QY; \
	MOVQ DI, R11; \
	STORE4(op, 32, Y8, Y9, Y10, Y11); \
	ADDQ $32, SI; \
	ADDQ R12, DI

// func transpose8AVX2(dst *byte, dstStride int, src *byte, srcStride int, n int)
TEXT ·transpose8AVX2(SB), NOSPLIT, $0-40
	PROLOGUE
	MOVQ DX, R12
	SHLQ $2, R12

loop:
	BODY8AVX2(VMOVDQU)
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

#define BODY16AVX2(op) \
	MOVQ SI, R10; \
	VMOVDQU (R10), Y0; \
	VMOVDQU (R10)(BX*1), Y1; \
	VMOVDQU (R10)(BX*2), Y2; \
	VMOVDQU (R10)(R8*1), Y3; \
	VPERM2I128 $0x20, Y1, Y0, Y4; \
	VPERM2I128 $0x31, Y1, Y0, Y5; \
	VPERM2I128 $0x20, Y3, Y2, Y6; \
	VPERM2I128 $0x31, Y3, Y2, Y7; \
	op Y4, (DI); \
	op Y6, 32(DI); \
	op Y5, (DI)(DX*1); \
	op Y7, 32(DI)(DX*1); \
	ADDQ $32, SI; \
	ADDQ R12, DI

// func transpose16AVX2(dst *byte, dstStride int, src *byte, srcStride int, n int)
TEXT ·transpose16AVX2(SB), NOSPLIT, $0-40
	PROLOGUE
	MOVQ DX, R12
	SHLQ $1, R12

loop:
	BODY16AVX2(VMOVDQU)
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// Index tables.

// permBytes4x16: byte 4i+r of the result takes byte 16r+i (four rows of
// sixteen bytes become sixteen dwords of four bytes).
DATA permBytes4x16<>+0x00(SB)/8, $0x3121110130201000
DATA permBytes4x16<>+0x08(SB)/8, $0x3323130332221202
DATA permBytes4x16<>+0x10(SB)/8, $0x3525150534241404
DATA permBytes4x16<>+0x18(SB)/8, $0x3727170736261606
DATA permBytes4x16<>+0x20(SB)/8, $0x3929190938281808
DATA permBytes4x16<>+0x28(SB)/8, $0x3b2b1b0b3a2a1a0a
DATA permBytes4x16<>+0x30(SB)/8, $0x3d2d1d0d3c2c1c0c
DATA permBytes4x16<>+0x38(SB)/8, $0x3f2f1f0f3e2e1e0e
GLOBL permBytes4x16<>(SB), RODATA|NOPTR, $64

// permWords2x16: word 2i+r of the result takes word 16r+i (two rows of
// sixteen words become sixteen dwords of two words).
DATA permWords2x16<>+0x00(SB)/8, $0x0011000100100000
DATA permWords2x16<>+0x08(SB)/8, $0x0013000300120002
DATA permWords2x16<>+0x10(SB)/8, $0x0015000500140004
DATA permWords2x16<>+0x18(SB)/8, $0x0017000700160006
DATA permWords2x16<>+0x20(SB)/8, $0x0019000900180008
DATA permWords2x16<>+0x28(SB)/8, $0x001b000b001a000a
DATA permWords2x16<>+0x30(SB)/8, $0x001d000d001c000c
DATA permWords2x16<>+0x38(SB)/8, $0x001f000f001e000e
GLOBL permWords2x16<>(SB), RODATA|NOPTR, $64

// ---------------------------------------------------------------------------
// Interleaves: Transpose with 2 or 4 columns and a contiguous destination,
// the shape of the planner's row-pair and row-quad tiles ((2,1), (4,1)).
//
// func interleaveCW...(dst *byte, src *byte, srcStride int, n int)
// interleaves C source rows of n chunks each (64 bytes per row per chunk
// with AVX-512, 32 with AVX2) into dst, element by element.

// IL2Z(op, a, b, o0, o1) interleaves the elements of a and b into o0 (the
// first halves) and o1 (the second), with the index tables in Z30, Z31.
#define IL2Z(op, a, b, o0, o1) \
	VMOVDQA64 a, o0; \
	op b, Z30, o0; \
	VMOVDQA64 a, o1; \
	op b, Z31, o1

// IL2Y(lo, hi, a, b, o0, o1): the same with AVX2 unpacks of a and b.
#define IL2Y(lo, hi, a, b, o0, o1) \
	lo b, a, Y14; \
	hi b, a, Y15; \
	VPERM2I128 $0x20, Y15, Y14, o0; \
	VPERM2I128 $0x31, Y15, Y14, o1


// func interleave2x1AVX512(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave2x1AVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ srcStride+16(FP), BX
	MOVQ n+24(FP), CX
	VMOVDQU64 ilLo1<>(SB), Z30
	VMOVDQU64 ilHi1<>(SB), Z31

loop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 (SI)(BX*1), Z1
	IL2Z(VPERMT2B, Z0, Z1, Z2, Z3)
	VMOVDQU64 Z2, (DI)
	VMOVDQU64 Z3, 64(DI)
	ADDQ $64, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func interleave4x1AVX512(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave4x1AVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ srcStride+16(FP), BX
	MOVQ n+24(FP), CX
	LEAQ (BX)(BX*2), R8

loop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 (SI)(BX*1), Z1
	VMOVDQU64 (SI)(BX*2), Z2
	VMOVDQU64 (SI)(R8*1), Z3
	VMOVDQU64 ilLo1<>(SB), Z30
	VMOVDQU64 ilHi1<>(SB), Z31
	IL2Z(VPERMT2B, Z0, Z1, Z4, Z5)
	IL2Z(VPERMT2B, Z2, Z3, Z6, Z7)
	VMOVDQU64 ilLo2<>(SB), Z30
	VMOVDQU64 ilHi2<>(SB), Z31
	IL2Z(VPERMT2W, Z4, Z6, Z8, Z9)
	IL2Z(VPERMT2W, Z5, Z7, Z10, Z11)
	VMOVDQU64 Z8, (DI)
	VMOVDQU64 Z9, 64(DI)
	VMOVDQU64 Z10, 128(DI)
	VMOVDQU64 Z11, 192(DI)
	ADDQ $64, SI
	ADDQ $256, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET


// func interleave2x1AVX2(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave2x1AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ srcStride+16(FP), BX
	MOVQ n+24(FP), CX

loop:
	VMOVDQU (SI), Y0
	VMOVDQU (SI)(BX*1), Y1
	IL2Y(VPUNPCKLBW, VPUNPCKHBW, Y0, Y1, Y2, Y3)
	VMOVDQU Y2, (DI)
	VMOVDQU Y3, 32(DI)
	ADDQ $32, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func interleave4x1AVX2(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave4x1AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ srcStride+16(FP), BX
	MOVQ n+24(FP), CX
	LEAQ (BX)(BX*2), R8

loop:
	VMOVDQU (SI), Y0
	VMOVDQU (SI)(BX*1), Y1
	VMOVDQU (SI)(BX*2), Y2
	VMOVDQU (SI)(R8*1), Y3
	IL2Y(VPUNPCKLBW, VPUNPCKHBW, Y0, Y1, Y4, Y5)
	IL2Y(VPUNPCKLBW, VPUNPCKHBW, Y2, Y3, Y6, Y7)
	IL2Y(VPUNPCKLWD, VPUNPCKHWD, Y4, Y6, Y8, Y9)
	IL2Y(VPUNPCKLWD, VPUNPCKHWD, Y5, Y7, Y10, Y11)
	VMOVDQU Y8, (DI)
	VMOVDQU Y9, 32(DI)
	VMOVDQU Y10, 64(DI)
	VMOVDQU Y11, 96(DI)
	ADDQ $32, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET


// func interleave2x2AVX512(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave2x2AVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ srcStride+16(FP), BX
	MOVQ n+24(FP), CX
	VMOVDQU64 ilLo2<>(SB), Z30
	VMOVDQU64 ilHi2<>(SB), Z31

loop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 (SI)(BX*1), Z1
	IL2Z(VPERMT2W, Z0, Z1, Z2, Z3)
	VMOVDQU64 Z2, (DI)
	VMOVDQU64 Z3, 64(DI)
	ADDQ $64, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func interleave4x2AVX512(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave4x2AVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ srcStride+16(FP), BX
	MOVQ n+24(FP), CX
	LEAQ (BX)(BX*2), R8

loop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 (SI)(BX*1), Z1
	VMOVDQU64 (SI)(BX*2), Z2
	VMOVDQU64 (SI)(R8*1), Z3
	VMOVDQU64 ilLo2<>(SB), Z30
	VMOVDQU64 ilHi2<>(SB), Z31
	IL2Z(VPERMT2W, Z0, Z1, Z4, Z5)
	IL2Z(VPERMT2W, Z2, Z3, Z6, Z7)
	VMOVDQU64 ilLo4<>(SB), Z30
	VMOVDQU64 ilHi4<>(SB), Z31
	IL2Z(VPERMT2D, Z4, Z6, Z8, Z9)
	IL2Z(VPERMT2D, Z5, Z7, Z10, Z11)
	VMOVDQU64 Z8, (DI)
	VMOVDQU64 Z9, 64(DI)
	VMOVDQU64 Z10, 128(DI)
	VMOVDQU64 Z11, 192(DI)
	ADDQ $64, SI
	ADDQ $256, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET


// func interleave2x2AVX2(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave2x2AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ srcStride+16(FP), BX
	MOVQ n+24(FP), CX

loop:
	VMOVDQU (SI), Y0
	VMOVDQU (SI)(BX*1), Y1
	IL2Y(VPUNPCKLWD, VPUNPCKHWD, Y0, Y1, Y2, Y3)
	VMOVDQU Y2, (DI)
	VMOVDQU Y3, 32(DI)
	ADDQ $32, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func interleave4x2AVX2(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave4x2AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ srcStride+16(FP), BX
	MOVQ n+24(FP), CX
	LEAQ (BX)(BX*2), R8

loop:
	VMOVDQU (SI), Y0
	VMOVDQU (SI)(BX*1), Y1
	VMOVDQU (SI)(BX*2), Y2
	VMOVDQU (SI)(R8*1), Y3
	IL2Y(VPUNPCKLWD, VPUNPCKHWD, Y0, Y1, Y4, Y5)
	IL2Y(VPUNPCKLWD, VPUNPCKHWD, Y2, Y3, Y6, Y7)
	IL2Y(VPUNPCKLDQ, VPUNPCKHDQ, Y4, Y6, Y8, Y9)
	IL2Y(VPUNPCKLDQ, VPUNPCKHDQ, Y5, Y7, Y10, Y11)
	VMOVDQU Y8, (DI)
	VMOVDQU Y9, 32(DI)
	VMOVDQU Y10, 64(DI)
	VMOVDQU Y11, 96(DI)
	ADDQ $32, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET


// func interleave2x4AVX512(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave2x4AVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ srcStride+16(FP), BX
	MOVQ n+24(FP), CX
	VMOVDQU64 ilLo4<>(SB), Z30
	VMOVDQU64 ilHi4<>(SB), Z31

loop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 (SI)(BX*1), Z1
	IL2Z(VPERMT2D, Z0, Z1, Z2, Z3)
	VMOVDQU64 Z2, (DI)
	VMOVDQU64 Z3, 64(DI)
	ADDQ $64, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func interleave4x4AVX512(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave4x4AVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ srcStride+16(FP), BX
	MOVQ n+24(FP), CX
	LEAQ (BX)(BX*2), R8

loop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 (SI)(BX*1), Z1
	VMOVDQU64 (SI)(BX*2), Z2
	VMOVDQU64 (SI)(R8*1), Z3
	VMOVDQU64 ilLo4<>(SB), Z30
	VMOVDQU64 ilHi4<>(SB), Z31
	IL2Z(VPERMT2D, Z0, Z1, Z4, Z5)
	IL2Z(VPERMT2D, Z2, Z3, Z6, Z7)
	VMOVDQU64 ilLo8<>(SB), Z30
	VMOVDQU64 ilHi8<>(SB), Z31
	IL2Z(VPERMT2Q, Z4, Z6, Z8, Z9)
	IL2Z(VPERMT2Q, Z5, Z7, Z10, Z11)
	VMOVDQU64 Z8, (DI)
	VMOVDQU64 Z9, 64(DI)
	VMOVDQU64 Z10, 128(DI)
	VMOVDQU64 Z11, 192(DI)
	ADDQ $64, SI
	ADDQ $256, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET


// func interleave2x4AVX2(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave2x4AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ srcStride+16(FP), BX
	MOVQ n+24(FP), CX

loop:
	VMOVDQU (SI), Y0
	VMOVDQU (SI)(BX*1), Y1
	IL2Y(VPUNPCKLDQ, VPUNPCKHDQ, Y0, Y1, Y2, Y3)
	VMOVDQU Y2, (DI)
	VMOVDQU Y3, 32(DI)
	ADDQ $32, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func interleave4x4AVX2(dst *byte, src *byte, srcStride int, n int)
TEXT ·interleave4x4AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ srcStride+16(FP), BX
	MOVQ n+24(FP), CX
	LEAQ (BX)(BX*2), R8

loop:
	VMOVDQU (SI), Y0
	VMOVDQU (SI)(BX*1), Y1
	VMOVDQU (SI)(BX*2), Y2
	VMOVDQU (SI)(R8*1), Y3
	IL2Y(VPUNPCKLDQ, VPUNPCKHDQ, Y0, Y1, Y4, Y5)
	IL2Y(VPUNPCKLDQ, VPUNPCKHDQ, Y2, Y3, Y6, Y7)
	IL2Y(VPUNPCKLQDQ, VPUNPCKHQDQ, Y4, Y6, Y8, Y9)
	IL2Y(VPUNPCKLQDQ, VPUNPCKHQDQ, Y5, Y7, Y10, Y11)
	VMOVDQU Y8, (DI)
	VMOVDQU Y9, 32(DI)
	VMOVDQU Y10, 64(DI)
	VMOVDQU Y11, 96(DI)
	ADDQ $32, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// De-interleaves: Transpose with 2 or 4 rows and a contiguous source (the
// inverse of the interleaves: untiling (2,1) and (4,1)).
//
// func deinterleaveRxW...(dst *byte, dstStride int, src *byte, n int)
// splits n chunks of the source stream of groups of R elements of W bytes
// (R*64 bytes per chunk with AVX-512, R*32 with AVX2) into R destination
// rows (64 or 32 bytes each per chunk).

// DE2Z(op, a, b, o0, o1) puts the even elements of a then b in o0 and the
// odd ones in o1, with the index tables in Z30, Z31.
#define DE2Z(op, a, b, o0, o1) \
	VMOVDQA64 a, o0; \
	op b, Z30, o0; \
	VMOVDQA64 a, o1; \
	op b, Z31, o1

// DE2Y(a, b, o0, o1) does the same with AVX2: VPSHUFB (mask in Y15) sorts
// each lane into even and odd elements, VPERMQ joins the lanes, and
// VPERM2I128 pairs a's halves with b's. It clobbers a and b.
#define DE2Y(a, b, o0, o1) \
	VPSHUFB Y15, a, a; \
	VPERMQ $0xD8, a, a; \
	VPSHUFB Y15, b, b; \
	VPERMQ $0xD8, b, b; \
	VPERM2I128 $0x20, b, a, o0; \
	VPERM2I128 $0x31, b, a, o1


// func deinterleave2x1AVX512(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave2x1AVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), CX
	VMOVDQU64 deEven1<>(SB), Z30
	VMOVDQU64 deOdd1<>(SB), Z31

loop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 64(SI), Z1
	DE2Z(VPERMT2B, Z0, Z1, Z2, Z3)
	VMOVDQU64 Z2, (DI)
	VMOVDQU64 Z3, (DI)(DX*1)
	ADDQ $128, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func deinterleave4x1AVX512(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave4x1AVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), CX
	LEAQ (DX)(DX*2), R8

loop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 64(SI), Z1
	VMOVDQU64 128(SI), Z2
	VMOVDQU64 192(SI), Z3
	VMOVDQU64 deEven2<>(SB), Z30
	VMOVDQU64 deOdd2<>(SB), Z31
	DE2Z(VPERMT2W, Z0, Z1, Z4, Z5)
	DE2Z(VPERMT2W, Z2, Z3, Z6, Z7)
	VMOVDQU64 deEven1<>(SB), Z30
	VMOVDQU64 deOdd1<>(SB), Z31
	DE2Z(VPERMT2B, Z4, Z6, Z8, Z9)
	DE2Z(VPERMT2B, Z5, Z7, Z10, Z11)
	VMOVDQU64 Z8, (DI)
	VMOVDQU64 Z9, (DI)(DX*1)
	VMOVDQU64 Z10, (DI)(DX*2)
	VMOVDQU64 Z11, (DI)(R8*1)
	ADDQ $256, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func deinterleave2x1AVX2(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave2x1AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), CX
	VMOVDQU deShuf1<>(SB), Y15

loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	DE2Y(Y0, Y1, Y2, Y3)
	VMOVDQU Y2, (DI)
	VMOVDQU Y3, (DI)(DX*1)
	ADDQ $64, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func deinterleave4x1AVX2(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave4x1AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), CX
	LEAQ (DX)(DX*2), R8

loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU 64(SI), Y2
	VMOVDQU 96(SI), Y3
	VMOVDQU deShuf2<>(SB), Y15
	DE2Y(Y0, Y1, Y4, Y5)
	DE2Y(Y2, Y3, Y6, Y7)
	VMOVDQU deShuf1<>(SB), Y15
	DE2Y(Y4, Y6, Y8, Y9)
	DE2Y(Y5, Y7, Y10, Y11)
	VMOVDQU Y8, (DI)
	VMOVDQU Y9, (DI)(DX*1)
	VMOVDQU Y10, (DI)(DX*2)
	VMOVDQU Y11, (DI)(R8*1)
	ADDQ $128, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET


// func deinterleave2x2AVX512(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave2x2AVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), CX
	VMOVDQU64 deEven2<>(SB), Z30
	VMOVDQU64 deOdd2<>(SB), Z31

loop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 64(SI), Z1
	DE2Z(VPERMT2W, Z0, Z1, Z2, Z3)
	VMOVDQU64 Z2, (DI)
	VMOVDQU64 Z3, (DI)(DX*1)
	ADDQ $128, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func deinterleave4x2AVX512(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave4x2AVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), CX
	LEAQ (DX)(DX*2), R8

loop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 64(SI), Z1
	VMOVDQU64 128(SI), Z2
	VMOVDQU64 192(SI), Z3
	VMOVDQU64 deEven4<>(SB), Z30
	VMOVDQU64 deOdd4<>(SB), Z31
	DE2Z(VPERMT2D, Z0, Z1, Z4, Z5)
	DE2Z(VPERMT2D, Z2, Z3, Z6, Z7)
	VMOVDQU64 deEven2<>(SB), Z30
	VMOVDQU64 deOdd2<>(SB), Z31
	DE2Z(VPERMT2W, Z4, Z6, Z8, Z9)
	DE2Z(VPERMT2W, Z5, Z7, Z10, Z11)
	VMOVDQU64 Z8, (DI)
	VMOVDQU64 Z9, (DI)(DX*1)
	VMOVDQU64 Z10, (DI)(DX*2)
	VMOVDQU64 Z11, (DI)(R8*1)
	ADDQ $256, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func deinterleave2x2AVX2(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave2x2AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), CX
	VMOVDQU deShuf2<>(SB), Y15

loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	DE2Y(Y0, Y1, Y2, Y3)
	VMOVDQU Y2, (DI)
	VMOVDQU Y3, (DI)(DX*1)
	ADDQ $64, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func deinterleave4x2AVX2(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave4x2AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), CX
	LEAQ (DX)(DX*2), R8

loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU 64(SI), Y2
	VMOVDQU 96(SI), Y3
	VMOVDQU deShuf4<>(SB), Y15
	DE2Y(Y0, Y1, Y4, Y5)
	DE2Y(Y2, Y3, Y6, Y7)
	VMOVDQU deShuf2<>(SB), Y15
	DE2Y(Y4, Y6, Y8, Y9)
	DE2Y(Y5, Y7, Y10, Y11)
	VMOVDQU Y8, (DI)
	VMOVDQU Y9, (DI)(DX*1)
	VMOVDQU Y10, (DI)(DX*2)
	VMOVDQU Y11, (DI)(R8*1)
	ADDQ $128, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET


// func deinterleave2x4AVX512(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave2x4AVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), CX
	VMOVDQU64 deEven4<>(SB), Z30
	VMOVDQU64 deOdd4<>(SB), Z31

loop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 64(SI), Z1
	DE2Z(VPERMT2D, Z0, Z1, Z2, Z3)
	VMOVDQU64 Z2, (DI)
	VMOVDQU64 Z3, (DI)(DX*1)
	ADDQ $128, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func deinterleave4x4AVX512(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave4x4AVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), CX
	LEAQ (DX)(DX*2), R8

loop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 64(SI), Z1
	VMOVDQU64 128(SI), Z2
	VMOVDQU64 192(SI), Z3
	VMOVDQU64 deEven8<>(SB), Z30
	VMOVDQU64 deOdd8<>(SB), Z31
	DE2Z(VPERMT2Q, Z0, Z1, Z4, Z5)
	DE2Z(VPERMT2Q, Z2, Z3, Z6, Z7)
	VMOVDQU64 deEven4<>(SB), Z30
	VMOVDQU64 deOdd4<>(SB), Z31
	DE2Z(VPERMT2D, Z4, Z6, Z8, Z9)
	DE2Z(VPERMT2D, Z5, Z7, Z10, Z11)
	VMOVDQU64 Z8, (DI)
	VMOVDQU64 Z9, (DI)(DX*1)
	VMOVDQU64 Z10, (DI)(DX*2)
	VMOVDQU64 Z11, (DI)(R8*1)
	ADDQ $256, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func deinterleave2x4AVX2(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave2x4AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), CX
	VMOVDQU deShuf4<>(SB), Y15

loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	DE2Y(Y0, Y1, Y2, Y3)
	VMOVDQU Y2, (DI)
	VMOVDQU Y3, (DI)(DX*1)
	ADDQ $64, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func deinterleave4x4AVX2(dst *byte, dstStride int, src *byte, n int)
TEXT ·deinterleave4x4AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), CX
	LEAQ (DX)(DX*2), R8

loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU 64(SI), Y2
	VMOVDQU 96(SI), Y3
	VMOVDQU deShuf8<>(SB), Y15
	DE2Y(Y0, Y1, Y4, Y5)
	DE2Y(Y2, Y3, Y6, Y7)
	VMOVDQU deShuf4<>(SB), Y15
	DE2Y(Y4, Y6, Y8, Y9)
	DE2Y(Y5, Y7, Y10, Y11)
	VMOVDQU Y8, (DI)
	VMOVDQU Y9, (DI)(DX*1)
	VMOVDQU Y10, (DI)(DX*2)
	VMOVDQU Y11, (DI)(R8*1)
	ADDQ $128, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// Pattern fill

// func fillRunsAVX2(dst *byte, dstStride int, n int, rows int, pat *[32]byte)
//
// Stores 32 bytes of pattern at a time, the last store of a run ending at
// its end (overlapping the one before: the pattern's length divides both
// 32 and n, so every store is in phase). Runs shorter than 32 bytes take
// the widest store that fits, twice.
TEXT ·fillRunsAVX2(SB), NOSPLIT, $0-40
	MOVQ    dst+0(FP), DI
	MOVQ    dstStride+8(FP), DX
	MOVQ    n+16(FP), R8
	MOVQ    rows+24(FP), CX
	MOVQ    pat+32(FP), SI
	VMOVDQU (SI), Y0
	MOVQ    (SI), AX
	CMPQ    R8, $32
	JB      small
	LEAQ    -32(R8), R9

row32:
	XORQ BX, BX

loop32:
	VMOVDQU Y0, (DI)(BX*1)
	ADDQ    $32, BX
	CMPQ    BX, R9
	JB      loop32
	VMOVDQU Y0, (DI)(R9*1)
	ADDQ    DX, DI
	DECQ    CX
	JNZ     row32
	VZEROUPPER
	RET

small:
	CMPQ R8, $16
	JB   under16

row16:
	VMOVDQU X0, (DI)
	VMOVDQU X0, -16(DI)(R8*1)
	ADDQ    DX, DI
	DECQ    CX
	JNZ     row16
	VZEROUPPER
	RET

under16:
	CMPQ R8, $8
	JB   under8

row8:
	MOVQ AX, (DI)
	MOVQ AX, -8(DI)(R8*1)
	ADDQ DX, DI
	DECQ CX
	JNZ  row8
	VZEROUPPER
	RET

under8:
	CMPQ R8, $4
	JB   under4

row4:
	MOVL AX, (DI)
	MOVL AX, -4(DI)(R8*1)
	ADDQ DX, DI
	DECQ CX
	JNZ  row4
	VZEROUPPER
	RET

under4:
	CMPQ R8, $2
	JB   row1

row2:
	MOVW AX, (DI)
	MOVW AX, -2(DI)(R8*1)
	ADDQ DX, DI
	DECQ CX
	JNZ  row2
	VZEROUPPER
	RET

row1:
	MOVB AX, (DI)
	ADDQ DX, DI
	DECQ CX
	JNZ  row1
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// Streaming run copies, for transposeStaged

// copyRunsNTPrefetch copies runs with VMOVNTDQ and prefetches one line
// per line it copies, walking runs of pfN bytes at stride pfStride from pf.
//
// func copyRunsNTPrefetch(dst *byte, dstStride int, src *byte, srcStride int, n int, rows int, pf *byte, pfStride int, pfN int)
TEXT ·copyRunsNTPrefetch(SB), NOSPLIT, $0-72
	RUNSPROLOGUE
	MOVQ pf+48(FP), R9
	MOVQ pfStride+56(FP), R10
	MOVQ pfN+64(FP), R11
	XORQ R12, R12

row:
	XORQ AX, AX

line:
	PREFETCHT0 (R9)(R12*1)
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	VMOVNTDQ Y0, (DI)(AX*1)
	VMOVNTDQ Y1, 32(DI)(AX*1)
	ADDQ $64, R12
	CMPQ R12, R11
	JB   same
	XORQ R12, R12
	ADDQ R10, R9

same:
	ADDQ $64, AX
	CMPQ AX, R8
	JB   line
	ADDQ DX, DI
	ADDQ BX, SI
	DECQ CX
	JNZ  row
	SFENCE
	VZEROUPPER
	RET

// copyRunsAhead copies runs with ordinary stores, 64 bytes per step (32
// for a last odd piece), and prefetches the line ahead bytes past each
// step's source.
//
// func copyRunsAhead(dst *byte, dstStride int, src *byte, srcStride int, n int, rows int, ahead int)
TEXT ·copyRunsAhead(SB), NOSPLIT, $0-56
	RUNSPROLOGUE
	MOVQ ahead+48(FP), R9
	MOVQ R8, R11
	ANDQ $-64, R11 // the bytes of whole 64-byte steps

arow:
	LEAQ (SI)(R9*1), R10
	XORQ AX, AX
	CMPQ AX, R11
	JAE  atail

aline:
	PREFETCHT0 (R10)(AX*1)
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	VMOVDQU Y0, (DI)(AX*1)
	VMOVDQU Y1, 32(DI)(AX*1)
	ADDQ $64, AX
	CMPQ AX, R11
	JB   aline

atail:
	CMPQ AX, R8
	JAE  anext
	PREFETCHT0 (R10)(AX*1)
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU Y0, (DI)(AX*1)

anext:
	ADDQ DX, DI
	ADDQ BX, SI
	DECQ CX
	JNZ  arow
	VZEROUPPER
	RET

// permBytes16x4: byte 16b+r of the result takes byte 4r+b (sixteen dwords
// of four bytes become four rows of sixteen bytes).
DATA permBytes16x4<>+0x00(SB)/8, $0x1c1814100c080400
DATA permBytes16x4<>+0x08(SB)/8, $0x3c3834302c282420
DATA permBytes16x4<>+0x10(SB)/8, $0x1d1915110d090501
DATA permBytes16x4<>+0x18(SB)/8, $0x3d3935312d292521
DATA permBytes16x4<>+0x20(SB)/8, $0x1e1a16120e0a0602
DATA permBytes16x4<>+0x28(SB)/8, $0x3e3a36322e2a2622
DATA permBytes16x4<>+0x30(SB)/8, $0x1f1b17130f0b0703
DATA permBytes16x4<>+0x38(SB)/8, $0x3f3b37332f2b2723
GLOBL permBytes16x4<>(SB), RODATA|NOPTR, $64

// permWords16x2: word 16b+r of the result takes word 2r+b (sixteen dwords
// of two words become two rows of sixteen words).
DATA permWords16x2<>+0x00(SB)/8, $0x0006000400020000
DATA permWords16x2<>+0x08(SB)/8, $0x000e000c000a0008
DATA permWords16x2<>+0x10(SB)/8, $0x0016001400120010
DATA permWords16x2<>+0x18(SB)/8, $0x001e001c001a0018
DATA permWords16x2<>+0x20(SB)/8, $0x0007000500030001
DATA permWords16x2<>+0x28(SB)/8, $0x000f000d000b0009
DATA permWords16x2<>+0x30(SB)/8, $0x0017001500130011
DATA permWords16x2<>+0x38(SB)/8, $0x001f001d001b0019
GLOBL permWords16x2<>(SB), RODATA|NOPTR, $64

// ilLoW, ilHiW: VPERMT2B/W/D/Q indexes (W the element width) that
// interleave the first (Lo) or second (Hi) halves of two registers.
DATA ilLo1<>+0x00(SB)/8, $0x4303420241014000
DATA ilLo1<>+0x08(SB)/8, $0x4707460645054404
DATA ilLo1<>+0x10(SB)/8, $0x4b0b4a0a49094808
DATA ilLo1<>+0x18(SB)/8, $0x4f0f4e0e4d0d4c0c
DATA ilLo1<>+0x20(SB)/8, $0x5313521251115010
DATA ilLo1<>+0x28(SB)/8, $0x5717561655155414
DATA ilLo1<>+0x30(SB)/8, $0x5b1b5a1a59195818
DATA ilLo1<>+0x38(SB)/8, $0x5f1f5e1e5d1d5c1c
GLOBL ilLo1<>(SB), RODATA|NOPTR, $64

DATA ilHi1<>+0x00(SB)/8, $0x6323622261216020
DATA ilHi1<>+0x08(SB)/8, $0x6727662665256424
DATA ilHi1<>+0x10(SB)/8, $0x6b2b6a2a69296828
DATA ilHi1<>+0x18(SB)/8, $0x6f2f6e2e6d2d6c2c
DATA ilHi1<>+0x20(SB)/8, $0x7333723271317030
DATA ilHi1<>+0x28(SB)/8, $0x7737763675357434
DATA ilHi1<>+0x30(SB)/8, $0x7b3b7a3a79397838
DATA ilHi1<>+0x38(SB)/8, $0x7f3f7e3e7d3d7c3c
GLOBL ilHi1<>(SB), RODATA|NOPTR, $64

DATA ilLo2<>+0x00(SB)/8, $0x0021000100200000
DATA ilLo2<>+0x08(SB)/8, $0x0023000300220002
DATA ilLo2<>+0x10(SB)/8, $0x0025000500240004
DATA ilLo2<>+0x18(SB)/8, $0x0027000700260006
DATA ilLo2<>+0x20(SB)/8, $0x0029000900280008
DATA ilLo2<>+0x28(SB)/8, $0x002b000b002a000a
DATA ilLo2<>+0x30(SB)/8, $0x002d000d002c000c
DATA ilLo2<>+0x38(SB)/8, $0x002f000f002e000e
GLOBL ilLo2<>(SB), RODATA|NOPTR, $64

DATA ilHi2<>+0x00(SB)/8, $0x0031001100300010
DATA ilHi2<>+0x08(SB)/8, $0x0033001300320012
DATA ilHi2<>+0x10(SB)/8, $0x0035001500340014
DATA ilHi2<>+0x18(SB)/8, $0x0037001700360016
DATA ilHi2<>+0x20(SB)/8, $0x0039001900380018
DATA ilHi2<>+0x28(SB)/8, $0x003b001b003a001a
DATA ilHi2<>+0x30(SB)/8, $0x003d001d003c001c
DATA ilHi2<>+0x38(SB)/8, $0x003f001f003e001e
GLOBL ilHi2<>(SB), RODATA|NOPTR, $64

DATA ilLo4<>+0x00(SB)/8, $0x0000001000000000
DATA ilLo4<>+0x08(SB)/8, $0x0000001100000001
DATA ilLo4<>+0x10(SB)/8, $0x0000001200000002
DATA ilLo4<>+0x18(SB)/8, $0x0000001300000003
DATA ilLo4<>+0x20(SB)/8, $0x0000001400000004
DATA ilLo4<>+0x28(SB)/8, $0x0000001500000005
DATA ilLo4<>+0x30(SB)/8, $0x0000001600000006
DATA ilLo4<>+0x38(SB)/8, $0x0000001700000007
GLOBL ilLo4<>(SB), RODATA|NOPTR, $64

DATA ilHi4<>+0x00(SB)/8, $0x0000001800000008
DATA ilHi4<>+0x08(SB)/8, $0x0000001900000009
DATA ilHi4<>+0x10(SB)/8, $0x0000001a0000000a
DATA ilHi4<>+0x18(SB)/8, $0x0000001b0000000b
DATA ilHi4<>+0x20(SB)/8, $0x0000001c0000000c
DATA ilHi4<>+0x28(SB)/8, $0x0000001d0000000d
DATA ilHi4<>+0x30(SB)/8, $0x0000001e0000000e
DATA ilHi4<>+0x38(SB)/8, $0x0000001f0000000f
GLOBL ilHi4<>(SB), RODATA|NOPTR, $64

DATA ilLo8<>+0x00(SB)/8, $0x0000000000000000
DATA ilLo8<>+0x08(SB)/8, $0x0000000000000008
DATA ilLo8<>+0x10(SB)/8, $0x0000000000000001
DATA ilLo8<>+0x18(SB)/8, $0x0000000000000009
DATA ilLo8<>+0x20(SB)/8, $0x0000000000000002
DATA ilLo8<>+0x28(SB)/8, $0x000000000000000a
DATA ilLo8<>+0x30(SB)/8, $0x0000000000000003
DATA ilLo8<>+0x38(SB)/8, $0x000000000000000b
GLOBL ilLo8<>(SB), RODATA|NOPTR, $64

DATA ilHi8<>+0x00(SB)/8, $0x0000000000000004
DATA ilHi8<>+0x08(SB)/8, $0x000000000000000c
DATA ilHi8<>+0x10(SB)/8, $0x0000000000000005
DATA ilHi8<>+0x18(SB)/8, $0x000000000000000d
DATA ilHi8<>+0x20(SB)/8, $0x0000000000000006
DATA ilHi8<>+0x28(SB)/8, $0x000000000000000e
DATA ilHi8<>+0x30(SB)/8, $0x0000000000000007
DATA ilHi8<>+0x38(SB)/8, $0x000000000000000f
GLOBL ilHi8<>(SB), RODATA|NOPTR, $64

// shufWords2x4: VPSHUFB mask gathering word 0, then word 1, of the four
// dwords of each lane.
DATA shufWords2x4<>+0x00(SB)/8, $0x0d0c090805040100
DATA shufWords2x4<>+0x08(SB)/8, $0x0f0e0b0a07060302
DATA shufWords2x4<>+0x10(SB)/8, $0x0d0c090805040100
DATA shufWords2x4<>+0x18(SB)/8, $0x0f0e0b0a07060302
GLOBL shufWords2x4<>(SB), RODATA|NOPTR, $32

// shufBytes4x4: VPSHUFB mask gathering byte 0, 1, 2, then 3 of the four
// dwords of each lane.
DATA shufBytes4x4<>+0x00(SB)/8, $0x0d0905010c080400
DATA shufBytes4x4<>+0x08(SB)/8, $0x0f0b07030e0a0602
DATA shufBytes4x4<>+0x10(SB)/8, $0x0d0905010c080400
DATA shufBytes4x4<>+0x18(SB)/8, $0x0f0b07030e0a0602
GLOBL shufBytes4x4<>(SB), RODATA|NOPTR, $32

// permDwordsLanes: VPERMD index interleaving the dwords of the two lanes.
DATA permDwordsLanes<>+0x00(SB)/8, $0x0000000400000000
DATA permDwordsLanes<>+0x08(SB)/8, $0x0000000500000001
DATA permDwordsLanes<>+0x10(SB)/8, $0x0000000600000002
DATA permDwordsLanes<>+0x18(SB)/8, $0x0000000700000003
GLOBL permDwordsLanes<>(SB), RODATA|NOPTR, $32

// deEvenW, deOddW: VPERMT2B/W/D/Q indexes (W the element width) taking the
// even or the odd elements of two registers. deShufW: VPSHUFB masks
// sorting each 16-byte lane into its even then its odd W-byte elements.
DATA deEven1<>+0x00(SB)/8, $0x0e0c0a0806040200
DATA deEven1<>+0x08(SB)/8, $0x1e1c1a1816141210
DATA deEven1<>+0x10(SB)/8, $0x2e2c2a2826242220
DATA deEven1<>+0x18(SB)/8, $0x3e3c3a3836343230
DATA deEven1<>+0x20(SB)/8, $0x4e4c4a4846444240
DATA deEven1<>+0x28(SB)/8, $0x5e5c5a5856545250
DATA deEven1<>+0x30(SB)/8, $0x6e6c6a6866646260
DATA deEven1<>+0x38(SB)/8, $0x7e7c7a7876747270
GLOBL deEven1<>(SB), RODATA|NOPTR, $64

DATA deOdd1<>+0x00(SB)/8, $0x0f0d0b0907050301
DATA deOdd1<>+0x08(SB)/8, $0x1f1d1b1917151311
DATA deOdd1<>+0x10(SB)/8, $0x2f2d2b2927252321
DATA deOdd1<>+0x18(SB)/8, $0x3f3d3b3937353331
DATA deOdd1<>+0x20(SB)/8, $0x4f4d4b4947454341
DATA deOdd1<>+0x28(SB)/8, $0x5f5d5b5957555351
DATA deOdd1<>+0x30(SB)/8, $0x6f6d6b6967656361
DATA deOdd1<>+0x38(SB)/8, $0x7f7d7b7977757371
GLOBL deOdd1<>(SB), RODATA|NOPTR, $64

DATA deEven2<>+0x00(SB)/8, $0x0006000400020000
DATA deEven2<>+0x08(SB)/8, $0x000e000c000a0008
DATA deEven2<>+0x10(SB)/8, $0x0016001400120010
DATA deEven2<>+0x18(SB)/8, $0x001e001c001a0018
DATA deEven2<>+0x20(SB)/8, $0x0026002400220020
DATA deEven2<>+0x28(SB)/8, $0x002e002c002a0028
DATA deEven2<>+0x30(SB)/8, $0x0036003400320030
DATA deEven2<>+0x38(SB)/8, $0x003e003c003a0038
GLOBL deEven2<>(SB), RODATA|NOPTR, $64

DATA deOdd2<>+0x00(SB)/8, $0x0007000500030001
DATA deOdd2<>+0x08(SB)/8, $0x000f000d000b0009
DATA deOdd2<>+0x10(SB)/8, $0x0017001500130011
DATA deOdd2<>+0x18(SB)/8, $0x001f001d001b0019
DATA deOdd2<>+0x20(SB)/8, $0x0027002500230021
DATA deOdd2<>+0x28(SB)/8, $0x002f002d002b0029
DATA deOdd2<>+0x30(SB)/8, $0x0037003500330031
DATA deOdd2<>+0x38(SB)/8, $0x003f003d003b0039
GLOBL deOdd2<>(SB), RODATA|NOPTR, $64

DATA deEven4<>+0x00(SB)/8, $0x0000000200000000
DATA deEven4<>+0x08(SB)/8, $0x0000000600000004
DATA deEven4<>+0x10(SB)/8, $0x0000000a00000008
DATA deEven4<>+0x18(SB)/8, $0x0000000e0000000c
DATA deEven4<>+0x20(SB)/8, $0x0000001200000010
DATA deEven4<>+0x28(SB)/8, $0x0000001600000014
DATA deEven4<>+0x30(SB)/8, $0x0000001a00000018
DATA deEven4<>+0x38(SB)/8, $0x0000001e0000001c
GLOBL deEven4<>(SB), RODATA|NOPTR, $64

DATA deOdd4<>+0x00(SB)/8, $0x0000000300000001
DATA deOdd4<>+0x08(SB)/8, $0x0000000700000005
DATA deOdd4<>+0x10(SB)/8, $0x0000000b00000009
DATA deOdd4<>+0x18(SB)/8, $0x0000000f0000000d
DATA deOdd4<>+0x20(SB)/8, $0x0000001300000011
DATA deOdd4<>+0x28(SB)/8, $0x0000001700000015
DATA deOdd4<>+0x30(SB)/8, $0x0000001b00000019
DATA deOdd4<>+0x38(SB)/8, $0x0000001f0000001d
GLOBL deOdd4<>(SB), RODATA|NOPTR, $64

DATA deEven8<>+0x00(SB)/8, $0x0000000000000000
DATA deEven8<>+0x08(SB)/8, $0x0000000000000002
DATA deEven8<>+0x10(SB)/8, $0x0000000000000004
DATA deEven8<>+0x18(SB)/8, $0x0000000000000006
DATA deEven8<>+0x20(SB)/8, $0x0000000000000008
DATA deEven8<>+0x28(SB)/8, $0x000000000000000a
DATA deEven8<>+0x30(SB)/8, $0x000000000000000c
DATA deEven8<>+0x38(SB)/8, $0x000000000000000e
GLOBL deEven8<>(SB), RODATA|NOPTR, $64

DATA deOdd8<>+0x00(SB)/8, $0x0000000000000001
DATA deOdd8<>+0x08(SB)/8, $0x0000000000000003
DATA deOdd8<>+0x10(SB)/8, $0x0000000000000005
DATA deOdd8<>+0x18(SB)/8, $0x0000000000000007
DATA deOdd8<>+0x20(SB)/8, $0x0000000000000009
DATA deOdd8<>+0x28(SB)/8, $0x000000000000000b
DATA deOdd8<>+0x30(SB)/8, $0x000000000000000d
DATA deOdd8<>+0x38(SB)/8, $0x000000000000000f
GLOBL deOdd8<>(SB), RODATA|NOPTR, $64

DATA deShuf1<>+0x00(SB)/8, $0x0e0c0a0806040200
DATA deShuf1<>+0x08(SB)/8, $0x0f0d0b0907050301
DATA deShuf1<>+0x10(SB)/8, $0x0e0c0a0806040200
DATA deShuf1<>+0x18(SB)/8, $0x0f0d0b0907050301
GLOBL deShuf1<>(SB), RODATA|NOPTR, $32

DATA deShuf2<>+0x00(SB)/8, $0x0d0c090805040100
DATA deShuf2<>+0x08(SB)/8, $0x0f0e0b0a07060302
DATA deShuf2<>+0x10(SB)/8, $0x0d0c090805040100
DATA deShuf2<>+0x18(SB)/8, $0x0f0e0b0a07060302
GLOBL deShuf2<>(SB), RODATA|NOPTR, $32

DATA deShuf4<>+0x00(SB)/8, $0x0b0a090803020100
DATA deShuf4<>+0x08(SB)/8, $0x0f0e0d0c07060504
DATA deShuf4<>+0x10(SB)/8, $0x0b0a090803020100
DATA deShuf4<>+0x18(SB)/8, $0x0f0e0d0c07060504
GLOBL deShuf4<>(SB), RODATA|NOPTR, $32

DATA deShuf8<>+0x00(SB)/8, $0x0706050403020100
DATA deShuf8<>+0x08(SB)/8, $0x0f0e0d0c0b0a0908
DATA deShuf8<>+0x10(SB)/8, $0x0706050403020100
DATA deShuf8<>+0x18(SB)/8, $0x0f0e0d0c0b0a0908
GLOBL deShuf8<>(SB), RODATA|NOPTR, $32
