/*
 * Reading pack reachability bitmaps (gitformat-bitmap, v1) to count what
 * `pack-objects --all --stdout` sends without walking a single tree.
 *
 * A .bitmap beside a pack holds, for selected commits, the set of objects
 * the commit reaches, one bit per object in pack order, EWAH-compressed
 * and possibly XORed with an earlier entry's set.  When every tip of
 * --all (refs and HEAD, tags peeled) is such a commit, or an annotated
 * tag in the pack pointing at one, their union is what must be sent.  When
 * that union is the whole pack, the pack is sent as it is (git's
 * "pack-reused"): one copy of the file, no object parsed.  In every other
 * case the caller falls back to the walk.
 */
#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/ewah.h"
#include "fgit/hash.h"
#include "fgit/midx.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/oidmap.h"
#include "fgit/pack.h"
#include "fgit/progress.h"
#include "pack/pack_internal.h"
#include "fgit/refs.h"

#define MAX_XOR_OFFSET 160
#define BITMAP_HASH_CACHE 0x4

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

struct bentry {
	struct fgit_oid oid;		/* first: map key */
	size_t ewah_off;		/* in the .bitmap file */
	uint32_t xor_offset;
	uint32_t no;
	uint64_t *bits;			/* decoded, NULL until needed */
};

/* A file mapped read-only (mapping the .idx and the .bitmap, instead of
 * reading them into fresh memory, saves ~3,500 zero-filled page faults
 * for the history pack's 14 MB .idx). */
struct mapped {
	const unsigned char *ptr;
	size_t len;
};

struct bitmap {
	struct mapped file;		/* the .bitmap */
	struct mapped idx;		/* the .idx (a pack's bitmap) */
	struct fgit_midx *midx;		/* or the midx (a multi-pack bitmap) */
	uint32_t *bit_of;		/* midx position -> bit, with the midx */
	uint32_t nr;			/* objects in the pack or the midx */
	size_t nwords;
	struct bentry *e;
	uint32_t ne;
	struct fgit_oidmap map;
	/* Bit order (NULL until bitmap_order()): the offset and the index
	 * (.idx or midx) position of the object of each bit.  For a pack,
	 * pack order, offsets ascending; for a midx, pseudo-pack order, the
	 * offset in the object's own pack. */
	uint64_t *offsets_sorted;
	uint32_t *idxpos_sorted;
	const unsigned char *names;	/* raw ids in index order */
	const unsigned char *off32, *off64;
	size_t n_off64;
	size_t type_off[4];		/* commits, trees, blobs, tags: EWAH offsets */
	const unsigned char *hashes;	/* name-hash cache (pack order), NULL */
};

static int map_file(struct mapped *m, const char *path)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_size <= 0 || (uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		return -1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	m->ptr = p;
	m->len = (size_t)st.st_size;
	return 0;
}

static void unmap_file(struct mapped *m)
{
	if (m->ptr)
		munmap((void *)m->ptr, m->len);
	m->ptr = NULL;
	m->len = 0;
}

static void bitmap_release(struct bitmap *b)
{
	uint32_t i;
	for (i = 0; i < b->ne; i++)
		free(b->e[i].bits);
	free(b->e);
	free(b->offsets_sorted);
	free(b->idxpos_sorted);
	free(b->bit_of);
	fgit_midx_free(b->midx);
	fgit_oidmap_release(&b->map);
	unmap_file(&b->file);
	unmap_file(&b->idx);
}

/* Size of the EWAH bitmap at p, or 0 if malformed. */
static size_t ewah_size(const unsigned char *p, size_t avail)
{
	struct fgit_ewah e;
	long n = fgit_ewah_parse(&e, p, avail);
	return n < 0 ? 0 : (size_t)n;
}

/* Decode the EWAH at p into nwords dense words (bits beyond are ignored). */
static int ewah_decode(uint64_t *out, size_t nwords, const unsigned char *p, size_t avail)
{
	struct fgit_ewah e;
	if (fgit_ewah_parse(&e, p, avail) < 0)
		return -1;
	return fgit_ewah_decode(out, nwords, &e);
}

static int decode_entry(struct bitmap *b, uint32_t i, int depth)
{
	struct bentry *e = &b->e[i];
	if (e->bits)
		return 0;
	if (depth > (int)b->ne + 1)
		return -1;
	e->bits = malloc(b->nwords * 8);
	if (!e->bits)
		return -1;
	if (ewah_decode(e->bits, b->nwords, (const unsigned char *)b->file.ptr + e->ewah_off,
			b->file.len - e->ewah_off) < 0)
		return -1;
	if (e->xor_offset) {
		size_t k;
		struct bentry *x;
		if (e->xor_offset > i || decode_entry(b, i - e->xor_offset, depth + 1) < 0)
			return -1;
		x = &b->e[i - e->xor_offset];
		for (k = 0; k < b->nwords; k++)
			e->bits[k] ^= x->bits[k];
	}
	return 0;
}

