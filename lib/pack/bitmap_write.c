/*
 * Writing pack reachability bitmaps (gitformat-bitmap v1, the .bitmap git
 * writes beside a pack with `repack -b`).
 *
 * For a set of selected commits, the file stores every object each one
 * reaches, one bit per object in pack order, EWAH-compressed and XORed
 * with one of the ten entries before it when that is smaller.  Then the
 * name hash of every object (pack.writeBitmapHashCache), then a SHA-1 of
 * the file.
 *
 * Selection follows git's idea: commits newest first by committer date,
 * the newest hundred all taken, then one in every few commits with the
 * spacing growing to 100 and, past 20,000 commits, to 5,000; within a
 * stretch a commit a ref points to is preferred, since fetches and
 * clones start from refs.
 *
 * Building: every commit in the pack is parsed once, on all threads,
 * into parent and tree positions.  Selected commits are then built
 * oldest first: a walk from the commit stops at commits already in the
 * set and takes the whole set of a selected commit built before; only
 * then are the trees of the commits it walked filled in, each tree
 * skipped when its bit is already set, so the objects a commit shares
 * with an older selected one are never read again.
 */
#include <stdlib.h>
#include <string.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/ewah.h"
#include "fgit/hash.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/progress.h"
#include "fgit/refs.h"
#include "fgit/thread.h"
#include "pack/pack_internal.h"

#define BITMAP_OPT_FULL_DAG 0x1
#define BITMAP_OPT_HASH_CACHE 0x4
#define MAX_XOR_TRIES 10
#define NONE UINT32_MAX
/* trees whose entry lists share one allocation */
#define KIDS_BLOCK 1024
/*
 * The delta-base cache while reading every tree in pack order.  On the
 * history corpus (317,516 trees, 2 threads, loaded machine) a cap of
 * 8 MiB read them in 2.7 s of CPU, against 3.7 s and 90 MB more of heap
 * with the default 96 MiB: a base is used again soon after it is built,
 * and a large cache only costs evictions.
 */
#define TREES_CACHE_LIMIT (8u << 20)

struct bcommit {
	uint32_t pos;			/* bit */
	uint32_t tree;			/* bit of the root tree */
	uint32_t nparents;
	uint32_t *parents;		/* commit numbers */
	int64_t date;
	int tip;			/* a ref points to it */
	long old;			/* its entry in the old bitmap, -1 */
	uint64_t *bits;			/* its set, once built (selected only) */
};

/* The id beside its bit: one cache miss per lookup, not two. */
struct slot {
	unsigned char hash[20];
	uint32_t bitp1;			/* bit + 1; 0: empty */
};

struct bw {
	const struct bitmap_src *s;
	struct fgit_odb *odb;
	struct pack_old_bitmap *old;	/* NULL: none to reuse */
	uint32_t *old2new;		/* old bit -> new bit, NONE */
	uint32_t old_nr;
	size_t nwords;
	uint32_t *sorted;		/* bits in object-id order */
	struct slot *ht;		/* id -> bit, open addressing; freed once
					 * every tree is read (NULL) */
	size_t mask;
	uint32_t *commit_of;		/* bit -> commit number, NONE */
	struct bcommit *c;
	uint32_t nc;
	/* bit -> a tree's entries as bits, read once for every tree before
	 * building (NULL: not read, or a child is missing: fill_tree reads
	 * it again and reports).  A list is its nkids bits in ascending
	 * order, each coded as the LEB128 varint of its distance from the one
	 * before (the first: from 0), and lives in the arena of its block of
	 * KIDS_BLOCK trees; whether an entry is a subtree is told by its
	 * type.  On the history corpus the 30.5 million entries of 317,516
	 * trees take 39 MB so (1.3 bytes each), not the 122 MB of uint32
	 * lists with a malloc each. */
	unsigned char **kids;
	uint32_t *nkids;
	unsigned char **arena;		/* one a block of treepos */
	uint32_t *treepos;		/* bits of the trees, in pack order */
	uint32_t ntrees;
	/* the first object that could not be read or was missing, from any
	 * thread; reported by the caller's thread */
	int failed;
	struct fgit_oid bad;
	int bad_missing;
};

