/*
 * Writing, verifying and expiring a multi-pack-index (include/fgit/midx.h),
 * byte for byte as git 2.39 does.
 *
 * Which copy of an object the midx names, when several packs hold it, is
 * what makes two writers' files differ, so we choose as git does: objects
 * already in an existing midx count as coming from the oldest pack (mtime
 * 0) and are taken from it rather than from their packs; then a copy in the
 * preferred pack wins, then the copy in the pack with the newest .pack
 * mtime, then the pack seen first (existing midx packs in their order, then
 * new packs in directory order).  Packs are numbered by name in the file.
 *
 * The work is a merge per fan-out bucket of already-sorted tables (each
 * .idx and the old midx are sorted by name), so writing costs one pass over
 * the names plus a small sort per bucket; the file is built in memory,
 * checksummed once and renamed into place through multi-pack-index.lock.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/chunk.h"
#include "fgit/common.h"
#include "fgit/hash.h"
#include "fgit/lockfile.h"
#include "fgit/midx.h"
#include "fgit/pack.h"
#include "fgit/odb.h"
#include "fgit/progress.h"
#include "fgit/thread.h"
#include "pack/pack_internal.h"

struct pinfo {
	char *name;			/* "pack-X.idx" */
	struct fgit_pack_idx *idx;	/* NULL for packs taken from the old midx until needed */
	uint64_t mtime;
	uint32_t orig;			/* discovery order */
	int from_midx, expired;
};

struct entry {
	uint64_t key;			/* first 8 bytes of the id, big-endian: fast compares */
	const unsigned char *oid;
	uint64_t offset;
	uint64_t mtime;
	uint32_t pack;			/* discovery order */
	int preferred;
};

struct wctx {
	const struct fgit_midx_options *o;
	const char *objdir;
	size_t rawsz;
	struct fgit_midx *m;
	struct pinfo *info;
	size_t nr, alloc;
	int preferred;			/* discovery index or -1 */
};

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static int add32(struct fgit_buf *b, uint32_t v)
{
	unsigned char x[4];
	put32(x, v);
	return fgit_buf_add(b, x, 4);
}

#define report(o, level, ...) fgit_chunk_reportf((o)->report, (o)->payload, level, __VA_ARGS__)

static const char *disp(const struct fgit_midx_options *o, const char *objdir)
{
	return o->display_dir ? o->display_dir : objdir;
}

/* The last library error as an error: line, the object directory named
 * as the user named it. */
static void report_last(const struct fgit_midx_options *o, const char *objdir)
{
	const char *msg = fgit_error_last(), *at = strstr(msg, objdir);
	if (at && o->display_dir)
		report(o, 1, "%.*s%s%s", (int)(at - msg), msg, o->display_dir,
		       at + strlen(objdir));
	else
		report(o, 1, "%s", msg);
	fgit_error_clear();
}