static uint64_t idx_offset(const struct bitmap *b, uint32_t pos)
{
	uint32_t o = be32(b->off32 + 4 * (size_t)pos);
	if (o & 0x80000000u) {
		uint32_t k = o & 0x7fffffffu;
		if (k >= b->n_off64)
			return UINT64_MAX;
		return be64(b->off64 + 8 * (size_t)k);
	}
	return o;
}

/*
 * A midx's pseudo-pack order, from its RIDX chunk, which must be a
 * permutation of the midx positions; bit_of is its inverse.
 */
static int midx_order(struct bitmap *b)
{
	const unsigned char *ridx = fgit_midx_ridx(b->midx);
	uint32_t i, pack;

	b->offsets_sorted = malloc(((size_t)b->nr + 1) * sizeof(*b->offsets_sorted));
	b->idxpos_sorted = malloc(((size_t)b->nr + 1) * sizeof(*b->idxpos_sorted));
	b->bit_of = malloc(((size_t)b->nr + 1) * sizeof(*b->bit_of));
	if (!ridx || !b->offsets_sorted || !b->idxpos_sorted || !b->bit_of)
		return -1;
	memset(b->bit_of, 0xff, ((size_t)b->nr + 1) * sizeof(*b->bit_of));
	for (i = 0; i < b->nr; i++) {
		uint32_t pos = be32(ridx + 4 * (size_t)i);
		if (pos >= b->nr || b->bit_of[pos] != UINT32_MAX ||
		    fgit_midx_entry_at(&pack, &b->offsets_sorted[i], b->midx, pos) < 0)
			return -1;
		b->idxpos_sorted[i] = pos;
		b->bit_of[pos] = i;
	}
	return 0;
}

/*
 * Pack order (offsets_sorted, idxpos_sorted), built on first need: an LSD
 * radix sort of the offsets, 11 bits a pass, as many passes as the largest
 * offset needs (3 for the 295 MB history pack).  It replaced a qsort that
 * took 12% of `pack-objects --all --stdout` there; the whole-pack send
 * with OFS_DELTA needs no order at all.
 */
static int bitmap_order(struct bitmap *b)
{
	enum { DIGIT = 11, BUCKETS = 1 << DIGIT };
	uint64_t *off = NULL, *off2 = NULL, max = 0;
	uint32_t *pos = NULL, *pos2 = NULL, i;
	size_t *count = NULL;
	unsigned shift;
	int ret = -1;

	if (b->offsets_sorted)
		return 0;
	if (b->midx)
		return midx_order(b);
	off = malloc(((size_t)b->nr + 1) * sizeof(*off));
	off2 = malloc(((size_t)b->nr + 1) * sizeof(*off2));
	pos = malloc(((size_t)b->nr + 1) * sizeof(*pos));
	pos2 = malloc(((size_t)b->nr + 1) * sizeof(*pos2));
	count = malloc(BUCKETS * sizeof(*count));
	if (!off || !off2 || !pos || !pos2 || !count)
		goto out;
	for (i = 0; i < b->nr; i++) {
		off[i] = idx_offset(b, i);
		pos[i] = i;
		if (off[i] > max)
			max = off[i];
	}
	for (shift = 0; shift < 64 && (max >> shift); shift += DIGIT) {
		size_t sum = 0, k, t;
		uint64_t *ot;
		uint32_t *pt;
		memset(count, 0, BUCKETS * sizeof(*count));
		for (i = 0; i < b->nr; i++)
			count[(off[i] >> shift) & (BUCKETS - 1)]++;
		for (k = 0; k < BUCKETS; k++) {
			t = count[k];
			count[k] = sum;
			sum += t;
		}
		for (i = 0; i < b->nr; i++) {
			size_t d = count[(off[i] >> shift) & (BUCKETS - 1)]++;
			off2[d] = off[i];
			pos2[d] = pos[i];
		}
		ot = off, off = off2, off2 = ot;
		pt = pos, pos = pos2, pos2 = pt;
	}
	b->offsets_sorted = off;
	b->idxpos_sorted = pos;
	off = NULL;
	pos = NULL;
	ret = 0;
out:
	free(off);
	free(off2);
	free(pos);
	free(pos2);
	free(count);
	return ret;
}