static int cmp_oid_pos(const void *a, const void *b, void *arg)
{
	const struct bitmap_src *s = arg;
	return memcmp(s->oid[*(const uint32_t *)a].hash, s->oid[*(const uint32_t *)b].hash, 20);
}

static size_t slot_of_raw(const struct bw *w, const unsigned char *hash)
{
	uint64_t h;
	memcpy(&h, hash, sizeof(h));		/* ids are uniformly distributed */
	return (size_t)h & w->mask;
}

static size_t slot_of(const struct bw *w, const struct fgit_oid *oid)
{
	return slot_of_raw(w, oid->hash);
}

/*
 * Bit of oid, or -1 when the pack lacks it.  A hash table, not a binary
 * search: every entry of every tree read is looked up, and on the history
 * corpus (500,000 objects) the binary search's memcmp calls took 70% of
 * the build (perf, 2 cores under load); with the ids in the slots, a
 * lookup is one cache miss.
 */
static long lookup_raw(const struct bw *w, const unsigned char *hash)
{
	size_t i = slot_of_raw(w, hash);

	for (;; i = (i + 1) & w->mask) {
		const struct slot *sl = &w->ht[i];
		if (!sl->bitp1)
			return -1;
		if (!memcmp(sl->hash, hash, 20))
			return sl->bitp1 - 1;
	}
}

static long lookup(const struct bw *w, const struct fgit_oid *oid)
{
	return lookup_raw(w, oid->hash);
}

