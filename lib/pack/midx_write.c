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
 * The work is a heap merge of already-sorted tables (each .idx and the old
 * midx are sorted by name) that notes, per object, only which table and
 * position it comes from (8 bytes); the file is then streamed from the
 * mapped tables through a small checksummed buffer into
 * multi-pack-index.lock and renamed into place.  Nothing of the file's
 * size is held in memory: on the midx5 bench (507,773 objects in 5 packs,
 * a 14 MB midx) building it in memory from 40-byte entries cost 8,744 page
 * faults and 304 ms CPU (perf stat, 5 runs, load ~10); streaming, 1,315
 * faults and 71 ms, the same bytes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* An object of the midx as the bitmap writer sees it. */
struct entry {
	const unsigned char *oid;
	uint64_t offset;
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
		if ((r = fgit_pack_idx_open(&idx, path.ptr, o->algo)) < 0) {
			/* git says why a file it could open is not an index */
			if (r == FGIT_EINVALID)
				report_last(o, c->objdir);
			fgit_error_clear();
			r = 0;
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

/* Whether the objects of info i come from its .idx: new packs, and the
 * preferred pack even when the old midx names it, since every object it
 * holds is a candidate, not only those the old midx took from it (git). */
static int scan_idx(const struct wctx *c, size_t i)
{
	return !c->info[i].from_midx || (int)i == c->preferred;
}

/*
 * A sorted table of ids being merged: a pack's .idx, or the old midx
 * (info -1) without the entries of the preferred pack, which are read from
 * its .idx instead.
 */
struct run {
	const unsigned char *names;	/* the name at position 0 */
	size_t stride;
	uint32_t pos, end;
	uint64_t key;			/* first 8 bytes of the name at pos, big-endian */
	int info;			/* pack of every entry (c->info); -1: the old midx */
};

/* One object of the midx: entry pos of run number run. */
struct pick {
	uint32_t run, pos;
};

static const unsigned char *run_name(const struct run *u, uint32_t pos)
{
	return u->names + (size_t)pos * u->stride;
}

/* Pack (c->info) and offset of entry pos of run u. */
static int run_entry(uint32_t *pack, uint64_t *offset, const struct wctx *c,
		     const struct run *u, uint32_t pos)
{
	if (u->info < 0)
		return fgit_midx_entry_at(pack, offset, c->m, pos);
	*pack = (uint32_t)u->info;
	return fgit_pack_idx_offset(offset, c->info[u->info].idx, pos);
}

/* Move run u to its next entry, past those of the preferred pack in the
 * old midx. */
static int run_advance(const struct wctx *c, struct run *u)
{
	uint32_t pack;
	uint64_t off;
	int r;

	for (u->pos++; u->pos < u->end; u->pos++) {
		if (u->info >= 0 || c->preferred < 0)
			break;
		if ((r = fgit_midx_entry_at(&pack, &off, c->m, u->pos)) < 0)
			return r;
		if ((int)pack != c->preferred)
			break;
	}
	if (u->pos < u->end)
		u->key = fgit_be64(run_name(u, u->pos));
	return 0;
}

/*
 * Which of two copies of one object git names: the preferred pack's, then
 * the one from the pack with the newest .pack (the old midx's count as
 * mtime 0), then the pack seen first.
 */
static int better_copy(const struct wctx *c, const struct run *a, const struct run *b)
{
	uint64_t ma = 0, mb = 0, off;
	uint32_t pa, pb;

	if (run_entry(&pa, &off, c, a, a->pos) < 0 || run_entry(&pb, &off, c, b, b->pos) < 0) {
		fgit_error_clear();	/* reported when the entry is written */
		return a < b;
	}
	if (((int)pa == c->preferred) != ((int)pb == c->preferred))
		return (int)pa == c->preferred;
	if (a->info >= 0)
		ma = c->info[pa].mtime;
	if (b->info >= 0)
		mb = c->info[pb].mtime;
	if (ma != mb)
		return ma > mb;
	return pa < pb;
}

static int run_less(const struct wctx *c, const struct run *a, const struct run *b)
{
	int d;

	if (a->key != b->key)
		return a->key < b->key;
	d = memcmp(run_name(a, a->pos) + 8, run_name(b, b->pos) + 8, c->rawsz - 8);
	return d ? d < 0 : better_copy(c, a, b);
}

static void heap_down(const struct wctx *c, struct run **h, size_t n, size_t i)
{
	struct run *u = h[i];

	for (;;) {
		size_t k = 2 * i + 1;
		if (k >= n)
			break;
		if (k + 1 < n && run_less(c, h[k + 1], h[k]))
			k++;
		if (!run_less(c, h[k], u))
			break;
		h[i] = h[k];
		i = k;
	}
	h[i] = u;
}

/* The merged objects of a write. */
struct merged {
	struct run *runs;
	size_t nrun;
	struct pick *picks;		/* in name order, one per object */
	size_t nr;
	uint32_t fan[256];		/* objects by first byte */
	size_t nlarge;			/* offsets over 31 bits */
	int large_needed;		/* an offset over 32 bits: a LOFF chunk */
};

static void merged_release(struct merged *g)
{
	free(g->runs);
	free(g->picks);
}

/*
 * Merge the old midx and the packs' .idx files, each sorted by name, with
 * a heap of runs, keeping the best copy of each object (the first of equal
 * names, as run_less orders them).
 */
static int merge_runs(struct merged *g, struct wctx *c)
{
	struct run **heap = NULL;
	const unsigned char *last = NULL;
	size_t total = 0, n = 0, i;
	int r = 0;

	memset(g, 0, sizeof(*g));
	g->runs = calloc(c->nr + 1, sizeof(*g->runs));
	heap = malloc((c->nr + 1) * sizeof(*heap));
	if (!g->runs || !heap) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	if (c->m && fgit_midx_num_objects(c->m)) {
		struct run *u = &g->runs[g->nrun++];
		u->names = fgit_midx_oid_raw(c->m, 0);
		u->stride = c->rawsz;
		u->end = fgit_midx_num_objects(c->m);
		u->info = -1;
	}
	for (i = 0; i < c->nr; i++) {
		struct run *u;
		if (!scan_idx(c, i) || !fgit_pack_idx_count(c->info[i].idx))
			continue;
		u = &g->runs[g->nrun++];
		u->names = fgit_pack_idx_name(c->info[i].idx, 0);
		u->stride = (size_t)(fgit_pack_idx_name(c->info[i].idx, 1) - u->names);
		u->end = fgit_pack_idx_count(c->info[i].idx);
		u->info = (int)i;
	}
	for (i = 0; i < g->nrun; i++) {
		struct run *u = &g->runs[i];
		total += u->end;
		/* position 0 of the old midx may be the preferred pack's */
		u->pos = UINT32_MAX;
		if ((r = run_advance(c, u)) < 0)
			goto out;
		if (u->pos < u->end)
			heap[n++] = u;
	}
	if (total > UINT32_MAX) {
		r = fgit_error_set(FGIT_EINVALID, "too many objects for a multi-pack-index");
		goto out;
	}
	/* on huge pages: the 4 MB of picks of the midx5 bench took ~1,000
	 * page faults on 4 KiB pages, 1,320 -> 328 faults in all and ~70 ->
	 * ~55 ms CPU (perf stat, 2 x 10 runs, load ~14) */
	if (!(g->picks = fgit_calloc_huge(total ? total : 1, sizeof(*g->picks)))) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	for (i = n / 2; i-- > 0;)
		heap_down(c, heap, n, i);
	while (n) {
		struct run *u = heap[0];
		const unsigned char *name = run_name(u, u->pos);

		if (!last || fgit_be64(last) != u->key || memcmp(last, name, c->rawsz)) {
			struct pick *p = &g->picks[g->nr++];
			uint32_t pack;
			uint64_t off;
			p->run = (uint32_t)(u - g->runs);
			p->pos = u->pos;
			g->fan[name[0]]++;
			if ((r = run_entry(&pack, &off, c, u, u->pos)) < 0)
				goto out;
			if (off > 0x7fffffffu)
				g->nlarge++;
			if (off > 0xffffffffu)
				g->large_needed = 1;
			last = name;
		}
		if ((r = run_advance(c, u)) < 0)
			goto out;
		if (u->pos >= u->end)
			heap[0] = heap[--n];
		if (n)
			heap_down(c, heap, n, 0);
	}
out:
	free(heap);
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
 * git's --refs-snapshot: lines "[+]<hex id>" (a CR before the newline is
 * dropped) naming the commits to prefer, in *out (malloc'd, *n of them).
 * Errors are git's fatal lines; a file that opens but cannot be read (a
 * directory) names no commit, as for git.
 */
static int read_refs_snapshot(struct fgit_oid **out, size_t *n, const char *path,
			      const struct fgit_midx_options *o)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	struct fgit_oid *v = NULL;
	size_t hexsz = fgit_hash_hexsz(o->algo), nv = 0;
	char *p, *end;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fgit_error_set(FGIT_ERROR, "could not open '%s' for reading: %s", path,
				      strerror(errno));
	if (fgit_buf_read_fd(&b, fd, 0) < 0) {
		fgit_error_clear();
		fgit_buf_reset(&b);
	}
	close(fd);
	if (!(v = malloc((b.len / (hexsz + 1) + 1) * sizeof(*v)))) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	for (p = b.ptr, end = p + b.len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *hex = p;
		struct fgit_object_info info;
		char buf[FGIT_MAX_HEXSZ + 1];

		if (!nl)
			nl = end;
		if (nl > p && nl[-1] == '\r')
			nl[-1] = 0;
		*nl = 0;
		if (*hex == '+')
			hex++;
		if (strlen(hex) < hexsz || fgit_oid_from_hex(&v[nv], hex, o->algo) < 0) {
			fgit_error_clear();
			r = fgit_error_set(FGIT_EINVALID, "could not parse line: %s", p);
			goto out;
		}
		if (hex[hexsz]) {
			r = fgit_error_set(FGIT_EINVALID, "malformed line: %s", p);
			goto out;
		}
		if (fgit_odb_read_info(&info, o->odb, &v[nv], FGIT_INFO_TYPE) < 0) {
			fgit_error_clear();
			r = fgit_error_set(FGIT_EINVALID, "unable to parse object: %s",
					   fgit_oid_to_hex(buf, &v[nv]));
			goto out;
		}
		nv++;
		p = nl + 1;
	}
	*out = v;
	*n = nv;
	v = NULL;
out:
	free(v);
	fgit_buf_release(&b);
	return r;
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
		       const unsigned char *sum, const struct fgit_oid *tips, size_t ntips)
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
	src.tips = tips;
	src.ntips = ntips;
	r = pack_bitmap_write(out, &src, o->odb, o->refdb, nthreads, o->progress_fd);
out:
	free(oid);
	free(type);
	free(hash);
	return r;
}