static int bitmap_parse(struct bitmap *b, const unsigned char *hash);

static int bitmap_load(struct bitmap *b, const char *pack_path, const unsigned char *pack_hash)
{
	size_t n = strlen(pack_path);
	char *path = malloc(n + 8);	/* ".pack" -> ".bitmap" */
	const unsigned char *p;

	if (!path || n < 5)
		return free(path), -1;
	memcpy(path, pack_path, n + 1);
	strcpy(path + n - 5, ".idx");
	if (map_file(&b->idx, path) < 0) {
		free(path);
		return -1;
	}
	strcpy(path + n - 5, ".bitmap");
	if (map_file(&b->file, path) < 0) {
		free(path);
		return -1;
	}
	free(path);
	/* the .idx: v2 only */
	p = (const unsigned char *)b->idx.ptr;
	if (b->idx.len < 8 + 1024 + 40 || memcmp(p, "\377tOc", 4) || be32(p + 4) != 2)
		return -1;
	b->nr = be32(p + 8 + 255 * 4);
	if ((uint64_t)b->idx.len < 8 + 1024 + (uint64_t)b->nr * 28 + 40)
		return -1;
	b->names = p + 8 + 1024;
	b->off32 = b->names + (size_t)b->nr * 24;
	b->off64 = b->off32 + (size_t)b->nr * 4;
	b->n_off64 = (b->idx.len - 40 - (size_t)(b->off64 - p)) / 8;
	b->nwords = ((size_t)b->nr + 63) / 64;
	return bitmap_parse(b, pack_hash);
}

/* The .bitmap in b->file, for b->nr objects whose pack (or midx) has the
 * checksum hash: its header, type sets, entries and name-hash cache. */
static int bitmap_parse(struct bitmap *b, const unsigned char *hash)
{
	const unsigned char *p, *end;
	uint32_t i, count;
	uint16_t flags;
	size_t k;
	int err;

	p = (const unsigned char *)b->file.ptr;
	end = p + b->file.len;
	if (b->file.len < 32 + 20 || memcmp(p, "BITM", 4) || (p[4] << 8 | p[5]) != 1 ||
	    memcmp(p + 12, hash, 20))
		return -1;
	count = be32(p + 8);
	flags = (uint16_t)(p[6] << 8 | p[7]);
	p += 32;
	for (k = 0; k < 4; k++) {	/* commits, trees, blobs, tags */
		size_t s = ewah_size(p, (size_t)(end - p));
		if (!s)
			return -1;
		b->type_off[k] = (size_t)(p - (const unsigned char *)b->file.ptr);
		p += s;
	}
	if (count > b->nr)
		return -1;
	b->e = calloc((size_t)count + 1, sizeof(*b->e));
	if (!b->e)
		return -1;
	for (i = 0; i < count; i++) {
		struct bentry *e = &b->e[i];
		uint32_t pos;
		size_t s;
		if (end - p < 6)
			return -1;
		pos = be32(p);
		e->xor_offset = p[4];
		p += 6;
		s = ewah_size(p, (size_t)(end - p));
		if (!s || pos >= b->nr || e->xor_offset > MAX_XOR_OFFSET)
			return -1;
		e->ewah_off = (size_t)(p - (const unsigned char *)b->file.ptr);
		e->no = i;
		fgit_oid_from_raw(&e->oid, b->names + (size_t)pos * 20, FGIT_HASH_SHA1);
		p += s;
		b->ne = i + 1;
		fgit_oidmap_put(&b->map, e, &err);
		if (err)
			return -1;
	}
	/* the name-hash cache follows the entries; 20 bytes of checksum end
	 * the file */
	if ((flags & BITMAP_HASH_CACHE) && (uint64_t)(end - p) >= (uint64_t)b->nr * 4 + 20)
		b->hashes = p;
	return 0;
}

