/*
 * The untracked cache (UNTR) is kept as raw bytes until lib/worktree uses
 * it; here we only decide, as git's reader does, whether the extension is
 * well formed.  git drops a malformed one silently (and rebuilds it on the
 * next status when core.untrackedCache is on), so do we.
 *
 * Layout (gitformat-index): varint ident length, ident strings; stat data of
 * info/exclude and of core.excludesFile (9 x 32 bits each); 32-bit dir
 * flags; two hashes; NUL-terminated per-dir exclude name; varint number of
 * directory blocks; the blocks depth first (varint untracked count, varint
 * subdirectory count, NUL-terminated name, that many NUL-terminated
 * untracked names); three EWAH bitmaps (valid, check-only, hash-valid);
 * stat data for each valid directory, a hash for each hash-valid one; one
 * NUL.
 */
#include <string.h>
#include "index/index_internal.h"

#define STAT_DATA 36	/* ctime, mtime (sec, nsec), dev, ino, uid, gid, size */

struct untr_read {
	const unsigned char *p, *end;
	size_t dirs, max_dirs;
	int depth;
};

/* git's varint, bounded; 0 or -1. */
static int varint(uint64_t *out, struct untr_read *r)
{
	const unsigned char *p = r->p;
	uint64_t val;
	unsigned char c;

	if (p >= r->end)
		return -1;
	c = *p++;
	val = c & 127;
	while (c & 128) {
		val += 1;
		if (!val || (val >> 57) || p >= r->end)
			return -1;
		c = *p++;
		val = (val << 7) + (c & 127);
	}
	r->p = p;
	*out = val;
	return 0;
}

static int skip_string(struct untr_read *r)
{
	const unsigned char *z = memchr(r->p, '\0', r->end - r->p);
	if (!z)
		return -1;
	r->p = z + 1;
	return 0;
}

static int read_dir(struct untr_read *r)
{
	uint64_t untracked, subdirs, i;

	if (r->depth > 4096 || r->dirs >= r->max_dirs)
		return -1;
	if (varint(&untracked, r) < 0 || varint(&subdirs, r) < 0 || skip_string(r) < 0)
		return -1;
	r->dirs++;
	for (i = 0; i < untracked; i++)
		if (skip_string(r) < 0)
			return -1;
	r->depth++;
	for (i = 0; i < subdirs; i++)
		if (read_dir(r) < 0)
			return -1;
	r->depth--;
	return 0;
}

struct bitcount {
	size_t n, limit;
};

static int count_bit(size_t pos, void *payload)
{
	struct bitcount *b = payload;
	if (pos >= b->limit)
		return 1;
	b->n++;
	return 0;
}

int untr_valid(const unsigned char *data, size_t sz, int algo)
{
	size_t rawsz = fgit_hash_rawsz(algo), fixed = 2 * STAT_DATA + 4 + 2 * rawsz;
	struct untr_read r;
	struct ewah valid, check_only, hash_valid;
	struct bitcount bc;
	uint64_t ident_len, ndirs;
	long n;

	if (sz <= 1 || data[sz - 1])
		return 0;
	r.p = data;
	r.end = data + sz - 1;
	r.dirs = 0;
	r.depth = 0;
	if (varint(&ident_len, &r) < 0 || ident_len > (uint64_t)(r.end - r.p))
		return 0;
	r.p += ident_len;
	if ((size_t)(r.end - r.p) < fixed + 1)
		return 0;
	r.p += fixed;
	if (skip_string(&r) < 0)
		return 0;
	if (r.p >= r.end)
		return r.p == r.end;
	if (varint(&ndirs, &r) < 0 || !ndirs)
		return r.p == r.end;
	r.max_dirs = ndirs > sz ? sz : (size_t)ndirs;
	if (read_dir(&r) < 0 || r.dirs != ndirs)
		return 0;
	if ((n = ewah_parse(&valid, r.p, r.end - r.p)) < 0)
		return 0;
	r.p += n;
	if ((n = ewah_parse(&check_only, r.p, r.end - r.p)) < 0)
		return 0;
	r.p += n;
	if ((n = ewah_parse(&hash_valid, r.p, r.end - r.p)) < 0)
		return 0;
	r.p += n;
	/* every bit names a directory; then stat data and hashes follow */
	bc.limit = r.dirs;
	bc.n = 0;
	if (ewah_each_bit(&check_only, count_bit, &bc))
		return 0;
	bc.n = 0;
	if (ewah_each_bit(&valid, count_bit, &bc) || bc.n > (size_t)(r.end - r.p) / STAT_DATA)
		return 0;
	r.p += bc.n * STAT_DATA;
	bc.n = 0;
	if (ewah_each_bit(&hash_valid, count_bit, &bc) || bc.n > (size_t)(r.end - r.p) / rawsz)
		return 0;
	r.p += bc.n * rawsz;
	return r.p == r.end;
}