/*
 * The file goes out through one small buffer, checksummed as it fills (as
 * git's hashfile does), rather than built whole in memory: a 14 MB midx
 * built in a malloc'd buffer cost ~3,500 page faults and its munmap, and
 * page faults are dear on this VM (midx5 bench: see write_chunks).
 */
#define HOUT_SIZE (128u << 10)

struct hout {
	struct fgit_lockfile *lk;
	struct fgit_hash_ctx hc;
	unsigned char *buf;
	size_t len;
};

static int hout_flush(struct hout *w)
{
	fgit_checksum_update(&w->hc, w->buf, w->len);
	if (fgit_lockfile_write(w->lk, w->buf, w->len) < 0)
		return -1;
	w->len = 0;
	return 0;
}

/* Room for n (<= HOUT_SIZE) bytes at the end of the buffer, or NULL. */
static inline unsigned char *hout_room(struct hout *w, size_t n)
{
	if (HOUT_SIZE - w->len < n && hout_flush(w) < 0)
		return NULL;
	return w->buf + w->len;
}

static int hout_add(struct hout *w, const void *data, size_t n)
{
	const unsigned char *p = data;

	while (n) {
		size_t k = HOUT_SIZE - w->len < n ? HOUT_SIZE - w->len : n;
		memcpy(w->buf + w->len, p, k);
		w->len += k;
		p += k;
		n -= k;
		if (w->len == HOUT_SIZE && hout_flush(w) < 0)
			return -1;
	}
	return 0;
}