/* Bit (pack-order position) of the object at offset off, or -1. */
static long pack_pos(struct bitmap *b, uint64_t off)
{
	size_t lo = 0, hi = b->nr;
	if (bitmap_order(b) < 0)
		return -1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->offsets_sorted[mid] == off)
			return (long)mid;
		if (b->offsets_sorted[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Pack-order position of oid, or -1 if the pack lacks it. */
static long oid_pos(struct bitmap *b, const struct fgit_oid *oid)
{
	const unsigned char *p = (const unsigned char *)b->idx.ptr + 8;
	uint32_t mpos;

	if (b->midx) {
		if (!fgit_midx_find(&mpos, b->midx, oid) || bitmap_order(b) < 0)
			return -1;
		return (long)b->bit_of[mpos];
	}
	uint32_t lo = oid->hash[0] ? be32(p + 4 * (oid->hash[0] - 1)) : 0;
	uint32_t hi = be32(p + 4 * oid->hash[0]);
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = memcmp(b->names + (size_t)mid * 20, oid->hash, 20);
		if (!c)
			return pack_pos(b, idx_offset(b, mid));
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

struct tips_ctx {
	struct bitmap *b;
	struct fgit_odb *odb;
	uint64_t *result;
	int ok;
};

static inline int bit_test(const uint64_t *r, long bit)
{
	return (r[bit / 64] >> (bit % 64)) & 1;
}

static inline void bit_set(uint64_t *r, long bit)
{
	r[bit / 64] |= (uint64_t)1 << (bit % 64);
}

/* Objects of a tree not yet in the result (a tree already in it brings
 * everything under it along). */
static int fill_tree(struct tips_ctx *c, const struct fgit_oid *tree, int depth)
{
	struct fgit_tree_iter it;
	struct fgit_tree_entry e;
	enum fgit_object_type t;
	void *buf;
	size_t len;
	long bit = oid_pos(c->b, tree);
	int r, ret = 0;

	if (bit < 0 || depth > 4096)
		return -1;
	if (bit_test(c->result, bit))
		return 0;
	bit_set(c->result, bit);
	if (fgit_odb_read(&buf, &len, &t, c->odb, tree) < 0 || t != FGIT_OBJ_TREE)
		return -1;
	fgit_tree_iter_init(&it, buf, len, FGIT_HASH_SHA1);
	while (!ret && (r = fgit_tree_iter_next(&e, &it)) > 0) {
		if ((e.mode & 0170000) == FGIT_MODE_GITLINK)
			continue;
		if (fgit_mode_is_tree(e.mode)) {
			ret = fill_tree(c, &e.oid, depth + 1);
		} else {
			long bb = oid_pos(c->b, &e.oid);
			if (bb < 0)
				ret = -1;
			else
				bit_set(c->result, bb);
		}
	}
	free(buf);
	return ret;
}

/*
 * A commit without a bitmap: walk back to commits with one (OR-ing their
 * sets first), then add the commits in between and what their trees hold
 * beyond that, as git's bitmap walk does for tips the bitmap lacks.
 */
static int add_commit_walk(struct tips_ctx *c, const struct fgit_oid *tip)
{
	struct fgit_oid *stack = NULL, *todo = NULL;
	size_t ns = 0, as = 0, nt = 0, at = 0, i, k;
	int ret = 0;

#define PUSH(arr, n, a, v) do { \
	if (n == a) { \
		size_t na_ = a ? a * 2 : 64; \
		struct fgit_oid *nv_ = realloc(arr, na_ * sizeof(*nv_)); \
		if (!nv_) { ret = -1; goto out; } \
		arr = nv_; a = na_; \
	} \
	arr[n++] = (v); \
} while (0)

	PUSH(stack, ns, as, *tip);
	while (ns) {
		struct fgit_oid cur = stack[--ns];
		struct bentry *e = fgit_oidmap_get(&c->b->map, &cur);
		long bit = oid_pos(c->b, &cur);
		struct fgit_commit cm;
		enum fgit_object_type t;
		void *buf;
		size_t len;

		if (bit < 0) {
			ret = -1;
			goto out;
		}
		if (bit_test(c->result, bit))
			continue;
		if (e) {
			if (decode_entry(c->b, e->no, 0) < 0) {
				ret = -1;
				goto out;
			}
			for (k = 0; k < c->b->nwords; k++)
				c->result[k] |= e->bits[k];
			continue;
		}
		bit_set(c->result, bit);
		if (fgit_odb_read(&buf, &len, &t, c->odb, &cur) < 0 || t != FGIT_OBJ_COMMIT ||
		    fgit_commit_parse(&cm, buf, len, FGIT_HASH_SHA1) < 0) {
			free(buf);
			ret = -1;
			goto out;
		}
		PUSH(todo, nt, at, cm.tree);
		for (i = 0; i < cm.nparents; i++) {
			struct fgit_oid par;
			fgit_commit_parent(&par, &cm, i);
			PUSH(stack, ns, as, par);
		}
		free(buf);
	}
	for (i = 0; i < nt && !ret; i++)
		ret = fill_tree(c, &todo[i], 0);
#undef PUSH
out:
	free(stack);
	free(todo);
	return ret;
}

static int add_tip(struct tips_ctx *c, const struct fgit_oid *tip)
{
	struct fgit_oid cur = *tip;
	int hops = 0;

	for (;;) {
		struct bentry *e = fgit_oidmap_get(&c->b->map, &cur);
		void *buf;
		size_t len, k;
		enum fgit_object_type t;
		struct fgit_tag tag;
		long bit;

		if (e) {
			if (decode_entry(c->b, e->no, 0) < 0)
				return -1;
			for (k = 0; k < c->b->nwords; k++)
				c->result[k] |= e->bits[k];
			return 0;
		}
		if ((bit = oid_pos(c->b, &cur)) < 0)
			return -1;	/* not in the pack */
		if (fgit_odb_read(&buf, &len, &t, c->odb, &cur) < 0)
			return -1;
		if (t == FGIT_OBJ_COMMIT) {
			free(buf);
			return add_commit_walk(c, &cur);
		}
		if (t != FGIT_OBJ_TAG || fgit_tag_parse(&tag, buf, len, FGIT_HASH_SHA1) < 0 ||
		    ++hops > 100) {
			free(buf);
			return -1;	/* a tree or blob tip: walk instead */
		}
		free(buf);
		bit_set(c->result, bit);
		cur = tag.object;
	}
}

static int tip_ref_cb(const char *name, const struct fgit_oid *oid, unsigned int flags,
		      void *payload)
{
	struct tips_ctx *c = payload;
	if (flags & FGIT_REF_BROKEN)
		return 0;
	if (add_tip(c, oid) < 0) {
		c->ok = 0;
		return 1;
	}
	return 0;
}

/*
 * The pack's entries, read with pread() through a 1 MiB window rather than
 * mapped (see writer.c): the bytes are copied once more, but from cache.
 */
#define WINDOW_CAP (1u << 20)
#define ENTRY_HDR_MAX 32	/* type and size (<= 10 bytes), OFS base (<= 10) */

struct pack_window {
	int fd;
	unsigned char *buf;
	size_t len;
	uint64_t off;		/* file offset of buf[0] */
	uint64_t limit;		/* where the entries end (the trailer) */
};

/* Bytes [off, off + want) at the returned pointer (want <= WINDOW_CAP),
 * or NULL with an error set. */
static const unsigned char *window_at(struct pack_window *w, uint64_t off, size_t want,
				      const char *path)
{
	size_t n;

	if (off >= w->off && off + want <= w->off + w->len)
		return w->buf + (off - w->off);
	n = w->limit - off < WINDOW_CAP ? (size_t)(w->limit - off) : WINDOW_CAP;
	w->off = off;
	w->len = 0;
	while (w->len < n) {
		ssize_t r = pread(w->fd, w->buf + w->len, n - w->len, (off_t)(off + w->len));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0)
				fgit_error_errno(FGIT_ERROR, "read error on %s", path);
			else
				fgit_error_set(FGIT_ERROR, "premature end of %s", path);
			return NULL;
		}
		w->len += (size_t)r;
	}
	if (want > w->len) {
		fgit_error_set(FGIT_ERROR, "premature end of %s", path);
		return NULL;
	}
	return w->buf;
}