static int str_ends(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

/* "pack-X.idx" and "pack-X.pack" name the same pack (git's cmp_idx_or_pack_name). */
static int same_pack_name(const char *a, const char *idx_name)
{
	size_t na = strlen(a), nb = strlen(idx_name) - 4;
	if (str_ends(a, ".pack"))
		na -= 5;
	else if (str_ends(a, ".idx"))
		na -= 4;
	return na == nb && !strncmp(a, idx_name, na);
}

static int add_info(struct wctx *c, const char *name, struct fgit_pack_idx *idx,
		    uint64_t mtime, int from_midx)
{
	if (c->nr == c->alloc) {
		size_t na = c->alloc ? 2 * c->alloc : 16;
		struct pinfo *ni = realloc(c->info, na * sizeof(*ni));
		if (!ni)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		c->info = ni;
		c->alloc = na;
	}
	memset(&c->info[c->nr], 0, sizeof(c->info[0]));
	if (!(c->info[c->nr].name = strdup(name)))
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	c->info[c->nr].idx = idx;
	c->info[c->nr].mtime = mtime;
	c->info[c->nr].orig = (uint32_t)c->nr;
	c->info[c->nr].from_midx = from_midx;
	c->nr++;
	return 0;
}

static void wctx_release(struct wctx *c)
{
	size_t i;
	for (i = 0; i < c->nr; i++) {
		free(c->info[i].name);
		fgit_pack_idx_free(c->info[i].idx);
	}
	free(c->info);
	fgit_midx_free(c->m);
}

static int only_has(const struct fgit_midx_options *o, const char *name)
{
	size_t i;
	for (i = 0; i < o->nr_only_packs; i++)
		if (!strcmp(o->only_packs[i], name))
			return 1;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Open idx of info i if not yet (packs from the old midx). */
static int ensure_idx(struct wctx *c, struct pinfo *pi, int quiet)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	int r;
	if (pi->idx)
		return 0;
	fgit_buf_addf(&path, "%s/pack/%s", c->objdir, pi->name);
	r = fgit_pack_idx_open(&pi->idx, path.ptr, c->o->algo);
	fgit_buf_release(&path);
	if (r < 0 && quiet)
		fgit_error_clear();
	return r;
}

/* The packs: the old midx's, then new .idx files in directory order. */
static int collect_packs(struct wctx *c)
{
	const struct fgit_midx_options *o = c->o;
	struct fgit_progress *pr = NULL;
	struct fgit_buf path = FGIT_BUF_INIT;
	struct dirent *de;
	uint64_t seen = 0;
	DIR *dir;
	size_t base;
	uint32_t i;
	int r = 0;

	if (c->m)
		for (i = 0; i < fgit_midx_num_packs(c->m) && !r; i++)
			r = add_info(c, fgit_midx_pack_name(c->m, i), NULL, 0, 1);
	if (r)
		return r;
	fgit_buf_addf(&path, "%s/pack/", c->objdir);
	base = path.len;
	dir = opendir(path.ptr);
	if (!dir)
		goto out;
	pr = fgit_progress_new("Adding packfiles to multi-pack-index", 0, o->progress_fd,
			       FGIT_PROGRESS_DELAYED);
	while (!r && (de = readdir(dir))) {
		struct fgit_pack_idx *idx;
		struct stat st;
		size_t n = strlen(de->d_name);
		if (!str_ends(de->d_name, ".idx"))
			continue;
		fgit_progress_set(pr, ++seen);
		if (c->m && fgit_midx_pack_index(c->m, de->d_name) >= 0)
			continue;
		if (o->only_packs && !only_has(o, de->d_name))
			continue;
		fgit_buf_setlen(&path, base);
		fgit_buf_add(&path, de->d_name, n - 4);
		fgit_buf_adds(&path, ".pack");
		if (stat(path.ptr, &st) < 0 || !S_ISREG(st.st_mode)) {
			report(o, 0, "failed to add packfile '%s/pack/%s'", disp(o, c->objdir),
			       de->d_name);
			continue;
		}
		fgit_buf_setlen(&path, base);
		fgit_buf_adds(&path, de->d_name);
		if (fgit_pack_idx_open(&idx, path.ptr, o->algo) < 0) {
			fgit_error_clear();
			report(o, 0, "failed to open pack-index '%s/pack/%s'", disp(o, c->objdir),
			       de->d_name);
			continue;
		}
		if ((r = add_info(c, de->d_name, idx, (uint64_t)st.st_mtime, 0)) < 0)
			fgit_pack_idx_free(idx);
	}
	closedir(dir);
	fgit_progress_done(pr);
out:
	fgit_buf_release(&path);
	return r;
}

static int entry_cmp(const struct entry *x, const struct entry *y, size_t rawsz)
{
	int c;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if ((c = memcmp(x->oid + 8, y->oid + 8, rawsz - 8)))
		return c;
	if (x->preferred != y->preferred)
		return x->preferred ? -1 : 1;
	if (x->mtime != y->mtime)
		return x->mtime > y->mtime ? -1 : 1;
	return x->pack < y->pack ? -1 : x->pack > y->pack;
}

/* Whether the objects of info i come from its .idx: new packs, and the
 * preferred pack even when the old midx names it, since every object it
 * holds is a candidate, not only those the old midx took from it (git). */
static int scan_idx(const struct wctx *c, size_t i)
{
	return !c->info[i].from_midx || (int)i == c->preferred;
}

/* All objects, one copy each, sorted by name. */
static int sorted_entries(struct entry **out, size_t *nout, struct wctx *c)
{
	struct entry *all = NULL, *bucket = NULL;
	size_t nall = 0, total = 0, maxb = 0, i, *runs = NULL, *heads = NULL;
	unsigned b;
	int r = 0;

	if (c->m)
		total += fgit_midx_num_objects(c->m);
	for (i = 0; i < c->nr; i++)
		if (scan_idx(c, i))
			total += fgit_pack_idx_count(c->info[i].idx);
	/* the biggest bucket bounds the scratch space */
	for (b = 0; b < 256; b++) {
		size_t nb = 0;
		if (c->m)
			nb += fgit_midx_fanout(c->m, b) - (b ? fgit_midx_fanout(c->m, b - 1) : 0);
		for (i = 0; i < c->nr; i++)
			if (scan_idx(c, i))
				nb += fgit_pack_idx_fanout(c->info[i].idx, b) -
				      (b ? fgit_pack_idx_fanout(c->info[i].idx, b - 1) : 0);
		if (nb > maxb)
			maxb = nb;
	}
	all = malloc((total ? total : 1) * sizeof(*all));
	bucket = malloc((maxb ? maxb : 1) * sizeof(*bucket));
	runs = malloc((c->nr + 2) * sizeof(*runs));
	heads = malloc((c->nr + 2) * sizeof(*heads));
	if (!all || !bucket || !runs || !heads) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	for (b = 0; b < 256; b++) {
		size_t nb = 0, nrun = 0, k;
		if (c->m) {
			runs[nrun++] = nb;
			uint32_t lo = b ? fgit_midx_fanout(c->m, b - 1) : 0;
			uint32_t hi = fgit_midx_fanout(c->m, b), pos;
			for (pos = lo; pos < hi; pos++) {
				struct entry *e = &bucket[nb];
				if ((r = fgit_midx_entry_at(&e->pack, &e->offset, c->m, pos)) < 0)
					goto out;
				if ((int)e->pack == c->preferred)
					continue;	/* read from its .idx below */
				nb++;
				e->oid = fgit_midx_oid_raw(c->m, pos);
				e->key = fgit_be64(e->oid);
				e->mtime = 0;
				e->preferred = (int)e->pack == c->preferred;
			}
		}
		for (i = 0; i < c->nr; i++) {
			struct pinfo *pi = &c->info[i];
			uint32_t lo, hi, pos;
			if (!scan_idx(c, i))
				continue;
			lo = b ? fgit_pack_idx_fanout(pi->idx, b - 1) : 0;
			hi = fgit_pack_idx_fanout(pi->idx, b);
			runs[nrun++] = nb;
			for (pos = lo; pos < hi; pos++) {
				struct entry *e = &bucket[nb++];
				e->oid = fgit_pack_idx_name(pi->idx, pos);
				e->key = fgit_be64(e->oid);
				if ((r = fgit_pack_idx_offset(&e->offset, pi->idx, pos)) < 0)
					goto out;
				e->mtime = pi->mtime;
				e->pack = (uint32_t)i;
				e->preferred = (int)i == c->preferred;
			}
		}
		/* each run (the old midx's, each pack's) is sorted by id: merge
		 * them, the best copy of an id first, and keep that one */
		runs[nrun] = nb;
		for (k = 0; k < nrun; k++)
			heads[k] = runs[k];
		for (;;) {
			size_t best = SIZE_MAX;
			const struct entry *e;
			for (k = 0; k < nrun; k++)
				if (heads[k] < runs[k + 1] &&
				    (best == SIZE_MAX ||
				     entry_cmp(&bucket[heads[k]], &bucket[heads[best]], c->rawsz) < 0))
					best = k;
			if (best == SIZE_MAX)
				break;
			e = &bucket[heads[best]++];
			if (nall && all[nall - 1].key == e->key &&
			    !memcmp(all[nall - 1].oid, e->oid, c->rawsz))
				continue;
			all[nall++] = *e;
		}
	}
	*out = all;
	*nout = nall;
	all = NULL;
out:
	free(all);
	free(bucket);
	free(runs);
	free(heads);
	return r;
}

/* Remove multi-pack-index-*.<ext> files (bitmaps and reverse indexes of
 * an older midx) but keep (a file name; NULL: none). */
static void clear_midx_files(const char *objdir, const char *ext, const char *keep)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	struct dirent *de;
	size_t base;
	DIR *dir;

	fgit_buf_addf(&path, "%s/pack/", objdir);
	base = path.len;
	if (!(dir = opendir(path.ptr)))
		goto out;
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, "multi-pack-index-", 17) || !str_ends(de->d_name, ext) ||
		    (keep && !strcmp(de->d_name, keep)))
			continue;
		fgit_buf_setlen(&path, base);
		fgit_buf_adds(&path, de->d_name);
		unlink(path.ptr);
	}
	closedir(dir);
