/*
 * Chunk tables (include/fgit/chunk.h): the validation git applies when it
 * reads one, with its messages, so callers can trust every offset.
 */
#include <inttypes.h>
#include <stdarg.h>
#include "fgit/buf.h"
#include "fgit/chunk.h"
#include "fgit/common.h"
#include "fgit/oid.h"
#include <string.h>

#define get32 fgit_be32
#define get64 fgit_be64

void fgit_chunk_reportf(void (*cb)(int level, const char *msg, void *payload),
			void *payload, int level, const char *fmt, ...)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	va_list ap;
	if (!cb)
		return;
	va_start(ap, fmt);
	fgit_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	cb(level, b.ptr, payload);
	fgit_buf_release(&b);
}

int fgit_chunk_table_read(struct fgit_chunk *out, const unsigned char *data, size_t len,
			  size_t table_off, unsigned n, size_t trailer)
{
	const unsigned char *t;
	unsigned i, j;

	if (len < trailer || table_off > len - trailer ||
	    (uint64_t)(n + 1) * 12 > (uint64_t)(len - trailer - table_off))
		return fgit_error_set(FGIT_EINVALID, "chunk table extends past the end of the file");
	t = data + table_off;
	for (i = 0; i < n; i++, t += 12) {
		uint32_t id = get32(t);
		uint64_t off = get64(t + 4), next = get64(t + 16);
		if (!id)
			return fgit_error_set(FGIT_EINVALID,
					      "terminating chunk id appears earlier than expected");
		if (next < off || next > len - trailer)
			return fgit_error_set(FGIT_EINVALID,
					      "improper chunk offset(s) %" PRIx64 " and %" PRIx64,
					      off, next);
		for (j = 0; j < i; j++)
			if (out[j].id == id)
				return fgit_error_set(FGIT_EINVALID,
						      "duplicate chunk ID %" PRIx32 " found", id);
		out[i].id = id;
		out[i].offset = off;
		out[i].size = next - off;
	}
	if (get32(t))
		return fgit_error_set(FGIT_EINVALID, "final chunk has non-zero id %" PRIx32,
				      get32(t));
	return 0;
}

const struct fgit_chunk *fgit_chunk_find(const struct fgit_chunk *c, unsigned n, uint32_t id)
{
	unsigned i;
	for (i = 0; i < n; i++)
		if (c[i].id == id)
			return &c[i];
	return NULL;
}

static int put(struct fgit_buf *out, uint32_t id, uint64_t off)
{
	unsigned char b[12];
	int i;
	for (i = 0; i < 4; i++)
		b[i] = (unsigned char)(id >> (24 - 8 * i));
	for (i = 0; i < 8; i++)
		b[4 + i] = (unsigned char)(off >> (56 - 8 * i));
	return fgit_buf_add(out, b, sizeof(b));
}

int fgit_chunk_table_write(struct fgit_buf *out, const uint32_t *ids, const uint64_t *sizes,
			   unsigned n, uint64_t start)
{
	unsigned i;
	int r = 0;
	for (i = 0; i < n && !r; i++) {
		r = put(out, ids[i], start);
		start += sizes[i];
	}
	return r ? r : put(out, 0, start);
}

int fgit_chunk_oid_find(uint32_t *pos, const unsigned char *fanout, const unsigned char *oids,
			size_t rawsz, const struct fgit_oid *oid)
{
	unsigned b = oid->hash[0];
	uint32_t lo = b ? get32(fanout + 4 * (b - 1)) : 0, hi = get32(fanout + 4 * b);

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = memcmp(oids + (size_t)mid * rawsz, oid->hash, rawsz);
		if (!c) {
			*pos = mid;
			return 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}