/* Entry i (pack order) with each OFS_DELTA base offset replaced by the
 * base's id (REF_DELTA). */
static int send_entry_ref(struct pack_writer *o, struct pack_window *w, struct bitmap *b,
			  uint32_t i, const char *path)
{
	uint64_t off = b->offsets_sorted[i];
	uint64_t end = i + 1 < b->nr ? b->offsets_sorted[i + 1] : w->limit;
	uint64_t rel, size;
	const unsigned char *e;
	unsigned char hdr[ENTRY_HDR_MAX];
	size_t want, p = 0, hl = 0;
	long base;
	int ret;

	if (end > w->limit || off >= end)
		return fgit_error_set(FGIT_EINVALID, "bad pack entry at offset %llu in %s",
				      (unsigned long long)off, path);
	size = end - off;
	want = size <= WINDOW_CAP ? (size_t)size : ENTRY_HDR_MAX;
	if (!(e = window_at(w, off, want, path)))
		return FGIT_ERROR;
	if (((e[0] >> 4) & 7) != FGIT_OBJ_OFS_DELTA)
		return size <= WINDOW_CAP ? pw_put(o, e, (size_t)size, NULL)
					  : pw_copy_fd(o, w->fd, off, size);
	/* the same size bytes, the type changed to REF_DELTA */
	hdr[hl++] = (unsigned char)((e[0] & 0x8f) | (FGIT_OBJ_REF_DELTA << 4));
	while (e[p] & 0x80 && p < 10 && p + 1 < want)
		hdr[hl++] = e[++p];
	if (e[p++] & 0x80 || p >= want)
		return fgit_error_set(FGIT_EINVALID, "bad pack entry at offset %llu in %s",
				      (unsigned long long)off, path);
	rel = e[p] & 0x7f;
	while (e[p] & 0x80 && p < 20 && p + 1 < want)
		rel = ((rel + 1) << 7) | (e[++p] & 0x7f);
	base = !(e[p++] & 0x80) && p < want && rel <= off ? pack_pos(b, off - rel) : -1;
	if (base < 0)
		return fgit_error_set(FGIT_EINVALID, "bad delta base at offset %llu in %s",
				      (unsigned long long)off, path);
	if ((ret = pw_put(o, hdr, hl, NULL)) < 0 ||
	    (ret = pw_put(o, b->names + (size_t)b->idxpos_sorted[base] * 20, 20, NULL)) < 0)
		return ret;
	return size <= WINDOW_CAP ? pw_put(o, e + p, (size_t)size - p, NULL)
				  : pw_copy_fd(o, w->fd, off + p, size - p);
}