static int add32(struct hout *w, uint32_t v)
{
	unsigned char *d = hout_room(w, 4);

	if (!d)
		return -1;
	put32(d, v);
	w->len += 4;
	return 0;
}

/*
 * Everything after the chunk table: OIDF, OIDL, OOFF, LOFF and RIDX (order,
 * when not NULL), then the checksum into sum.
 */
static int write_chunks(struct hout *w, unsigned char *sum, const struct wctx *c,
			const struct merged *g, const uint32_t *perm, const uint32_t *order)
{
	size_t i, k, rawsz = c->rawsz;
	uint32_t fan = 0;
	unsigned char *d;

	for (i = 0; i < 256; i++)
		if (add32(w, fan += g->fan[i]) < 0)
			return -1;
	for (i = 0; i < g->nr; i++) {
		const struct pick *p = &g->picks[i];
		if (!(d = hout_room(w, rawsz)))
			return -1;
		memcpy(d, run_name(&g->runs[p->run], p->pos), rawsz);
		w->len += rawsz;
	}
	for (i = 0, k = 0; i < g->nr; i++) {
		const struct pick *p = &g->picks[i];
		uint32_t pack;
		uint64_t off;
		if (run_entry(&pack, &off, c, &g->runs[p->run], p->pos) < 0 ||
		    !(d = hout_room(w, 8)))
			return -1;
		put32(d, perm[pack]);
		if (g->large_needed && (off >> 31))
			put32(d + 4, 0x80000000u | (uint32_t)k++);
		else
			put32(d + 4, (uint32_t)off);
		w->len += 8;
	}
	for (i = 0; g->large_needed && i < g->nr; i++) {
		const struct pick *p = &g->picks[i];
		uint32_t pack;
		uint64_t off;
		if (run_entry(&pack, &off, c, &g->runs[p->run], p->pos) < 0)
			return -1;
		if ((off >> 31) && (add32(w, (uint32_t)(off >> 32)) < 0 ||
				    add32(w, (uint32_t)off) < 0))
			return -1;
	}
	for (i = 0; order && i < g->nr; i++)
		if (add32(w, order[i]) < 0)
			return -1;
	if (hout_flush(w) < 0)
		return -1;
	fgit_checksum_final(sum, &w->hc);
	return fgit_lockfile_write(w->lk, sum, rawsz);
}

