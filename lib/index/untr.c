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
 *
 * Parsed, the cache is a tree of fgit_untr_dir nodes that the status walk
 * refreshes in place; fgit_untr_write() puts it back in git's byte order
 * (only nodes marked `recurse`, the ones the last walk went through or the
 * file held), with the bitmaps encoded as git's ewah_set() leaves them, so
 * git and fgit write the same bytes for the same work tree.
 */
#include <stdlib.h>
#include <string.h>
#include "fgit/buf.h"
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

/* ---- the parsed cache ---- */

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

static struct fgit_untr_dir *dir_new(const char *name, size_t len)
{
	struct fgit_untr_dir *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	if (!(d->name = malloc(len + 1))) {
		free(d);
		return NULL;
	}
	memcpy(d->name, name, len);
	d->name[len] = '\0';
	return d;
}

static void dir_free(struct fgit_untr_dir *d)
{
	size_t i;
	if (!d)
		return;
	for (i = 0; i < d->nr_untracked; i++)
		free(d->untracked[i]);
	free(d->untracked);
	for (i = 0; i < d->nr_dirs; i++)
		dir_free(d->dirs[i]);
	free(d->dirs);
	free(d->name);
	free(d);
}

void fgit_untr_free(struct fgit_untr *u)
{
	if (!u)
		return;
	dir_free(u->root);
	free(u->ident);
	free(u->per_dir);
	free(u);
}

int fgit_untr_add_untracked(struct fgit_untr_dir *d, const char *name, size_t len)
{
	char *s;
	if (d->nr_untracked == d->alloc_untracked) {
		size_t n = d->alloc_untracked ? 2 * d->alloc_untracked : 4;
		char **v = realloc(d->untracked, n * sizeof(*v));
		if (!v)
			return -1;
		d->untracked = v;
		d->alloc_untracked = n;
	}
	if (!(s = malloc(len + 1)))
		return -1;
	memcpy(s, name, len);
	s[len] = '\0';
	d->untracked[d->nr_untracked++] = s;
	return 0;
}

static void clear_untracked(struct fgit_untr_dir *d)
{
	size_t i;
	for (i = 0; i < d->nr_untracked; i++)
		free(d->untracked[i]);
	d->nr_untracked = 0;
}

/* Insert child c at position pos of d; 0 or -1. */
static int insert_child(struct fgit_untr_dir *d, size_t pos, struct fgit_untr_dir *c)
{
	if (d->nr_dirs == d->alloc_dirs) {
		size_t n = d->alloc_dirs ? 2 * d->alloc_dirs : 4;
		struct fgit_untr_dir **v = realloc(d->dirs, n * sizeof(*v));
		if (!v)
			return -1;
		d->dirs = v;
		d->alloc_dirs = n;
	}
	memmove(d->dirs + pos + 1, d->dirs + pos, (d->nr_dirs - pos) * sizeof(*d->dirs));
	d->dirs[pos] = c;
	d->nr_dirs++;
	return 0;
}