out:
	fgit_buf_release(&path);
}

static int load_existing(struct wctx *c, const char *midx_path)
{
	int r = fgit_midx_open(&c->m, midx_path, c->o->algo);
	if (r == FGIT_ENOTFOUND) {
		fgit_error_clear();
		c->m = NULL;
		return 0;
	}
	if (r == FGIT_ENOMEM)
		return r;
	if (r < 0) {
		report_last(c->o, c->objdir);
		c->m = NULL;
		return 0;
	}
	if (!fgit_midx_checksum_ok(c->m)) {
		report(c->o, 0, "ignoring existing multi-pack-index; checksum mismatch");
		fgit_midx_free(c->m);
		c->m = NULL;
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct pinfo *const *)a)->name, (*(struct pinfo *const *)b)->name);
}

/* ---- multi-pack reachability bitmaps ----
 *
 * A midx bitmap numbers the objects in "pseudo-pack order": the objects
 * taken from the preferred pack first, then by pack (in midx order), then
 * by offset, as if the packs were one.  The RIDX chunk maps that order to
 * midx positions, and the .bitmap is the one a pack of the objects in
 * that order would have, with the midx checksum in its header; the
 * pack-bitmap writer (bitmap_write.c) builds it from the objects given in
 * that order.
 */

/* multi-pack-index-<hex>.bitmap for the midx checksum sum. */
static int bitmap_name(struct fgit_buf *out, const unsigned char *sum, int algo)
{
	struct fgit_oid id;
	char hex[FGIT_MAX_HEXSZ + 1];

	memset(&id, 0, sizeof(id));
	memcpy(id.hash, sum, fgit_hash_rawsz(algo));
	id.algo = algo;
	return fgit_buf_addf(out, "multi-pack-index-%s.bitmap", fgit_oid_to_hex(hex, &id));
}

/*
 * Whether midx m has its bitmap: the file named after m's checksum, whose
 * header carries that checksum (git then rewrites nothing).  A file there
 * that is not is reported as git does, twice, since git reads it twice
 * (once to see whether the midx is current, once again before writing).
 */
static int has_bitmap(const struct wctx *c, const struct fgit_midx *m)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	unsigned char hdr[12 + FGIT_MAX_RAWSZ];
	const char *why = NULL;
	char ver[64];
	size_t rawsz = c->rawsz;
	struct stat st;
	int fd, ok = 0;

	if (fgit_buf_addf(&path, "%s/pack/", c->objdir) ||
	    bitmap_name(&path, fgit_midx_checksum(m), c->o->algo))
		goto out;
	fd = open(path.ptr, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto out;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)(12 + 2 * rawsz) ||
	    pread(fd, hdr, 12 + rawsz, 0) != (ssize_t)(12 + rawsz))
		why = "corrupted bitmap index (too small)";
	else if (memcmp(hdr, "BITM", 4))
		why = "corrupted bitmap index file (wrong header)";
	else if (hdr[4] || hdr[5] != 1)
		why = (snprintf(ver, sizeof(ver), "unsupported version '%d' for bitmap index file",
				hdr[4] << 8 | hdr[5]), ver);
	else if (memcmp(hdr + 12, fgit_midx_checksum(m), rawsz))
		why = "checksum doesn't match in MIDX and bitmap";
	close(fd);
	if (why) {
		report(c->o, 1, "%s", why);
		report(c->o, 1, "%s", why);
	}
	ok = !why;
out:
	fgit_buf_release(&path);
	return ok;
}

/* git's preferred pack for a bitmap when none is named: the oldest .pack
 * (the first of equals), passing over packs without objects; -1 if every
 * pack is empty. */
static int oldest_pack(struct wctx *c)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	uint64_t best_mtime = 0;
	uint32_t best_n = 0;
	size_t i;
	int best = -1;

	for (i = 0; i < c->nr; i++) {
		struct pinfo *pi = &c->info[i];
		struct stat st;
		uint64_t mtime = 0;
		uint32_t n = 0;

		fgit_buf_setlen(&path, 0);
		fgit_buf_addf(&path, "%s/pack/%.*s.pack", c->objdir, (int)(strlen(pi->name) - 4),
			      pi->name);
		if (!stat(path.ptr, &st))
			mtime = (uint64_t)st.st_mtime;
		if (!ensure_idx(c, pi, 1))
			n = fgit_pack_idx_count(pi->idx);
		if (best < 0 || !best_n || mtime < best_mtime) {
			best = (int)i;
			best_mtime = mtime;
			best_n = n;
		}
	}
	fgit_buf_release(&path);
	return best_n ? best : -1;
}

struct pseudo_ctx {
	const struct entry *e;
	const uint32_t *perm;
};

static int cmp_pseudo(const void *a, const void *b, void *arg)
{
	const struct pseudo_ctx *x = arg;
	const struct entry *p = &x->e[*(const uint32_t *)a], *q = &x->e[*(const uint32_t *)b];
	uint32_t pp = x->perm[p->pack], qp = x->perm[q->pack];

	if (p->preferred != q->preferred)
		return p->preferred ? -1 : 1;
	if (pp != qp)
		return pp < qp ? -1 : 1;
	return p->offset < q->offset ? -1 : p->offset > q->offset;
}

