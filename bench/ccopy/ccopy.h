#include <stddef.h>
void ccopy_memcpy(void *dst, const void *src, size_t n);
void ccopy_stream(void *dst, const void *src, size_t n, int parts);
