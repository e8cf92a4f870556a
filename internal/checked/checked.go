// Package checked has integer arithmetic that reports overflow.
package checked

// Mul returns a*b for non-negative a and b, and false when the product
// does not fit in int64.
func Mul(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	if a > (1<<63-1)/b {
		return 0, false
	}
	return a * b, true
}