/* Binary search among d's children by name; *pos: where it is or goes. */
static struct fgit_untr_dir *find_child(struct fgit_untr_dir *d, const char *name, size_t len,
					size_t *pos)
{
	size_t lo = 0, hi = d->nr_dirs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *m = d->dirs[mid]->name;
		int c = strncmp(name, m, len);
		if (!c && m[len])
			c = -1;
		if (!c) {
			*pos = mid;
			return d->dirs[mid];
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*pos = lo;
	return NULL;
}

struct fgit_untr_dir *fgit_untr_lookup(struct fgit_untr *uc, struct fgit_untr_dir *d,
				       const char *name, size_t len)
{
	struct fgit_untr_dir *c;
	size_t pos;

	if (!d)
		return NULL;
	if (len && name[len - 1] == '/')
		len--;
	if ((c = find_child(d, name, len, &pos)))
		return c;
	if (!(c = dir_new(name, len)))
		return NULL;
	if (insert_child(d, pos, c)) {
		dir_free(c);
		return NULL;
	}
	uc->dir_created++;
	return c;
}

void fgit_untr_invalidate_dir(struct fgit_untr *uc, struct fgit_untr_dir *d)
{
	size_t i;
	if (d->valid)
		uc->dir_invalidated++;
	d->valid = 0;
	clear_untracked(d);
	for (i = 0; i < d->nr_dirs; i++)
		d->dirs[i]->recurse = 0;
}

static void invalidate_tree(struct fgit_untr_dir *d)
{
	size_t i;
	d->valid = 0;
	clear_untracked(d);
	for (i = 0; i < d->nr_dirs; i++)
		invalidate_tree(d->dirs[i]);
}

void fgit_untr_invalidate_gitignore(struct fgit_untr *uc, struct fgit_untr_dir *d)
{
	uc->gitignore_invalidated++;
	invalidate_tree(d);
}

#define DIR_SHOW_OTHER_DIRECTORIES 2

/* Returns whether the directories above must be invalidated too. */
static int invalidate_component(struct fgit_untr *uc, struct fgit_untr_dir *d,
				const char *path, size_t len)
{
	const char *slash = memchr(path, '/', len);
	if (slash) {
		size_t n = (size_t)(slash - path);
		struct fgit_untr_dir *c = fgit_untr_lookup(uc, d, path, n);
		int up = c ? invalidate_component(uc, c, slash + 1, len - n - 1) : 1;
		if (up) {
			uc->dir_invalidated++;
			d->valid = 0;
			clear_untracked(d);
		}
		return up;
	}
	uc->dir_invalidated++;
	d->valid = 0;
	clear_untracked(d);
	return !!(uc->dir_flags & DIR_SHOW_OTHER_DIRECTORIES);
}

void fgit_untr_invalidate_path(struct fgit_untr *uc, const char *path, size_t len)
{
	if (uc && uc->root)
		invalidate_component(uc, uc->root, path, len);
}

int fgit_untr_ident_matches(const struct fgit_untr *uc, const char *ident)
{
	/* older gits kept several NUL-separated identities; the first counts */
	return !strcmp(uc->ident, ident);
}

struct untr_parse {
	struct untr_read r;
	struct fgit_untr_dir **flat;	/* nodes in file order, for the bitmaps */
	size_t n, cap;
};

/* One directory block and its subdirectories; NULL when malformed. */
static struct fgit_untr_dir *parse_dir(struct untr_parse *ps)
{
	uint64_t untracked, subdirs, i;
	struct fgit_untr_dir *d;
	const unsigned char *name;

	if (ps->r.depth > 4096 || ps->n >= ps->cap)
		return NULL;
	if (varint(&untracked, &ps->r) < 0 || varint(&subdirs, &ps->r) < 0)
		return NULL;
	name = ps->r.p;
	if (skip_string(&ps->r) < 0 || untracked > (uint64_t)(ps->r.end - ps->r.p) ||
	    subdirs > ps->cap - ps->n)
		return NULL;
	if (!(d = dir_new((const char *)name, strlen((const char *)name))))
		return NULL;
	d->recurse = 1;
	ps->flat[ps->n++] = d;
	for (i = 0; i < untracked; i++) {
		const unsigned char *s = ps->r.p;
		if (skip_string(&ps->r) < 0 ||
		    fgit_untr_add_untracked(d, (const char *)s, (size_t)(ps->r.p - s - 1)) < 0)
			goto bad;
	}
	ps->r.depth++;
	for (i = 0; i < subdirs; i++) {
		struct fgit_untr_dir *c = parse_dir(ps);
		if (!c || insert_child(d, d->nr_dirs, c)) {
			dir_free(c);
			goto bad;
		}
	}
	ps->r.depth--;
	return d;
bad:
	/* nodes already in flat are freed through d */
	dir_free(d);
	return NULL;
}

struct bitset {
	struct fgit_untr_dir **flat;
	size_t n;
	int which;
	const unsigned char *data;
	size_t avail, step;
	int algo;
};

static int set_bit(size_t pos, void *payload)
{
	struct bitset *b = payload;
	struct fgit_untr_dir *d;
	if (pos >= b->n)
		return 1;
	d = b->flat[pos];
	if (b->which == 0) {
		d->valid = 1;
	} else if (b->which == 1) {
		d->check_only = 1;
	} else {
		if (!b->avail)
			return 1;
		fgit_oid_from_raw(&d->exclude_oid, b->data, b->algo);
		b->data += b->step;
		b->avail--;
	}
	return 0;
}

int untr_parse(struct fgit_untr **out, const unsigned char *data, size_t sz, int algo)
{
	size_t rawsz = fgit_hash_rawsz(algo), i;
	struct fgit_untr *u = NULL;
	struct untr_parse ps;
	struct fgit_ewah ew[3];
	uint64_t ident_len, ndirs;
	const unsigned char *s;
	long n;
	int k;

	*out = NULL;
	memset(&ps, 0, sizeof(ps));
	if (!untr_valid(data, sz, algo))
		return FGIT_ENOTFOUND;
	if (!(u = calloc(1, sizeof(*u))))
		goto nomem;
	u->algo = algo;
	ps.r.p = data;
	ps.r.end = data + sz - 1;
	varint(&ident_len, &ps.r);
	if (!(u->ident = malloc(ident_len + 1)))
		goto nomem;
	memcpy(u->ident, ps.r.p, ident_len);
	u->ident[ident_len] = '\0';
	u->ident_len = (size_t)ident_len;
	ps.r.p += ident_len;
	stat_data(u->info_exclude_stat, ps.r.p);
	stat_data(u->excludes_file_stat, ps.r.p + STAT_DATA);
	u->dir_flags = be32(ps.r.p + 2 * STAT_DATA);
	fgit_oid_from_raw(&u->info_exclude_oid, ps.r.p + 2 * STAT_DATA + 4, algo);
	fgit_oid_from_raw(&u->excludes_file_oid, ps.r.p + 2 * STAT_DATA + 4 + rawsz, algo);
	ps.r.p += 2 * STAT_DATA + 4 + 2 * rawsz;
	s = ps.r.p;
	skip_string(&ps.r);
	if (!(u->per_dir = strdup((const char *)s)))
		goto nomem;
	if (ps.r.p >= ps.r.end || varint(&ndirs, &ps.r) < 0 || !ndirs) {
		*out = u;
		return 0;
	}
	ps.cap = (size_t)ndirs;
	if (!(ps.flat = calloc(ps.cap, sizeof(*ps.flat))))
		goto nomem;
	if (!(u->root = parse_dir(&ps)) || ps.n != ps.cap)
		goto bad;
	for (k = 0; k < 3; k++) {
		if ((n = fgit_ewah_parse(&ew[k], ps.r.p, ps.r.end - ps.r.p)) < 0)
			goto bad;
		ps.r.p += n;
	}
	for (k = 0; k < 2; k++) {
		struct bitset b = { ps.flat, ps.n, k, NULL, 0, 0, algo };
		if (fgit_ewah_each_bit(&ew[k], set_bit, &b))
			goto bad;
	}
	/* stat data belongs to the valid directories, in order */
	for (i = 0; i < ps.n; i++)
		if (ps.flat[i]->valid) {
			stat_data(ps.flat[i]->stat, ps.r.p);
			ps.r.p += STAT_DATA;
		}
	{
		struct bitset b = { ps.flat, ps.n, 2, ps.r.p, (size_t)(ps.r.end - ps.r.p) / rawsz,
				    rawsz, algo };
		if (fgit_ewah_each_bit(&ew[2], set_bit, &b))
			goto bad;
	}
	free(ps.flat);
	*out = u;
	return 0;
nomem:
	free(ps.flat);
	fgit_untr_free(u);
	return fgit_error_set(FGIT_ENOMEM, "out of memory");
bad:
	free(ps.flat);
	fgit_untr_free(u);
	return FGIT_ENOTFOUND;
}

int untr_new(struct fgit_untr **out, const char *ident, uint32_t dir_flags, int algo)
{
	struct fgit_untr *u = calloc(1, sizeof(*u));
	size_t len = strlen(ident);

	*out = NULL;
	if (!u || !(u->ident = malloc(len + 1)) || !(u->per_dir = strdup(".gitignore"))) {
		fgit_untr_free(u);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	memcpy(u->ident, ident, len + 1);
	u->ident_len = len + 1;		/* the NUL too, as git writes it */
	u->dir_flags = dir_flags;
	u->algo = algo;
	fgit_oid_zero(&u->info_exclude_oid, algo);
	fgit_oid_zero(&u->excludes_file_oid, algo);
	*out = u;
	return 0;
}

int fgit_untr_create_root(struct fgit_untr *uc)
{
	if (uc->root)
		return 0;
	if (!(uc->root = dir_new("", 0)))
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	return 0;
}

/* ---- writing ---- */

/*
 * An EWAH bitmap built bit by bit in increasing order, with the words git's
 * ewah_set() leaves: a literal word per 64-bit stretch holding a set bit,
 * runs of zero words between them, and a word that fills up with ones
 * turned into a run of ones.
 */
struct ewah_w {
	uint64_t *w;
	size_t n, alloc, rlw;
	size_t bit_size;
	int oom;
};

#define RLW_RUN_MAX 0xffffffffull
#define RLW_LIT_MAX 0x7fffffffull

static uint64_t rlw_run(uint64_t r) { return (r >> 1) & RLW_RUN_MAX; }
static uint64_t rlw_lit(uint64_t r) { return r >> 33; }

static void ew_push(struct ewah_w *e, uint64_t v)
{
	if (e->n == e->alloc) {
		size_t n = e->alloc ? 2 * e->alloc : 8;
		uint64_t *w = realloc(e->w, n * sizeof(*w));
		if (!w) {
			e->oom = 1;
			return;
		}
		e->w = w;
		e->alloc = n;
	}
	e->w[e->n++] = v;
}

static void ew_init(struct ewah_w *e)
{
	memset(e, 0, sizeof(*e));
	ew_push(e, 0);
}

static void ew_literal(struct ewah_w *e, uint64_t v)
{
	if (e->oom)
		return;
	if (rlw_lit(e->w[e->rlw]) == RLW_LIT_MAX) {
		e->rlw = e->n;
		ew_push(e, 0);
		if (e->oom)
			return;
	}
	e->w[e->rlw] += 1ull << 33;
	ew_push(e, v);
}

static void ew_empty(struct ewah_w *e, int bit)
{
	uint64_t r;
	if (e->oom)
		return;
	r = e->w[e->rlw];
	if (!rlw_lit(r) && !rlw_run(r))
		r = (r & ~1ull) | (uint64_t)bit;
	if (!rlw_lit(r) && (int)(r & 1) == bit && rlw_run(r) < RLW_RUN_MAX) {
		e->w[e->rlw] = r + 2;
		return;
	}
	e->rlw = e->n;
	ew_push(e, 2 | (uint64_t)bit);
}

static void ew_set(struct ewah_w *e, size_t i)
{
	size_t words_now = (e->bit_size + 63) / 64, words_then = (i + 1 + 63) / 64, k;
	uint64_t bit = 1ull << (i % 64);

	e->bit_size = i + 1;
	if (words_then > words_now) {
		for (k = 1; k < words_then - words_now; k++)
			ew_empty(e, 0);
		ew_literal(e, bit);
		return;
	}
	if (e->oom)
		return;
	if (!rlw_lit(e->w[e->rlw])) {
		e->w[e->rlw] -= 2;	/* the word leaves the run */
		ew_literal(e, bit);
		return;
	}
	e->w[e->n - 1] |= bit;
	if (e->w[e->n - 1] == ~0ull) {
		e->n--;
		e->w[e->rlw] -= 1ull << 33;
		ew_empty(e, 1);
	}
}

static int put32(struct fgit_buf *b, uint32_t v)
{
	unsigned char t[4];
	put_be32(t, v);
	return fgit_buf_add(b, t, 4);
}

static int ew_write(struct fgit_buf *out, struct ewah_w *e)
{
	size_t i;
	int r = 0;
	if (e->oom || e->n > UINT32_MAX)
		return FGIT_ENOMEM;
	r |= put32(out, (uint32_t)e->bit_size);
	r |= put32(out, (uint32_t)e->n);
	for (i = 0; i < e->n; i++) {
		r |= put32(out, (uint32_t)(e->w[i] >> 32));
		r |= put32(out, (uint32_t)e->w[i]);
	}
	r |= put32(out, (uint32_t)e->rlw);
	return r ? FGIT_ENOMEM : 0;
}

static int put_varint(struct fgit_buf *b, uint64_t value)
{
	unsigned char tmp[16];
	unsigned pos = sizeof(tmp) - 1;
	tmp[pos] = value & 127;
	while (value >>= 7)
		tmp[--pos] = 128 | (--value & 127);
	return fgit_buf_add(b, tmp + pos, sizeof(tmp) - pos);
}

static int put_stat(struct fgit_buf *b, const uint32_t st[9])
{
	int i, r = 0;
	for (i = 0; i < 9; i++)
		r |= put32(b, st[i]);
	return r;
}

struct untr_w {
	struct fgit_buf dirs, stat, hashes;
	struct ewah_w valid, check_only, hash_valid;
	size_t index;
	size_t rawsz;
	int err;
};

static void write_dir(struct untr_w *w, const struct fgit_untr_dir *d)
{
	size_t i = w->index++, nsub = 0;
	int valid = d->valid, check_only = valid && d->check_only;

	if (check_only)
		ew_set(&w->check_only, i);
	if (valid) {
		ew_set(&w->valid, i);
		w->err |= put_stat(&w->stat, d->stat);
	}
	if (!fgit_oid_is_zero(&d->exclude_oid)) {
		ew_set(&w->hash_valid, i);
		w->err |= fgit_buf_add(&w->hashes, d->exclude_oid.hash, w->rawsz);
	}
	for (i = 0; i < d->nr_dirs; i++)
		nsub += d->dirs[i]->recurse;
	w->err |= put_varint(&w->dirs, valid ? d->nr_untracked : 0);
	w->err |= put_varint(&w->dirs, nsub);
	w->err |= fgit_buf_add(&w->dirs, d->name, strlen(d->name) + 1);
	for (i = 0; valid && i < d->nr_untracked; i++)
		w->err |= fgit_buf_add(&w->dirs, d->untracked[i], strlen(d->untracked[i]) + 1);
	for (i = 0; i < d->nr_dirs; i++)
		if (d->dirs[i]->recurse)
			write_dir(w, d->dirs[i]);
}

int fgit_untr_write(struct fgit_buf *out, const struct fgit_untr *uc)
{
	struct untr_w w;
	int r = 0;

	r |= put_varint(out, uc->ident_len);
	r |= fgit_buf_add(out, uc->ident, uc->ident_len);
	r |= put_stat(out, uc->info_exclude_stat);
	r |= put_stat(out, uc->excludes_file_stat);
	r |= put32(out, uc->dir_flags);
	r |= fgit_buf_add(out, uc->info_exclude_oid.hash, fgit_hash_rawsz(uc->algo));
	r |= fgit_buf_add(out, uc->excludes_file_oid.hash, fgit_hash_rawsz(uc->algo));
	r |= fgit_buf_add(out, uc->per_dir, strlen(uc->per_dir) + 1);
	if (!uc->root) {
		r |= put_varint(out, 0);
		return r ? fgit_error_set(FGIT_ENOMEM, "out of memory") : 0;
	}
	memset(&w, 0, sizeof(w));
	w.rawsz = fgit_hash_rawsz(uc->algo);
	fgit_buf_init(&w.dirs, 0);
	fgit_buf_init(&w.stat, 0);
	fgit_buf_init(&w.hashes, 0);
	ew_init(&w.valid);
	ew_init(&w.check_only);
	ew_init(&w.hash_valid);
	write_dir(&w, uc->root);
	r |= w.err;
	r |= put_varint(out, w.index);
	r |= fgit_buf_add(out, w.dirs.ptr, w.dirs.len);
	r |= ew_write(out, &w.valid);
	r |= ew_write(out, &w.check_only);
	r |= ew_write(out, &w.hash_valid);
	r |= fgit_buf_add(out, w.stat.ptr, w.stat.len);
	r |= fgit_buf_add(out, w.hashes.ptr, w.hashes.len);
	r |= fgit_buf_addch(out, '\0');
	fgit_buf_release(&w.dirs);
	fgit_buf_release(&w.stat);
	fgit_buf_release(&w.hashes);
	free(w.valid.w);
	free(w.check_only.w);
	free(w.hash_valid.w);
	return r ? fgit_error_set(FGIT_ENOMEM, "out of memory") : 0;
}