/* The objects as the bitmap writer wants them (malloc'd), NULL on error. */
static struct entry *bitmap_entries(const struct wctx *c, const struct merged *g)
{
	struct entry *e = malloc((g->nr ? g->nr : 1) * sizeof(*e));
	size_t i;

	if (!e) {
		fgit_error_set(FGIT_ENOMEM, "out of memory");
		return NULL;
	}
	for (i = 0; i < g->nr; i++) {
		const struct run *u = &g->runs[g->picks[i].run];
		if (run_entry(&e[i].pack, &e[i].offset, c, u, g->picks[i].pos) < 0) {
			free(e);
			return NULL;
		}
		e[i].oid = run_name(u, g->picks[i].pos);
		e[i].preferred = (int)e[i].pack == c->preferred;
	}
	return e;
}

static int write_internal(const char *objdir, const struct fgit_midx_options *o,
			  char **drop, size_t ndrop)
{
	struct wctx c;
	struct merged g;
	struct hout w = { NULL };
	struct fgit_buf path = FGIT_BUF_INIT, head = FGIT_BUF_INIT;
	struct fgit_buf bm = FGIT_BUF_INIT, bm_path = FGIT_BUF_INIT;
	struct fgit_lockfile *lk = NULL;
	struct pinfo **sorted = NULL;
	struct entry *e = NULL;
	struct fgit_oid *tips = NULL;
	size_t ntips = 0;
	uint32_t *perm = NULL, *order = NULL, live = 0;
	unsigned char sum[FGIT_MAX_RAWSZ];
	size_t bm_base = 0;
	size_t i, k;
	int r;

	memset(&c, 0, sizeof(c));
	memset(&g, 0, sizeof(g));
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
	if ((r = merge_runs(&g, &c)) < 0)
		goto out;
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
	if (o->write_bitmap) {
		if (!(e = bitmap_entries(&c, &g))) {
			r = -1;
			goto out;
		}
		if (!(order = pseudo_order(e, g.nr, perm))) {
			r = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
	}

	/* the file: fsync'd as git's default core.fsync does for pack metadata
	 * and commit-graphs */
	{
		struct fgit_buf pnam = FGIT_BUF_INIT;
		uint32_t ids[6];
		uint64_t sizes[6];
		unsigned nch = 0;

		for (i = 0; i < c.nr && !r; i++)
			if (!sorted[i]->expired)
				r = fgit_buf_add(&pnam, sorted[i]->name, strlen(sorted[i]->name) + 1);
		while (!r && pnam.len % 4)
			r = fgit_buf_addch(&pnam, 0);
		ids[nch] = FGIT_CHUNK_ID('P', 'N', 'A', 'M'); sizes[nch++] = pnam.len;
		ids[nch] = FGIT_CHUNK_ID('O', 'I', 'D', 'F'); sizes[nch++] = 1024;
		ids[nch] = FGIT_CHUNK_ID('O', 'I', 'D', 'L'); sizes[nch++] = (uint64_t)g.nr * c.rawsz;
		ids[nch] = FGIT_CHUNK_ID('O', 'O', 'F', 'F'); sizes[nch++] = (uint64_t)g.nr * 8;
		if (g.large_needed) {
			ids[nch] = FGIT_CHUNK_ID('L', 'O', 'F', 'F');
			sizes[nch++] = (uint64_t)g.nlarge * 8;
		}
		if (order) {
			ids[nch] = FGIT_CHUNK_ID('R', 'I', 'D', 'X');
			sizes[nch++] = (uint64_t)g.nr * 4;
		}
		if (!r) {
			unsigned char hdr[12] = { 'M', 'I', 'D', 'X', 1 };
			hdr[5] = (unsigned char)o->algo;
			hdr[6] = (unsigned char)nch;
			put32(hdr + 8, live);
			r = fgit_buf_add(&head, hdr, 12);
		}
		if (!r)
			r = fgit_chunk_table_write(&head, ids, sizes, nch, 12 + 12 * (nch + 1));
		if (!r)
			r = fgit_buf_add(&head, pnam.ptr, pnam.len);
		fgit_buf_release(&pnam);
		if (r)
			goto out;
	}
	if ((r = fgit_lockfile_acquire(&lk, path.ptr, FGIT_LOCK_FSYNC)) < 0)
		goto out;
	w.lk = lk;
	fgit_checksum_init(&w.hc, o->algo);
	if (!(w.buf = malloc(HOUT_SIZE))) {
		fgit_lockfile_rollback(lk);
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	if ((r = hout_add(&w, head.ptr, head.len)) < 0 ||
	    (r = write_chunks(&w, sum, &c, &g, perm, order)) < 0) {
		fgit_lockfile_rollback(lk);
		goto out;
	}
	/* the bitmap is in place before the midx it belongs to; when it cannot
	 * be built, git keeps the old midx and exits 1 (but dies of a bad
	 * refs snapshot) */
	if (order && o->refs_snapshot &&
	    (r = read_refs_snapshot(&tips, &ntips, o->refs_snapshot, o)) < 0) {
		fgit_lockfile_rollback(lk);
		goto out;
	}
	if (order) {
		if ((r = fgit_buf_addf(&bm_path, "%s/pack/", objdir)) < 0 ||
		    (bm_base = bm_path.len, r = bitmap_name(&bm_path, sum, o->algo)) < 0 ||
		    (r = midx_bitmap(&bm, o, e, order, g.nr, sum, tips, ntips)) < 0 ||
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
	free(tips);
	free(order);
	fgit_buf_release(&bm);
	fgit_buf_release(&bm_path);
	free(sorted);
	free(perm);
	free(w.buf);
	merged_release(&g);
	fgit_buf_release(&head);
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
