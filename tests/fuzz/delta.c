/*
 * Fuzz target (libFuzzer): delta application.  The first byte picks the
 * base length; the rest is the delta, applied into an exact-size output.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "odb/delta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t src, dst;
	size_t base_len;
	unsigned char *base, *delta, *out;

	if (size < 1)
		return 0;
	base_len = (size_t)data[0] * 37;
	data++;
	size--;
	if (fgit_delta_sizes(data, size, &src, &dst) < 0 || dst > (1u << 20))
		return 0;
	base = malloc(base_len ? base_len : 1);
	delta = malloc(size ? size : 1);
	out = malloc(dst ? (size_t)dst : 1);
	memset(base, 'x', base_len);
	memcpy(delta, data, size);
	fgit_delta_apply(out, (size_t)dst, base, base_len, delta, size);
	free(base);
	free(delta);
	free(out);
	return 0;
}