/*
 * Send the whole pack: as it is with ofs_delta, else with each OFS_DELTA
 * entry rewritten to REF_DELTA, as git rewrites reused entries for a
 * client that did not ask for OFS_DELTA.
 */
static int send_pack(int out_fd, const char *path, struct bitmap *b, int ofs_delta)
{
	struct pack_writer o;
	struct pack_window w = { -1, NULL, 0, 0, 0 };
	struct stat st;
	unsigned char trailer[20];
	uint32_t i;
	int ret;

	w.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (w.fd < 0 || fstat(w.fd, &st) < 0) {
		ret = fgit_error_errno(FGIT_ERROR, "unable to open %s", path);
		goto out;
	}
	if (st.st_size < 32) {
		ret = fgit_error_set(FGIT_EINVALID, "%s is too small to be a pack", path);
		goto out;
	}
	w.limit = (uint64_t)st.st_size - 20;
	if ((ret = pw_init(&o, out_fd, FGIT_HASH_SHA1)) < 0)
		goto out;
	if (ofs_delta) {
		ret = pw_copy_fd(&o, w.fd, 0, w.limit);
	} else if (bitmap_order(b) < 0 || !(w.buf = malloc(WINDOW_CAP))) {
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
	} else {
		ret = pw_copy_fd(&o, w.fd, 0, 12);
		for (i = 0; !ret && i < b->nr; i++)
			ret = send_entry_ref(&o, &w, b, i, path);
	}
	if (!ret)
		ret = pw_finish(&o, trailer, 20);
	pw_release(&o);
out:
	free(w.buf);
	if (w.fd >= 0)
		close(w.fd);
	return ret;
}

/* The .bitmap beside pack_path (its pack's checksum read from the pack's
 * trailer): 0, or -1 when there is none to use. */