/* Midx positions in pseudo-pack order (malloc'd), NULL when out of memory. */
static uint32_t *pseudo_order(const struct entry *e, size_t ne, const uint32_t *perm)
{
	struct pseudo_ctx x = { e, perm };
	uint32_t *order = malloc((ne ? ne : 1) * sizeof(*order));
	size_t i;

	if (!order)
		return NULL;
	for (i = 0; i < ne; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, ne, sizeof(*order), cmp_pseudo, &x);
	return order;
}

struct types_ctx {
	struct fgit_odb *odb;
	const struct fgit_oid *oid;
	uint8_t *type;			/* FGIT_OBJ_NONE: could not be read */
};

static int types_chunk(size_t begin, size_t end, int worker, void *payload)
{
	struct types_ctx *t = payload;
	size_t i;

	for (i = begin; i < end; i++) {
		struct fgit_object_info info;
		if (fgit_odb_read_info(&info, t->odb, &t->oid[i], FGIT_INFO_TYPE) < 0 ||
		    info.type < FGIT_OBJ_COMMIT || info.type > FGIT_OBJ_TAG)
			return -1;
		t->type[i] = (uint8_t)info.type;
	}
	return 0;
}

/*
 * The .bitmap of the midx whose checksum is sum, its objects e in the
 * pseudo-pack order given, appended to out.
 *
 * NEEDSWORK: git selects among the commits reachable from refs only; the
 * pack writer selects among every commit of the midx, so an unreachable
 * commit whose parent is not in the midx fails here ("doesn't have full
 * closure") where git writes the bitmap.  Types are read object by object
 * (fgit_odb_read_info); a pass in pack order would spare delta chains.
 */
static int midx_bitmap(struct fgit_buf *out, const struct fgit_midx_options *o,
		       const struct entry *e, const uint32_t *order, size_t ne,
		       const unsigned char *sum)
{
	struct bitmap_src src;
	struct types_ctx t;
	struct fgit_oid *oid = NULL;
	uint8_t *type = NULL;
	uint32_t *hash = NULL;
	int nthreads = o->nthreads > 0 ? o->nthreads : fgit_online_cpus();
	size_t i;
	int r;

	if (o->algo != FGIT_HASH_SHA1 || !o->odb)
		return fgit_error_set(FGIT_ENOTSUPP, "bitmaps need a SHA-1 object database");
	oid = malloc((ne + 1) * sizeof(*oid));
	type = calloc(ne + 1, 1);
	if (o->bitmap_hash_cache)
		hash = calloc(ne + 1, sizeof(*hash));	/* git 2.39 stores zeros here */
	if (!oid || !type || (o->bitmap_hash_cache && !hash)) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < ne; i++) {
		memset(&oid[i], 0, sizeof(oid[i]));
		memcpy(oid[i].hash, e[order[i]].oid, 20);
		oid[i].algo = FGIT_HASH_SHA1;
	}
	t.odb = o->odb;
	t.oid = oid;
	t.type = type;
	if ((r = fgit_parallel_for(ne, 1024, nthreads, types_chunk, &t)) != 0) {
		char hex[FGIT_MAX_HEXSZ + 1];
		for (i = 0; i < ne && type[i]; i++)
			;
		if (r < 0 && i == ne)
			goto out;
		fgit_error_clear();
		r = fgit_error_set(FGIT_EINVALID, "unable to read object %s for the bitmap",
				   fgit_oid_to_hex(hex, &oid[i < ne ? i : 0]));
		goto out;
	}
	src.nr = (uint32_t)ne;
	src.pack_hash = sum;
	src.oid = oid;
	src.type = type;
	src.name_hash = hash;
	src.select_meter = 0;
	r = pack_bitmap_write(out, &src, o->odb, o->refdb, nthreads, o->progress_fd);
out:
	free(oid);
	free(type);
	free(hash);
	return r;
}

