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
#include <stdlib.h>
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
	struct fgit_ewah valid, check_only, hash_valid;
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
	if ((n = fgit_ewah_parse(&valid, r.p, r.end - r.p)) < 0)
		return 0;
	r.p += n;
	if ((n = fgit_ewah_parse(&check_only, r.p, r.end - r.p)) < 0)
		return 0;
	r.p += n;
	if ((n = fgit_ewah_parse(&hash_valid, r.p, r.end - r.p)) < 0)
		return 0;
	r.p += n;
	/* every bit names a directory; then stat data and hashes follow */
	bc.limit = r.dirs;
	bc.n = 0;
	if (fgit_ewah_each_bit(&check_only, count_bit, &bc))
		return 0;
	bc.n = 0;
	if (fgit_ewah_each_bit(&valid, count_bit, &bc) || bc.n > (size_t)(r.end - r.p) / STAT_DATA)
		return 0;
	r.p += bc.n * STAT_DATA;
	bc.n = 0;
	if (fgit_ewah_each_bit(&hash_valid, count_bit, &bc) || bc.n > (size_t)(r.end - r.p) / rawsz)
		return 0;
	r.p += bc.n * rawsz;
	return r.p == r.end;
}

/* ---- the parsed cache, for the directory walk ---- */

struct parse {
	struct untr_read r;
	struct fgit_untr_dir *dirs;	/* all nodes, in file (depth-first) order */
	size_t n, cap;
	const char **names;		/* all untracked names */
	size_t nn, ncap;
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void stat_data(uint32_t out[9], const unsigned char *p)
{
	int i;
	for (i = 0; i < 9; i++)
		out[i] = be32(p + 4 * i);
}

/* One directory block: returns its node index, or -1. */
static long parse_dir(struct parse *ps)
{
	uint64_t untracked, subdirs, i;
	struct fgit_untr_dir *d;
	size_t me;

	if (ps->r.depth > 4096 || ps->n >= ps->cap)
		return -1;
	me = ps->n++;
	d = &ps->dirs[me];
	d->first_child = d->last_child = d->next_sibling = (size_t)-1;
	if (varint(&untracked, &ps->r) < 0 || varint(&subdirs, &ps->r) < 0)
		return -1;
	d->name = (const char *)ps->r.p;
	if (skip_string(&ps->r) < 0 || untracked > (uint64_t)(ps->r.end - ps->r.p) ||
	    subdirs > ps->cap)
		return -1;
	d->nr_untracked = (size_t)untracked;
	d->untracked_first = ps->nn;
	for (i = 0; i < untracked; i++) {
		if (ps->nn >= ps->ncap)
			return -1;
		ps->names[ps->nn++] = (const char *)ps->r.p;
		if (skip_string(&ps->r) < 0)
			return -1;
	}
	d->nr_dirs = (size_t)subdirs;
	ps->r.depth++;
	for (i = 0; i < subdirs; i++) {
		long c = parse_dir(ps);
		if (c < 0)
			return -1;
		if (i)
			ps->dirs[ps->dirs[me].last_child].next_sibling = (size_t)c;
		else
			ps->dirs[me].first_child = (size_t)c;
		ps->dirs[me].last_child = (size_t)c;
	}
	ps->r.depth--;
	return (long)me;
}

struct bitset {
	struct fgit_untr_dir *dirs;
	size_t n;
	int which;
	const unsigned char *data;	/* stat data or hashes, in bit order */
	size_t step, avail;
	int algo;
};

static int set_bit(size_t pos, void *payload)
{
	struct bitset *b = payload;
	struct fgit_untr_dir *d;
	if (pos >= b->n)
		return 1;
	d = &b->dirs[pos];
	if (b->which == 0)
		d->valid = 1;
	else if (b->which == 1)
		d->check_only = 1;
	else {
		if (!b->avail)
			return 1;
		if (b->which == 2)
			stat_data(d->stat, b->data);
		else {
			fgit_oid_from_raw(&d->exclude_oid, b->data, b->algo);
			d->has_oid = 1;
		}
		b->data += b->step;
		b->avail--;
	}
	return 0;
}

int fgit_index_untracked_cache_parse(struct fgit_untr **out, const struct fgit_index *idx)
{
	const unsigned char *data = idx->untr;
	size_t sz = idx->untr_len, rawsz = fgit_hash_rawsz(idx->algo), nvalid = 0, nhash = 0, i;
	struct fgit_untr *u = NULL;
	struct parse ps;
	struct fgit_ewah ew[3];
	uint64_t ident_len, ndirs;
	long n;
	int k;

	*out = NULL;
	memset(&ps, 0, sizeof(ps));
	if (!data || !untr_valid(data, sz, idx->algo))
		return FGIT_ENOTFOUND;
	if (!(u = calloc(1, sizeof(*u))))
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	ps.r.p = data;
	ps.r.end = data + sz - 1;
	varint(&ident_len, &ps.r);
	u->ident = (const char *)ps.r.p;
	u->ident_len = (size_t)ident_len;
	ps.r.p += ident_len;
	stat_data(u->info_exclude_stat, ps.r.p);
	stat_data(u->excludes_file_stat, ps.r.p + 36);
	u->dir_flags = be32(ps.r.p + 72);
	fgit_oid_from_raw(&u->info_exclude_oid, ps.r.p + 76, idx->algo);
	fgit_oid_from_raw(&u->excludes_file_oid, ps.r.p + 76 + rawsz, idx->algo);
	ps.r.p += 76 + 2 * rawsz;
	u->per_dir = (const char *)ps.r.p;
	skip_string(&ps.r);
	if (ps.r.p >= ps.r.end || varint(&ndirs, &ps.r) < 0 || !ndirs) {
		*out = u;
		return 0;
	}
	ps.cap = (size_t)ndirs;
	ps.ncap = sz;
	ps.dirs = calloc(ps.cap, sizeof(*ps.dirs));
	ps.names = calloc(ps.ncap, sizeof(*ps.names));
	if (!ps.dirs || !ps.names)
		goto nomem;
	ps.r.max_dirs = ps.cap;
	if (parse_dir(&ps) < 0 || ps.n != ps.cap)
		goto bad;
	for (k = 0; k < 3; k++) {
		if ((n = fgit_ewah_parse(&ew[k], ps.r.p, ps.r.end - ps.r.p)) < 0)
			goto bad;
		ps.r.p += n;
	}
	for (k = 0; k < 2; k++) {
		struct bitset b = { ps.dirs, ps.n, k, NULL, 0, 0, idx->algo };
		if (fgit_ewah_each_bit(&ew[k], set_bit, &b))
			goto bad;
	}
	for (i = 0; i < ps.n; i++)
		nvalid += ps.dirs[i].valid;
	{
		struct bitset b = { ps.dirs, ps.n, 2, ps.r.p, 36, nvalid, idx->algo };
		/* stat data belongs to the valid directories, in order */
		for (i = 0; i < ps.n; i++)
			if (ps.dirs[i].valid) {
				stat_data(ps.dirs[i].stat, b.data);
				b.data += 36;
			}
		ps.r.p = b.data;
	}
	{
		struct bitset b = { ps.dirs, ps.n, 3, ps.r.p, rawsz, (size_t)(ps.r.end - ps.r.p) / rawsz,
				    idx->algo };
		if (fgit_ewah_each_bit(&ew[2], set_bit, &b))
			goto bad;
		nhash = (size_t)(b.data - ps.r.p) / rawsz;
		(void)nhash;
	}
	u->dirs = ps.dirs;
	u->nr_dirs = ps.n;
	u->names = ps.names;
	*out = u;
	return 0;
nomem:
	free(ps.dirs);
	free(ps.names);
	free(u);
	return fgit_error_set(FGIT_ENOMEM, "out of memory");
bad:
	free(ps.dirs);
	free(ps.names);
	free(u);
	return FGIT_ENOTFOUND;
}

void fgit_untr_free(struct fgit_untr *u)
{
	if (!u)
		return;
	free(u->dirs);
	free(u->names);
	free(u);
}