static int bitmap_load_path(struct bitmap *b, const char *pack_path)
{
	unsigned char hash[20];
	off_t size;
	int fd;

	memset(b, 0, sizeof(*b));
	fd = open(pack_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size = lseek(fd, 0, SEEK_END);
	if (size < 32 || pread(fd, hash, 20, size - 20) != 20) {
		close(fd);
		return -1;
	}
	close(fd);
	return bitmap_load(b, pack_path, hash);
}

/*
 * Load the .bitmap of the database's only pack (no alternates, SHA-1):
 * 0 and *pack_path (borrowed), or -1 when there is none to use.
 */
static int bitmap_open_single(struct bitmap *b, const char **pack_path, struct fgit_odb *odb)
{
	const char *alts[1];

	memset(b, 0, sizeof(*b));
	if (fgit_odb_algo(odb) != FGIT_HASH_SHA1 || fgit_odb_pack_count(odb) != 1 ||
	    fgit_odb_alternates(odb, alts, 1) != 0)
		return -1;
	*pack_path = fgit_odb_pack_path(odb, 0);
	return bitmap_load_path(b, *pack_path);
}

/*
 * The multi-pack bitmap of the database's multi-pack-index: 0, or -1 when
 * there is none to use (no midx, no RIDX chunk, a pack of the midx gone,
 * no multi-pack-index-<checksum>.bitmap, or one whose header names
 * another midx: a stale bitmap is never read).
 */
static int bitmap_load_midx(struct bitmap *b, struct fgit_odb *odb)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	struct fgit_oid sum;
	struct stat st;
	char hex[FGIT_MAX_HEXSZ + 1];
	const char *objdir = fgit_odb_path(odb);
	uint32_t i;
	int ret = -1;

	memset(b, 0, sizeof(*b));
	if (fgit_buf_addf(&path, "%s/pack/multi-pack-index", objdir) < 0 ||
	    fgit_midx_open(&b->midx, path.ptr, FGIT_HASH_SHA1) < 0 || !fgit_midx_ridx(b->midx))
		goto out;
	for (i = 0; i < fgit_midx_num_packs(b->midx); i++) {
		const char *name = fgit_midx_pack_name(b->midx, i);
		size_t n = strlen(name);
		if (n > 4 && !strcmp(name + n - 4, ".idx"))
			n -= 4;
		fgit_buf_setlen(&path, 0);
		if (fgit_buf_addf(&path, "%s/pack/%.*s.pack", objdir, (int)n, name) < 0 ||
		    stat(path.ptr, &st) < 0)
			goto out;
	}
	fgit_oid_from_raw(&sum, fgit_midx_checksum(b->midx), FGIT_HASH_SHA1);
	fgit_buf_setlen(&path, 0);
	if (fgit_buf_addf(&path, "%s/pack/multi-pack-index-%s.bitmap", objdir,
			  fgit_oid_to_hex(hex, &sum)) < 0 || map_file(&b->file, path.ptr) < 0)
		goto out;
	b->nr = fgit_midx_num_objects(b->midx);
	if (!b->nr)
		goto out;
	b->names = fgit_midx_oid_raw(b->midx, 0);
	b->nwords = ((size_t)b->nr + 63) / 64;
	ret = bitmap_parse(b, fgit_midx_checksum(b->midx));
out:
	fgit_buf_release(&path);
	return ret;
}

/*
 * The bitmap to count from, as git 2.39 picks it: the midx's when it has
 * a usable one, else the .bitmap of the database's only pack (SHA-1, no
 * alternates either way).  0, or -1 when there is none.
 */
static int bitmap_open(struct bitmap *b, struct fgit_odb *odb)
{
	const char *alts[1], *pack_path;

	memset(b, 0, sizeof(*b));
	if (fgit_odb_algo(odb) != FGIT_HASH_SHA1 || fgit_odb_alternates(odb, alts, 1) != 0)
		return -1;
	if (bitmap_load_midx(b, odb) == 0)
		return 0;
	bitmap_release(b);
	return bitmap_open_single(b, &pack_path, odb);
}

int fgit_pack_bitmap_send_all(uint32_t *count_out, struct fgit_odb *odb,
			      struct fgit_refdb *refdb, int fd, int ofs_delta, int progress_fd)
{
	struct bitmap b;
	struct tips_ctx c;
	struct fgit_oid head;
	const char *pack_path;
	size_t k;
	uint64_t bits = 0;
	int ret = 1;

	if (bitmap_open_single(&b, &pack_path, odb) < 0)
		goto out;
	memset(&c, 0, sizeof(c));
	c.b = &b;
	c.odb = odb;
	c.ok = 1;
	c.result = calloc(b.nwords + 1, 8);
	if (!c.result)
		goto out;
	if (fgit_refdb_foreach(refdb, "refs/", tip_ref_cb, &c) < 0 || !c.ok)
		goto out_result;
	if (fgit_refdb_resolve(&head, NULL, NULL, refdb, "HEAD") == 0 && add_tip(&c, &head) < 0)
		goto out_result;
	for (k = 0; k < b.nwords; k++)
		bits += (uint64_t)__builtin_popcountll(c.result[k]);
	if (bits != b.nr)
		goto out_result;	/* NEEDSWORK: send part of a pack from a bitmap */
	if (progress_fd >= 0) {
		struct fgit_progress *p = fgit_progress_new("Enumerating objects", 0, progress_fd, 0);
		fgit_progress_set(p, b.nr);
		fgit_progress_done(p);
	}
	ret = send_pack(fd, pack_path, &b, ofs_delta);
	if (!ret)
		*count_out = b.nr;
out_result:
	free(c.result);
out:
	bitmap_release(&b);
	if (ret == 1)
		fgit_error_clear();	/* not usable: the caller walks instead */
	return ret;
}