static void fail(struct bw *w, const struct fgit_oid *oid, int missing)
{
	int expected = 0;
	if (__atomic_compare_exchange_n(&w->failed, &expected, 1, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		w->bad = *oid;
		w->bad_missing = missing;
	}
}

static int report(const struct bw *w)
{
	char hex[FGIT_MAX_HEXSZ + 1];
	fgit_oid_to_hex(hex, &w->bad);
	if (w->bad_missing)
		return fgit_error_set(FGIT_EINVALID, "Failed to write bitmap index. Packfile "
				      "doesn't have full closure (object %s is missing)", hex);
	return fgit_error_set(FGIT_EINVALID, "unable to read object %s for the bitmap", hex);
}

static int parse_chunk(size_t begin, size_t end, int worker, void *payload)
{
	struct bw *w = payload;
	size_t i, k;

	for (i = begin; i < end && !__atomic_load_n(&w->failed, __ATOMIC_RELAXED); i++) {
		struct bcommit *c = &w->c[i];
		const struct fgit_oid *oid = &w->s->oid[c->pos];
		struct fgit_commit cm;
		enum fgit_object_type t;
		void *buf = NULL;
		size_t len;
		long p;

		if (fgit_odb_read(&buf, &len, &t, w->odb, oid) < 0 || t != FGIT_OBJ_COMMIT ||
		    fgit_commit_parse(&cm, buf, len, FGIT_HASH_SHA1) < 0) {
			free(buf);
			fail(w, oid, 0);
			return -1;
		}
		c->date = cm.committer_time;
		if ((p = lookup(w, &cm.tree)) < 0) {
			free(buf);
			fail(w, &cm.tree, 1);
			return -1;
		}
		c->tree = (uint32_t)p;
		c->nparents = (uint32_t)cm.nparents;
		if (cm.nparents && !(c->parents = malloc(cm.nparents * sizeof(uint32_t)))) {
			free(buf);
			return FGIT_ENOMEM;
		}
		for (k = 0; k < cm.nparents; k++) {
			struct fgit_oid par;
			fgit_commit_parent(&par, &cm, k);
			p = lookup(w, &par);
			if (p < 0 || w->commit_of[p] == NONE) {
				free(buf);
				fail(w, &par, 1);
				return -1;
			}
			c->parents[k] = w->commit_of[p];
		}
		free(buf);
	}
	return 0;
}

static inline int bit_test(const uint64_t *r, uint32_t bit)
{
	return (r[bit / 64] >> (bit % 64)) & 1;
}

static inline void bit_set(uint64_t *r, uint32_t bit)
{
	r[bit / 64] |= (uint64_t)1 << (bit % 64);
}

/* Everything under tree (bit) that is not in r yet. */
static int fill_tree(struct bw *w, uint64_t *r, uint32_t bit, int depth)
{
	const struct fgit_oid *oid = &w->s->oid[bit];
	struct fgit_tree_iter it;
	struct fgit_tree_entry e;
	enum fgit_object_type t;
	void *buf;
	size_t len;
	int n, ret = 0;

	if (bit_test(r, bit))
		return 0;
	bit_set(r, bit);
	if (w->kids[bit]) {
		const unsigned char *k = w->kids[bit];
		uint32_t j, nk = w->nkids[bit], b = 0;
		if (depth > 4096) {
			fail(w, oid, 0);
			return -1;
		}
		for (j = 0; j < nk; j++) {
			uint32_t gap = 0;
			int sh = 0;
			do
				gap |= (uint32_t)(*k & 0x7f) << sh, sh += 7;
			while (*k++ & 0x80);
			b += gap;
			if (w->s->type[b] != FGIT_OBJ_TREE)
				bit_set(r, b);
			else if (!bit_test(r, b) && fill_tree(w, r, b, depth + 1) < 0)
				return -1;
		}
		return 0;
	}
	/* without the id table every tree was read before: this is not one */
	if (depth > 4096 || !w->ht || fgit_odb_read(&buf, &len, &t, w->odb, oid) < 0 ||
	    t != FGIT_OBJ_TREE) {
		fail(w, oid, 0);
		return -1;
	}
	fgit_tree_iter_init(&it, buf, len, FGIT_HASH_SHA1);
	while (!ret && (n = fgit_tree_iter_next(&e, &it)) > 0) {
		long p;
		if ((e.mode & 0170000) == FGIT_MODE_GITLINK)
			continue;
		if ((p = lookup(w, &e.oid)) < 0) {
			fail(w, &e.oid, 1);
			ret = -1;
		} else if (fgit_mode_is_tree(e.mode)) {
			ret = fill_tree(w, r, (uint32_t)p, depth + 1);
		} else {
			bit_set(r, (uint32_t)p);
		}
	}
	if (!ret && n < 0) {
		fail(w, oid, 0);
		ret = -1;
	}
	free(buf);
	return ret;
}

struct u32vec {
	uint32_t *v;
	size_t n, alloc;
};

/* Room for n more in *v (of *alloc, elements of size sz). */
static int reserve(void **v, size_t *alloc, size_t n, size_t sz)
{
	void *nv;
	size_t na;

	if (n <= *alloc)
		return 0;
	for (na = *alloc ? *alloc : 64; na < n; na *= 2)
		;
	if (!(nv = realloc(*v, na * sz)))
		return FGIT_ENOMEM;
	*v = nv;
	*alloc = na;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Scratch of one thread reading trees. */
struct tree_scratch {
	const unsigned char **ids;
	uint32_t *v;			/* entries' bits */
	size_t alloc, ids_alloc;
	unsigned char *codes;		/* the block's lists */
	size_t ncodes, codes_alloc;
	size_t *at;			/* each tree's list in codes; SIZE_MAX: none */
};

/*
 * The entries of tree `bit` as bits into x->v (*n of them): 0, or 1 when
 * it cannot be read, is odd or names an object the pack lacks (left for
 * fill_tree, which reports it only if a selected commit reaches it), or
 * an error.  The entries (96 a tree on average on the history corpus) are
 * looked up in two passes, the first prefetching each id's slot, so that
 * their cache misses overlap.
 */
static int tree_bits(struct bw *w, struct tree_scratch *x, uint32_t bit, size_t *n)
{
	enum fgit_object_type t;
	const unsigned char *p, *e;
	void *buf;
	size_t len, j;
	int ret = 0, bad = 0;

	*n = 0;
	if (fgit_odb_read(&buf, &len, &t, w->odb, &w->s->oid[bit]) < 0)
		return 1;
	if (t != FGIT_OBJ_TREE) {
		free(buf);
		return 1;
	}
	/* "<octal mode> <name>\0<20-byte id>"; anything odd is left to
	 * fill_tree's fgit_tree_iter, which says what is wrong */
	for (p = buf, e = p + len; p < e;) {
		const unsigned char *nul;
		unsigned int mode = 0;

		if ((size_t)(e - p) < 24 || *p == ' ' ||
		    !(nul = memchr(p, '\0', (size_t)(e - p) - 20))) {
			bad = 1;
			break;
		}
		for (; p < nul && *p != ' '; p++) {
			if (*p < '0' || *p > '7' || mode > (~0u >> 3))
				break;
			mode = (mode << 3) | (unsigned)(*p - '0');
		}
		if (p == nul || *p != ' ' || p + 1 == nul) {
			bad = 1;
			break;
		}
		p = nul + 21;
		if ((mode & 0170000) == FGIT_MODE_GITLINK)
			continue;
		if ((ret = reserve((void **)&x->ids, &x->ids_alloc, *n + 1, sizeof(*x->ids))) < 0 ||
		    (ret = reserve((void **)&x->v, &x->alloc, *n + 1, sizeof(*x->v))) < 0)
			break;
		x->ids[*n] = nul + 1;
		/* a subtree is told by its type in the pack when filling */
		x->v[(*n)++] = fgit_mode_is_tree(mode);
		__builtin_prefetch(&w->ht[slot_of_raw(w, nul + 1)]);
	}
	for (j = 0; !ret && !bad && j < *n; j++) {
		long pos = lookup_raw(w, x->ids[j]);
		if (pos < 0 || x->v[j] != (w->s->type[pos] == FGIT_OBJ_TREE))
			bad = 1;
		else
			x->v[j] = (uint32_t)pos;
	}
	free(buf);
	return ret < 0 ? ret : bad;
}

/* Trees treepos[begin, end) (one block at most) into kids/nkids. */
static int read_block(struct bw *w, struct tree_scratch *x, size_t begin, size_t end)
{
	size_t i, j, n;
	int ret;

	x->ncodes = 0;
	for (i = begin; i < end; i++) {
		uint32_t last = 0;

		x->at[i - begin] = SIZE_MAX;
		if ((ret = tree_bits(w, x, w->treepos[i], &n)) < 0)
			return ret;
		if (ret)
			continue;
		if ((ret = reserve((void **)&x->codes, &x->codes_alloc, x->ncodes + n * 5,
				   1)) < 0)
			return ret;
		qsort(x->v, n, sizeof(*x->v), cmp_u32);
		x->at[i - begin] = x->ncodes;
		for (j = 0; j < n; j++) {
			uint32_t gap = x->v[j] - last;
			last = x->v[j];
			for (; gap >= 0x80; gap >>= 7)
				x->codes[x->ncodes++] = (unsigned char)(gap | 0x80);
			x->codes[x->ncodes++] = (unsigned char)gap;
		}
		w->nkids[w->treepos[i]] = (uint32_t)n;
	}
	if (!(w->arena[begin / KIDS_BLOCK] = malloc(x->ncodes + 1)))
		return FGIT_ENOMEM;
	memcpy(w->arena[begin / KIDS_BLOCK], x->codes, x->ncodes);
	for (i = begin; i < end; i++)
		if (x->at[i - begin] != SIZE_MAX)
			w->kids[w->treepos[i]] = w->arena[begin / KIDS_BLOCK] + x->at[i - begin];
	return 0;
}

/*
 * Every tree's entries, in blocks of KIDS_BLOCK trees.  Trees are read in
 * pack order, where a delta's base was usually read just before (the
 * delta base cache hits), on all threads.
 */
static int read_trees_chunk(size_t begin, size_t end, int worker, void *payload)
{
	struct bw *w = payload;
	struct tree_scratch x;
	size_t b, next;
	int ret = 0;

	memset(&x, 0, sizeof(x));
	if (!(x.at = malloc(KIDS_BLOCK * sizeof(*x.at))))
		return FGIT_ENOMEM;
	for (b = begin; !ret && b < end; b = next) {
		next = (b / KIDS_BLOCK + 1) * KIDS_BLOCK;
		if (next > end)
			next = end;
		ret = read_block(w, &x, b, next);
	}
	free(x.ids);
	free(x.v);
	free(x.codes);
	free(x.at);
	return ret;
}

static int push(struct u32vec *s, uint32_t x)
{
	if (s->n == s->alloc) {
		size_t na = s->alloc ? s->alloc * 2 : 256;
		uint32_t *nv = realloc(s->v, na * sizeof(*nv));
		if (!nv)
			return FGIT_ENOMEM;
		s->v = nv;
		s->alloc = na;
	}
	s->v[s->n++] = x;
	return 0;
}

/*
 * OR the old bitmap's set of commit c, its bits moved to the new pack
 * order, into r: 0, or -1 (r untouched) when the old set names an object
 * the new pack lacks or cannot be decoded; c is then walked.
 */
static int or_old(struct bw *w, uint64_t *r, struct bcommit *c)
{
	const uint64_t *bits = pack_old_bitmap_bits(w->old, c->old);
	size_t k, nw = ((size_t)w->old_nr + 63) / 64;

	for (k = 0; bits && k < nw; k++) {
		uint64_t x = bits[k];
		for (; x; x &= x - 1) {
			size_t p = k * 64 + (size_t)__builtin_ctzll(x);
			if (p >= w->old_nr || w->old2new[p] == NONE)
				bits = NULL;
		}
	}
	if (!bits) {
		c->old = -1;
		return -1;
	}
	for (k = 0; k < nw; k++) {
		uint64_t x = bits[k];
		for (; x; x &= x - 1)
			bit_set(r, w->old2new[k * 64 + (size_t)__builtin_ctzll(x)]);
	}
	return 0;
}

/* The set of commit `ci` into r (zeroed by the caller). */
static int build_one(struct bw *w, uint64_t *r, uint32_t ci, struct u32vec *stack,
		     struct u32vec *trees)
{
	size_t k, i;
	int ret;

	stack->n = trees->n = 0;
	if ((ret = push(stack, ci)) < 0)
		return ret;
	while (stack->n) {
		struct bcommit *c = &w->c[stack->v[--stack->n]];
		if (bit_test(r, c->pos))
			continue;
		if (c->bits && c != &w->c[ci]) {
			for (k = 0; k < w->nwords; k++)
				r[k] |= c->bits[k];
			continue;
		}
		if (c->old >= 0 && or_old(w, r, c) == 0)
			continue;
		bit_set(r, c->pos);
		if ((ret = push(trees, c->tree)) < 0)
			return ret;
		for (i = c->nparents; i-- > 0;)
			if ((ret = push(stack, c->parents[i])) < 0)
				return ret;
	}
	for (i = 0; i < trees->n; i++)
		if (fill_tree(w, r, trees->v[i], 0) < 0)
			return report(w);
	return 0;
}

static int tip_cb(const char *name, const struct fgit_oid *oid, unsigned int flags,
		  void *payload)
{
	struct bw *w = payload;
	struct fgit_oid cur = *oid;
	int hops = 0;

	if (flags & FGIT_REF_BROKEN)
		return 0;
	for (;;) {
		long p = lookup(w, &cur);
		void *buf;
		size_t len;
		enum fgit_object_type t;
		struct fgit_tag tag;

		if (p < 0)
			return 0;
		if (w->commit_of[p] != NONE) {
			w->c[w->commit_of[p]].tip = 1;
			return 0;
		}
		if (w->s->type[p] != FGIT_OBJ_TAG || ++hops > 100 ||
		    fgit_odb_read(&buf, &len, &t, w->odb, &cur) < 0)
			return 0;
		if (t != FGIT_OBJ_TAG || fgit_tag_parse(&tag, buf, len, FGIT_HASH_SHA1) < 0) {
			free(buf);
			return 0;
		}
		cur = tag.object;
		free(buf);
	}
}

static int cmp_newest(const void *a, const void *b, void *arg)
{
	const struct bcommit *c = arg;
	const struct bcommit *x = &c[*(const uint32_t *)a], *y = &c[*(const uint32_t *)b];
	if (x->date != y->date)
		return x->date > y->date ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* How many commits to pass over after the i-th newest one. */
static uint32_t spacing(uint32_t i)
{
	if (i < 100)
		return 0;
	if (i < 20000)
		return i - 100 < 100 ? i - 100 : 100;
	i -= 20000;
	return i < 100 ? 100 : i > 5000 ? 5000 : i;
}

/* Selected commit numbers, oldest first, into *out (malloc'd). */
static int select_commits(uint32_t **out, uint32_t *nout, struct bw *w)
{
	uint32_t *order = malloc(((size_t)w->nc + 1) * sizeof(*order));
	uint32_t *sel = malloc(((size_t)w->nc + 1) * sizeof(*sel));
	uint32_t i, n = 0, last;

	if (!order || !sel) {
		free(order);
		free(sel);
		return FGIT_ENOMEM;
	}
	for (i = 0; i < w->nc; i++)
		order[i] = i;
	qsort_r(order, w->nc, sizeof(*order), cmp_newest, w->c);
	/*
	 * With an old bitmap, its selection stays where it has one: the
	 * commits newer than its newest are selected as usual, the older
	 * ones are those it has a set for (each built from that set, and
	 * the walk from a commit in between would run back to the next of
	 * them: on the history corpus git's are up to 5,000 commits apart
	 * in the oldest part, and walking there cost more than remapping
	 * every old set; selecting the tips it lacks too walked back as far
	 * and took 8 s of CPU and 120 MB more instead of 4.8 s).
	 */
	last = 0;
	if (w->old)
		while (last < w->nc && w->c[order[last]].old < 0)
			last++;
	else
		last = w->nc;
	for (i = 0; i < last;) {
		uint32_t end = i + spacing(i), j, pick;
		if (end >= last)
			end = last - 1;
		pick = end;
		for (j = i; j <= end; j++)
			if (w->c[order[j]].tip) {
				pick = j;
				break;
			}
		sel[n++] = order[pick];
		i = pick + 1;
	}
	for (i = last; i < w->nc; i++)
		if (w->c[order[i]].old >= 0)
			sel[n++] = order[i];
	for (i = 0; i < n / 2; i++) {
		uint32_t t = sel[i];
		sel[i] = sel[n - 1 - i];
		sel[n - 1 - i] = t;
	}
	free(order);
	*out = sel;
	*nout = n;
	return 0;
}

static int add_be32(struct fgit_buf *b, uint32_t v)
{
	unsigned char p[4] = { (unsigned char)(v >> 24), (unsigned char)(v >> 16),
			       (unsigned char)(v >> 8), (unsigned char)v };
	return fgit_buf_add(b, p, 4);
}

/* A type index: bit n set when object n is of type t; git's bit count is
 * the last set bit + 1. */
static int write_type(struct fgit_buf *out, const struct bw *w, uint64_t *scratch, int t)
{
	uint32_t i, last = 0;
	int any = 0;

	memset(scratch, 0, w->nwords * 8);
	for (i = 0; i < w->s->nr; i++)
		if (w->s->type[i] == t) {
			bit_set(scratch, i);
			last = i;
			any = 1;
		}
	return fgit_ewah_write(out, scratch, any ? last / 64 + 1 : 0, any ? last + 1 : 0);
}

int pack_bitmap_write(struct fgit_buf *out, const struct bitmap_src *s, struct fgit_odb *odb,
		      struct fgit_refdb *refdb, int nthreads, int progress_fd)
{
	return pack_bitmap_write_reusing(out, s, NULL, odb, refdb, nthreads, progress_fd);
}

/*
 * Where the old bitmap can say: each commit's entry in it, and the map
 * from its positions to the new ones (objects by id through the id table).
 */
static int prepare_old(struct bw *w)
{
	uint32_t i;
	long p;

	w->old_nr = pack_old_bitmap_count(w->old);
	if (!(w->old2new = malloc(((size_t)w->old_nr + 1) * sizeof(*w->old2new))))
		return FGIT_ENOMEM;
	for (i = 0; i < w->old_nr; i++) {
		p = lookup_raw(w, pack_old_bitmap_id(w->old, i));
		w->old2new[i] = p < 0 ? NONE : (uint32_t)p;
	}
	for (i = 0; i < w->nc; i++)
		w->c[i].old = pack_old_bitmap_find(w->old, &w->s->oid[w->c[i].pos]);
	return 0;
}

int pack_bitmap_write_reusing(struct fgit_buf *out, const struct bitmap_src *s,
			      struct pack_old_bitmap *old, struct fgit_odb *odb,
			      struct fgit_refdb *refdb, int nthreads, int progress_fd)
{
	struct bw w;
	struct u32vec stack = { NULL, 0, 0 }, trees = { NULL, 0, 0 };
	uint32_t *sel = NULL, *rank = NULL, nsel = 0, i;
	uint64_t *scratch = NULL;
	struct fgit_progress *prog = NULL;
	struct fgit_hash_ctx h;
	unsigned char sum[FGIT_MAX_RAWSZ];
	size_t start = out->len, k;
	int t, ret = 0;

	memset(&w, 0, sizeof(w));
	w.s = s;
	w.odb = odb;
	w.old = old;
	w.nwords = ((size_t)s->nr + 63) / 64;
	w.sorted = malloc(((size_t)s->nr + 1) * sizeof(*w.sorted));
	w.commit_of = malloc(((size_t)s->nr + 1) * sizeof(*w.commit_of));
	rank = malloc(((size_t)s->nr + 1) * sizeof(*rank));
	scratch = calloc(w.nwords + 1, 8);
	if (!w.sorted || !w.commit_of || !rank || !scratch) {
		ret = FGIT_ENOMEM;
		goto out;
	}
	for (i = 0; i < s->nr; i++) {
		w.sorted[i] = i;
		w.commit_of[i] = NONE;
		if (s->type[i] == FGIT_OBJ_COMMIT)
			w.nc++;
	}
	qsort_r(w.sorted, s->nr, sizeof(*w.sorted), cmp_oid_pos, (void *)s);
	for (i = 0; i < s->nr; i++)
		rank[w.sorted[i]] = i;
	free(w.sorted);
	w.sorted = NULL;
	for (w.mask = 1; w.mask < (size_t)s->nr * 2; w.mask <<= 1)
		;
	if (!(w.ht = calloc(w.mask, sizeof(*w.ht)))) {
		ret = FGIT_ENOMEM;
		goto out;
	}
	w.mask--;
	for (i = 0; i < s->nr; i++) {
		size_t k = slot_of(&w, &s->oid[i]);
		while (w.ht[k].bitp1)
			k = (k + 1) & w.mask;
		memcpy(w.ht[k].hash, s->oid[i].hash, 20);
		w.ht[k].bitp1 = i + 1;
	}
	w.c = calloc((size_t)w.nc + 1, sizeof(*w.c));
	if (!w.c) {
		ret = FGIT_ENOMEM;
		goto out;
	}
	w.nc = 0;
	for (i = 0; i < s->nr; i++)
		if (s->type[i] == FGIT_OBJ_COMMIT) {
			w.commit_of[i] = w.nc;
			w.c[w.nc].old = -1;
			w.c[w.nc++].pos = i;
		}
	if (old && (ret = prepare_old(&w)) < 0)
		goto out;

	/* every commit, parsed once, in parallel (reads are independent) */
	if (progress_fd >= 0 && s->select_meter)
		prog = fgit_progress_new("Selecting bitmap commits", 0, progress_fd, 0);
	ret = fgit_parallel_for(w.nc, 256, nthreads, parse_chunk, &w);
	if (ret < 0 || w.failed) {
		fgit_progress_done(prog);
		prog = NULL;
		ret = w.failed ? report(&w) : ret;
		goto out;
	}
	if (s->tips) {
		size_t k;
		for (k = 0; k < s->ntips; k++)
			tip_cb(NULL, &s->tips[k], 0, &w);
	} else if (refdb && (ret = fgit_refdb_foreach(refdb, "refs/", tip_cb, &w)) < 0) {
		goto out;
	}
	if ((ret = select_commits(&sel, &nsel, &w)) < 0)
		goto out;
	fgit_progress_set(prog, w.nc);
	fgit_progress_done(prog);
	prog = NULL;

	/*
	 * every tree's entries, once; with an old bitmap, only the trees of
	 * commits it has no set for are read, when they are filled (repack
	 * -ad of the history corpus, one run each under a load average of
	 * 10-12: 8.4 s user + 1.1 s sys before, 4.8 s + 1.2 s with the 310
	 * old sets remapped and no tree read)
	 */
	w.kids = calloc((size_t)s->nr + 1, sizeof(*w.kids));
	w.nkids = calloc((size_t)s->nr + 1, sizeof(*w.nkids));
	w.treepos = malloc(((size_t)s->nr + 1) * sizeof(*w.treepos));
	w.arena = calloc((size_t)s->nr / KIDS_BLOCK + 1, sizeof(*w.arena));
	if (!w.kids || !w.nkids || !w.treepos || !w.arena) {
		ret = FGIT_ENOMEM;
		goto out;
	}
	for (i = 0; i < s->nr && !old; i++)
		if (s->type[i] == FGIT_OBJ_TREE)
			w.treepos[w.ntrees++] = i;
	fgit_odb_drop_cache(odb);
	fgit_odb_set_cache_limit(odb, TREES_CACHE_LIMIT);
	ret = fgit_parallel_for(w.ntrees, KIDS_BLOCK, nthreads, read_trees_chunk, &w);
	fgit_odb_drop_cache(odb);
	fgit_odb_set_cache_limit(odb, 0);
	if (ret < 0)
		goto out;
	/* the id table (25 MB on the history corpus) is not needed to build
	 * unless a tree is to be read again, to report what is wrong in it */
	for (i = 0; i < w.ntrees && w.kids[w.treepos[i]]; i++)
		;
	if (!old && i == w.ntrees) {
		free(w.ht);
		w.ht = NULL;
	}

	if (progress_fd >= 0)
		prog = fgit_progress_new("Building bitmaps", nsel, progress_fd, 0);
	for (i = 0; i < nsel; i++) {
		struct bcommit *c = &w.c[sel[i]];
		if (!(c->bits = calloc(w.nwords + 1, 8))) {
			ret = FGIT_ENOMEM;
			goto out;
		}
		if ((ret = build_one(&w, c->bits, sel[i], &stack, &trees)) < 0)
			goto out;
		fgit_progress_set(prog, i + 1);
	}
	fgit_progress_done(prog);
	prog = NULL;

	/* the file */
	if ((ret = fgit_buf_add(out, "BITM\0\1", 6)) < 0 ||
	    (ret = fgit_buf_add(out, (const unsigned char[]){ 0, BITMAP_OPT_FULL_DAG |
			    (s->name_hash ? BITMAP_OPT_HASH_CACHE : 0) }, 2)) < 0 ||
	    (ret = add_be32(out, nsel)) < 0 || (ret = fgit_buf_add(out, s->pack_hash, 20)) < 0)
		goto out;
	for (t = FGIT_OBJ_COMMIT; t <= FGIT_OBJ_TAG; t++)
		if ((ret = write_type(out, &w, scratch, t)) < 0)
			goto out;
	for (i = 0; i < nsel; i++) {
		const uint64_t *bits = w.c[sel[i]].bits;
		size_t best = fgit_ewah_cost(bits, w.nwords), cost;
		uint32_t j, xo = 0;
		for (j = 1; j <= MAX_XOR_TRIES && j <= i; j++) {
			const uint64_t *base = w.c[sel[i - j]].bits;
			for (k = 0; k < w.nwords; k++)
				scratch[k] = bits[k] ^ base[k];
			if ((cost = fgit_ewah_cost(scratch, w.nwords)) < best) {
				best = cost;
				xo = j;
			}
		}
		if (xo) {
			const uint64_t *base = w.c[sel[i - xo]].bits;
			for (k = 0; k < w.nwords; k++)
				scratch[k] = bits[k] ^ base[k];
			bits = scratch;
		}
		if ((ret = add_be32(out, rank[w.c[sel[i]].pos])) < 0 ||
		    (ret = fgit_buf_add(out, (const unsigned char[]){ (unsigned char)xo, 0 }, 2)) < 0 ||
		    (ret = fgit_ewah_write(out, bits, w.nwords, (uint32_t)(w.nwords * 64))) < 0)
			goto out;
	}
	if (s->name_hash)
		for (i = 0; i < s->nr; i++)
			if ((ret = add_be32(out, s->name_hash[i])) < 0)
				goto out;
	fgit_checksum_init(&h, FGIT_HASH_SHA1);
	fgit_checksum_update(&h, out->ptr + start, out->len - start);
	fgit_checksum_final(sum, &h);
	ret = fgit_buf_add(out, sum, 20);
out:
	fgit_progress_done(prog);
	if (w.c)
		for (i = 0; i < w.nc; i++) {
			free(w.c[i].parents);
			free(w.c[i].bits);
		}
	free(w.c);
	if (w.arena)
		for (i = 0; i <= s->nr / KIDS_BLOCK; i++)
			free(w.arena[i]);
	free(w.arena);
	free(w.kids);
	free(w.nkids);
	free(w.treepos);
	free(w.sorted);
	free(w.ht);
	free(w.commit_of);
	free(w.old2new);
	free(rank);
	free(scratch);
	free(sel);
	free(stack.v);
	free(trees.v);
	if (ret < 0)
		fgit_buf_setlen(out, start);
	return ret;
}
