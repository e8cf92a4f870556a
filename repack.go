package tilecopy

import "fmt"

// PackBits packs n elements, one per byte of src (the value in the low
// bits), into dst as fields of bits bits each, the first element of a byte
// in its most significant bits (XLA's packing). bits is 1, 2 or 4; dst
// holds ceil(n×bits/8) bytes and the unused low bits of its last byte are
// cleared.
func PackBits(dst, src []byte, n, bits int) {
	checkBits(bits)
	if n < 0 || n > len(src) || (n*bits+7)/8 > len(dst) {
		panic(fmt.Sprintf("tilecopy: packing %d elements from %d bytes into %d", n, len(src), len(dst)))
	}
	packBitsFast(dst, src, n, bits)
}

// UnpackBits unpacks n fields of bits bits each from src (first element in
// the most significant bits) into dst, one element per byte: the low
// natural bits of the field, sign-extended when signed, zero-filled
// otherwise. bits is 1, 2 or 4 and natural ≤ bits.
func UnpackBits(dst, src []byte, n, bits, natural int, signed bool) {
	checkBits(bits)
	if natural < 1 || natural > bits {
		panic(fmt.Sprintf("tilecopy: %d-bit values in %d-bit fields", natural, bits))
	}
	if n < 0 || n > len(dst) || (n*bits+7)/8 > len(src) {
		panic(fmt.Sprintf("tilecopy: unpacking %d elements from %d bytes into %d", n, len(src), len(dst)))
	}
	unpackBitsFast(dst, src, n, bits, natural, signed)
}

func checkBits(bits int) {
	if bits != 1 && bits != 2 && bits != 4 {
		panic(fmt.Sprintf("tilecopy: %d-bit packing", bits))
	}
}
