// The C copies of package ccopy: see doc.go.
#include <stddef.h>
#include <string.h>
#include "ccopy.h"
#ifdef __AVX2__
#include <immintrin.h>
#endif

void ccopy_memcpy(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }

// ccopy_stream copies n bytes in parts parts walked together, 128 bytes of
// each in turn, with non-temporal stores where the compiler targets AVX2
// (the destination aligned to 64 bytes first); the rest with memcpy.
void ccopy_stream(void *dst, const void *src, size_t n, int parts) {
	char *d = dst;
	const char *s = src;
#ifdef __AVX2__
	size_t head = (64 - ((size_t)d & 63)) & 63;
	if (head > n) head = n;
	memcpy(d, s, head);
	d += head, s += head, n -= head;
	size_t len = n / (size_t)parts / 128 * 128;
	for (size_t off = 0; off < len; off += 128) {
		for (int p = 0; p < parts; p++) {
			const __m256i *sp = (const __m256i *)(s + (size_t)p * len + off);
			__m256i *dp = (__m256i *)(d + (size_t)p * len + off);
			__m256i a = _mm256_loadu_si256(sp), b = _mm256_loadu_si256(sp + 1);
			__m256i c = _mm256_loadu_si256(sp + 2), e = _mm256_loadu_si256(sp + 3);
			_mm256_stream_si256(dp, a);
			_mm256_stream_si256(dp + 1, b);
			_mm256_stream_si256(dp + 2, c);
			_mm256_stream_si256(dp + 3, e);
		}
	}
	_mm_sfence();
	size_t done = (size_t)parts * len;
	memcpy(d + done, s + done, n - done);
#else
	(void)parts;
	memcpy(d, s, n);
#endif
}