static int write_internal(const char *objdir, const struct fgit_midx_options *o,
			  char **drop, size_t ndrop)
{
	struct wctx c;
	struct fgit_buf path = FGIT_BUF_INIT, out = FGIT_BUF_INIT;
	struct fgit_buf bm = FGIT_BUF_INIT, bm_path = FGIT_BUF_INIT;
	struct fgit_lockfile *lk = NULL;
	struct pinfo **sorted = NULL;
	struct entry *e = NULL;
	uint32_t *perm = NULL, *order = NULL, live = 0, fan[256];
	unsigned char sum[FGIT_MAX_RAWSZ];
	size_t bm_base = 0;
	size_t ne = 0, i, k, nlarge = 0;
	int r, large_needed = 0;

	memset(&c, 0, sizeof(c));
	c.o = o;
	c.objdir = objdir;
	c.rawsz = fgit_hash_rawsz(o->algo);
	c.preferred = -1;
	fgit_buf_addf(&path, "%s/pack/multi-pack-index", objdir);
	if (!o->only_packs && (r = load_existing(&c, path.ptr)) < 0)
		goto out;
	if ((r = collect_packs(&c)) < 0)
		goto out;
	if (c.m && c.nr == fgit_midx_num_packs(c.m) && !ndrop &&
	    (!o->write_bitmap || has_bitmap(&c, c.m))) {
		if (!o->write_bitmap)
			clear_midx_files(objdir, ".bitmap", NULL);
		r = 0;
		goto out;
	}
	if (o->preferred_pack) {
		for (i = 0; i < c.nr; i++)
			if (same_pack_name(o->preferred_pack, c.info[i].name)) {
				c.preferred = (int)i;
				break;
			}
		if (c.preferred < 0)
			report(o, 0, "unknown preferred pack: '%s'", o->preferred_pack);
		/* git 2.39 then takes the first pack seen for a bitmap */
		if (c.preferred < 0 && o->write_bitmap && c.nr)
			c.preferred = 0;
	} else if (o->write_bitmap) {
		c.preferred = oldest_pack(&c);
	}
	if (c.preferred >= 0) {
		struct pinfo *pi = &c.info[c.preferred];
		if (ensure_idx(&c, pi, 1) < 0 || !fgit_pack_idx_count(pi->idx)) {
			report(o, 1, "cannot select preferred pack %s/pack/%.*s.pack with no objects",
			       disp(o, objdir), (int)(strlen(pi->name) - 4), pi->name);
			r = 1;
			goto out;
		}
	}
	if ((r = sorted_entries(&e, &ne, &c)) < 0)
		goto out;
	for (i = 0; i < ne; i++) {
		if (e[i].offset > 0x7fffffffu)
			nlarge++;
		if (e[i].offset > 0xffffffffu)
			large_needed = 1;
	}
	sorted = malloc((c.nr ? c.nr : 1) * sizeof(*sorted));
	perm = malloc((c.nr ? c.nr : 1) * sizeof(*perm));
	if (!sorted || !perm) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < c.nr; i++)
		sorted[i] = &c.info[i];
	qsort(sorted, c.nr, sizeof(*sorted), by_name);
	if (ndrop) {
		int missing = 0;
		qsort(drop, ndrop, sizeof(*drop), name_cmp);
		for (i = 0, k = 0; k < ndrop;) {
			int cmp = i < c.nr ? strcmp(drop[k], sorted[i]->name) : -1;
			if (!cmp) {
				sorted[i++]->expired = 1;
				k++;
			} else if (cmp > 0) {
				i++;
			} else {
				report(o, 1, "did not see pack-file %s to drop", drop[k]);
				missing++;
				k++;
			}
		}
		if (missing) {
			r = 1;
			goto out;
		}
	}
	for (i = 0; i < c.nr; i++)
		if (!sorted[i]->expired)
			perm[sorted[i]->orig] = live++;
	if (!live) {
		report(o, 1, "no pack files to index.");
		r = 1;
		goto out;
	}
	if (o->write_bitmap && !(order = pseudo_order(e, ne, perm))) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}

	/* the file */
	{
		struct fgit_buf pnam = FGIT_BUF_INIT;
		uint32_t ids[6];
		uint64_t sizes[6];
		unsigned nch = 0;
		unsigned char hdr[12];
		struct fgit_hash_ctx hc;

		for (i = 0; i < c.nr; i++)
			if (!sorted[i]->expired)
				fgit_buf_add(&pnam, sorted[i]->name, strlen(sorted[i]->name) + 1);
		while (pnam.len % 4)
			fgit_buf_addch(&pnam, 0);
		ids[nch] = FGIT_CHUNK_ID('P', 'N', 'A', 'M'); sizes[nch++] = pnam.len;
		ids[nch] = FGIT_CHUNK_ID('O', 'I', 'D', 'F'); sizes[nch++] = 1024;
		ids[nch] = FGIT_CHUNK_ID('O', 'I', 'D', 'L'); sizes[nch++] = (uint64_t)ne * c.rawsz;
		ids[nch] = FGIT_CHUNK_ID('O', 'O', 'F', 'F'); sizes[nch++] = (uint64_t)ne * 8;
		if (large_needed) {
			ids[nch] = FGIT_CHUNK_ID('L', 'O', 'F', 'F');
			sizes[nch++] = (uint64_t)nlarge * 8;
		}
		if (order) {
			ids[nch] = FGIT_CHUNK_ID('R', 'I', 'D', 'X');
			sizes[nch++] = (uint64_t)ne * 4;
		}
		memcpy(hdr, "MIDX", 4);
		hdr[4] = 1;
		hdr[5] = (unsigned char)o->algo;
		hdr[6] = (unsigned char)nch;
		hdr[7] = 0;
		put32(hdr + 8, live);
		r = fgit_buf_grow(&out, 12 + 12 * (nch + 1) + pnam.len + 1024 +
				  ne * (c.rawsz + 8) + nlarge * 8 + (order ? ne * 4 : 0) + c.rawsz);
		if (!r)
			r = fgit_buf_add(&out, hdr, 12);
		if (!r)
			r = fgit_chunk_table_write(&out, ids, sizes, nch, 12 + 12 * (nch + 1));
		if (!r)
			r = fgit_buf_add(&out, pnam.ptr, pnam.len);
		fgit_buf_release(&pnam);
		if (r)
			goto out;
		memset(fan, 0, sizeof(fan));
		for (i = 0; i < ne; i++)
			fan[e[i].oid[0]]++;
		for (i = 0, k = 0; i < 256; i++) {
			k += fan[i];
			add32(&out, (uint32_t)k);
		}
		/* room was reserved above: store directly */
		{
			unsigned char *w = (unsigned char *)out.ptr + out.len;
			for (i = 0; i < ne; i++, w += c.rawsz)
				memcpy(w, e[i].oid, c.rawsz);
			for (i = 0, k = 0; i < ne; i++, w += 8) {
				put32(w, perm[e[i].pack]);
				if (large_needed && (e[i].offset >> 31))
					put32(w + 4, 0x80000000u | (uint32_t)k++);
				else
					put32(w + 4, (uint32_t)e[i].offset);
			}
			fgit_buf_setlen(&out, out.len + ne * (c.rawsz + 8));
		}
		if (large_needed)
			for (i = 0; i < ne; i++)
				if (e[i].offset >> 31) {
					add32(&out, (uint32_t)(e[i].offset >> 32));
					add32(&out, (uint32_t)e[i].offset);
				}
		if (order)
			for (i = 0; i < ne; i++)
				add32(&out, order[i]);
		fgit_checksum_init(&hc, o->algo);
		fgit_checksum_update(&hc, out.ptr, out.len);
		fgit_checksum_final(sum, &hc);
		if ((r = fgit_buf_add(&out, sum, c.rawsz)) < 0)
			goto out;
	}
	/* fsync'd as git's default core.fsync does for pack metadata and
	 * commit-graphs */
	if ((r = fgit_lockfile_acquire(&lk, path.ptr, FGIT_LOCK_FSYNC)) < 0)
		goto out;
	if ((r = fgit_lockfile_write(lk, out.ptr, out.len)) < 0) {
		fgit_lockfile_rollback(lk);
		goto out;
	}
	/* the bitmap is in place before the midx it belongs to; when it cannot
	 * be built, git keeps the old midx and exits 1 */
	if (order) {
		if ((r = fgit_buf_addf(&bm_path, "%s/pack/", objdir)) < 0 ||
		    (bm_base = bm_path.len, r = bitmap_name(&bm_path, sum, o->algo)) < 0 ||
		    (r = midx_bitmap(&bm, o, e, order, ne, sum)) < 0 ||
		    (r = fgit_pack_write_file(bm_path.ptr, bm.ptr, bm.len, 0444)) < 0) {
			fgit_lockfile_rollback(lk);
			if (r == FGIT_ENOMEM)
				goto out;
			report(o, 0, "%s", fgit_error_last());
			fgit_error_clear();
			report(o, 1, "could not write multi-pack bitmap");
			r = 1;
			goto out;
		}
	}
	if ((r = fgit_lockfile_commit(lk)) < 0)
		goto out;
	clear_midx_files(objdir, ".bitmap", order ? bm_path.ptr + bm_base : NULL);
	clear_midx_files(objdir, ".rev", NULL);
	r = 0;