/*
 * Counting for repack -a from the old bitmap (git counts from it too):
 * the union of the tips' sets replaces the walk of every tree in the
 * history, and the type bitmaps and the name-hash cache give what the
 * walk would have said of each object.  Objects come in the old pack's
 * order, which is the order its writer chose (recency, then families).
 */
int pack_bitmap_reachable(struct fgit_odb *odb, const struct fgit_oid *tips, size_t ntips,
			  pack_bitmap_obj_cb cb, void *payload)
{
	static const enum fgit_object_type types[4] = {
		FGIT_OBJ_COMMIT, FGIT_OBJ_TREE, FGIT_OBJ_BLOB, FGIT_OBJ_TAG
	};
	struct bitmap b;
	struct tips_ctx c;
	uint64_t *type_bits = NULL;
	size_t i, k;
	int t, ret = 1;

	memset(&c, 0, sizeof(c));
	if (bitmap_open(&b, odb) < 0 || !b.hashes || bitmap_order(&b) < 0)
		goto out;
	c.b = &b;
	c.odb = odb;
	c.ok = 1;
	c.result = calloc(b.nwords + 1, 8);
	type_bits = calloc(4 * b.nwords + 1, 8);
	if (!c.result || !type_bits)
		goto out;
	for (i = 0; i < ntips; i++)
		if (add_tip(&c, &tips[i]) < 0)
			goto out;
	for (t = 0; t < 4; t++)
		if (ewah_decode(type_bits + (size_t)t * b.nwords, b.nwords,
				(const unsigned char *)b.file.ptr + b.type_off[t],
				b.file.len - b.type_off[t]) < 0)
			goto out;
	/* every object must have a type before the first is handed out */
	for (k = 0; k < b.nwords; k++) {
		uint64_t any = 0;
		for (t = 0; t < 4; t++)
			any |= type_bits[(size_t)t * b.nwords + k];
		if (c.result[k] & ~any)
			goto out;
	}
	for (k = 0; k < b.nwords; k++) {
		uint64_t w = c.result[k];
		while (w) {
			uint32_t pos = (uint32_t)(k * 64 + (size_t)__builtin_ctzll(w));
			uint64_t m = w & -w;
			struct fgit_oid oid;
			w &= w - 1;
			for (t = 0; t < 3 && !(type_bits[(size_t)t * b.nwords + k] & m); t++)
				;
			fgit_oid_from_raw(&oid, b.names + (size_t)b.idxpos_sorted[pos] * 20,
					  FGIT_HASH_SHA1);
			if ((ret = cb(&oid, types[t], be32(b.hashes + 4 * (size_t)pos),
				      b.offsets_sorted[pos], payload)) != 0) {
				if (ret > 0)
					ret = fgit_error_set(FGIT_ERROR, "bitmap callback stopped");
				goto out;
			}
		}
	}
	ret = 0;
out:
	free(type_bits);
	free(c.result);
	bitmap_release(&b);
	if (ret == 1)
		fgit_error_clear();	/* not usable: the caller walks instead */
	return ret;
}

/* ---- an old bitmap, for the writer to reuse ---- */

struct pack_old_bitmap {
	struct bitmap b;
};

int pack_old_bitmap_open(struct pack_old_bitmap **out, const char *pack_path)
{
	struct pack_old_bitmap *ob = calloc(1, sizeof(*ob));

	if (!ob)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	if (bitmap_load_path(&ob->b, pack_path) < 0 || bitmap_order(&ob->b) < 0) {
		pack_old_bitmap_free(ob);
		fgit_error_clear();
		return 1;
	}
	*out = ob;
	return 0;
}

void pack_old_bitmap_free(struct pack_old_bitmap *ob)
{
	if (!ob)
		return;
	bitmap_release(&ob->b);
	free(ob);
}

uint32_t pack_old_bitmap_count(const struct pack_old_bitmap *ob)
{
	return ob->b.nr;
}

const unsigned char *pack_old_bitmap_id(const struct pack_old_bitmap *ob, uint32_t pos)
{
	return ob->b.names + (size_t)ob->b.idxpos_sorted[pos] * 20;
}

long pack_old_bitmap_find(const struct pack_old_bitmap *ob, const struct fgit_oid *commit)
{
	const struct bentry *e = fgit_oidmap_get(&ob->b.map, commit);
	return e ? (long)e->no : -1;
}

const uint64_t *pack_old_bitmap_bits(struct pack_old_bitmap *ob, long entry)
{
	if (entry < 0 || (uint32_t)entry >= ob->b.ne || decode_entry(&ob->b, (uint32_t)entry, 0) < 0)
		return NULL;
	return ob->b.e[entry].bits;
}