out:
	free(e);
	free(order);
	fgit_buf_release(&bm);
	fgit_buf_release(&bm_path);
	free(sorted);
	free(perm);
	fgit_buf_release(&out);
	fgit_buf_release(&path);
	wctx_release(&c);
	return r;
}

int fgit_midx_write(const char *objects_dir, const struct fgit_midx_options *opts)
{
	return write_internal(objects_dir, opts, NULL, 0);
}

/* ---- verify ---- */

struct pos_pack {
	uint32_t pos, pack;
};

static int pos_pack_cmp(const void *a, const void *b)
{
	const struct pos_pack *x = a, *y = b;
	if (x->pack != y->pack)
		return x->pack < y->pack ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int file_exists(const char *objdir, const char *idx_name, const char *ext)
{
	struct fgit_buf p = FGIT_BUF_INIT;
	struct stat st;
	int ok;
	fgit_buf_addf(&p, "%s/pack/%.*s%s", objdir, (int)(strlen(idx_name) - 4), idx_name, ext);
	ok = stat(p.ptr, &st) == 0;
	fgit_buf_release(&p);
	return ok;
}

int fgit_midx_verify(const char *objdir, const struct fgit_midx_options *o)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	struct fgit_midx *m = NULL;
	struct fgit_pack_idx **idx = NULL;
	struct fgit_progress *pr;
	struct pos_pack *pairs = NULL;
	char *pack_ok = NULL;
	uint32_t i, n, np;
	int r, bad = 0;

	fgit_buf_addf(&path, "%s/pack/multi-pack-index", objdir);
	r = fgit_midx_open(&m, path.ptr, o->algo);
	if (r == FGIT_ENOTFOUND) {
		fgit_error_clear();
		r = 0;
		goto out;
	}
	if (r < 0) {
		report_last(o, objdir);
		report(o, 1, "multi-pack-index file exists, but failed to parse");
		r = 1;
		goto out;
	}
#define BAD(...) do { report(o, 2, __VA_ARGS__); bad = 1; } while (0)
	if (!fgit_midx_checksum_ok(m))
		BAD("incorrect checksum");
	np = fgit_midx_num_packs(m);
	n = fgit_midx_num_objects(m);
	idx = calloc(np ? np : 1, sizeof(*idx));
	pack_ok = calloc(np ? np : 1, 1);
	pairs = malloc((n ? n : 1) * sizeof(*pairs));
	if (!idx || !pack_ok || !pairs) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	pr = fgit_progress_new("Looking for referenced packfiles", np, o->progress_fd,
			       FGIT_PROGRESS_DELAYED);
	for (i = 0; i < np; i++) {
		pack_ok[i] = (char)file_exists(objdir, fgit_midx_pack_name(m, i), ".pack");
		if (!pack_ok[i])
			BAD("failed to load pack in position %u", i);
		fgit_progress_set(pr, i + 1);
	}
	fgit_progress_done(pr);
	/* fan-out order is checked when the file is opened */
	if (!n) {
		BAD("the midx contains no oid");
		goto done;
	}
	pr = fgit_progress_new("Verifying OID order in multi-pack-index", n - 1,
			       o->progress_fd, 0);
	for (i = 0; i + 1 < n; i++) {
		const unsigned char *a = fgit_midx_oid_raw(m, i), *b = fgit_midx_oid_raw(m, i + 1);
		if (memcmp(a, b, fgit_hash_rawsz(o->algo)) >= 0) {
			struct fgit_oid x, y;
			char hx[FGIT_MAX_HEXSZ + 1], hy[FGIT_MAX_HEXSZ + 1];
			fgit_midx_oid_at(&x, m, i);
			fgit_midx_oid_at(&y, m, i + 1);
			BAD("oid lookup out of order: oid[%u] = %s >= %s = oid[%u]", i,
			    fgit_oid_to_hex(hx, &x), fgit_oid_to_hex(hy, &y), i + 1);
		}
		fgit_progress_set(pr, i + 1);
	}
	fgit_progress_done(pr);
	for (i = 0; i < n; i++) {
		uint64_t off;
		pairs[i].pos = i;
		if (fgit_midx_entry_at(&pairs[i].pack, &off, m, i) < 0)
			pairs[i].pack = UINT32_MAX;
	}
	pr = fgit_progress_new("Sorting objects by packfile", n, o->progress_fd, 0);
	fgit_progress_set(pr, 0);
	qsort(pairs, n, sizeof(*pairs), pos_pack_cmp);
	fgit_progress_set(pr, n);
	fgit_progress_done(pr);
	pr = fgit_progress_new("Verifying object offsets", n, o->progress_fd, 0);
	for (i = 0; i < n; i++) {
		struct fgit_oid oid;
		char hex[FGIT_MAX_HEXSZ + 1];
		uint64_t moff, poff;
		uint32_t pack, ppos;
		fgit_midx_oid_at(&oid, m, pairs[i].pos);
		if (fgit_midx_entry_at(&pack, &moff, m, pairs[i].pos) < 0 || !pack_ok[pack]) {
			fgit_error_clear();
			BAD("failed to load pack entry for oid[%u] = %s", pairs[i].pos,
			    fgit_oid_to_hex(hex, &oid));
			continue;
		}
		if (!idx[pack]) {
			struct fgit_buf ip = FGIT_BUF_INIT;
			fgit_buf_addf(&ip, "%s/pack/%s", objdir, fgit_midx_pack_name(m, pack));
			r = fgit_pack_idx_open(&idx[pack], ip.ptr, o->algo);
			fgit_buf_release(&ip);
			if (r < 0) {
				const char *nm = fgit_midx_pack_name(m, pack);
				fgit_error_clear();
				BAD("failed to load pack-index for packfile %s/pack/%.*s.pack",
				    disp(o, objdir), (int)(strlen(nm) - 4), nm);
				break;
			}
		}
		poff = 0;
		if (fgit_pack_idx_find(&ppos, idx[pack], &oid) &&
		    fgit_pack_idx_offset(&poff, idx[pack], ppos) < 0) {
			fgit_error_clear();
			poff = 0;
		}
		if (moff != poff)
			BAD("incorrect object offset for oid[%u] = %s: %" PRIx64 " != %" PRIx64,
			    pairs[i].pos, fgit_oid_to_hex(hex, &oid), moff, poff);
		fgit_progress_set(pr, i + 1);
	}
	fgit_progress_set(pr, n);
	fgit_progress_done(pr);
#undef BAD
done:
	r = bad;
out:
	if (idx)
		for (i = 0; m && i < fgit_midx_num_packs(m); i++)
			fgit_pack_idx_free(idx[i]);
	free(idx);
	free(pack_ok);
	free(pairs);
	fgit_midx_free(m);
	fgit_buf_release(&path);
	return r;
}

/* ---- dropping a midx that names a pack about to go ---- */

int fgit_midx_drop_if_names(const char *objdir, int algo, const char *pack_path)
{
	struct fgit_buf mp = FGIT_BUF_INIT, name = FGIT_BUF_INIT;
	struct fgit_midx *m = NULL;
	const char *b = strrchr(pack_path, '/');
	int r;

	b = b ? b + 1 : pack_path;
	if (fgit_buf_addf(&mp, "%s/pack/multi-pack-index", objdir) ||
	    fgit_buf_add(&name, b, str_ends(b, ".pack") ? strlen(b) - 5 : strlen(b)) ||
	    fgit_buf_adds(&name, ".idx")) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	r = fgit_midx_open(&m, mp.ptr, algo);
	if (r < 0) {
		/* none, or one git would not read either: nothing to keep */
		fgit_error_clear();
		r = 0;
		goto out;
	}
	r = fgit_midx_pack_index(m, name.ptr) >= 0;
	fgit_midx_free(m);
	if (r) {
		unlink(mp.ptr);
		clear_midx_files(objdir, ".bitmap", NULL);
		clear_midx_files(objdir, ".rev", NULL);
	}
out:
	fgit_buf_release(&mp);
	fgit_buf_release(&name);
	return r;
}

/* ---- expire ---- */

/* Remove a pack and its companions, unless it has a .keep (git's
 * unlink_pack_path without force). */
static void unlink_pack(const char *objdir, const char *idx_name)
{
	static const char *const exts[] = {
		".pack", ".idx", ".rev", ".keep", ".bitmap", ".promisor", ".mtimes"
	};
	struct fgit_buf p = FGIT_BUF_INIT;
	size_t base, i;

	fgit_buf_addf(&p, "%s/pack/%.*s", objdir, (int)(strlen(idx_name) - 4), idx_name);
	base = p.len;
	fgit_buf_adds(&p, ".keep");
	if (access(p.ptr, F_OK) == 0)
		goto out;
	for (i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		fgit_buf_setlen(&p, base);
		fgit_buf_adds(&p, exts[i]);
		unlink(p.ptr);
	}
out:
	fgit_buf_release(&p);
}

int fgit_midx_expire(const char *objdir, const struct fgit_midx_options *o)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	struct fgit_midx *m = NULL;
	struct fgit_progress *pr;
	uint32_t *count = NULL, i, np, n;
	char **drop = NULL;
	size_t ndrop = 0;
	int r;

	fgit_buf_addf(&path, "%s/pack/multi-pack-index", objdir);
	r = fgit_midx_open(&m, path.ptr, o->algo);
	if (r == FGIT_ENOTFOUND || (r < 0 && r != FGIT_ENOMEM)) {
		if (r != FGIT_ENOTFOUND)
			report_last(o, objdir);
		fgit_error_clear();
		r = 0;
		goto out;
	}
	if (r < 0)
		goto out;
	np = fgit_midx_num_packs(m);
	n = fgit_midx_num_objects(m);
	count = calloc(np ? np : 1, sizeof(*count));
	drop = calloc(np ? np : 1, sizeof(*drop));
	if (!count || !drop) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	pr = fgit_progress_new("Counting referenced objects", n, o->progress_fd,
			       FGIT_PROGRESS_DELAYED);
	for (i = 0; i < n; i++) {
		uint32_t pack;
		uint64_t off;
		if (fgit_midx_entry_at(&pack, &off, m, i) == 0)
			count[pack]++;
		fgit_progress_set(pr, i + 1);
	}
	fgit_progress_done(pr);
	fgit_error_clear();
	pr = fgit_progress_new("Finding and deleting unreferenced packfiles", np,
			       o->progress_fd, FGIT_PROGRESS_DELAYED);
	for (i = 0; i < np; i++) {
		const char *nm = fgit_midx_pack_name(m, i);
		fgit_progress_set(pr, i + 1);
		if (count[i] || !file_exists(objdir, nm, ".pack") ||
		    file_exists(objdir, nm, ".keep") || file_exists(objdir, nm, ".mtimes"))
			continue;
		if (!(drop[ndrop] = strdup(nm))) {
			r = fgit_error_set(FGIT_ENOMEM, "out of memory");
			break;
		}
		ndrop++;
		unlink_pack(objdir, nm);
	}
	fgit_progress_done(pr);
	fgit_midx_free(m);
	m = NULL;
	if (r == 0 && ndrop)
		r = write_internal(objdir, o, drop, ndrop);
out:
	if (drop)
		for (i = 0; i < ndrop; i++)
			free(drop[i]);
	free(drop);
	free(count);
	fgit_midx_free(m);
	fgit_buf_release(&path);
	return r;
}

/* ---- repack ---- */

struct rp_pack {
	uint32_t id;
	uint64_t mtime, size;
	uint32_t referenced, nobjects;
	int usable;
};

static int rp_mtime_cmp(const void *a, const void *b)
{
	const struct rp_pack *x = a, *y = b;
	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int fgit_midx_repack(const char *objdir, struct fgit_odb *odb, uint64_t batch_size,
		     int pack_kept_objects, const struct fgit_pack_objects_options *po,
		     int write_rev, const struct fgit_midx_options *o,
		     struct fgit_pack_objects_stats *stats)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	struct fgit_midx *m = NULL;
	struct rp_pack *pk = NULL;
	struct fgit_packer *packer = NULL;
	unsigned char *include = NULL;
	uint32_t i, np, n, chosen = 0;
	int r;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	fgit_buf_addf(&path, "%s/pack/multi-pack-index", objdir);
	r = fgit_midx_open(&m, path.ptr, o->algo);
	if (r < 0) {
		if (r != FGIT_ENOTFOUND && r != FGIT_ENOMEM)
			report_last(o, objdir);
		fgit_error_clear();
		r = r == FGIT_ENOMEM ? r : 0;
		goto out;
	}
	np = fgit_midx_num_packs(m);
	n = fgit_midx_num_objects(m);
	pk = calloc(np ? np : 1, sizeof(*pk));
	include = calloc(np ? np : 1, 1);
	if (!pk || !include) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < np; i++) {
		const char *nm = fgit_midx_pack_name(m, i);
		struct fgit_pack_idx *idx;
		struct stat st;
		pk[i].id = i;
		fgit_buf_reset(&path);
		fgit_buf_addf(&path, "%s/pack/%.*s.pack", objdir, (int)(strlen(nm) - 4), nm);
		if (stat(path.ptr, &st) < 0)
			continue;	/* git cannot prepare it: skipped */
		pk[i].mtime = (uint64_t)st.st_mtime;
		pk[i].size = (uint64_t)st.st_size;
		if ((!pack_kept_objects && file_exists(objdir, nm, ".keep")) ||
		    file_exists(objdir, nm, ".mtimes"))
			continue;
		fgit_buf_reset(&path);
		fgit_buf_addf(&path, "%s/pack/%s", objdir, nm);
		if (fgit_pack_idx_open(&idx, path.ptr, o->algo) < 0) {
			fgit_error_clear();
			continue;
		}
		pk[i].nobjects = fgit_pack_idx_count(idx);
		fgit_pack_idx_free(idx);
		pk[i].usable = 1;
	}
	if (!batch_size) {
		for (i = 0; i < np; i++)
			if (pk[i].usable) {
				include[i] = 1;
				chosen++;
			}
	} else {
		uint64_t total = 0;
		for (i = 0; i < n; i++) {
			uint32_t id;
			uint64_t off;
			if (fgit_midx_entry_at(&id, &off, m, i) == 0)
				pk[id].referenced++;
		}
		fgit_error_clear();
		qsort(pk, np, sizeof(*pk), rp_mtime_cmp);	/* oldest first */
		for (i = 0; total < batch_size && i < np; i++) {
			uint64_t expected;
			if (!pk[i].usable || !pk[i].nobjects)
				continue;
			expected = pk[i].size * pk[i].referenced / pk[i].nobjects;
			if (expected >= batch_size)
				continue;
			chosen++;
			total += expected;
			include[pk[i].id] = 1;
		}
	}
	if (chosen < 2) {
		r = 0;
		goto out;
	}
	{
		struct fgit_pack_objects_options opts = *po;
		struct fgit_progress *pr;
		uint64_t seen = 0, want = 0;
		for (i = 0; i < n; i++) {
			uint32_t id;
			uint64_t off;
			if (fgit_midx_entry_at(&id, &off, m, i) == 0 && include[id])
				want++;
		}
		fgit_error_clear();
		/* git's pack-objects shows no meters for an empty pack */
		if (!want)
			opts.progress = 0;
		if ((r = fgit_packer_new(&packer, odb, &opts)) < 0)
			goto out;
		pr = opts.progress ? fgit_progress_new("Enumerating objects", 0,
						       opts.progress_fd, 0) : NULL;
		for (i = 0; i < n; i++) {
			uint32_t id;
			uint64_t off;
			struct fgit_oid oid;
			if (fgit_midx_entry_at(&id, &off, m, i) < 0 || !include[id]) {
				fgit_error_clear();
				continue;
			}
			fgit_midx_oid_at(&oid, m, i);
			if ((r = fgit_packer_add(packer, &oid, FGIT_OBJ_NONE, NULL, 0)) < 0)
				break;
			fgit_progress_set(pr, ++seen);
		}
		fgit_progress_done(pr);
		if (r < 0)
			goto out;
	}
	{
		struct fgit_idx_options io = FGIT_IDX_OPTIONS_INIT;
		char hex[FGIT_MAX_HEXSZ + 1];
		fgit_buf_reset(&path);
		fgit_buf_addf(&path, "%s/pack/pack", objdir);
		if ((r = fgit_packer_write_files(hex, packer, path.ptr, write_rev, &io)) < 0)
			goto out;
		if (stats)
			fgit_packer_stats(stats, packer);
	}
	/* the packer's entries are no longer needed: not held through the
	 * midx write */
	fgit_packer_free(packer);
	packer = NULL;
	fgit_midx_free(m);
	m = NULL;
	r = write_internal(objdir, o, NULL, 0);
out:
	fgit_packer_free(packer);
	free(pk);
	free(include);
	fgit_midx_free(m);
	fgit_buf_release(&path);
	return r;
}
